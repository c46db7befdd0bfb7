//! The third-party doubles over HTTP: card tokenizer, captcha, identity verification,
//! outbox, tiles and the scripts the browser loads.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::TestSandbox;
use sandbox::SandboxError;
use sandbox::thirdparty::{captcha, idv, outbox, payment};
use serde_json::{Value, json};

const LOGIN_ID: &str = "sandbox-login-id";
const CLIENT_KEY: &str = "sandbox-public-client-key";

fn secure_data(number: &str, month: &str, year: &str, code: &str) -> Value {
    json!({
        "authData": {"clientKey": CLIENT_KEY, "apiLoginID": LOGIN_ID},
        "cardData": {"cardNumber": number, "month": month, "year": year, "cardCode": code},
    })
}

async fn tokenize(sandbox: &TestSandbox, body: Value) -> Value {
    let (status, answer) = sandbox.post("/3p/accept/v1/tokens", None, body).await;
    assert_eq!(
        status, 200,
        "Authorize.net answers 200 with a resultCode: {answer}"
    );
    answer
}

fn first_message(answer: &Value) -> (&str, &str) {
    assert_eq!(answer["messages"]["resultCode"], "Error", "{answer}");
    assert!(answer.get("opaqueData").is_none());
    let message = &answer["messages"]["message"][0];
    (
        message["code"].as_str().unwrap(),
        message["text"].as_str().unwrap(),
    )
}

fn redeem(sandbox: &TestSandbox, token: &str) -> Result<payment::Card, SandboxError> {
    sandbox.state.db.call(|conn| payment::redeem(conn, token))
}

#[tokio::test]
async fn each_test_card_tokenizes_and_redeems_once() {
    let sandbox = common::start().await;
    for (number, code, brand, last4) in [
        ("4111111111111111", "123", "Visa", "1111"),
        ("5424 0000 0000 0015", "123", "Mastercard", "0015"),
        ("370000000000002", "1234", "American Express", "0002"),
        ("6011000000000012", "123", "Discover", "0012"),
    ] {
        let answer = tokenize(&sandbox, secure_data(number, "12", "2035", code)).await;
        assert_eq!(answer["messages"]["resultCode"], "Ok", "{number}: {answer}");
        assert_eq!(
            answer["messages"]["message"][0],
            json!({"code": "I_WC_01", "text": "Successful."})
        );
        assert_eq!(
            answer["opaqueData"]["dataDescriptor"],
            "COMMON.ACCEPT.INAPP.PAYMENT"
        );
        let token = answer["opaqueData"]["dataValue"].as_str().unwrap();
        let card = redeem(&sandbox, token).unwrap();
        assert_eq!((card.brand.as_str(), card.last4.as_str()), (brand, last4));
        assert!(matches!(
            redeem(&sandbox, token),
            Err(SandboxError::Validation { .. })
        ));
    }
    sandbox.stop().await;
}

#[tokio::test]
async fn the_declined_card_tokenizes_but_is_refused_at_redemption() {
    let sandbox = common::start().await;
    let answer = tokenize(&sandbox, secure_data("4000300011112220", "01", "35", "123")).await;
    assert_eq!(answer["messages"]["resultCode"], "Ok");
    let token = answer["opaqueData"]["dataValue"].as_str().unwrap();
    match redeem(&sandbox, token) {
        Err(SandboxError::Unprocessable(message)) => {
            assert_eq!(message, "This transaction has been declined.");
        }
        other => panic!("expected a decline, got {other:?}"),
    }
    sandbox.stop().await;
}

