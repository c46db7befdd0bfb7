//! `POST /api/checkout` against the sandbox, in process: payment token only, the spec's
//! validation and restriction rules, upstream declines, and idempotency (sequential and
//! concurrent duplicates place one order).

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use axum::http::Method;
use common::SandboxHooks;
use common::browser::{Answer, Browser};
use common::in_process::{InProcess, json_request, start};
use serde_json::{Value, json};

const MOUNT: &str = "TF-QDS";
const MOUNT_NAME: &str = "QD Sling Mount";
/// Falcon Extended Magazine: restricted in CA, NY and MA, not an FFL item.
const MAGAZINE: &str = "TF-FEM-21RD-BLK";
const RIFLE: &str = "TF-V15-556-16-BLK";
const APPROVED: &str = "4111111111111111";
const DECLINED: &str = "4000300011112220";

impl Browser<'_> {
    async fn checkout(&mut self, key: &str, body: Value) -> Answer {
        self.send_with(
            Method::POST,
            "/api/checkout",
            Some(body),
            &[("idempotency-key", key)],
        )
        .await
    }
}

async fn tokenize(app: &InProcess, card: &str) -> String {
    let answer = app
        .sandbox(json_request(
            Method::POST,
            "/3p/accept/v1/tokens",
            &json!({
                "authData": {"clientKey": "sandbox-public-client-key", "apiLoginID": "sandbox-login-id"},
                "cardData": {"cardNumber": card, "month": "12", "year": "2035", "cardCode": "123"}
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

fn form(token: &str) -> Value {
    json!({
        "email": "jane@example.com", "firstName": "Jane", "lastName": "Doe",
        "company": "", "mainContact": "(512) 555-0100",
        "address": "100 Congress Ave", "city": "Austin", "state": "TX", "zip": "78701",
        "country": "United States", "shippingSameAsBilling": true, "shippingMethodId": 2,
        "optInNewsletter": false, "paymentToken": token
    })
}

#[tokio::test]
async fn a_guest_checks_out_with_a_payment_token_and_the_cart_is_reset() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let token = tokenize(&app, APPROVED).await;
    let mut body = form(&token);
    body["optInNewsletter"] = json!(true);
    let placed = browser.checkout("order-1", body).await;
    assert_eq!(placed.status, 200, "{}", placed.text);
    assert!(placed.body["orderId"].as_i64().unwrap() >= 100_001);
    assert_eq!(placed.body["success"], true);
    assert!(placed.body["message"].is_string());
    let cart = browser.get("/api/cart").await;
    assert!(
        cart.body["items"].as_array().unwrap().is_empty(),
        "{}",
        cart.text
    );
    let requests = app.sandbox_requests().await;
    let checkout = requests
        .iter()
        .find(|r| {
            r["path"]
                .as_str()
                .unwrap_or("")
                .contains("Checkout/simplified")
        })
        .unwrap();
    assert!(
        checkout["authorization"].is_null(),
        "a guest sends no bearer: {checkout}"
    );
}

#[tokio::test]
async fn the_idempotency_key_is_required() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let answer = browser.post("/api/checkout", form("tok")).await;
    assert_eq!(answer.status, 400, "{}", answer.text);
    assert_eq!(answer.body["code"], "idempotency_key_required");
    let too_long = "k".repeat(256);
    let answer = browser.checkout(&too_long, form("tok")).await;
    assert_eq!(answer.status, 400, "{}", answer.text);
}

#[tokio::test]
async fn missing_fields_bad_email_and_short_zip_get_the_specs_messages() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let answer = browser
        .checkout(
            "bad-form",
            json!({"email": "not-an-email", "zip": "123", "shippingSameAsBilling": false}),
        )
        .await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    let errors = &answer.body["errors"];
    assert_eq!(errors["email"], "Must be a valid email address");
    assert_eq!(errors["zip"], "Zip code must be at least 5 digits");
    assert_eq!(errors["firstName"], "Required");
    assert_eq!(errors["city"], "Required");
    assert_eq!(errors["shippingMethodId"], "Required");
    assert_eq!(errors["shippingAddress"], "Required");
    assert_eq!(errors["paymentToken"], "Required");
    let mut body = form("tok");
    body["email"] = json!("");
    let answer = browser.checkout("bad-form", body).await;
    assert_eq!(
        answer.status, 422,
        "a rejected form is not kept for its key"
    );
    assert_eq!(
        answer.body["errors"]["email"], "Required",
        "{}",
        answer.text
    );
    assert_eq!(app.upstream_calls("/Checkout/simplified").await, 0);
}

#[tokio::test]
async fn card_data_in_the_body_is_rejected() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let mut body = form("tok");
    body["cardNumber"] = json!(APPROVED);
    body["cardCode"] = json!("123");
    let answer = browser.checkout("card", body).await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    assert_eq!(answer.body["code"], "card_data_not_accepted");
    assert!(answer.body["errors"]["cardNumber"].is_string());
    assert!(
        !answer.text.contains(APPROVED),
        "the number is never echoed"
    );
    let mut body = form("tok");
    body["card"] = json!({"month": "12", "year": "2035"});
    let answer = browser.checkout("card-2", body).await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    assert_eq!(app.upstream_calls("/Checkout/simplified").await, 0);
}

#[tokio::test]
async fn a_restricted_item_is_refused_with_the_list_of_items() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MAGAZINE, "Falcon Extended Magazine", 1).await;
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let mut body = form("tok");
    body["state"] = json!("CA");
    body["city"] = json!("Los Angeles");
    body["zip"] = json!("90001");
    let answer = browser.checkout("restricted", body).await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    assert_eq!(answer.body["code"], "restricted_items");
    assert_eq!(answer.body["detail"], "Restricted Items in Cart");
    let items = answer.body["items"].as_array().unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["productId"], MAGAZINE);
    assert_eq!(app.upstream_calls("/Checkout/simplified").await, 0);
}

