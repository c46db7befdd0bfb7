//! Checkout and order reads over HTTP: payment, restrictions, FFL dealers, stock, the
//! confirmation e-mail, and who may read which order.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::TestSandbox;
use sandbox::content::skus::{self, Sku};
use sandbox::thirdparty::{outbox, payment};
use serde_json::{Value, json};

fn sku(code: &str, name: &str, price_cents: i64, stock: i64) -> Sku {
    Sku {
        code: code.to_owned(),
        product_title: name.to_owned(),
        product_name: name.to_owned(),
        price_cents,
        discount_percent: 0.0,
        stock,
        ffl_item: false,
        receiver_item: false,
        restricted_states: Vec::new(),
        restricted_zips: Vec::new(),
    }
}

async fn start() -> TestSandbox {
    let sandbox = common::start().await;
    sandbox
        .state
        .db
        .call(|conn| {
            skus::insert(
                conn,
                &Sku {
                    discount_percent: 10.0,
                    ..sku("TEST-OPTIC", "Ridgeline 3-9x40 Scope", 49_999, 10)
                },
            )?;
            skus::insert(conn, &sku("TEST-SLING", "Padded Sling", 2_999, 2))?;
            skus::insert(
                conn,
                &Sku {
                    restricted_states: vec!["NY".to_owned(), "CA".to_owned()],
                    restricted_zips: vec!["60601".to_owned()],
                    ..sku("TEST-MAG", "30-Round Magazine", 3_499, 50)
                },
            )?;
            skus::insert(
                conn,
                &Sku {
                    ffl_item: true,
                    restricted_states: vec!["CA".to_owned()],
                    restricted_zips: vec!["02108".to_owned()],
                    ..sku("TEST-RIFLE", "Summit LR Rifle", 189_999, 5)
                },
            )
        })
        .unwrap();
    sandbox
}

fn user(sandbox: &TestSandbox, email: &str) -> String {
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
            Ok(sandbox::commerce::tokens::issue(conn, &state.keys, id, &email, 900)?.access_token)
        })
        .unwrap()
}

async fn guest(sandbox: &TestSandbox) -> String {
    let (_, body) = sandbox.post("/Auth/guest", None, json!({})).await;
    body["guestId"].as_str().unwrap().to_owned()
}

/// A one-time payment token, as the tokenizer would hand out.
fn payment_token(sandbox: &TestSandbox, declined: bool) -> String {
    let token = format!("tok_{}", uuid::Uuid::new_v4().simple());
    let stored = token.clone();
    sandbox
        .state
        .db
        .call(|conn| {
            payment::issue(
                conn,
                &stored,
                &payment::Card {
                    brand: "Visa".to_owned(),
                    last4: if declined { "0002" } else { "1111" }.to_owned(),
                },
                declined,
                "2024-01-01T00:00:00Z",
            )
        })
        .unwrap();
    token
}

fn line(code: &str, quantity: i64) -> Value {
    json!({
        "productId": code,
        "productName": code,
        "quantity": quantity,
        "options": [{"label": "Color", "value": "Black"}, {"label": "Size", "value": "Large"}],
        "productUrl": format!("/product/{code}"),
    })
}

/// Who is checking out: a signed-in user or a guest.
enum Shopper {
    User(String),
    Guest(String),
}

impl Shopper {
    async fn add(&self, sandbox: &TestSandbox, code: &str, quantity: i64) -> Value {
        let (status, cart) = match self {
            Self::User(token) => {
                sandbox
                    .post("/Cart/items", Some(token), line(code, quantity))
                    .await
            }
            Self::Guest(guest_id) => {
                sandbox
                    .post(
                        &format!("/Cart/guest/{guest_id}/items"),
                        None,
                        line(code, quantity),
                    )
                    .await
            }
        };
        assert_eq!(status, 200, "{cart}");
        cart
    }

    async fn cart(&self, sandbox: &TestSandbox) -> Value {
        match self {
            Self::User(token) => sandbox.get_as("/Cart", token).await.1,
            Self::Guest(guest_id) => sandbox.get_json(&format!("/Cart/guest/{guest_id}")).await.1,
        }
    }

