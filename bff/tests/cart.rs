//! The cart endpoints against the sandbox, in process: quantities, removal, compute (full state
//! names, tax), promo codes and shipping methods, guest token never shown.

#![allow(clippy::unwrap_used)]

mod common;

use axum::http::Method;
use common::browser::{Answer, Browser};
use common::in_process::start;
use serde_json::{Value, json};

const MOUNT: &str = "TF-QDS";
const MOUNT_NAME: &str = "QD Sling Mount";

impl Browser<'_> {
    async fn add(&mut self, sku: &str, name: &str, quantity: i64) -> Answer {
        let answer = self
            .post(
                "/api/cart/items",
                json!({"productId": sku, "productName": name, "quantity": quantity,
                       "options": [{"label": "Color", "value": "Black"}]}),
            )
            .await;
        assert_eq!(answer.status, 200, "{}", answer.text);
        answer
    }
}

fn line(cart: &Value, sku: &str) -> Option<Value> {
    cart["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["productId"] == sku)
        .cloned()
}

fn money(value: &Value) -> f64 {
    value.as_f64().unwrap()
}

#[tokio::test]
async fn quantities_update_and_lines_are_removed_by_delete_or_zero() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let cart = browser.add(MOUNT, MOUNT_NAME, 1).await;
    assert!(cart.body.get("guestId").is_none(), "{}", cart.text);
    assert_eq!(
        cart.body["items"].as_array().unwrap().len(),
        1,
        "same line grows"
    );
    let item = line(&cart.body, MOUNT).unwrap();
    assert_eq!(item["quantity"], 2);
    let id = item["id"].to_string();

    let updated = browser
        .send(
            Method::PUT,
            &format!("/api/cart/items/{id}"),
            Some(json!({"quantity": 5})),
        )
        .await;
    assert_eq!(updated.status, 200, "{}", updated.text);
    assert!(updated.body.get("guestId").is_none());
    assert_eq!(line(&updated.body, MOUNT).unwrap()["quantity"], 5);

    let too_many = browser
        .send(
            Method::PUT,
            &format!("/api/cart/items/{id}"),
            Some(json!({"quantity": 1000})),
        )
        .await;
    assert_eq!(too_many.status, 422, "{}", too_many.text);
    assert!(too_many.body["errors"]["quantity"].is_string());
    let missing = browser
        .send(
            Method::PUT,
            &format!("/api/cart/items/{id}"),
            Some(json!({})),
        )
        .await;
    assert_eq!(missing.status, 422, "{}", missing.text);

    let zero = browser
        .send(
            Method::PUT,
            &format!("/api/cart/items/{id}"),
            Some(json!({"quantity": 0})),
        )
        .await;
    assert_eq!(zero.status, 200, "{}", zero.text);
    assert!(line(&zero.body, MOUNT).is_none(), "quantity 0 removes");

    let cart = browser.add(MOUNT, MOUNT_NAME, 1).await;
    let id = line(&cart.body, MOUNT).unwrap()["id"].to_string();
    let removed = browser
        .send(Method::DELETE, &format!("/api/cart/items/{id}"), None)
        .await;
    assert_eq!(removed.status, 200, "{}", removed.text);
    assert!(removed.body["items"].as_array().unwrap().is_empty());
    assert!(removed.body.get("guestId").is_none());

    let unknown = browser
        .send(Method::DELETE, "/api/cart/items/999999", None)
        .await;
    assert_eq!(unknown.status, 404, "{}", unknown.text);
    let mut stranger = Browser::new(&app);
    let no_cart = stranger
        .send(
            Method::PUT,
            "/api/cart/items/1",
            Some(json!({"quantity": 1})),
        )
        .await;
    assert_eq!(no_cart.status, 404, "{}", no_cart.text);
}

#[tokio::test]
async fn inventory_warnings_pass_through() {
    let app = start();
    let mut browser = Browser::new(&app);
    let cart = browser.add("TF-MAT", "Range Mat", 3).await;
    let warnings = cart.body["inventoryWarnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{}", cart.text);
    assert_eq!(warnings[0]["warningType"], "InsufficientStock");
}

