//! The production log pipeline (`telemetry::subscriber`, JSON) over a full shopper journey at
//! TRACE: every line inside a request names its trace, span and request, and no line at any
//! level carries a token, a password, a card field, a cookie or a full e-mail address.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use axum::http::Method;
use common::SandboxHooks;
use common::browser::{Browser, CAPTCHA, PASSWORD, SHOPPER};
use common::in_process::{InProcess, json_request, start};
use serde_json::{Value, json};
use tracing_subscriber::EnvFilter;

const NEW_EMAIL: &str = "casey.quinn@example.com";
const NEW_PASSWORD: &str = "Sekrit-Horse-42";
const CARD: &str = "4111111111111111";
const CVV: &str = "987";

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Capture {
    fn lines(&self) -> Vec<Value> {
        String::from_utf8_lossy(&self.0.lock().unwrap())
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

/// Logs of `work` through the production subscriber at TRACE, on this thread (the in-process
/// app runs its tasks here).
fn capture() -> (Capture, tracing::subscriber::DefaultGuard) {
    let config = common::test_config();
    // The configuration alone: the test process's environment plays no part.
    let trace = bff::observe::telemetry::TraceSettings::resolve(&config.telemetry, |_| None);
    let provider = bff::observe::telemetry::tracer_provider(&trace).unwrap();
    bff::observe::telemetry::install_globals(&provider, &trace);
    let capture = Capture::default();
    let writer = capture.clone();
    let subscriber = bff::observe::telemetry::subscriber(
        EnvFilter::new("trace"),
        &provider,
        move || writer.clone(),
        true,
        false,
    );
    (capture, tracing::dispatcher::set_default(&subscriber))
}

/// The sandbox runs in this process as the upstream: its own lines (inside its own request span,
/// which records the upstream URI) are not the BFF's.
fn is_the_sandboxs(line: &Value) -> bool {
    line["span"]["uri"].is_string()
        || line["target"]
            .as_str()
            .is_some_and(|target| target.starts_with("sandbox"))
}

async fn tokenize(app: &InProcess) -> String {
    let answer = app
        .sandbox(json_request(
            Method::POST,
            "/3p/accept/v1/tokens",
            &json!({
                "authData": {"clientKey": "sandbox-public-client-key", "apiLoginID": "sandbox-login-id"},
                "cardData": {"cardNumber": CARD, "month": "12", "year": "2035", "cardCode": CVV}
            }),
            &[],
        ))
        .await
        .json();
    answer["opaqueData"]["dataValue"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn journey(app: &InProcess) -> Vec<String> {
    let mut cookies = Vec::new();
    let mut guest = Browser::new(app);
    guest.get("/api/products/summit%20lr").await;
    guest.get("/api/products/summit%20lr").await;
    let added = guest
        .post(
            "/api/cart/items",
            json!({"productId": "TF-QDS", "productName": "QD Sling Mount", "quantity": 1,
                   "options": [{"label": "Color", "value": "Black"}]}),
        )
        .await;
    assert_eq!(added.status, 200, "{}", added.text);
    let registered = guest
        .post(
            "/api/auth/register",
            json!({"firstName": "Casey", "lastName": "Quinn", "email": NEW_EMAIL,
                   "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD,
                   "newsletter": false, "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(registered.status, 201, "{}", registered.text);
    cookies.extend(guest.cookie.clone());
    guest.get("/api/cart").await;
    guest.get("/api/account").await;
    guest
        .post(
            "/api/auth/login",
            json!({"email": NEW_EMAIL, "password": "Wrong-Password-1", "captcha": CAPTCHA}),
        )
        .await;

    let mut shopper = Browser::new(app);
    shopper.login().await;
    cookies.extend(shopper.cookie.clone());
    shopper
        .post(
            "/api/cart/items",
            json!({"productId": "TF-QDS", "productName": "QD Sling Mount", "quantity": 2,
                   "options": [{"label": "Color", "value": "Black"}]}),
        )
        .await;
    shopper.get("/api/cart").await;
    let form = |token: &str| {
        json!({
            "email": SHOPPER, "firstName": "Jane", "lastName": "Doe",
            "company": "", "mainContact": "(512) 555-0100",
            "address": "100 Congress Ave", "city": "Austin", "state": "TX", "zip": "78701",
            "country": "United States", "shippingSameAsBilling": true, "shippingMethodId": 2,
            "optInNewsletter": false, "paymentToken": token
        })
    };
    // Card data sent to the BFF is refused (and must not be logged either).
    let mut with_card = form("unused");
    with_card["cardNumber"] = json!(CARD);
    with_card["cvv"] = json!(CVV);
    let refused = shopper
        .send_with(
            Method::POST,
            "/api/checkout",
            Some(with_card),
            &[("idempotency-key", "logs-card")],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    let token = tokenize(app).await;
    let placed = shopper
        .send_with(
            Method::POST,
            "/api/checkout",
            Some(form(&token)),
            &[("idempotency-key", "logs-order")],
        )
        .await;
    assert_eq!(placed.status, 200, "{}", placed.text);
    shopper
        .send_with(
            Method::POST,
            "/api/checkout",
            Some(form(&token)),
            &[("idempotency-key", "logs-order")],
        )
        .await;
    shopper.get("/api/account").await;
    shopper
        .put(
            "/api/account",
            json!({"firstName": "Jo", "lastName": "Reyes"}),
        )
        .await;
    shopper
        .get(&format!(
            "/api/newsletter/status?email={}",
            SHOPPER.replace('@', "%40")
        ))
        .await;
    shopper
        .post(
            "/api/auth/change-password",
            json!({"currentPassword": PASSWORD, "newPassword": "Another-Horse-7",
                   "confirmPassword": "Another-Horse-7"}),
        )
        .await;
    shopper.post("/api/auth/logout", json!({})).await;
    cookies
}

#[tokio::test]
async fn a_full_journey_logs_ids_on_every_request_line_and_never_a_secret() {
    let app = start();
    let (logs, guard) = capture();
    let cookies = journey(&app).await;
    drop(guard);

    // What must never appear: the passwords, the card, the session cookies, the tokens the
    // commerce service issued (as the sandbox saw them), full e-mail addresses.
    let mut secrets: Vec<String> = vec![
        PASSWORD.to_owned(),
        NEW_PASSWORD.to_owned(),
        "Wrong-Password-1".to_owned(),
        "Another-Horse-7".to_owned(),
        CARD.to_owned(),
        SHOPPER.to_owned(),
        SHOPPER.replace('@', "%40"),
        NEW_EMAIL.to_owned(),
        NEW_EMAIL.replace('@', "%40"),
    ];
    for cookie in &cookies {
        let value = cookie.split_once('=').map_or(cookie.as_str(), |(_, v)| v);
        assert!(value.len() > 16, "a real cookie value: {cookie}");
        secrets.push(value.to_owned());
    }
    let tokens: Vec<String> = app
        .sandbox_requests()
        .await
        .iter()
        .filter_map(|request| request["authorization"].as_str())
        .filter_map(|value| value.strip_prefix("Bearer "))
        .map(str::to_owned)
        .collect();
    assert!(!tokens.is_empty(), "the journey used bearer tokens");
    secrets.extend(tokens);

    let (sandbox, lines): (Vec<Value>, Vec<Value>) =
        logs.lines().into_iter().partition(is_the_sandboxs);
    // The upstream's own request lines name the e-mail in a path: the capture sees such values,
    // so the check below is not vacuous.
    assert!(
        sandbox
            .iter()
            .any(|line| line.to_string().contains(&SHOPPER.replace('@', "%40"))),
        "the sandbox's lines were captured"
    );
    assert!(
        lines.len() > 50,
        "a TRACE journey logs plenty: {}",
        lines.len()
    );
    assert!(
        lines.iter().any(|line| line["level"] == "DEBUG"),
        "lines below INFO were captured (the filter is TRACE)"
    );
    for line in &lines {
        let text = line.to_string();
        for secret in &secrets {
            assert!(
                !text.contains(secret.as_str()),
                "a log line carries {secret:?}: {text}"
            );
        }
        assert!(
            !text.contains("cvv") || !text.contains(CVV),
            "a card code: {text}"
        );
    }

    // Inside a request (under its server span), every line names the trace, span and request.
    let in_requests: Vec<&Value> = lines
        .iter()
        .filter(|line| line["span"].is_object())
        .collect();
    assert!(!in_requests.is_empty());
    for line in &in_requests {
        for key in ["trace_id", "span_id", "request_id"] {
            assert!(
                line[key].as_str().is_some_and(|value| !value.is_empty()),
                "{key} missing: {line}"
            );
        }
        assert_eq!(line["trace_id"].as_str().unwrap().len(), 32, "{line}");
        assert_eq!(line["span_id"].as_str().unwrap().len(), 16, "{line}");
    }
    // The access lines, one per request the router answered, are among them.
    let access = in_requests
        .iter()
        .filter(|line| line["message"] == "finished processing request")
        .count();
    assert!(access >= 10, "{access} access lines");
}

/// A 5xx is one ERROR line, with its cause (`error::log_errors`); the access line records its
/// status at INFO. tower-http's default failure hook would log the same answer a second time.
#[tokio::test]
async fn a_failed_request_is_one_error_line() {
    let app = start();
    app.inject_fault(json!({"route": "/strapi/page/{name}", "errorStatus": 500}))
        .await;
    let (logs, guard) = capture();
    let response = app.get("/api/pages/home").await;
    drop(guard);
    assert_eq!(response.status, 502, "{}", response.text());

    let lines: Vec<Value> = logs
        .lines()
        .into_iter()
        .filter(|line| !is_the_sandboxs(line))
        .collect();
    let errors: Vec<&Value> = lines
        .iter()
        .filter(|line| line["level"] == "ERROR")
        .collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0]["message"], "request failed", "{}", errors[0]);
    assert_eq!(errors[0]["status"], 502, "{}", errors[0]);
    let access: Vec<&Value> = lines
        .iter()
        .filter(|line| line["message"] == "finished processing request")
        .collect();
    assert_eq!(access.len(), 1, "{access:#?}");
    assert_eq!(access[0]["status"], 502, "{}", access[0]);
}
