//! The cart API over HTTP: guest and signed-in carts, lines, compute (tax by state, shipping),
//! promo codes, shipping methods, merge and inventory warnings.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::TestSandbox;
use reqwest::Method;
use sandbox::content::skus::{self, Sku};
use serde_json::{Value, json};

fn sku(code: &str, name: &str, price_cents: i64, discount_percent: f64, stock: i64) -> Sku {
    Sku {
        code: code.to_owned(),
        product_title: name.to_owned(),
        product_name: name.to_owned(),
        price_cents,
        discount_percent,
        stock,
        ffl_item: false,
        receiver_item: false,
        restricted_states: Vec::new(),
        restricted_zips: Vec::new(),
    }
}

/// A sandbox with a small known catalogue of its own (codes no seed uses).
async fn start() -> TestSandbox {
    let sandbox = common::start().await;
    sandbox
        .state
        .db
        .call(|conn| {
            skus::insert(
                conn,
                &sku("TEST-OPTIC", "Ridgeline 3-9x40 Scope", 49_999, 10.0, 10),
            )?;
            skus::insert(conn, &sku("TEST-SLING", "Padded Sling", 2_999, 0.0, 2))?;
            skus::insert(conn, &sku("TEST-SOLDOUT", "Range Bag", 1_999, 0.0, 0))?;
            skus::insert(conn, &sku("TEST-SOON", "Prototype Stock", 0, 0.0, 5))
        })
        .unwrap();
    sandbox
}

/// A user row and a bearer token for it (independent of the account endpoints).
fn user(sandbox: &TestSandbox, email: &str) -> (i64, String) {
    let state = sandbox.state.clone();
    let email = email.to_owned();
    sandbox
        .state
        .db
        .call(|conn| {
            conn.execute(
                "INSERT INTO users (email, password_hash, first_name, last_name, created_at) \
                 VALUES (?1, 'x', 'Test', 'Shopper', '2024-01-01T00:00:00Z')",
                [&email],
            )?;
            let id = conn.last_insert_rowid();
            let auth = sandbox::commerce::tokens::issue(conn, &state.keys, id, &email, 900)?;
            Ok((id, auth.access_token))
        })
        .unwrap()
}

async fn guest(sandbox: &TestSandbox) -> String {
    let (status, body) = sandbox.post("/Auth/guest", None, json!({})).await;
    assert_eq!(status, 200, "{body}");
    body["guestId"].as_str().unwrap().to_owned()
}

fn line(code: &str, quantity: i64) -> Value {
    json!({
        "productId": code,
        "yotpoProductId": 4242,
        "productName": code,
        "quantity": quantity,
        "imageUrl": format!("https://img.example/{code}.jpg"),
        "optionIds": [1, 2],
        "options": [{"label": "Color", "value": "Black"}],
        "buildId": null,
        "notes": "",
        "productUrl": format!("/product/{code}"),
        "isFflItem": false,
        "isReceiverItem": false,
        "restrictedStates": [],
        "restrictedZips": []
    })
}

fn money(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

fn item<'a>(cart: &'a Value, code: &str) -> &'a Value {
    cart["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["productId"] == code)
        .unwrap_or_else(|| panic!("no {code} in {cart}"))
}

