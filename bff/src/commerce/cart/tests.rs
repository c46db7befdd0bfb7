//! The cart service against a stand-in commerce upstream.

use axum::http::StatusCode;
use axum::routing;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::*;
use crate::commerce::testing::{self, shopper, upstream_cart};

#[tokio::test]
async fn a_guest_cart_reaches_the_browser_without_its_token_and_with_one_spelling() {
    let upstream = Router::new().route(
        "/Cart/guest/gid_1",
        routing::get(|| async { Json(upstream_cart()) }),
    );
    let (shopper, _) = shopper(upstream, Session::guest("gid_1".to_owned())).await;
    let cart = get(&shopper).await.unwrap();
    assert_eq!(cart.id, Some(41));
    assert_eq!(cart.items[0].quantity, 2);
    let answer = serde_json::to_value(&cart).unwrap();
    assert!(answer.get("guestId").is_none(), "{answer}");
    assert!(
        answer.get("loyaltyTier").is_none(),
        "unknown fields are dropped"
    );
    assert!(answer["items"][0].get("warehouse").is_none());
    let page = &answer["appliedDiscounts"][0]["promotionalPageInfo"]["data"][0];
    assert_eq!(
        page["promoImage"]["url"],
        "https://media.example/bundle.svg"
    );
    assert_eq!(page["promoImage"]["alternativeText"], "Bundle");
    assert!(page.get("promo_image").is_none(), "{page}");
    assert_eq!(
        page["group1"]["products"][0]["skus"][0]["finalPrice"],
        899.1
    );
    assert_eq!(page["group2"], Value::Null);
}

#[tokio::test]
async fn a_cart_missing_a_required_field_breaks_the_contract() {
    let mut broken = upstream_cart();
    broken["items"][0]
        .as_object_mut()
        .unwrap()
        .remove("quantity");
    let upstream = Router::new().route(
        "/Cart/guest/gid_1",
        routing::get(move || {
            let broken = broken.clone();
            async move { Json(broken) }
        }),
    );
    let (shopper, _) = shopper(upstream, Session::guest("gid_1".to_owned())).await;
    let err = get(&shopper).await.unwrap_err();
    let ApiError::Upstream(UpstreamError::Contract { field, reason, .. }) = &err else {
        panic!("not a contract error: {err:?}");
    };
    assert_eq!(field, "items[0]");
    assert!(reason.contains("quantity"), "{reason}");
    let problem = err.problem();
    assert_eq!((problem.status, problem.code), (502, "upstream_contract"));
}

#[tokio::test]
async fn an_unknown_guest_starts_afresh_with_the_empty_cart() {
    let upstream = Router::new().route(
        "/Cart/guest/gid_gone",
        routing::get(|| async { StatusCode::NOT_FOUND }),
    );
    let (shopper, _) = shopper(upstream, Session::guest("gid_gone".to_owned())).await;
    assert_eq!(get(&shopper).await.unwrap(), Cart::empty());
    assert_eq!(shopper.session().get(), Session::Anonymous);
}

#[tokio::test]
async fn a_visitor_without_a_cart_gets_the_specs_empty_cart_without_a_call() {
    let (shopper, requests) = shopper(Router::new(), Session::Anonymous).await;
    let cart = serde_json::to_value(get(&shopper).await.unwrap()).unwrap();
    for (field, value) in [
        ("id", Value::Null),
        ("isGuest", json!(true)),
        ("items", json!([])),
        ("subTotal", json!(0.0)),
        ("totalAmount", json!(0.0)),
        ("appliedDiscounts", json!([])),
    ] {
        assert_eq!(cart[field], value, "{field}");
    }
    assert_eq!(
        update_item(&shopper, "7", &QuantityUpdate { quantity: Some(2) })
            .await
            .unwrap_err()
            .to_string(),
        "Cart item not found."
    );
    assert!(requests.all().is_empty(), "{:?}", requests.all());
}

/// The body the stand-in upstream received.
type Received = std::sync::Arc<std::sync::Mutex<Option<Value>>>;

