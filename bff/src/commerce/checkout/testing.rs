//! The checkout form's test material: a valid form as the browser posts it, its wire shape, and
//! carts to check out. It names no model type, so the model's own tests can use it without a
//! cycle between the two files; a test reads the model with `CheckoutDetails::from(wire(…))`.

use serde_json::{Value, json};

use super::wire::CheckoutForm;
use crate::commerce::cart::Cart;

/// The wire shape of `body` (JSON as the browser posts it).
pub fn wire(body: Value) -> CheckoutForm {
    serde_json::from_value(body).unwrap()
}

/// A complete billing form (shipping to the billing address, no dealer).
pub fn valid() -> Value {
    json!({
        "email": "jane@example.com", "firstName": "Jane", "lastName": "Doe",
        "address": "100 Congress Ave", "city": "Austin", "state": "TX", "zip": "78701",
        "country": "United States", "shippingMethodId": 2, "paymentToken": "tok"
    })
}

/// Cart 7 holding `items`.
pub fn cart(items: Value) -> Cart {
    let mut cart = serde_json::to_value(Cart::empty()).unwrap();
    cart["id"] = json!(7);
    cart["items"] = items;
    serde_json::from_value(cart).unwrap()
}

/// A cart line restricted in `states` and `zips`.
pub fn item(id: i64, name: &str, ffl: bool, states: &[&str], zips: &[&str]) -> Value {
    json!({
        "id": id, "productId": format!("TF-{id}"), "yotpoProductId": null,
        "productName": name, "options": [], "optionIds": [], "price": 10.0,
        "productPrice": 10.0, "quantity": 1, "imageUrl": "", "productUrl": null,
        "notes": null, "buildId": null, "isFflItem": ffl, "isReceiverItem": false,
        "restrictedStates": states, "restrictedZips": zips
    })
}
