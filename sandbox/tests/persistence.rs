//! The sandbox keeps its state on disk: users, addresses, carts and tokens survive a restart on
//! the same data dir, and `--reset` starts over from the seed.
//!
//! Over TCP, the one test file that is: the sandbox is served on a port as the binary serves
//! it, stopped gracefully (`serve` returns `Ok` once its connections close) and served again.

#![allow(clippy::unwrap_used)]

mod common;

use common::{CAPTCHA, start_in_over_tcp};
use serde_json::json;

const SKU: &str = "TF-V15-556-16-BLK";

#[tokio::test]
async fn users_carts_and_tokens_survive_a_restart_and_reset_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    let sandbox = start_in_over_tcp(dir.path(), false).await;
    let (status, auth) = sandbox
        .post(
            "/Auth/register",
            None,
            json!({"firstName": "Pat", "lastName": "Lee", "email": "pat@example.com",
                   "password": "Correct-Horse-9", "newsletter": false, "captcha": CAPTCHA}),
        )
        .await;
    assert!(status == 200 || status == 201, "{auth}");
    let token = auth["accessToken"].as_str().unwrap().to_owned();
    let (status, address) = sandbox
        .post(
            "/User/addresses",
            Some(&token),
            json!({"addressName": "Home", "firstName": "Pat", "lastName": "Lee",
                   "mainContact": "5125550100", "addressLine1": "1 Main St", "city": "Austin",
                   "state": "TX", "postalCode": "78701", "country": "United States",
                   "addressType": 10}),
        )
        .await;
    assert!(status == 200 || status == 201, "{address}");
    let (status, cart) = sandbox
        .post(
            "/Cart/items",
            Some(&token),
            json!({"productId": SKU, "productName": "Vanguard 15", "quantity": 2,
                   "options": [{"label": "Caliber", "value": "5.56"}], "imageUrl": null,
                   "productUrl": "/product/vanguard%2015"}),
        )
        .await;
    assert_eq!(status, 200, "{cart}");
    sandbox.stop().await;

    let sandbox = start_in_over_tcp(dir.path(), false).await;
    let (status, profile) = sandbox.get_as("/User/profile", &token).await;
    assert_eq!(status, 200, "the access token still verifies: {profile}");
    assert_eq!(profile["email"], "pat@example.com");
    assert_eq!(profile["addresses"][0]["city"], "Austin");
    let (status, cart) = sandbox.get_as("/Cart", &token).await;
    assert_eq!(status, 200);
    assert_eq!(cart["items"][0]["productId"], SKU);
    assert_eq!(cart["items"][0]["quantity"], 2);
    let (status, _) = sandbox
        .post(
            "/Auth/login",
            None,
            json!({"email": "pat@example.com", "password": "Correct-Horse-9", "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 200);
    sandbox.stop().await;

    let sandbox = start_in_over_tcp(dir.path(), true).await;
    let (status, _) = sandbox
        .post(
            "/Auth/login",
            None,
            json!({"email": "pat@example.com", "password": "Correct-Horse-9", "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 401, "--reset wiped the account");
    let (status, _) = sandbox
        .post(
            "/Auth/login",
            None,
            json!({"email": "shopper@talonforge.example", "password": "Password123!", "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 200, "and reseeded the demo accounts");
    sandbox.stop().await;
}
