//! The token handler against the sandbox, in process: one sealed HttpOnly cookie, tokens
//! injected and refreshed server-side, guest carts merged after sign-in, CSRF; and, over TCP,
//! the per-IP rate limit (keyed by the peer address, which only a socket gives).

#![allow(clippy::unwrap_used)]

use crate::assert_metric;
use crate::common;

use std::time::Duration;

use common::browser::{Answer, Browser, CAPTCHA, PASSWORD, SHOPPER};

use axum::body::Body;
use axum::http::{Method, Request};
use bff::config::Config;
use common::SandboxHooks;
use common::in_process::{InProcess, get_request, start_with_secrets};
use common::test_config;
use serde_json::{Value, json};

const RIFLE: &str = "TF-V15-556-16-BLK";

impl Browser<'_> {
    /// Adds `quantity` of the Vanguard 15 `sku`; the answer is the caller's to check.
    async fn add_vanguard(&mut self, sku: &str, quantity: i64) -> Answer {
        self.post(
            "/api/cart/items",
            json!({"productId": sku, "productName": "Vanguard 15", "quantity": quantity,
                   "options": [{"label": "Caliber", "value": "5.56"}], "productUrl": "/product/vanguard%2015"}),
        )
        .await
    }
}

async fn sandbox_requests_to(app: &InProcess, route: &str) -> Vec<Value> {
    app.sandbox_requests()
        .await
        .into_iter()
        .filter(|r| r["route"] == route)
        .collect()
}

fn quantities(cart: &Value) -> Vec<(String, i64)> {
    let mut lines: Vec<(String, i64)> = cart["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["productId"].as_str().unwrap().to_owned(),
                i["quantity"].as_i64().unwrap(),
            )
        })
        .collect();
    lines.sort();
    lines
}

async fn another_sku(app: &InProcess) -> String {
    let prices = app
        .sandbox(Request::get("/Products").body(Body::empty()).unwrap())
        .await
        .json();
    prices["products"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(code, p)| {
            *code != RIFLE && p["inStock"] == true && p["price"].as_f64().unwrap_or(0.0) > 0.0
        })
        .map(|(code, _)| code.clone())
        .unwrap()
}

#[tokio::test]
async fn a_guest_cart_is_merged_into_the_user_cart_at_sign_in() {
    let app = start_with_secrets(test_config(), &[]);
    let other = another_sku(&app).await;
    let mut browser = Browser::new(&app);
    assert_eq!(browser.add_vanguard(RIFLE, 1).await.status, 200);
    assert_eq!(browser.add_vanguard(&other, 1).await.status, 200);
    let cart = browser.add_vanguard(RIFLE, 1).await;
    assert_eq!(quantities(&cart.body), {
        let mut expected = vec![(RIFLE.to_owned(), 2), (other.clone(), 1)];
        expected.sort();
        expected
    });
    assert!(
        cart.body.get("guestId").is_none(),
        "the guest token never reaches the browser"
    );

    let login = browser.login().await;
    assert_eq!(login.status, 200, "{}", login.text);
    assert_eq!(login.body["signedIn"], true);
    assert_eq!(login.body["guest"], false, "the guest token is gone");
    let cart = browser.get("/api/cart").await;
    assert_eq!(cart.status, 200);
    assert!(quantities(&cart.body).contains(&(RIFLE.to_owned(), 2)));
    assert!(quantities(&cart.body).contains(&(other, 1)));
    assert_eq!(sandbox_requests_to(&app, "/Cart/merge").await.len(), 1);
}