#[tokio::test]
async fn a_guest_token_gets_an_empty_cart_then_holds_the_lines_added() {
    let sandbox = start().await;
    let (status, body) = sandbox.post("/Auth/guest", None, json!({})).await;
    assert_eq!(status, 200);
    let guest_id = body["guestId"].as_str().unwrap();
    assert!(guest_id.starts_with("gid_"), "{guest_id}");
    assert_eq!(body["token"], body["guestId"]);

    let (status, cart) = sandbox.get_json(&format!("/Cart/guest/{guest_id}")).await;
    assert_eq!(status, 200);
    assert_eq!(cart["isGuest"], true);
    assert_eq!(cart["guestId"], guest_id);
    assert_eq!(cart["userId"], Value::Null);
    assert_eq!(cart["isAbandoned"], false);
    assert_eq!(cart["items"], json!([]));
    assert_eq!(cart["inventoryWarnings"], json!([]));
    assert_eq!(cart["appliedDiscounts"], json!([]));
    for amount in [
        "subTotal",
        "taxAmount",
        "shipping",
        "discountAmount",
        "totalAmount",
    ] {
        assert_eq!(money(&cart[amount]), 0.0, "{amount}");
    }

    let path = format!("/Cart/guest/{guest_id}/items");
    let (status, _) = sandbox.post(&path, None, line("TEST-OPTIC", 1)).await;
    assert_eq!(status, 200);
    let (status, cart) = sandbox.post(&path, None, line("TEST-SLING", 2)).await;
    assert_eq!(status, 200, "{cart}");
    assert_eq!(cart["items"].as_array().unwrap().len(), 2);

    let (_, cart) = sandbox.get_json(&format!("/Cart/guest/{guest_id}")).await;
    let optic = item(&cart, "TEST-OPTIC");
    // A payload without prices is priced from the sku (see the add-on test for prices sent).
    assert_eq!(money(&optic["price"]), 499.99);
    assert_eq!(money(&optic["productPrice"]), 449.99);
    assert_eq!(optic["quantity"], 1);
    assert_eq!(optic["productName"], "TEST-OPTIC");
    assert_eq!(
        optic["options"],
        json!([{"label": "Color", "value": "Black"}])
    );
    assert_eq!(optic["imageUrl"], "https://img.example/TEST-OPTIC.jpg");
    assert_eq!(optic["productUrl"], "/product/TEST-OPTIC");
    assert_eq!(optic["yotpoProductId"], "4242");
    assert_eq!(optic["isFflItem"], false);
    assert_eq!(money(&cart["subTotal"]), 509.97);
    assert_eq!(money(&cart["totalAmount"]), 509.97);
}