#[tokio::test]
async fn ffl_items_without_a_dealer_are_refused() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(RIFLE, "Vanguard 15", 1).await;
    let answer = browser.checkout("ffl", form("tok")).await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    let errors = &answer.body["errors"];
    assert!(errors["dealerInfo"].is_string(), "{}", answer.text);
    assert_eq!(errors["dealerInfo.dealerName"], "Required");

    let mut body = form("tok");
    body["dealerInfo"] = json!({
        "dealerName": "Lone Star Arms", "dealerAddress": "200 Ranch Rd",
        "dealerEmail": "ffl@lonestar.example", "dealerPhone": "555-0199",
        "dealerCity": "Dallas", "dealerState": "TX", "dealerZip": "75201",
        "dealerCountry": "United States"
    });
    let answer = browser.checkout("ffl", body.clone()).await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    assert_eq!(
        answer.body["errors"]["dealerInfo.dealerPhone"],
        "Must be a valid phone number"
    );

    // With a valid dealer, the order goes through (and the dealer is sent upstream).
    body["dealerInfo"]["dealerPhone"] = json!("512-555-0199");
    body["paymentToken"] = json!(tokenize(&app, APPROVED).await);
    let answer = browser.checkout("ffl-ok", body).await;
    assert_eq!(answer.status, 200, "{}", answer.text);
}

#[tokio::test]
async fn a_repeated_key_answers_the_first_order_and_places_one() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let body = form(&tokenize(&app, APPROVED).await);
    let first = browser.checkout("same-key", body.clone()).await;
    assert_eq!(first.status, 200, "{}", first.text);
    let second = browser.checkout("same-key", body.clone()).await;
    assert_eq!(second.status, 200, "{}", second.text);
    assert_eq!(first.body["orderId"], second.body["orderId"]);
    assert_eq!(app.upstream_calls("/Checkout/simplified").await, 1);
    let scrape = app.metrics().await;
    assert_eq!(
        scrape.value("bff_idempotent_replays_total", &[]),
        Some(1.0),
        "the second answer is counted as a replay"
    );

    // The key is the visitor's own: another visitor using it gets its own answer.
    let mut other = Browser::new(&app);
    other.add(MOUNT, MOUNT_NAME, 1).await;
    let theirs = other.checkout("same-key", body).await;
    assert_ne!(
        theirs.body["orderId"], first.body["orderId"],
        "{}",
        theirs.text
    );
}

#[tokio::test]
async fn ten_concurrent_duplicates_place_exactly_one_order() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let body = form(&tokenize(&app, APPROVED).await);
    let answers = futures::future::join_all((0..10).map(|_| {
        let mut browser = browser.clone();
        let body = body.clone();
        async move { browser.checkout("concurrent-key", body).await }
    }))
    .await;
    let first = &answers[0];
    for answer in &answers {
        assert_eq!(answer.status, 200, "{}", answer.text);
        assert_eq!(answer.body["orderId"], first.body["orderId"]);
    }
    assert_eq!(app.upstream_calls("/Checkout/simplified").await, 1);
}