#[tokio::test]
async fn a_failed_merge_loses_nothing_and_succeeds_on_the_next_cart_read() {
    let app = start_with_secrets(test_config(), &[]);
    let mut browser = Browser::new(&app);
    browser.add_vanguard(RIFLE, 3).await;
    app.inject_fault(json!({"route": "/Cart/merge", "errorStatus": 503}))
        .await;
    let login = browser.login().await;
    assert_eq!(
        login.status, 200,
        "sign-in succeeds even when the merge does not"
    );
    let cart = browser.get("/api/cart").await;
    assert!(
        !quantities(&cart.body).contains(&(RIFLE.to_owned(), 3)),
        "not merged yet"
    );

    app.clear_faults().await;
    let cart = browser.get("/api/cart").await;
    assert!(
        quantities(&cart.body).contains(&(RIFLE.to_owned(), 3)),
        "{}",
        cart.text
    );
    let merges = sandbox_requests_to(&app, "/Cart/merge").await.len();
    let again = browser.get("/api/cart").await;
    assert_eq!(quantities(&again.body), quantities(&cart.body));
    assert_eq!(
        sandbox_requests_to(&app, "/Cart/merge").await.len(),
        merges,
        "merged once, then done"
    );
    let metrics = app.metrics().await;
    assert_metric!(metrics, "bff_session_events_total", {"event" => "merge_failed"}, 2);
    assert_metric!(metrics, "bff_session_events_total", {"event" => "merge_retried"}, 2);
    assert_metric!(metrics, "bff_session_events_total", {"event" => "merge_ok"}, 1);
}

fn always_refresh() -> Config {
    let mut config = test_config();
    // Longer than the sandbox's 900 s tokens: every token is inside the margin.
    config.session.refresh_margin = Duration::from_millis(901_000);
    config
}

#[tokio::test]
async fn fifty_concurrent_requests_inside_the_margin_share_one_refresh() {
    let app = start_with_secrets(always_refresh(), &[]);
    let mut browser = Browser::new(&app);
    assert_eq!(browser.login().await.status, 200);
    let cookie = browser.cookie.clone().unwrap();
    let requests = (0..50).map(|_| async {
        let response = app
            .send(get_request("/api/session", &[("cookie", &cookie)]))
            .await;
        let status = response.status.as_u16();
        let renewed = response.headers.get("set-cookie").is_some();
        (status, renewed, response.json()["signedIn"].as_bool())
    });
    let answers: Vec<_> = futures::future::join_all(requests).await;
    assert!(
        answers
            .iter()
            .all(|(status, renewed, signed_in)| *status == 200
                && *renewed
                && *signed_in == Some(true))
    );
    assert_eq!(
        sandbox_requests_to(&app, "/Auth/refresh-token").await.len(),
        1
    );
}

#[tokio::test]
async fn a_refused_refresh_ends_the_session_with_session_expired() {
    let app = start_with_secrets(always_refresh(), &[]);
    let mut browser = Browser::new(&app);
    browser.login().await;
    app.inject_fault(json!({"route": "/Auth/refresh-token", "errorStatus": 401}))
        .await;
    let answer = browser.get("/api/session").await;
    assert_eq!(answer.status, 401);
    assert_eq!(answer.body["code"], "session_expired");
    assert!(
        answer.set_cookie.iter().any(|c| c.contains("Max-Age=0")),
        "the cookie is cleared"
    );
}

#[tokio::test]
async fn tampered_truncated_and_foreign_cookies_are_a_fresh_guest() {
    let app = start_with_secrets(test_config(), &[("BFF_SESSION_KEYS", "current-key")]);
    let mut browser = Browser::new(&app);
    browser.add_vanguard(RIFLE, 1).await;
    let good = browser.cookie.clone().unwrap();
    let (name, value) = good.split_once('=').unwrap();
    let mut flipped = value.to_owned().into_bytes();
    let at = flipped.len() - 5;
    flipped[at] = if flipped[at] == b'A' { b'B' } else { b'A' };
    let foreign = {
        let other = start_with_secrets(test_config(), &[("BFF_SESSION_KEYS", "retired-key")]);
        let mut stranger = Browser::new(&other);
        stranger.add_vanguard(RIFLE, 1).await;
        stranger.cookie.clone().unwrap()
    };
    for cookie in [
        format!("{name}={}", String::from_utf8(flipped).unwrap()),
        format!("{name}={}", &value[..value.len() / 2]),
        foreign,
    ] {
        let mut visitor = Browser::new(&app);
        visitor.cookie = Some(cookie.clone());
        let answer = visitor.get("/api/session").await;
        assert_eq!(answer.status, 200, "{cookie}");
        assert_eq!(answer.body["signedIn"], false);
        assert_eq!(answer.body["guest"], false);
        assert!(
            answer.set_cookie.iter().any(|c| c.contains("Max-Age=0")),
            "cleared: {cookie}"
        );
        let cart = visitor.get("/api/cart").await;
        assert_eq!(cart.body["items"], json!([]));
    }
}

