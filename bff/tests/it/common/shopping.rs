//! A shopper's journey across replicas: a guest cart and a checkout with a sandbox payment token.

use serde_json::{Value, json};

use super::TestServer;
use super::browser::Browser;
use super::replicas::Replicas;

/// The sandbox's approved test card.
const APPROVED: &str = "4111111111111111";

/// A guest with a sling mount in the cart; its cookie opens on every replica (one session key).
pub async fn guest_with_a_cart(server: &TestServer) -> String {
    let mut browser = Browser::new(server);
    let answer = browser
        .post(
            "/api/cart/items",
            json!({"productId": "TF-QDS", "productName": "QD Sling Mount", "quantity": 1,
                   "options": [{"label": "Color", "value": "Black"}]}),
        )
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    browser.cookie.unwrap()
}

/// A checkout body with a one-time payment token from the sandbox's card tokenizer.
pub async fn checkout_body(replicas: &Replicas) -> Value {
    let tokenized: Value = replicas.replicas[0]
        .client
        .post(format!("{}/3p/accept/v1/tokens", replicas.sandbox))
        .json(&json!({
            "authData": {"clientKey": "sandbox-public-client-key", "apiLoginID": "sandbox-login-id"},
            "cardData": {"cardNumber": APPROVED, "month": "12", "year": "2035", "cardCode": "123"}
        }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = tokenized["opaqueData"]["dataValue"].as_str().unwrap();
    json!({
        "email": "jane@example.com", "firstName": "Jane", "lastName": "Doe",
        "company": "", "mainContact": "(512) 555-0100",
        "address": "100 Congress Ave", "city": "Austin", "state": "TX", "zip": "78701",
        "country": "United States", "shippingSameAsBilling": true, "shippingMethodId": 2,
        "optInNewsletter": false, "paymentToken": token
    })
}

#[derive(Debug)]
pub struct Placed {
    pub status: u16,
    pub replayed: bool,
    pub body: Value,
    pub text: String,
}

pub async fn checkout(server: &TestServer, cookie: &str, key: &str, body: &Value) -> Placed {
    let response = server
        .client
        .post(server.url("/api/checkout"))
        .header("x-csrf", "1")
        .header("cookie", cookie)
        .header("idempotency-key", key)
        .json(body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let replayed = super::header(&response, "idempotent-replayed") == "true";
    let text = response.text().await.unwrap();
    Placed {
        status,
        replayed,
        body: serde_json::from_str(&text).unwrap_or(Value::Null),
        text,
    }
}