#[tokio::test]
async fn a_declined_card_answers_the_upstream_message() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let body = form(&tokenize(&app, DECLINED).await);
    let answer = browser.checkout("declined", body).await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    assert_eq!(answer.body["detail"], "This transaction has been declined.");
    let unknown = browser
        .checkout("bad-token", form("sandbox-payment-nope"))
        .await;
    assert!(
        unknown.status == 400 || unknown.status == 422,
        "{}",
        unknown.text
    );
    assert_eq!(
        unknown.body["detail"], "Invalid payment token",
        "{}",
        unknown.text
    );
}

#[tokio::test]
async fn a_signed_in_user_checks_out_with_the_bearer_token() {
    let app = start();
    let mut browser = Browser::new(&app);
    let login = browser
        .post(
            "/api/auth/login",
            json!({"email": "shopper@talonforge.example", "password": "Password123!",
                   "captcha": "sandbox-captcha-ok"}),
        )
        .await;
    assert_eq!(login.status, 200, "{}", login.text);
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let body = form(&tokenize(&app, APPROVED).await);
    let placed = browser.checkout("user-order", body).await;
    assert_eq!(placed.status, 200, "{}", placed.text);
    let requests = app.sandbox_requests().await;
    let checkout = requests
        .iter()
        .find(|r| {
            r["path"]
                .as_str()
                .unwrap_or("")
                .contains("Checkout/simplified")
        })
        .unwrap();
    assert!(checkout["authorization"].is_string(), "{checkout}");
}

/// An order refused for stock is the upstream's answer about that order: kept for its key and
/// that body only. The same body replays it; another body under the key is a 422.
#[tokio::test]
async fn a_stock_refusal_is_kept_for_the_same_body_only() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 999).await;
    let body = form(&tokenize(&app, APPROVED).await);
    let refused = browser.checkout("stock-key", body.clone()).await;
    assert_eq!(refused.status, 409, "{}", refused.text);
    assert!(
        refused.body["detail"]
            .as_str()
            .unwrap()
            .starts_with("Not enough stock"),
        "{}",
        refused.text
    );
    let replayed = browser.checkout("stock-key", body.clone()).await;
    assert_eq!((replayed.status, &replayed.body), (409, &refused.body));
    assert_eq!(app.upstream_calls("/Checkout/simplified").await, 1);

    let mut changed = body;
    changed["shippingMethodId"] = json!(1);
    let reused = browser.checkout("stock-key", changed).await;
    assert_eq!(reused.status, 422, "{}", reused.text);
    assert_eq!(reused.body["code"], "idempotency_key_reused");
    assert_eq!(app.upstream_calls("/Checkout/simplified").await, 1);
}

/// A checkout that timed out upstream placed no order: its 504 is not kept for the key, so the
/// retry with the same key and body runs again and can succeed.
#[tokio::test]
async fn an_upstream_timeout_is_not_replayed_and_the_retry_places_the_order() {
    let mut config = common::test_config();
    config.upstreams.commerce.timeout = Duration::from_millis(300);
    let app = common::in_process::start_with_secrets(config, &[]);
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let body = form(&tokenize(&app, APPROVED).await);
    app.inject_fault(json!({"route": "/Checkout/simplified", "latencyMs": 3000}))
        .await;
    let timed_out = browser.checkout("retry-key", body.clone()).await;
    assert_eq!(timed_out.status, 504, "{}", timed_out.text);
    assert_eq!(timed_out.body["code"], "upstream_timeout");

    app.clear_faults().await;
    let retried = browser.checkout("retry-key", body.clone()).await;
    assert_eq!(retried.status, 200, "ran again: {}", retried.text);
    assert!(retried.body["orderId"].is_number(), "{}", retried.text);
    assert_eq!(app.upstream_calls("/Checkout/simplified").await, 2);

    // The order it placed is final: kept, and replayed from now on.
    let replayed = browser.checkout("retry-key", body).await;
    assert_eq!(replayed.body["orderId"], retried.body["orderId"]);
    assert_eq!(app.upstream_calls("/Checkout/simplified").await, 2);
}