#[tokio::test]
async fn after_key_rotation_a_session_still_works_and_is_resealed_with_the_new_key() {
    let before = start_with_secrets(test_config(), &[("BFF_SESSION_KEYS", "key-2025")]);
    let mut browser = Browser::new(&before);
    assert_eq!(browser.login().await.status, 200);
    let old_cookie = browser.cookie.clone().unwrap();

    let rotated = start_with_secrets(test_config(), &[("BFF_SESSION_KEYS", "key-2026,key-2025")]);
    let mut browser = Browser::new(&rotated);
    browser.cookie = Some(old_cookie.clone());
    let answer = browser.get("/api/session").await;
    assert_eq!(answer.body["signedIn"], true);
    assert_eq!(answer.body["user"]["email"], SHOPPER);
    let resealed = browser.cookie.clone().unwrap();
    assert_ne!(resealed, old_cookie, "resealed with the newest key");

    let retired = start_with_secrets(test_config(), &[("BFF_SESSION_KEYS", "key-2026")]);
    let mut browser = Browser::new(&retired);
    browser.cookie = Some(resealed);
    assert_eq!(browser.get("/api/session").await.body["signedIn"], true);
}

#[tokio::test]
async fn no_body_carries_a_token_and_the_cookie_is_http_only_secure_lax() {
    let mut config = test_config();
    config.server.public_origin = "https://shop.example".parse().unwrap();
    let app = start_with_secrets(config, &[]);
    let mut browser = Browser::new(&app);
    let mut answers = vec![browser.add_vanguard(RIFLE, 1).await];
    // Signed in from the https origin; the Secure cookie is kept by hand (as over plain http).
    let login = browser
        .send_with(
            Method::POST,
            "/api/auth/login",
            Some(json!({"email": SHOPPER, "password": PASSWORD, "captcha": CAPTCHA})),
            &[("origin", "https://shop.example")],
        )
        .await;
    let cookies = login.set_cookie;
    assert_eq!(login.status, 200);
    browser.cookie = Some(cookies[0].split(';').next().unwrap().to_owned());
    let login_text = login.text;
    answers.push(browser.get("/api/session").await);
    answers.push(browser.get("/api/cart").await);

    for cookie in &cookies {
        assert!(cookie.starts_with("__Host-session="), "{cookie}");
        for attribute in ["HttpOnly", "Secure", "SameSite=Lax", "Path=/"] {
            assert!(cookie.contains(attribute), "{attribute} missing: {cookie}");
        }
        assert!(!cookie.contains("Domain"), "{cookie}");
    }
    let seen = app.sandbox_requests().await;
    assert!(
        seen.iter().all(|r| r["cookie"].is_null()),
        "the browser's cookie never goes upstream"
    );
    let tokens: Vec<String> = seen
        .iter()
        .filter_map(|r| r["authorization"].as_str())
        .filter_map(|a| a.strip_prefix("Bearer "))
        .map(str::to_owned)
        .collect();
    assert!(!tokens.is_empty());
    let guest_paths: Vec<String> = sandbox_requests_to(&app, "/Cart/guest/{token}/items")
        .await
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect();
    let guest_id = guest_paths[0].split('/').nth(3).unwrap().to_owned();
    for text in answers
        .iter()
        .map(|a| a.text.as_str())
        .chain([login_text.as_str()])
    {
        for token in tokens.iter().chain([&guest_id]) {
            assert!(
                !text.contains(token.as_str()),
                "a token leaked into a body: {text}"
            );
        }
        assert!(
            !text.contains("accessToken") && !text.contains("refreshToken"),
            "{text}"
        );
    }
}