#[tokio::test]
async fn compute_taxes_by_the_full_state_name_and_sets_the_shipping_method() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 2).await;
    let computed = browser
        .post(
            "/api/cart/compute",
            json!({
                "email": "jane@example.com", "firstName": "Jane", "lastName": "Doe",
                "address": "100 Congress Ave", "city": "Austin", "state": "TX", "zip": "78701",
                "country": "United States", "shippingSameAsBilling": true, "shippingMethodId": 2
            }),
        )
        .await;
    assert_eq!(computed.status, 200, "{}", computed.text);
    assert!(computed.body.get("guestId").is_none());
    let sub_total = money(&computed.body["subTotal"]);
    assert!(sub_total > 0.0);
    // Texas: 6.25 % of the subtotal (no discount), shipping not taxed.
    let expected = (sub_total * 0.0625 * 100.0).round() / 100.0;
    assert!(
        (money(&computed.body["taxAmount"]) - expected).abs() < 0.006,
        "{}",
        computed.text
    );
    assert!((money(&computed.body["shipping"]) - 19.99).abs() < 0.001);
    assert_eq!(computed.body["shippingAddress"]["country"], "US");
    let region = computed.body["shippingAddress"]["region"].as_str().unwrap();
    assert!(region == "Texas" || region == "TX", "{region}");

    // A different shipping address is taxed by its own state (Oregon: 0 %).
    let computed = browser
        .post(
            "/api/cart/compute",
            json!({
                "address": "100 Congress Ave", "city": "Austin", "state": "TX", "zip": "78701",
                "country": "United States", "shippingSameAsBilling": false,
                "shippingAddress": "1 Pearl St", "shippingCity": "Portland",
                "shippingState": "OR", "shippingZip": "97201", "shippingMethodId": 1
            }),
        )
        .await;
    assert_eq!(computed.status, 200, "{}", computed.text);
    assert!(
        money(&computed.body["taxAmount"]).abs() < 0.001,
        "{}",
        computed.text
    );
    assert!(money(&computed.body["shipping"]).abs() < 0.001);

    let bad_state = browser
        .post("/api/cart/compute", json!({"state": "ZZ"}))
        .await;
    assert_eq!(bad_state.status, 422, "{}", bad_state.text);
    assert_eq!(bad_state.body["errors"]["state"], "Must be a US state");
}

#[tokio::test]
async fn promo_codes_apply_or_are_refused_with_the_specs_message() {
    let app = start();
    let mut browser = Browser::new(&app);
    browser.add(MOUNT, MOUNT_NAME, 1).await;
    let applied = browser
        .post("/api/cart/promo-code", json!({"promoCode": "save10"}))
        .await;
    assert_eq!(applied.status, 200, "{}", applied.text);
    assert!(applied.body.get("guestId").is_none());
    assert!(
        money(&applied.body["discountAmount"]) > 0.0,
        "{}",
        applied.text
    );

    let invalid = browser
        .post("/api/cart/promo-code", json!({"promoCode": "EXPIRED15"}))
        .await;
    assert_eq!(invalid.status, 422, "{}", invalid.text);
    assert_eq!(
        invalid.body["errors"]["promoCode"],
        "Discount code is invalid"
    );

    let blank = browser
        .post("/api/cart/promo-code", json!({"promoCode": " "}))
        .await;
    assert_eq!(blank.status, 422, "{}", blank.text);
    assert_eq!(blank.body["errors"]["promoCode"], "Promo code is required");
}

#[tokio::test]
async fn shipping_methods_are_listed_cheapest_first() {
    let app = start();
    let mut browser = Browser::new(&app);
    let methods = browser.get("/api/cart/shipping-methods").await;
    assert_eq!(methods.status, 200, "{}", methods.text);
    let list = methods.body.as_array().unwrap();
    assert_eq!(list.len(), 3);
    assert_eq!(list[0]["name"], "Standard Ground");
    assert!(money(&list[0]["price"]).abs() < 0.001);
}