#[tokio::test]
async fn a_first_write_creates_the_guest_and_sends_only_the_line_fields() {
    let received = Received::default();
    let upstream = Router::new()
        .route(
            "/Auth/guest",
            routing::post(|| async {
                Json(json!({"guestId": "gid_new", "token": "t", "issued": 1}))
            }),
        )
        .route(
            "/Cart/guest/gid_new/items",
            routing::post(
                |received: axum::Extension<Received>, Json(line): Json<Value>| async move {
                    if let Ok(mut slot) = received.0.lock() {
                        *slot = Some(line.clone());
                    }
                    let mut cart = upstream_cart();
                    cart["items"][0]["productId"] = line["productId"].clone();
                    cart["items"][0]["quantity"] = line["quantity"].clone();
                    Json(cart)
                },
            ),
        );
    let (shopper, requests) = shopper(
        upstream.layer(axum::Extension(received.clone())),
        Session::Anonymous,
    )
    .await;
    let item: NewCartItem = serde_json::from_value(json!({
        "productId": "TF-MAT", "productName": "Range Mat", "price": 0.01, "isFflItem": true
    }))
    .unwrap();
    let cart = add_item(&shopper, &CheckedLine::bare(&item)).await.unwrap();
    assert_eq!(cart.items[0].product_id, "TF-MAT");
    assert_eq!(cart.items[0].quantity, 1, "the quantity defaults to 1");
    assert_eq!(
        shopper.session().get(),
        Session::guest("gid_new".to_owned())
    );
    assert_eq!(
        requests.all(),
        ["POST /Auth/guest", "POST /Cart/guest/gid_new/items"]
    );
    let sent = received.lock().unwrap().clone();
    assert_eq!(
        sent.unwrap(),
        json!({"productId": "TF-MAT", "quantity": 1, "options": [], "optionIds": []}),
        "prices and flags are the commerce service's"
    );
}

#[tokio::test]
async fn a_malformed_guest_token_breaks_the_contract() {
    let upstream = Router::new().route(
        "/Auth/guest",
        routing::post(|| async { Json(json!({"guestId": "session-123"})) }),
    );
    let (shopper, _) = shopper(upstream, Session::Anonymous).await;
    let promo = PromoCode {
        promo_code: "SAVE10".to_owned(),
    };
    let err = apply_promo_code(&shopper, &promo).await.unwrap_err();
    assert_eq!(err.problem().code, "upstream_contract");
    assert_eq!(shopper.session().get(), Session::Anonymous);
}

#[tokio::test]
async fn a_refused_promo_code_is_the_specs_message() {
    let upstream = Router::new().route(
        "/Cart/guest/gid_1/promo-code",
        routing::post(|| async {
            (
                StatusCode::BAD_REQUEST,
                Json(json!({"message": "Discount code is invalid"})),
            )
        }),
    );
    let (shopper, _) = shopper(upstream, Session::guest("gid_1".to_owned())).await;
    let promo = PromoCode {
        promo_code: " EXPIRED15 ".to_owned(),
    };
    let Err(ApiError::Validation(errors)) = apply_promo_code(&shopper, &promo).await else {
        panic!("not refused");
    };
    assert_eq!(errors["promoCode"], "Discount code is invalid");
}

#[tokio::test]
async fn a_signed_in_read_retries_the_pending_merge_with_the_bearer() {
    let upstream = Router::new()
        .route(
            "/Cart/merge",
            routing::post(|| async { StatusCode::NO_CONTENT }),
        )
        .route("/Cart", routing::get(|| async { Json(upstream_cart()) }));
    let session = Session::guest("gid_1".to_owned()).signed_in(testing::tokens("ada@example.com"));
    let (shopper, requests) = shopper(upstream, session).await;
    assert_eq!(get(&shopper).await.unwrap().id, Some(41));
    assert_eq!(
        requests.all(),
        ["POST /Cart/merge +bearer", "GET /Cart +bearer"]
    );
    assert_eq!(shopper.session().get().pending_merge(), None);
    assert_eq!(merge_pending(&shopper).await, Merge::NothingPending);
}

#[tokio::test]
async fn a_failed_merge_is_kept_for_a_retry() {
    let upstream = Router::new().route(
        "/Cart/merge",
        routing::post(|| async { StatusCode::SERVICE_UNAVAILABLE }),
    );
    let session = Session::guest("gid_1".to_owned()).signed_in(testing::tokens("ada@example.com"));
    let (shopper, _) = shopper(upstream, session).await;
    assert_eq!(merge_pending(&shopper).await, Merge::KeptForRetry);
    assert_eq!(shopper.session().get().pending_merge(), Some("gid_1"));
}

#[tokio::test]
async fn shipping_methods_are_read_as_they_are() {
    let upstream = Router::new().route(
        "/Cart/shipping-methods",
        routing::get(|| async {
            Json(json!([{"id": 1, "name": "Standard Ground", "price": 0.0, "carrier": "UPS"}]))
        }),
    );
    let (shopper, _) = shopper(upstream, Session::Anonymous).await;
    let methods = shipping_methods(&shopper).await.unwrap();
    assert_eq!(
        methods,
        [ShippingMethod {
            id: 1,
            name: "Standard Ground".to_owned(),
            price: 0.0
        }]
    );
}