    fn request(&self, sandbox: &TestSandbox, method: reqwest::Method, path: &str) -> common::Call {
        let request = sandbox.client.request(method, sandbox.url(path));
        match self {
            Self::User(token) => request.bearer_auth(token),
            Self::Guest(guest_id) => request.header("X-Guest-Id", guest_id),
        }
    }

    async fn checkout(&self, sandbox: &TestSandbox, body: &Value) -> (u16, Value) {
        let response = self
            .request(sandbox, reqwest::Method::POST, "/Checkout/simplified")
            .json(body)
            .send()
            .await;
        let status = response.status().as_u16();
        (status, response.json().unwrap_or(Value::Null))
    }

    async fn order(&self, sandbox: &TestSandbox, id: &Value) -> (u16, Value) {
        let response = self
            .request(sandbox, reqwest::Method::GET, &format!("/Order/{id}"))
            .send()
            .await;
        let status = response.status().as_u16();
        (status, response.json().unwrap_or(Value::Null))
    }
}

/// Billing in Austin, Texas, shipping the same.
fn customer() -> Value {
    json!({
        "email": "buyer@example.com",
        "name": "Jane Doe",
        "company": "",
        "mainContact": "(512) 555-0100",
        "address": "100 Congress Ave",
        "city": "Austin",
        "state": "TX",
        "zip": "78701",
        "country": "United States",
        "shippingName": "",
        "shippingCompany": "",
        "addressContact": "",
        "shippingAddress": "",
        "shippingCity": "",
        "shippingState": "",
        "shippingZip": "",
        "shippingCountry": "United States",
        "optInNewsletter": false,
        "shippingSameAsBilling": true,
        "shippingMethodId": 2
    })
}

fn dealer(state: &str, zip: &str) -> Value {
    json!({
        "dealerName": "Lone Star Arms",
        "dealerAddress": "200 Ranch Rd",
        "dealerEmail": "ffl@lonestar.example",
        "dealerPhone": "512-555-0199",
        "dealerCity": "Dallas",
        "dealerState": state,
        "dealerZip": zip,
        "dealerCountry": "US"
    })
}

fn checkout_body(cart: &Value, customer: Value, dealer: Option<Value>, token: &str) -> Value {
    let mut body = json!({"cartId": cart["id"], "customerInfo": customer, "paymentToken": token});
    if let Some(dealer) = dealer {
        body["dealerInfo"] = dealer;
    }
    body
}

fn stock(sandbox: &TestSandbox, code: &str) -> i64 {
    let code = code.to_owned();
    sandbox
        .state
        .db
        .call(|conn| Ok(skus::find(conn, &code)?.map(|sku| sku.stock)))
        .unwrap()
        .unwrap()
}

fn confirmations(sandbox: &TestSandbox) -> Vec<outbox::Email> {
    sandbox
        .state
        .db
        .call(|conn| outbox::all(conn))
        .unwrap()
        .into_iter()
        .filter(|email| email.kind == "order-confirmation")
        .collect()
}