#[tokio::test]
async fn unsafe_requests_without_the_csrf_header_or_from_another_origin_are_refused() {
    let app = start_with_secrets(test_config(), &[]);
    let body = json!({"email": SHOPPER, "password": PASSWORD, "captcha": CAPTCHA});
    let without = app.post_json("/api/auth/login", &body, &[]).await;
    assert_eq!(without.status, 403);
    assert_eq!(without.header("content-type"), "application/problem+json");
    let foreign = app
        .post_json(
            "/api/cart/items",
            &json!({"productId": RIFLE, "quantity": 1}),
            &[("x-csrf", "1"), ("origin", "https://evil.example")],
        )
        .await;
    assert_eq!(foreign.status, 403);
    let problem = foreign.json();
    assert_eq!(problem["code"], "csrf_rejected");
    let seen = app.sandbox_requests().await;
    assert!(
        seen.iter().all(|r| r["route"] == "/health"),
        "no upstream call: {seen:?}"
    );
}

#[tokio::test]
async fn logout_clears_the_cookie_and_signs_out_upstream() {
    let app = start_with_secrets(test_config(), &[]);
    let mut browser = Browser::new(&app);
    browser.login().await;
    let answer = browser.post("/api/auth/logout", json!({})).await;
    assert_eq!(answer.status, 204);
    assert!(answer.set_cookie.iter().any(|c| c.contains("Max-Age=0")));
    assert_eq!(sandbox_requests_to(&app, "/Auth/logout").await.len(), 1);
    assert_eq!(browser.get("/api/session").await.body["signedIn"], false);
}