#[tokio::test]
async fn adding_the_same_line_twice_sums_its_quantity() {
    let sandbox = start().await;
    let (_, token) = user(&sandbox, "sum@example.com");
    sandbox
        .post("/Cart/items", Some(&token), line("TEST-OPTIC", 1))
        .await;
    let (status, cart) = sandbox
        .post("/Cart/items", Some(&token), line("TEST-OPTIC", 2))
        .await;
    assert_eq!(status, 200);
    assert_eq!(cart["items"].as_array().unwrap().len(), 1);
    assert_eq!(item(&cart, "TEST-OPTIC")["quantity"], 3);
    assert_eq!(cart["isGuest"], false);

    // Other options make another line.
    let mut tan = line("TEST-OPTIC", 1);
    tan["options"] = json!([{"label": "Color", "value": "Tan"}]);
    let (_, cart) = sandbox.post("/Cart/items", Some(&token), tan).await;
    assert_eq!(cart["items"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn quantities_update_zero_removes_and_delete_removes() {
    let sandbox = start().await;
    let (_, token) = user(&sandbox, "update@example.com");
    sandbox
        .post("/Cart/items", Some(&token), line("TEST-OPTIC", 1))
        .await;
    let (_, cart) = sandbox
        .post("/Cart/items", Some(&token), line("TEST-SLING", 1))
        .await;
    let optic = item(&cart, "TEST-OPTIC")["id"].as_i64().unwrap();
    let sling = item(&cart, "TEST-SLING")["id"].as_i64().unwrap();

    let (status, cart) = sandbox
        .send(
            Method::PUT,
            &format!("/Cart/items/{optic}"),
            Some(&token),
            json!({"quantity": 4}),
        )
        .await;
    assert_eq!(status, 200, "{cart}");
    assert_eq!(item(&cart, "TEST-OPTIC")["quantity"], 4);

    let (status, cart) = sandbox
        .send(
            Method::PUT,
            &format!("/Cart/items/{optic}"),
            Some(&token),
            json!({"quantity": 0}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(cart["items"].as_array().unwrap().len(), 1);

    let (status, body) = sandbox
        .send(
            Method::PUT,
            &format!("/Cart/items/{sling}"),
            Some(&token),
            json!({"quantity": -1}),
        )
        .await;
    assert_eq!(status, 400);
    assert!(body["errors"]["quantity"].is_string(), "{body}");

    let (status, cart) = sandbox
        .send(
            Method::DELETE,
            &format!("/Cart/items/{sling}"),
            Some(&token),
            Value::Null,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(cart["items"], json!([]));
    let (status, _) = sandbox
        .send(
            Method::DELETE,
            &format!("/Cart/items/{sling}"),
            Some(&token),
            Value::Null,
        )
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn guest_lines_update_and_delete_by_path_token() {
    let sandbox = start().await;
    let guest_id = guest(&sandbox).await;
    let (_, cart) = sandbox
        .post(
            &format!("/Cart/guest/{guest_id}/items"),
            None,
            line("TEST-OPTIC", 1),
        )
        .await;
    let id = item(&cart, "TEST-OPTIC")["id"].as_i64().unwrap();
    let path = format!("/Cart/guest/{guest_id}/items/{id}");
    let (status, cart) = sandbox
        .send(Method::PUT, &path, None, json!({"quantity": 2}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(item(&cart, "TEST-OPTIC")["quantity"], 2);
    let (status, cart) = sandbox.send(Method::DELETE, &path, None, Value::Null).await;
    assert_eq!(status, 200);
    assert_eq!(cart["items"], json!([]));
}

#[tokio::test]
async fn unknown_guests_products_and_bad_quantities_are_refused() {
    let sandbox = start().await;
    let (status, body) = sandbox.get_json("/Cart/guest/gid_unknown").await;
    assert_eq!(status, 404);
    assert!(body["message"].is_string());
    let (status, _) = sandbox
        .post("/Cart/guest/gid_unknown/items", None, line("TEST-OPTIC", 1))
        .await;
    assert_eq!(status, 404);
    let (status, _) = sandbox
        .post(
            "/Cart/guest/gid_unknown/promo-code",
            None,
            json!({"promoCode": "SAVE10"}),
        )
        .await;
    assert_eq!(status, 404);

    let guest_id = guest(&sandbox).await;
    let path = format!("/Cart/guest/{guest_id}/items");
    let (status, _) = sandbox.post(&path, None, line("NO-SUCH-SKU", 1)).await;
    assert_eq!(status, 404);
    let (status, body) = sandbox.post(&path, None, line("TEST-OPTIC", 0)).await;
    assert_eq!(status, 400);
    assert!(body["errors"]["quantity"].is_string(), "{body}");
    let (status, body) = sandbox.post(&path, None, json!({"quantity": 1})).await;
    assert_eq!(status, 400);
    assert!(body["errors"]["productId"].is_string(), "{body}");
    let (status, body) = sandbox.post(&path, None, line("TEST-SOON", 1)).await;
    assert_eq!(status, 400, "a sku priced 0 is Coming Soon: {body}");

    let (status, _) = sandbox.get_json("/Cart").await;
    assert_eq!(status, 401, "the signed-in cart needs a bearer token");
}

#[tokio::test]
async fn another_customers_line_is_not_found() {
    let sandbox = start().await;
    let (_, alice) = user(&sandbox, "alice@example.com");
    let (_, bob) = user(&sandbox, "bob@example.com");
    let (_, cart) = sandbox
        .post("/Cart/items", Some(&alice), line("TEST-OPTIC", 1))
        .await;
    let id = item(&cart, "TEST-OPTIC")["id"].as_i64().unwrap();
    let path = format!("/Cart/items/{id}");

    let (status, _) = sandbox
        .send(Method::PUT, &path, Some(&bob), json!({"quantity": 5}))
        .await;
    assert_eq!(status, 404);
    let (status, _) = sandbox
        .send(Method::DELETE, &path, Some(&bob), Value::Null)
        .await;
    assert_eq!(status, 404);
    let stranger = guest(&sandbox).await;
    let (status, _) = sandbox
        .send(
            Method::DELETE,
            &format!("/Cart/guest/{stranger}/items/{id}"),
            None,
            Value::Null,
        )
        .await;
    assert_eq!(status, 404);

    let (_, cart) = sandbox.get_as("/Cart", &alice).await;
    assert_eq!(item(&cart, "TEST-OPTIC")["quantity"], 1, "untouched");
}

#[tokio::test]
async fn compute_charges_tax_by_state_and_the_chosen_shipping_method() {
    let sandbox = start().await;
    let (_, token) = user(&sandbox, "compute@example.com");
    let (_, cart) = sandbox
        .post("/Cart/items", Some(&token), line("TEST-OPTIC", 1))
        .await;
    let cart_id = cart["id"].as_i64().unwrap();
    let address = |region: &str| json!({"line1": "1 Main St", "city": "Austin", "region": region, "postalCode": "78701", "country": "US"});

    let (status, cart) = sandbox
        .post(
            "/Cart/compute",
            Some(&token),
            json!({
                "shippingAddress": address("Texas"),
                "billingAddress": address("Oregon"),
                "dealerInfo": null,
                "cartId": cart_id,
                "shippingMethodId": 2
            }),
        )
        .await;
    assert_eq!(status, 200, "{cart}");
    assert_eq!(money(&cart["subTotal"]), 449.99);
    assert_eq!(money(&cart["shipping"]), 19.99);
    assert_eq!(money(&cart["taxAmount"]), 28.12, "Texas 6.25% of 449.99");
    assert_eq!(money(&cart["totalAmount"]), 498.10);
    assert_eq!(cart["shippingMethodId"], 2);

    // Kept on the cart: later answers are priced alike.
    let (_, again) = sandbox.get_as("/Cart", &token).await;
    assert_eq!(money(&again["taxAmount"]), 28.12);

    // No shipping address: taxed by the billing state.
    let (_, cart) = sandbox
        .post(
            "/Cart/compute",
            Some(&token),
            json!({"billingAddress": address("California"), "cartId": cart_id, "shippingMethodId": 1}),
        )
        .await;
    assert_eq!(
        money(&cart["taxAmount"]),
        32.62,
        "California 7.25% of 449.99"
    );
    assert_eq!(money(&cart["shipping"]), 0.0);

    let (_, cart) = sandbox
        .post(
            "/Cart/compute",
            Some(&token),
            json!({"shippingAddress": address("Oregon"), "cartId": cart_id, "shippingMethodId": 3}),
        )
        .await;
    assert_eq!(money(&cart["taxAmount"]), 0.0, "Oregon has no sales tax");
    assert_eq!(money(&cart["shipping"]), 39.99);

    let (status, body) = sandbox
        .post(
            "/Cart/compute",
            Some(&token),
            json!({"shippingAddress": address("Ontario"), "cartId": cart_id, "shippingMethodId": 1}),
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        body["errors"]["shippingAddress.region"].is_string(),
        "{body}"
    );
    let (status, body) = sandbox
        .post(
            "/Cart/compute",
            Some(&token),
            json!({"cartId": cart_id, "shippingMethodId": 99}),
        )
        .await;
    assert_eq!(status, 400);
    assert!(body["errors"]["shippingMethodId"].is_string(), "{body}");
    let (status, _) = sandbox
        .post(
            "/Cart/compute",
            Some(&token),
            json!({"cartId": cart_id + 1000, "shippingMethodId": 1}),
        )
        .await;
    assert_eq!(status, 404, "someone else's cart id");
}

#[tokio::test]
async fn guest_compute_prices_the_guest_cart() {
    let sandbox = start().await;
    let guest_id = guest(&sandbox).await;
    sandbox
        .post(
            &format!("/Cart/guest/{guest_id}/items"),
            None,
            line("TEST-SLING", 1),
        )
        .await;
    let (status, cart) = sandbox
        .post(
            &format!("/Cart/guest/{guest_id}/compute"),
            None,
            json!({
                "shippingAddress": {"line1": "1 Broadway", "city": "New York", "region": "New York", "postalCode": "10004", "country": "US"},
                "shippingMethodId": "2"
            }),
        )
        .await;
    assert_eq!(status, 200, "{cart}");
    assert_eq!(money(&cart["taxAmount"]), 1.20, "New York 4% of 29.99");
    assert_eq!(money(&cart["totalAmount"]), 51.18);
}

#[tokio::test]
async fn a_valid_promo_code_discounts_the_cart() {
    let sandbox = start().await;
    let (_, token) = user(&sandbox, "promo@example.com");
    let (_, cart) = sandbox
        .post("/Cart/items", Some(&token), line("TEST-OPTIC", 1))
        .await;
    let optic = item(&cart, "TEST-OPTIC")["id"].clone();
    let (status, cart) = sandbox
        .post(
            "/Cart/promo-code",
            Some(&token),
            json!({"promoCode": "save10"}),
        )
        .await;
    assert_eq!(status, 200, "{cart}");
    assert_eq!(money(&cart["discountAmount"]), 45.0);
    assert_eq!(money(&cart["totalAmount"]), 404.99);
    assert_eq!(cart["promoCode"], "SAVE10");
    let discount = &cart["appliedDiscounts"][0];
    assert_eq!(discount["appliedToCartItemIds"], json!([optic]));
    assert_eq!(discount["promotionalPageInfo"], Value::Null);

    // Tax applies to the discounted subtotal.
    let (_, cart) = sandbox
        .post(
            "/Cart/compute",
            Some(&token),
            json!({"shippingAddress": {"region": "Texas", "country": "US"}, "shippingMethodId": 1}),
        )
        .await;
    assert_eq!(money(&cart["taxAmount"]), 25.31, "6.25% of 404.99");
}

#[tokio::test]
async fn invalid_and_expired_promo_codes_are_refused() {
    let sandbox = start().await;
    let guest_id = guest(&sandbox).await;
    let path = format!("/Cart/guest/{guest_id}/promo-code");
    for code in ["NOPE", "EXPIRED15"] {
        let (status, body) = sandbox.post(&path, None, json!({"promoCode": code})).await;
        assert_eq!(status, 400, "{code}");
        assert_eq!(body["message"], "Discount code is invalid");
    }
    let (status, body) = sandbox.post(&path, None, json!({"promoCode": ""})).await;
    assert_eq!(status, 400);
    assert!(body["errors"]["promoCode"].is_string());
    let (_, cart) = sandbox.get_json(&format!("/Cart/guest/{guest_id}")).await;
    assert_eq!(cart["appliedDiscounts"], json!([]));
}

#[tokio::test]
async fn the_bundle_code_carries_a_promotion_page_with_two_groups() {
    let sandbox = start().await;
    let guest_id = guest(&sandbox).await;
    sandbox
        .post(
            &format!("/Cart/guest/{guest_id}/items"),
            None,
            line("TEST-OPTIC", 1),
        )
        .await;
    let (status, cart) = sandbox
        .post(
            &format!("/Cart/guest/{guest_id}/promo-code"),
            None,
            json!({"promoCode": "BUNDLE20"}),
        )
        .await;
    assert_eq!(status, 200, "{cart}");
    assert_eq!(money(&cart["discountAmount"]), 90.0);
    let page = &cart["appliedDiscounts"][0]["promotionalPageInfo"]["data"][0];
    assert!(page["title"].is_string(), "{page}");
    assert!(page["subtitle"].is_string());
    let image = page["promo_image"]["url"].as_str().unwrap();
    assert!(image.starts_with(&sandbox.base), "{image}");
    for group in ["group1", "group2"] {
        assert!(page[group]["title"].is_string(), "{group}");
        for product in page[group]["products"].as_array().unwrap() {
            assert!(product["title"].is_string());
            for sku in product["skus"].as_array().unwrap() {
                assert!(sku["sku"].is_string());
                assert!(sku["finalPrice"].is_number());
            }
        }
    }
}

#[tokio::test]
async fn shipping_methods_are_one_free_and_two_paid() {
    let sandbox = start().await;
    let (status, methods) = sandbox.get_json("/Cart/shipping-methods").await;
    assert_eq!(status, 200);
    assert_eq!(
        methods,
        json!([
            {"id": 1, "name": "Standard Ground", "price": 0.0},
            {"id": 2, "name": "Expedited", "price": 19.99},
            {"id": 3, "name": "Overnight", "price": 39.99}
        ])
    );
}

#[tokio::test]
async fn merge_moves_the_guest_cart_into_the_users_summing_identical_lines() {
    let sandbox = start().await;
    let (user_id, token) = user(&sandbox, "merge@example.com");
    sandbox
        .post("/Cart/items", Some(&token), line("TEST-OPTIC", 2))
        .await;
    let guest_id = guest(&sandbox).await;
    let guest_items = format!("/Cart/guest/{guest_id}/items");
    sandbox
        .post(&guest_items, None, line("TEST-OPTIC", 1))
        .await;
    sandbox
        .post(&guest_items, None, line("TEST-SLING", 1))
        .await;
    sandbox
        .post(
            &format!("/Cart/guest/{guest_id}/promo-code"),
            None,
            json!({"promoCode": "SAVE10"}),
        )
        .await;

    let (status, cart) = sandbox
        .post(
            &format!("/Cart/merge?guestId={guest_id}"),
            Some(&token),
            json!({"guestId": guest_id}),
        )
        .await;
    assert_eq!(status, 200, "{cart}");
    assert_eq!(cart["userId"], user_id);
    assert_eq!(cart["items"].as_array().unwrap().len(), 2);
    assert_eq!(item(&cart, "TEST-OPTIC")["quantity"], 3);
    assert_eq!(item(&cart, "TEST-SLING")["quantity"], 1);
    assert_eq!(cart["promoCode"], "SAVE10", "the guest's promo comes along");

    let (status, guest_cart) = sandbox.get_json(&format!("/Cart/guest/{guest_id}")).await;
    assert_eq!(status, 200);
    assert_eq!(guest_cart["items"], json!([]), "the guest cart is emptied");

    // Merging again (a retry) changes nothing; the body alone names the guest too.
    let (status, cart) = sandbox
        .post("/Cart/merge", Some(&token), json!({"guestId": guest_id}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(item(&cart, "TEST-OPTIC")["quantity"], 3);

    let (status, _) = sandbox
        .post(
            "/Cart/merge?guestId=gid_unknown",
            Some(&token),
            json!({"guestId": "gid_unknown"}),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = sandbox
        .post(&format!("/Cart/merge?guestId={guest_id}"), None, json!({}))
        .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn lines_beyond_stock_carry_inventory_warnings() {
    let sandbox = start().await;
    let guest_id = guest(&sandbox).await;
    let path = format!("/Cart/guest/{guest_id}/items");
    sandbox.post(&path, None, line("TEST-SLING", 3)).await;
    let (status, cart) = sandbox.post(&path, None, line("TEST-SOLDOUT", 1)).await;
    assert_eq!(status, 200);
    let warnings = cart["inventoryWarnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2, "{cart}");
    let sling = warnings
        .iter()
        .find(|warning| warning["productId"] == "TEST-SLING")
        .unwrap();
    assert_eq!(sling["warningType"], "InsufficientStock");
    assert_eq!(sling["productName"], "TEST-SLING");
    assert!(sling["message"].as_str().unwrap().contains('2'));
    let soldout = warnings
        .iter()
        .find(|warning| warning["productId"] == "TEST-SOLDOUT")
        .unwrap();
    assert_eq!(soldout["warningType"], "OutOfStock");

    // Back within stock: the warning goes away.
    let id = item(&cart, "TEST-SLING")["id"].as_i64().unwrap();
    let (_, cart) = sandbox
        .send(
            Method::PUT,
            &format!("{path}/{id}"),
            None,
            json!({"quantity": 2}),
        )
        .await;
    assert_eq!(cart["inventoryWarnings"].as_array().unwrap().len(), 1);
}

/// The Summit LR's first sku (TF-SLR-65CM-24-BLK: $2,199.00, no discount) and its catalogue
/// add-on "Ironclad 20 MOA Rail" (+$89.00).
fn summit(add_ons: Option<&str>, product_price: f64, price: f64) -> Value {
    let mut options = vec![json!({"label": "Caliber", "value": "6.5 Creedmoor"})];
    if let Some(add_ons) = add_ons {
        options.push(json!({"label": "Add-Ons", "value": add_ons}));
    }
    json!({
        "productId": "TF-SLR-65CM-24-BLK", "productName": "Summit LR", "quantity": 1,
        "options": options, "productPrice": product_price, "price": price,
    })
}

#[tokio::test]
async fn add_ons_are_charged_checked_against_the_catalogue_and_make_their_own_line() {
    let sandbox = start().await;
    let guest_id = guest(&sandbox).await;
    let path = format!("/Cart/guest/{guest_id}/items");

    let (status, cart) = sandbox
        .post(
            &path,
            None,
            summit(Some("Ironclad 20 MOA Rail"), 2288.0, 2288.0),
        )
        .await;
    assert_eq!(status, 200, "{cart}");
    let line = &cart["items"][0];
    assert_eq!(
        money(&line["productPrice"]),
        2288.0,
        "the add-on is in the unit price"
    );
    assert_eq!(money(&line["price"]), 2288.0);
    assert_eq!(money(&cart["subTotal"]), 2288.0);

    // the same sku without the add-on: another line, at the sku's price
    let (status, cart) = sandbox
        .post(&path, None, summit(None, 2199.0, 2199.0))
        .await;
    assert_eq!(status, 200, "{cart}");
    let prices: Vec<f64> = cart["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| money(&line["productPrice"]))
        .collect();
    assert_eq!(prices, [2288.0, 2199.0]);
    assert_eq!(money(&cart["subTotal"]), 4487.0);

    // the same set of add-ons again: the first line grows
    let (_, cart) = sandbox
        .post(
            &path,
            None,
            summit(Some("Ironclad 20 MOA Rail"), 2288.0, 2288.0),
        )
        .await;
    assert_eq!(cart["items"][0]["quantity"], 2);
    assert_eq!(cart["items"].as_array().unwrap().len(), 2);

    // a price that does not match the sku plus its add-ons is refused, and nothing changes
    for (payload, what) in [
        (
            summit(Some("Ironclad 20 MOA Rail"), 2288.0, 2199.0),
            "the add-on left out of price",
        ),
        (
            summit(Some("Ironclad 20 MOA Rail"), 2199.0, 2288.0),
            "the add-on left out of productPrice",
        ),
        (summit(None, 2199.0, 1.0), "a price of the browser's"),
        (
            summit(Some("Gold Plating"), 2199.0, 2199.0),
            "an add-on the product does not offer",
        ),
    ] {
        let (status, body) = sandbox.post(&path, None, payload).await;
        assert_eq!(status, 422, "{what}: {body}");
        assert!(
            body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{body}"
        );
    }
    let (_, cart) = sandbox.get_json(&format!("/Cart/guest/{guest_id}")).await;
    assert_eq!(money(&cart["subTotal"]), 2288.0 * 2.0 + 2199.0);
}