fn money(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

#[tokio::test]
async fn a_user_checks_out_and_the_order_is_written_stocked_emptied_and_mailed() {
    let sandbox = start().await;
    let shopper = Shopper::User(user(&sandbox, "buyer@example.com"));
    shopper.add(&sandbox, "TEST-OPTIC", 2).await;
    let cart = shopper.add(&sandbox, "TEST-SLING", 1).await;
    let token = payment_token(&sandbox, false);

    let (status, body) = shopper
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["success"], true);
    assert!(body["message"].is_string());
    let order_id = body["orderId"].as_i64().unwrap();
    assert!(order_id >= 100_001, "{order_id}");

    assert_eq!(stock(&sandbox, "TEST-OPTIC"), 8);
    assert_eq!(stock(&sandbox, "TEST-SLING"), 1);
    assert_eq!(shopper.cart(&sandbox).await["items"], json!([]));

    let mails = confirmations(&sandbox);
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].recipient, "buyer@example.com");
    assert_eq!(
        mails[0].link.as_deref(),
        Some(format!("http://localhost:8080/confirm/{order_id}").as_str())
    );
    assert!(mails[0].body.contains(&order_id.to_string()));

    let (status, order) = shopper.order(&sandbox, &body["orderId"]).await;
    assert_eq!(status, 200, "{order}");
    assert_eq!(order["id"], order_id);
    assert_eq!(order["userEmail"], "buyer@example.com");
    assert_eq!(order["status"], "Processing");
    assert_eq!(order["shippingFirstName"], "Jane");
    assert_eq!(order["shippingLastName"], "Doe");
    assert_eq!(order["address"], "100 Congress Ave");
    assert_eq!(order["city"], "Austin");
    assert_eq!(order["state"], "TX");
    assert_eq!(order["zipCode"], "78701");
    assert_eq!(order["country"], "United States");
    assert_eq!(order["customerPhone"], "(512) 555-0100");
    assert_eq!(order["dealerName"], Value::Null);
    assert_eq!(order["shippingMethodName"], "Expedited");
    assert_eq!(order["paymentMethod"]["last4"], "1111");
    let items = order["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    let optic = items
        .iter()
        .find(|item| item["productId"] == "TEST-OPTIC")
        .unwrap();
    assert_eq!(optic["productName"], "TEST-OPTIC");
    assert_eq!(optic["productUrl"], "/product/TEST-OPTIC");
    assert_eq!(optic["options"], json!(["Black", "Large"]));
    assert_eq!(money(&optic["unitPrice"]), 449.99);
    assert_eq!(optic["quantity"], 2);
    assert_eq!(money(&optic["price"]), 899.98);
    assert_eq!(money(&order["subtotal"]), 929.97);
    assert_eq!(money(&order["shippingCost"]), 19.99);
    assert_eq!(money(&order["discountAmount"]), 0.0);
    assert_eq!(money(&order["taxAmount"]), 58.12, "Texas 6.25% of 929.97");
    assert_eq!(money(&order["totalAmount"]), 1008.08);

    // The token is spent, and the cart is empty anyway.
    let cart = shopper.add(&sandbox, "TEST-OPTIC", 1).await;
    let (status, body) = shopper
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 400);
    assert!(body["errors"]["paymentToken"].is_string(), "{body}");
}

#[tokio::test]
async fn a_guest_checks_out_with_x_guest_id_and_reads_only_its_own_order() {
    let sandbox = start().await;
    let guest_id = guest(&sandbox).await;
    let shopper = Shopper::Guest(guest_id.clone());
    let cart = shopper.add(&sandbox, "TEST-SLING", 1).await;
    sandbox
        .post(
            &format!("/Cart/guest/{guest_id}/promo-code"),
            None,
            json!({"promoCode": "SAVE10"}),
        )
        .await;
    let mut info = customer();
    info["shippingSameAsBilling"] = json!(false);
    info["shippingFirstName"] = json!("John");
    info["shippingLastName"] = json!("Roe");
    info["shippingName"] = json!("John Roe");
    info["shippingAddress"] = json!("1 Pike St");
    info["shippingCity"] = json!("Seattle");
    info["shippingState"] = json!("WA");
    info["shippingZip"] = json!("98101");
    info["shippingMethodId"] = json!(1);
    let token = payment_token(&sandbox, false);
    let (status, body) = shopper
        .checkout(&sandbox, &checkout_body(&cart, info, None, &token))
        .await;
    assert_eq!(status, 200, "{body}");

    let (status, order) = shopper.order(&sandbox, &body["orderId"]).await;
    assert_eq!(status, 200, "{order}");
    assert_eq!(order["isGuestOrder"], true);
    assert_eq!(order["shippingFirstName"], "John");
    assert_eq!(order["state"], "WA");
    assert_eq!(order["billingState"], "TX");
    assert_eq!(money(&order["shippingCost"]), 0.0);
    assert_eq!(money(&order["discountAmount"]), 3.0);
    assert_eq!(money(&order["taxAmount"]), 1.75, "Washington 6.5% of 26.99");
    assert_eq!(money(&order["totalAmount"]), 28.74);

    let stranger = Shopper::Guest(guest(&sandbox).await);
    let (status, _) = stranger.order(&sandbox, &body["orderId"]).await;
    assert_eq!(status, 404, "another guest's order");
    let someone = Shopper::User(user(&sandbox, "someone@example.com"));
    let (status, _) = someone.order(&sandbox, &body["orderId"]).await;
    assert_eq!(status, 404, "a user reading a guest's order");
    let (status, _) = sandbox
        .get_json(&format!("/Order/{}", body["orderId"]))
        .await;
    assert_eq!(status, 404, "no credentials");
}