#[tokio::test]
async fn bad_card_data_gets_authorize_net_errors() {
    let sandbox = common::start().await;
    let cases = [
        (
            secure_data("4111111111111112", "12", "2035", "123"),
            "E_WC_05",
            "Please provide valid credit card number.",
        ),
        (
            secure_data("4111111111111111", "01", "2020", "123"),
            "E_WC_08",
            "Expiration date must be in the future.",
        ),
        (
            secure_data("4111111111111111", "13", "2035", "123"),
            "E_WC_06",
            "Please provide valid expiration month.",
        ),
        (
            secure_data("4111111111111111", "12", "203", "123"),
            "E_WC_07",
            "Please provide valid expiration year.",
        ),
        (
            secure_data("4111111111111111", "12", "2035", "12"),
            "E_WC_15",
            "Please provide valid CVV.",
        ),
        (
            secure_data("370000000000002", "12", "2035", "123"),
            "E_WC_15",
            "Please provide valid CVV.",
        ),
        (
            json!({"authData": {"clientKey": "wrong-key", "apiLoginID": LOGIN_ID},
                   "cardData": {"cardNumber": "4111111111111111", "month": "12", "year": "2035", "cardCode": "123"}}),
            "E_WC_21",
            "User authentication failed due to invalid authentication values.",
        ),
        (
            json!({"authData": {"clientKey": CLIENT_KEY},
                   "cardData": {"cardNumber": "4111111111111111", "month": "12", "year": "2035", "cardCode": "123"}}),
            "E_WC_10",
            "Please provide valid apiLoginID.",
        ),
        (
            json!({"authData": {"apiLoginID": LOGIN_ID},
                   "cardData": {"cardNumber": "4111111111111111", "month": "12", "year": "2035", "cardCode": "123"}}),
            "E_WC_18",
            "Client Key is required.",
        ),
        (
            json!({"authData": {"clientKey": CLIENT_KEY, "apiLoginID": LOGIN_ID},
                   "cardData": {"month": "12", "year": "2035", "cardCode": "123"}}),
            "E_WC_04",
            "Please provide mandatory fields.",
        ),
    ];
    for (body, code, text) in cases {
        let answer = tokenize(&sandbox, body.clone()).await;
        assert_eq!(first_message(&answer), (code, text), "{body}");
    }
    sandbox.stop().await;
}

#[tokio::test]
async fn browser_endpoints_answer_cors_preflights() {
    let sandbox = common::start().await;
    for path in ["/3p/accept/v1/tokens", "/3p/recaptcha/api/token"] {
        let response = sandbox
            .client
            .request(reqwest::Method::OPTIONS, sandbox.url(path))
            .header("Origin", "http://localhost:8080")
            .header("Access-Control-Request-Method", "POST")
            .header("Access-Control-Request-Headers", "content-type")
            .send()
            .await;
        assert_eq!(response.status(), 204, "{path}");
        let header = |name: &str| response.headers()[name].to_str().unwrap().to_owned();
        assert_eq!(header("access-control-allow-origin"), "*");
        assert!(header("access-control-allow-methods").contains("POST"));
        assert_eq!(header("access-control-allow-headers"), "content-type");
    }
    let response = sandbox
        .client
        .post(sandbox.url("/3p/accept/v1/tokens"))
        .header("Origin", "http://localhost:8080")
        .json(&secure_data("4111111111111111", "12", "2035", "123"))
        .send()
        .await;
    assert_eq!(response.headers()["access-control-allow-origin"], "*");
    sandbox.stop().await;
}

async fn widget_token(sandbox: &TestSandbox) -> String {
    let (status, answer) = sandbox
        .post(
            "/3p/recaptcha/api/token",
            None,
            json!({"sitekey": "sandbox-site-key"}),
        )
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["expiresIn"], 120);
    answer["token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn captcha_widget_tokens_verify_once() {
    let sandbox = common::start().await;
    let token = widget_token(&sandbox).await;
    let verify = |token: &str| {
        sandbox
            .state
            .db
            .call(|conn| captcha::verify(conn, token))
            .unwrap()
    };
    assert!(verify(&token));
    assert!(!verify(&token));

    let token = widget_token(&sandbox).await;
    let require = |token: Option<&str>| sandbox.state.db.call(|conn| captcha::require(conn, token));
    assert!(require(Some(&token)).is_ok());
    assert!(matches!(
        require(Some(&token)),
        Err(SandboxError::Validation { .. })
    ));
    assert!(require(None).is_err());
    assert!(require(Some(captcha::FIXED_TOKEN)).is_ok());
    sandbox.stop().await;
}