#[tokio::test]
async fn sign_up_rules_answer_with_the_specs_messages() {
    let app = start_with_secrets(test_config(), &[]);
    let mut browser = Browser::new(&app);
    let answer = browser
        .post(
            "/api/auth/register",
            json!({"firstName": "Pat", "lastName": "", "email": "not-an-email", "password": "short",
                   "confirmPassword": "different", "captcha": ""}),
        )
        .await;
    assert_eq!(answer.status, 422);
    let errors = &answer.body["errors"];
    assert_eq!(errors["lastName"], "Last name is required");
    assert_eq!(errors["email"], "Email must be a valid email address");
    assert_eq!(
        errors["password"],
        "Password must be at least 8 characters long"
    );
    assert_eq!(errors["confirmPassword"], "Passwords do not match");
    assert_eq!(errors["captcha"], "Captcha is required");
    assert!(sandbox_requests_to(&app, "/Auth/register").await.is_empty());

    let created = browser
        .post(
            "/api/auth/register",
            json!({"firstName": "Pat", "lastName": "Lee", "email": "pat.lee@example.com", "password": "Correct-Horse-9",
                   "confirmPassword": "Correct-Horse-9", "newsletter": false, "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    assert_eq!(created.body["user"]["firstName"], "Pat");
}

#[tokio::test]
async fn a_guest_reads_its_own_order_with_its_guest_token_and_nobody_else_can() {
    let app = start_with_secrets(test_config(), &[]);
    let mut browser = Browser::new(&app);
    let cart = browser
        .post(
            "/api/cart/items",
            json!({"productId": "TF-CAP-BLK-SM", "productName": "Talon Logo Cap", "quantity": 1}),
        )
        .await;
    assert_eq!(cart.status, 200, "{}", cart.text);
    let guest_path = sandbox_requests_to(&app, "/Cart/guest/{token}/items").await[0]["path"]
        .as_str()
        .unwrap()
        .to_owned();
    let guest_id = guest_path.split('/').nth(3).unwrap().to_owned();

    // Pay and place the order as the storefront's checkout will: tokenize, then check out.
    let tokenized = app
        .sandbox_post(
            "/3p/accept/v1/tokens",
            &json!({"authData": {"clientKey": "sandbox-public-client-key", "apiLoginID": "sandbox-login-id"},
                    "cardData": {"cardNumber": "4111111111111111", "month": "12", "year": "2035", "cardCode": "123"}}),
            &[],
        )
        .await
        .json();
    let token = tokenized["opaqueData"]["dataValue"].as_str().unwrap();
    let placed = app
        .sandbox_post(
            "/Checkout/simplified",
            &json!({"cartId": cart.body["id"], "paymentToken": token, "customerInfo": {
            "email": "guest@example.com", "name": "Guest Buyer", "mainContact": "5125550100",
            "address": "100 Congress Ave", "city": "Austin", "state": "TX", "zip": "78701",
            "country": "United States", "shippingSameAsBilling": true, "shippingMethodId": 1}}),
            &[("x-guest-id", &guest_id)],
        )
        .await
        .json();
    let order_id = placed["orderId"]
        .as_i64()
        .unwrap_or_else(|| panic!("{placed}"));

    let mine = browser.get(&format!("/api/orders/{order_id}")).await;
    assert_eq!(mine.status, 200, "{}", mine.text);
    assert_eq!(mine.body["id"], order_id);
    assert!(
        !mine.text.contains(&guest_id),
        "the guest token stays in the BFF"
    );
    let read = sandbox_requests_to(&app, "/Order/{order_id}").await;
    assert_eq!(read.last().unwrap()["authorization"], Value::Null);

    let mut stranger = Browser::new(&app);
    assert_eq!(
        stranger
            .get(&format!("/api/orders/{order_id}"))
            .await
            .status,
        404
    );
    stranger
        .post(
            "/api/cart/items",
            json!({"productId": "TF-CAP-BLK-SM", "quantity": 1}),
        )
        .await;
    assert_eq!(
        stranger
            .get(&format!("/api/orders/{order_id}"))
            .await
            .status,
        404,
        "another guest"
    );
}

// Over TCP: the limit is keyed by the peer address (`ConnectInfo`), which only a socket gives.

#[tokio::test]
async fn the_eleventh_login_in_a_minute_from_one_ip_is_refused_with_retry_after() {
    let server = common::start_with(test_config(), &[]).await;
    let mut browser = Browser::new(&server);
    for attempt in 1..=10 {
        let answer = browser
            .post(
                "/api/auth/login",
                json!({"email": SHOPPER, "password": "wrong-password", "captcha": CAPTCHA}),
            )
            .await;
        assert_eq!(answer.status, 401, "attempt {attempt}: {}", answer.text);
    }
    let response = server
        .client
        .post(server.url("/api/auth/login"))
        .header("x-csrf", "1")
        .json(&json!({"email": SHOPPER, "password": PASSWORD, "captcha": CAPTCHA}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    let wait: u64 = common::header(&response, "retry-after").parse().unwrap();
    assert!((1..=60).contains(&wait));
    let logins = server
        .sandbox_requests()
        .await
        .into_iter()
        .filter(|r| r["route"] == "/Auth/login")
        .count();
    assert_eq!(logins, 10);
    server.stop().await;
}

/// Content, catalogue and static assets never read the session: a cookie that does not open
/// changes nothing on them (no removal, no `no-store` over their cache headers) and costs no
/// decryption. The same cookie on a route that reads the session is opened, counted and cleared.
#[tokio::test]
async fn routes_that_never_read_the_session_leave_a_garbage_cookie_unopened() {
    let app = start_with_secrets(test_config(), &[("BFF_SESSION_KEYS", "current-key")]);
    let garbage = [("cookie", "session=bm90LWEtc2VhbGVkLWNvb2tpZQ.garbage")];
    let rejected = |scrape: &common::metrics::Scrape| {
        scrape
            .value("bff_session_events_total", &[("event", "cookie_rejected")])
            .unwrap_or(0.0)
    };
    for path in [
        common::ASSET,
        "/api/pages/home",
        "/api/products/summit%20lr",
    ] {
        let plain = app.get(path).await;
        let with_cookie = app.get_with(path, &garbage).await;
        assert_eq!(plain.status, 200, "{path}");
        assert_eq!(with_cookie.status, plain.status, "{path}");
        assert_eq!(with_cookie.body, plain.body, "{path}");
        assert_eq!(with_cookie.header("set-cookie"), "", "{path}");
        assert_eq!(
            cache_directives(with_cookie.header("cache-control")),
            cache_directives(plain.header("cache-control")),
            "{path}"
        );
        assert_eq!(with_cookie.header("etag"), plain.header("etag"), "{path}");
    }
    assert_eq!(rejected(&app.metrics().await), 0.0, "no cookie was opened");

    let session = app.get_with("/api/session", &garbage).await;
    assert_eq!(session.status, 200);
    assert!(session.header("set-cookie").contains("Max-Age=0"));
    assert_eq!(rejected(&app.metrics().await), 1.0, "opened once, rejected");
}

/// The directives of a `cache-control`, with `max-age` reduced to its presence: a cached answer's
/// max-age is its remaining freshness, so two reads a second apart may differ by one.
fn cache_directives(header: &str) -> Vec<String> {
    header
        .split(',')
        .map(|directive| {
            let directive = directive.trim();
            if directive.starts_with("max-age=") {
                "max-age".to_owned()
            } else {
                directive.to_owned()
            }
        })
        .collect()
}

/// Every answer made from the visitor's session is `private, no-store`, whatever the route (one
/// rule in the session layer); answers that never read it keep their own cache headers.
#[tokio::test]
async fn answers_that_read_the_session_are_private_and_never_stored() {
    let app = start_with_secrets(test_config(), &[("BFF_SESSION_KEYS", "current-key")]);
    let mut browser = Browser::new(&app);
    assert_eq!(browser.add_vanguard(RIFLE, 1).await.status, 200);
    for path in ["/api/session", "/api/cart", "/api/account"] {
        let answer = browser.get(path).await;
        assert_eq!(
            answer.cache_control, "private, no-store",
            "{path} ({})",
            answer.status
        );
    }
    // A refused checkout is as personal as a placed one.
    let checkout = browser
        .send_with(
            Method::POST,
            "/api/checkout",
            Some(json!({})),
            &[("idempotency-key", "private-answer-test")],
        )
        .await;
    assert!(
        checkout.status >= 400,
        "{} {}",
        checkout.status,
        checkout.text
    );
    assert_eq!(
        checkout.cache_control, "private, no-store",
        "{} {}",
        checkout.status, checkout.text
    );
    let anonymous = app.get("/api/session").await;
    assert_eq!(anonymous.header("cache-control"), "private, no-store");
    for path in [
        "/api/pages/home",
        "/api/products/summit%20lr",
        "/api/config",
    ] {
        let answer = app.get(path).await;
        assert_eq!(answer.status, 200, "{path}");
        assert!(
            !answer.header("cache-control").contains("private"),
            "{path}: {}",
            answer.header("cache-control")
        );
    }
}

/// A session the upstream has not accepted for `verify_after` is confirmed by the next
/// `GET /api/session`; 100 ms here, so a short sleep makes it due.
fn verify_after_100_ms() -> Config {
    let mut config = test_config();
    config.session.verify_after = Duration::from_millis(100);
    config
}

const VERIFY_DUE: std::time::Duration = std::time::Duration::from_millis(150);

/// After sign-out a copy of the cookie still held tokens, and `/api/session` read from the
/// cookie alone showed `signedIn: true` with the name and e-mail until the access token
/// expired (15 min). Once its confirmation is due, the upstream refuses the revoked session:
/// the copy is signed out (`session_expired`, cookie cleared), every time it is presented, and
/// without spending the revoked refresh token (a reuse would revoke the user's other sessions).
#[tokio::test]
async fn a_copied_cookie_is_signed_out_once_its_session_is_confirmed_after_sign_out() {
    let server = common::start_with(verify_after_100_ms(), &[]).await;
    let mut browser = Browser::new(&server);
    browser.login().await;
    let mut copy = browser.clone();
    assert_eq!(
        browser.post("/api/auth/logout", json!({})).await.status,
        204
    );
    tokio::time::sleep(VERIFY_DUE).await;

    for _ in 0..2 {
        let mut replay = copy.clone();
        let answer = replay.get("/api/session").await;
        assert_eq!(answer.status, 401, "{}", answer.text);
        assert_eq!(answer.body["code"], "session_expired");
        assert!(!answer.text.contains(SHOPPER), "{}", answer.text);
        assert!(!answer.text.contains("Jordan"), "{}", answer.text);
        assert!(
            answer.set_cookie.iter().any(|c| c.contains("Max-Age=0")),
            "the cookie is cleared"
        );
        assert_eq!(replay.get("/api/session").await.body["signedIn"], false);
    }
    assert_eq!(server.upstream_calls("/Auth/refresh-token").await, 0);
    let metrics = server.metrics().await;
    // Issue 30: the sign-out revoked the session's id, so the copy is refused before any
    // confirmation with the upstream is due (tests/it/replicas_sign_out.rs: on every replica).
    assert_metric!(metrics, "bff_session_events_total", {"event" => "revoked"}, 2);
    // The copy is a plain visitor now.
    copy.cookie = None;
    assert_eq!(copy.get("/api/session").await.body["signedIn"], false);
}

/// A live session whose confirmation is due is confirmed with one profile read and resealed
/// (the time of the confirmation travels in the cookie); an upstream that does not answer
/// signs nobody out: the session is shown unconfirmed and asked about again next time.
#[tokio::test]
async fn a_due_confirmation_reseals_a_live_session_and_an_outage_signs_nobody_out() {
    let server = common::start_with(verify_after_100_ms(), &[]).await;
    let mut browser = Browser::new(&server);
    browser.login().await;
    tokio::time::sleep(VERIFY_DUE).await;
    let reads = server.upstream_calls("/User/profile").await;
    let confirmed = browser.get("/api/session").await;
    assert_eq!(confirmed.status, 200, "{}", confirmed.text);
    assert_eq!(confirmed.body["signedIn"], true);
    assert_eq!(confirmed.body["user"]["email"], SHOPPER);
    assert!(
        confirmed
            .set_cookie
            .iter()
            .any(|c| !c.contains("Max-Age=0")),
        "resealed with the confirmation time"
    );
    assert_eq!(server.upstream_calls("/User/profile").await, reads + 1);

    server
        .inject_fault(json!({"route": "/User/profile", "errorStatus": 503}))
        .await;
    tokio::time::sleep(VERIFY_DUE).await;
    for _ in 0..2 {
        let unconfirmed = browser.get("/api/session").await;
        assert_eq!(unconfirmed.status, 200, "{}", unconfirmed.text);
        assert_eq!(unconfirmed.body["signedIn"], true);
        assert!(
            unconfirmed.set_cookie.is_empty(),
            "{:?}",
            unconfirmed.set_cookie
        );
    }
    assert_eq!(server.upstream_calls("/User/profile").await, reads + 3);
    let metrics = server.metrics().await;
    assert_metric!(metrics, "bff_session_events_total", {"event" => "verify_unavailable"}, 2);
}

/// The common path stays cheap: within `verify_after` (5 min by default) of the sign-in,
/// `/api/session` answers from the cookie without asking the upstream.
#[tokio::test]
async fn within_the_confirmation_period_the_session_is_read_from_the_cookie_alone() {
    let server = common::start().await;
    let mut browser = Browser::new(&server);
    browser.login().await;
    let before = server.upstream_calls("/User/profile").await;
    for _ in 0..5 {
        let answer = browser.get("/api/session").await;
        assert_eq!(answer.body["signedIn"], true);
        assert!(answer.set_cookie.is_empty());
    }
    assert_eq!(server.upstream_calls("/User/profile").await, before);
}