#[tokio::test]
async fn a_user_never_reads_another_users_order_and_unknown_orders_are_404() {
    let sandbox = start().await;
    let alice = Shopper::User(user(&sandbox, "alice@example.com"));
    let cart = alice.add(&sandbox, "TEST-SLING", 1).await;
    let token = payment_token(&sandbox, false);
    let (status, body) = alice
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = alice.order(&sandbox, &body["orderId"]).await;
    assert_eq!(status, 200);

    let bob = Shopper::User(user(&sandbox, "bob@example.com"));
    let (status, body) = bob.order(&sandbox, &body["orderId"]).await;
    assert_eq!(status, 404);
    assert!(body["message"].is_string());
    let (status, _) = alice.order(&sandbox, &json!(999_999)).await;
    assert_eq!(status, 404);
    let (status, _) = alice.order(&sandbox, &json!("not-a-number")).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_declined_card_is_refused_and_changes_nothing_but_the_token() {
    let sandbox = start().await;
    let shopper = Shopper::User(user(&sandbox, "declined@example.com"));
    let cart = shopper.add(&sandbox, "TEST-SLING", 1).await;
    let token = payment_token(&sandbox, true);
    let (status, body) = shopper
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 422);
    assert_eq!(body["message"], "This transaction has been declined.");
    assert_eq!(stock(&sandbox, "TEST-SLING"), 2);
    assert_eq!(
        shopper.cart(&sandbox).await["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert!(confirmations(&sandbox).is_empty());

    // A declined token is spent, as with a real processor.
    let (status, _) = shopper
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn unknown_and_missing_payment_tokens_are_validation_errors() {
    let sandbox = start().await;
    let shopper = Shopper::User(user(&sandbox, "token@example.com"));
    let cart = shopper.add(&sandbox, "TEST-SLING", 1).await;
    let (status, body) = shopper
        .checkout(
            &sandbox,
            &checkout_body(&cart, customer(), None, "tok_forged"),
        )
        .await;
    assert_eq!(status, 400);
    assert!(body["errors"]["paymentToken"].is_string(), "{body}");
    let (status, body) = shopper
        .checkout(
            &sandbox,
            &json!({"cartId": cart["id"], "customerInfo": customer()}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["message"], "paymentToken is required");
}

#[tokio::test]
async fn restricted_items_are_refused_by_shipping_state_and_by_zip() {
    let sandbox = start().await;
    let shopper = Shopper::User(user(&sandbox, "restricted@example.com"));
    let cart = shopper.add(&sandbox, "TEST-MAG", 1).await;

    let mut new_york = customer();
    new_york["state"] = json!("New York");
    new_york["city"] = json!("Albany");
    new_york["zip"] = json!("12207");
    let token = payment_token(&sandbox, false);
    let (status, body) = shopper
        .checkout(&sandbox, &checkout_body(&cart, new_york, None, &token))
        .await;
    assert_eq!(status, 422, "{body}");
    let message = body["message"].as_str().unwrap();
    assert!(message.contains("restricted"), "{message}");
    assert!(message.contains("TEST-MAG"), "{message}");

    let mut chicago = customer();
    chicago["state"] = json!("IL");
    chicago["city"] = json!("Chicago");
    chicago["zip"] = json!("60601-1234");
    let (status, body) = shopper
        .checkout(&sandbox, &checkout_body(&cart, chicago, None, &token))
        .await;
    assert_eq!(status, 422, "{body}");

    // Billing in Texas, shipping to California: the shipping state decides.
    let mut to_california = customer();
    to_california["shippingSameAsBilling"] = json!(false);
    to_california["shippingName"] = json!("Jane Doe");
    to_california["shippingAddress"] = json!("1 Market St");
    to_california["shippingCity"] = json!("San Francisco");
    to_california["shippingState"] = json!("CA");
    to_california["shippingZip"] = json!("94105");
    let (status, _) = shopper
        .checkout(&sandbox, &checkout_body(&cart, to_california, None, &token))
        .await;
    assert_eq!(status, 422);

    assert_eq!(stock(&sandbox, "TEST-MAG"), 50);
    // Nothing was charged: the token still works for an allowed address.
    let (status, body) = shopper
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn ffl_items_need_a_dealer_and_are_checked_against_the_dealers_state_and_zip() {
    let sandbox = start().await;
    let shopper = Shopper::User(user(&sandbox, "ffl@example.com"));
    shopper.add(&sandbox, "TEST-RIFLE", 1).await;
    let cart = shopper.add(&sandbox, "TEST-MAG", 1).await;
    let token = payment_token(&sandbox, false);

    let (status, body) = shopper
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 400);
    assert!(
        body["message"].as_str().unwrap().contains("dealer"),
        "{body}"
    );

    let (status, body) = shopper
        .checkout(
            &sandbox,
            &checkout_body(
                &cart,
                customer(),
                Some(dealer("California", "90001")),
                &token,
            ),
        )
        .await;
    assert_eq!(
        status, 422,
        "the rifle is restricted in the dealer's state: {body}"
    );
    let message = body["message"].as_str().unwrap();
    assert!(
        message.contains("TEST-RIFLE") && !message.contains("TEST-MAG"),
        "{message}"
    );

    let (status, _) = shopper
        .checkout(
            &sandbox,
            &checkout_body(&cart, customer(), Some(dealer("MA", "02108")), &token),
        )
        .await;
    assert_eq!(status, 422, "the rifle is restricted at the dealer's zip");

    let mut bad_dealer = dealer("TX", "75201");
    bad_dealer["dealerPhone"] = json!("555-01");
    bad_dealer["dealerEmail"] = json!("not-an-email");
    let (status, body) = shopper
        .checkout(
            &sandbox,
            &checkout_body(&cart, customer(), Some(bad_dealer), &token),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["errors"]["dealerInfo.dealerPhone"],
        "Must be a valid phone number"
    );
    assert_eq!(
        body["errors"]["dealerInfo.dealerEmail"],
        "Must be a valid email address"
    );

    // A Texas dealer: the rifle ships there; the magazine ships to the (Texas) customer.
    let (status, body) = shopper
        .checkout(
            &sandbox,
            &checkout_body(&cart, customer(), Some(dealer("TX", "75201")), &token),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, order) = shopper.order(&sandbox, &body["orderId"]).await;
    assert_eq!(order["dealerName"], "Lone Star Arms");
    assert_eq!(order["dealerState"], "TX");
    assert_eq!(order["dealerZip"], "75201");
    let rifle = order["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["productId"] == "TEST-RIFLE")
        .unwrap();
    assert_eq!(rifle["isFflItem"], true);
    assert!(
        confirmations(&sandbox)[0].body.contains("Lone Star Arms"),
        "the e-mail names the dealer"
    );
}

#[tokio::test]
async fn short_stock_is_a_conflict_and_writes_nothing() {
    let sandbox = start().await;
    let bearer = user(&sandbox, "stock@example.com");
    let shopper = Shopper::User(bearer.clone());
    shopper.add(&sandbox, "TEST-OPTIC", 1).await;
    let cart = shopper.add(&sandbox, "TEST-SLING", 3).await;
    assert_eq!(
        cart["inventoryWarnings"][0]["warningType"],
        "InsufficientStock"
    );
    let token = payment_token(&sandbox, false);
    let (status, body) = shopper
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(stock(&sandbox, "TEST-OPTIC"), 10, "rolled back");
    assert_eq!(stock(&sandbox, "TEST-SLING"), 2);
    assert!(confirmations(&sandbox).is_empty());
    assert_eq!(
        shopper.cart(&sandbox).await["items"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // Fixed, the same token goes through: the failed attempt charged nothing.
    let sling = cart["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["productId"] == "TEST-SLING")
        .unwrap()["id"]
        .clone();
    sandbox
        .send(
            reqwest::Method::PUT,
            &format!("/Cart/items/{sling}"),
            Some(&bearer),
            json!({"quantity": 2}),
        )
        .await;
    let (status, body) = shopper
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(stock(&sandbox, "TEST-SLING"), 0);
}

#[tokio::test]
async fn empty_foreign_and_anonymous_checkouts_are_refused() {
    let sandbox = start().await;
    let alice = Shopper::User(user(&sandbox, "alice@example.com"));
    let token = payment_token(&sandbox, false);
    let empty = alice.cart(&sandbox).await;
    let (status, body) = alice
        .checkout(&sandbox, &checkout_body(&empty, customer(), None, &token))
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["message"], "Your cart is empty");

    let cart = alice.add(&sandbox, "TEST-SLING", 1).await;
    let bob = Shopper::User(user(&sandbox, "bob@example.com"));
    let (status, _) = bob
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 404, "someone else's cart");
    let stranger = Shopper::Guest(guest(&sandbox).await);
    let (status, _) = stranger
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 404);
    let (status, _) = sandbox
        .post(
            "/Checkout/simplified",
            None,
            checkout_body(&cart, customer(), None, &token),
        )
        .await;
    assert_eq!(status, 401);

    let mut incomplete = customer();
    incomplete["zip"] = json!("787");
    incomplete["email"] = json!("nope");
    incomplete["state"] = json!("Ontario");
    incomplete["shippingMethodId"] = json!(null);
    let (status, body) = alice
        .checkout(&sandbox, &checkout_body(&cart, incomplete, None, &token))
        .await;
    assert_eq!(status, 400);
    let errors = &body["errors"];
    assert_eq!(
        errors["customerInfo.zip"],
        "Zip code must be at least 5 digits"
    );
    assert_eq!(
        errors["customerInfo.email"],
        "Must be a valid email address"
    );
    assert_eq!(errors["customerInfo.state"], "Must be a US state");
    assert_eq!(errors["customerInfo.shippingMethodId"], "Required");
}

#[tokio::test]
async fn carts_and_orders_survive_a_restart() {
    let dir = tempfile::TempDir::new().unwrap();
    let sandbox = common::start_in(dir.path(), false).await;
    sandbox
        .state
        .db
        .call(|conn| skus::insert(conn, &sku("TEST-SLING", "Padded Sling", 2_999, 5)))
        .unwrap();
    let guest_id = guest(&sandbox).await;
    let shopper = Shopper::Guest(guest_id.clone());
    let cart = shopper.add(&sandbox, "TEST-SLING", 1).await;
    let token = payment_token(&sandbox, false);
    let (status, placed) = shopper
        .checkout(&sandbox, &checkout_body(&cart, customer(), None, &token))
        .await;
    assert_eq!(status, 200, "{placed}");
    shopper.add(&sandbox, "TEST-SLING", 2).await;
    sandbox.stop().await;

    let sandbox = common::start_in(dir.path(), false).await;
    let (status, order) = shopper.order(&sandbox, &placed["orderId"]).await;
    assert_eq!(status, 200);
    assert_eq!(order["items"][0]["productId"], "TEST-SLING");
    let cart = shopper.cart(&sandbox).await;
    assert_eq!(cart["items"][0]["quantity"], 2);
    sandbox.stop().await;
}