#[tokio::test]
async fn captcha_refuses_unknown_site_keys() {
    let sandbox = common::start().await;
    let (status, answer) = sandbox
        .post(
            "/3p/recaptcha/api/token",
            None,
            json!({"sitekey": "someone-elses-key"}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(answer["message"], "Invalid site key");
    let (status, _) = sandbox
        .post("/3p/recaptcha/api/token", None, json!({}))
        .await;
    assert_eq!(status, 400);
    sandbox.stop().await;
}

async fn siteverify(sandbox: &TestSandbox, form: &[(&str, &str)]) -> Value {
    let response = sandbox
        .client
        .post(sandbox.url("/3p/recaptcha/api/siteverify"))
        .form(form)
        .send()
        .await;
    assert_eq!(response.status(), 200);
    response.json().unwrap()
}

#[tokio::test]
async fn siteverify_answers_like_google() {
    let sandbox = common::start().await;
    let secret = captcha::SECRET_KEY;
    let token = widget_token(&sandbox).await;

    let first = siteverify(&sandbox, &[("secret", secret), ("response", &token)]).await;
    assert_eq!(first["success"], true, "{first}");
    assert!(first["challenge_ts"].is_string());
    let again = siteverify(&sandbox, &[("secret", secret), ("response", &token)]).await;
    assert_eq!(
        again,
        json!({"success": false, "error-codes": ["timeout-or-duplicate"]})
    );

    let fixed = siteverify(
        &sandbox,
        &[("secret", secret), ("response", captcha::FIXED_TOKEN)],
    )
    .await;
    assert_eq!(fixed["success"], true);

    for (form, code) in [
        (
            vec![("secret", secret), ("response", "never-issued")],
            "invalid-input-response",
        ),
        (vec![("secret", secret)], "missing-input-response"),
        (
            vec![("secret", "wrong"), ("response", captcha::FIXED_TOKEN)],
            "invalid-input-secret",
        ),
        (
            vec![("response", captcha::FIXED_TOKEN)],
            "missing-input-secret",
        ),
    ] {
        let answer = siteverify(&sandbox, &form).await;
        assert_eq!(
            answer,
            json!({"success": false, "error-codes": [code]}),
            "{form:?}"
        );
    }
    sandbox.stop().await;
}

const REDIRECT_URI: &str = "http://localhost:8080/account/le-mil?from=account";

fn start_verification(sandbox: &TestSandbox, user_id: i64) -> String {
    let public_url = sandbox.state.public_url().to_owned();
    sandbox
        .state
        .db
        .call(|conn| idv::start(conn, user_id, REDIRECT_URI, &public_url))
        .unwrap()
}

/// Opens the authorization page and answers it; returns the redirect's code and state.
async fn answer_verification(sandbox: &TestSandbox, url: &str, decision: &str) -> (String, String) {
    let page = sandbox.client.get(url).send().await;
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text();
    assert!(html.contains("VeriPass"));
    assert!(html.contains(">Approve</button>"));
    assert!(html.contains(">Reject</button>"));
    assert!(html.contains("localhost:8080"));
    let state = url.split_once("state=").unwrap().1.to_owned();

    let response = sandbox
        .client
        .post(sandbox.url("/3p/idv/authorize"))
        .form(&[("state", state.as_str()), ("decision", decision)])
        .send()
        .await;
    assert_eq!(response.status(), 303);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let query = location
        .strip_prefix("http://localhost:8080/account/le-mil?from=account&")
        .unwrap_or_else(|| panic!("redirects to the stored redirect_uri: {location}"));
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
            .unwrap()
            .to_owned()
    };
    assert_eq!(param("state"), state);
    (param("code"), param("state"))
}

#[tokio::test]
async fn identity_verification_approve_then_exchange_once() {
    let sandbox = common::start().await;
    let url = start_verification(&sandbox, 42);
    assert!(url.starts_with(&format!("{}/3p/idv/authorize?state=", sandbox.base)));
    let (code, state) = answer_verification(&sandbox, &url, "approve").await;

    let exchange = |code: &str, state: &str| {
        sandbox
            .state
            .db
            .call(|conn| idv::exchange(conn, code, state))
    };
    assert!(matches!(
        exchange(&code, "some-other-state"),
        Err(SandboxError::BadRequest(_))
    ));
    assert!(matches!(
        exchange("some-other-code", &state),
        Err(SandboxError::BadRequest(_))
    ));
    let outcome = exchange(&code, &state).unwrap();
    assert_eq!(
        outcome,
        idv::IdvOutcome {
            user_id: 42,
            verified: true
        }
    );
    assert!(matches!(
        exchange(&code, &state),
        Err(SandboxError::BadRequest(_))
    ));

    // The request is answered: neither the page nor a second answer work again.
    assert_eq!(
        sandbox.get(&url.replace(&sandbox.base, "")).await.status(),
        409
    );
    let again = sandbox
        .client
        .post(sandbox.url("/3p/idv/authorize"))
        .form(&[("state", state.as_str()), ("decision", "reject")])
        .send()
        .await;
    assert_eq!(again.status(), 409);
    sandbox.stop().await;
}

#[tokio::test]
async fn identity_verification_reject_exchanges_as_unverified() {
    let sandbox = common::start().await;
    let url = start_verification(&sandbox, 7);
    let (code, state) = answer_verification(&sandbox, &url, "reject").await;
    let outcome = sandbox
        .state
        .db
        .call(|conn| idv::exchange(conn, &code, &state))
        .unwrap();
    assert_eq!(
        outcome,
        idv::IdvOutcome {
            user_id: 7,
            verified: false
        }
    );
    sandbox.stop().await;
}

#[tokio::test]
async fn identity_verification_refuses_bad_requests() {
    let sandbox = common::start().await;
    assert_eq!(
        sandbox
            .get("/3p/idv/authorize?state=unknown")
            .await
            .status(),
        404
    );
    assert_eq!(sandbox.get("/3p/idv/authorize").await.status(), 404);
    let answer = sandbox
        .client
        .post(sandbox.url("/3p/idv/authorize"))
        .form(&[("state", "unknown"), ("decision", "approve")])
        .send()
        .await;
    assert_eq!(answer.status(), 404);
    assert!(answer.headers().get("location").is_none());

    let url = start_verification(&sandbox, 1);
    let state = url.split_once("state=").unwrap().1;
    let answer = sandbox
        .client
        .post(sandbox.url("/3p/idv/authorize"))
        .form(&[
            ("state", state),
            ("decision", "maybe"),
            ("redirect_uri", "https://evil.example/"),
        ])
        .send()
        .await;
    assert_eq!(answer.status(), 400);

    let public_url = sandbox.state.public_url().to_owned();
    for redirect in [
        "/account/le-mil",
        "javascript:alert(1)",
        "https://x.example/#f",
    ] {
        assert!(
            sandbox
                .state
                .db
                .call(|conn| idv::start(conn, 1, redirect, &public_url))
                .is_err(),
            "{redirect}"
        );
    }
    sandbox.stop().await;
}

/// Issue 46, finding 5: the outbox (every e-mail sent, with its verification and reset links)
/// answered any origin with `Access-Control-Allow-Origin: *`, so any page could read it from a
/// developer's browser. It answers its own origin only.
#[tokio::test]
async fn the_outbox_answers_its_own_origin_only() {
    let sandbox = common::start().await;
    let read = sandbox
        .client
        .get(sandbox.url("/3p/outbox.json"))
        .header("Origin", "https://evil.example")
        .send()
        .await;
    assert_eq!(read.status(), 200, "its own pages and tools still read it");
    assert!(
        read.headers().get("access-control-allow-origin").is_none(),
        "{:?}",
        read.headers()
    );
    let preflight = sandbox
        .client
        .request(reqwest::Method::OPTIONS, sandbox.url("/3p/outbox.json"))
        .header("Origin", "https://evil.example")
        .header("Access-Control-Request-Method", "GET")
        .send()
        .await;
    assert!(
        preflight
            .headers()
            .get("access-control-allow-origin")
            .is_none(),
        "{:?}",
        preflight.headers()
    );
    sandbox.stop().await;
}

#[tokio::test]
async fn outbox_lists_sent_email_as_json_and_html() {
    let sandbox = common::start().await;
    let send = |recipient: &str, subject: &str, link: Option<&str>| {
        let email = outbox::Email {
            recipient: recipient.to_owned(),
            kind: "verification".to_owned(),
            subject: subject.to_owned(),
            body: "Confirm your e-mail address.\nThanks!".to_owned(),
            link: link.map(str::to_owned),
        };
        sandbox
            .state
            .db
            .call(|conn| outbox::send(conn, &email, &sandbox::clock::now_rfc3339()))
            .unwrap();
    };
    send("older@example.test", "Older mail", None);
    send(
        "shopper@example.test",
        "Verify <your> account & more",
        Some("http://localhost:8080/verify?token=abc&x=1"),
    );

    let (status, list) = sandbox.get_json("/3p/outbox.json").await;
    assert_eq!(status, 200);
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["subject"], "Verify <your> account & more");
    assert_eq!(list[0]["recipient"], "shopper@example.test");
    assert_eq!(list[0]["kind"], "verification");
    assert_eq!(
        list[0]["link"],
        "http://localhost:8080/verify?token=abc&x=1"
    );
    assert!(list[0]["sentAt"].is_string());
    assert!(list[0]["id"].is_i64());
    assert_eq!(list[1]["subject"], "Older mail");
    assert_eq!(list[1]["link"], Value::Null);

    let (_, filtered) = sandbox
        .get_json("/3p/outbox.json?to=OLDER%40example.test")
        .await;
    assert_eq!(filtered.as_array().unwrap().len(), 1);
    assert_eq!(filtered[0]["subject"], "Older mail");

    let page = sandbox.get("/3p/outbox").await;
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text();
    assert!(html.contains("Verify &lt;your&gt; account &amp; more"));
    assert!(!html.contains("Verify <your>"));
    assert!(html.contains(r#"<a href="http://localhost:8080/verify?token=abc&amp;x=1">"#));
    assert!(
        html.find("Verify &lt;your&gt;").unwrap() < html.find("Older mail").unwrap(),
        "newest first"
    );
    let filtered = sandbox
        .get("/3p/outbox?to=older%40example.test")
        .await
        .text();
    assert!(filtered.contains("Older mail"));
    assert!(!filtered.contains("Verify &lt;your&gt;"));
    sandbox.stop().await;
}

#[tokio::test]
async fn tiles_are_pngs() {
    let sandbox = common::start().await;
    let response = sandbox.get("/3p/tiles/3/2/5.png").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    let bytes = response.bytes();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(&bytes[12..16], b"IHDR");
    assert_eq!(&bytes[16..24], &[0, 0, 1, 0, 0, 0, 1, 0], "256x256");
    assert!(bytes.ends_with(b"IEND\xae\x42\x60\x82"));
    for missing in [
        "/3p/tiles/3/8/0.png",
        "/3p/tiles/1/0/0.jpg",
        "/3p/tiles/30/0/0.png",
    ] {
        assert_eq!(sandbox.get(missing).await.status(), 404, "{missing}");
    }
    sandbox.stop().await;
}

#[tokio::test]
async fn scripts_and_the_builder_page_are_served() {
    let sandbox = common::start().await;
    for (path, marker, calls_sandbox) in [
        ("/3p/accept/Accept.js", "dispatchData", true),
        ("/3p/recaptcha/api.js", "grecaptcha", true),
        (
            "/3p/recaptcha/api.js?onload=onCaptcha&render=explicit",
            "getResponse",
            true,
        ),
        ("/3p/reviews/widget.js", "refresh", false),
    ] {
        let response = sandbox.get(path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/javascript"),
            "{path}"
        );
        let source = response.text();
        assert!(source.contains(marker), "{path}");
        assert!(!source.contains("__SANDBOX_ORIGIN__"), "{path}");
        assert_eq!(
            source.contains(&format!("\"{}\"", sandbox.base)),
            calls_sandbox,
            "{path} falls back to the public URL for its calls"
        );
    }
    let builder = sandbox.get("/3p/builder/index.html").await;
    assert_eq!(builder.status(), 200);
    assert!(
        builder.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(
        builder.headers().get("x-frame-options").is_none(),
        "framed by the storefront"
    );
    let html = builder.text();
    assert!(html.contains("registerBridge"));
    assert!(html.contains("\"http://localhost:8080\""));
    sandbox.stop().await;
}
