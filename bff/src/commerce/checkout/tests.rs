//! The checkout service against a stand-in commerce upstream: one order per key, what is kept
//! for a key and what is not, and the refusals before any call.

use std::time::Duration;

use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;

use super::*;
use crate::commerce::testing::{self, Requests, shopper, upstream_cart};

const CHECKOUT: &str = "POST /Checkout/simplified +guest";

/// A guest's cart (one line, restricted in `restricted`) and a checkout answering `answer`.
fn upstream(restricted: &[&str], answer: (StatusCode, Value)) -> Router {
    let mut cart = upstream_cart();
    cart["items"][0]["restrictedStates"] = json!(restricted);
    Router::new()
        .route(
            "/Cart/guest/gid_1",
            get(move || {
                let cart = cart.clone();
                async move { Json(cart) }
            }),
        )
        .route(
            "/Checkout/simplified",
            post(move || {
                let (status, body) = answer.clone();
                async move { (status, Json(body)) }
            }),
        )
        .route("/Newsletter/subscribe", post(|| async { Json(json!({})) }))
}

fn placed() -> (StatusCode, Value) {
    (
        StatusCode::OK,
        json!({"orderId": 100001, "message": "Your order has been placed"}),
    )
}

fn body(state: &str) -> Vec<u8> {
    json!({
        "email": "jane@example.com", "firstName": "Jane", "lastName": "Doe",
        "address": "100 Congress Ave", "city": "Austin", "state": state, "zip": "78701",
        "country": "United States", "shippingMethodId": 2, "paymentToken": "tok",
        "optInNewsletter": true
    })
    .to_string()
    .into_bytes()
}

fn key(text: &str) -> IdempotencyKey {
    IdempotencyKey(text.to_owned())
}

fn answer_json(placement: &Placement) -> Value {
    serde_json::from_slice(&placement.answer.body).unwrap()
}

async fn guest(upstream: Router) -> (Shopper, Requests, Arc<IdempotencyStore>) {
    let (shopper, requests) = shopper(upstream, Session::guest("gid_1".to_owned())).await;
    (shopper, requests, Arc::new(IdempotencyStore::default()))
}

#[tokio::test]
async fn an_order_is_placed_once_per_key_and_then_replayed() {
    let (shopper, requests, store) = guest(upstream(&[], placed())).await;
    let first = place_order(&shopper, &store, &key("k1"), &body("TX"))
        .await
        .unwrap();
    assert_eq!(first.answer.status, StatusCode::OK);
    assert!(!first.replayed && first.error.is_none());
    assert_eq!(
        answer_json(&first),
        json!({"orderId": 100001, "success": true, "message": "Your order has been placed"}),
        "`success` is read as true when left out"
    );
    let again = place_order(&shopper, &store, &key("k1"), &body("TX"))
        .await
        .unwrap();
    assert!(again.replayed);
    assert_eq!(again.answer.body, first.answer.body);
    assert_eq!(requests.count(CHECKOUT), 1);
    let other_body = place_order(&shopper, &store, &key("k1"), &body("Texas")).await;
    assert_eq!(
        other_body.unwrap_err().problem().code,
        "idempotency_key_reused"
    );
    for _ in 0..50 {
        if requests.count("POST /Newsletter/subscribe") == 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "the opted-in shopper was not subscribed: {:?}",
        requests.all()
    );
}

#[tokio::test]
async fn a_declined_payment_is_kept_for_the_key_and_logged_once() {
    let declined = (
        StatusCode::UNPROCESSABLE_ENTITY,
        json!({"message": "This transaction has been declined."}),
    );
    let (shopper, requests, store) = guest(upstream(&[], declined)).await;
    let first = place_order(&shopper, &store, &key("k2"), &body("TX"))
        .await
        .unwrap();
    assert_eq!(first.answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(first.answer.content_type, "application/problem+json");
    let problem = answer_json(&first);
    assert_eq!(problem["code"], "payment_declined");
    assert_eq!(problem["detail"], "This transaction has been declined.");
    assert_eq!(
        first.error.map(|record| record.code),
        Some("payment_declined")
    );
    let again = place_order(&shopper, &store, &key("k2"), &body("TX"))
        .await
        .unwrap();
    assert!(again.replayed && again.error.is_none(), "logged when made");
    assert_eq!(requests.count(CHECKOUT), 1);
}

#[tokio::test]
async fn restricted_items_are_refused_and_the_key_may_be_used_again() {
    let (shopper, requests, store) = guest(upstream(&["CA"], placed())).await;
    let refused = place_order(&shopper, &store, &key("k3"), &body("CA"))
        .await
        .unwrap();
    let problem = answer_json(&refused);
    assert_eq!(problem["code"], "restricted_items");
    assert_eq!(problem["detail"], "Restricted Items in Cart");
    assert_eq!(
        problem["items"],
        json!([{"id": 7, "productId": "TF-QDS", "productName": "QD Sling Mount"}])
    );
    assert_eq!(requests.count(CHECKOUT), 0);
    let corrected = place_order(&shopper, &store, &key("k3"), &body("TX"))
        .await
        .unwrap();
    assert_eq!(corrected.answer.status, StatusCode::OK);
    assert!(!corrected.replayed);
}

#[tokio::test]
async fn a_confirmation_breaking_the_contract_is_a_kept_502_with_its_cause() {
    let broken = (StatusCode::OK, json!({"orderId": "one hundred"}));
    let (shopper, requests, store) = guest(upstream(&[], broken)).await;
    let first = place_order(&shopper, &store, &key("k4"), &body("TX"))
        .await
        .unwrap();
    assert_eq!(first.answer.status, StatusCode::BAD_GATEWAY);
    assert_eq!(answer_json(&first)["code"], "upstream_contract");
    let record = first.error.unwrap();
    assert_eq!(record.code, "upstream_contract");
    assert!(record.cause.contains("orderId"), "{}", record.cause);
    place_order(&shopper, &store, &key("k4"), &body("TX"))
        .await
        .unwrap();
    assert_eq!(
        requests.count(CHECKOUT),
        1,
        "the order may have been placed"
    );
}

#[tokio::test]
async fn a_server_error_is_not_kept_so_a_retry_runs_again() {
    let failing = (
        StatusCode::SERVICE_UNAVAILABLE,
        json!({"message": "try later"}),
    );
    let (shopper, requests, store) = guest(upstream(&[], failing)).await;
    for attempt in 1..=2 {
        let answer = place_order(&shopper, &store, &key("k5"), &body("TX"))
            .await
            .unwrap();
        assert_eq!(answer.answer.status, StatusCode::BAD_GATEWAY);
        assert!(!answer.replayed);
        assert_eq!(requests.count(CHECKOUT), attempt, "ran again");
    }
}

#[test]
fn only_the_upstreams_answer_about_the_order_is_final() {
    let status = |code: u16| {
        ApiError::Upstream(UpstreamError::Status {
            upstream: "commerce",
            status: StatusCode::from_u16(code).unwrap(),
            message: None,
            errors: None,
        })
    };
    assert!(is_final(&status(409)) && is_final(&status(422)));
    assert!(!is_final(&status(500)) && !is_final(&status(503)));
    let upstream = "commerce";
    for transient in [
        UpstreamError::Timeout { upstream },
        UpstreamError::Overloaded { upstream },
        UpstreamError::CircuitOpen {
            upstream,
            retry_after: Duration::from_secs(3),
        },
        UpstreamError::Unreachable {
            upstream,
            reason: "refused".to_owned(),
        },
    ] {
        assert!(!is_final(&ApiError::Upstream(transient)));
    }
}

#[tokio::test]
async fn card_data_and_unreadable_bodies_are_refused_before_any_call() {
    let (shopper, requests, store) = guest(upstream(&[], placed())).await;
    let mut with_card: Value = serde_json::from_slice(&body("TX")).unwrap();
    with_card["cardNumber"] = json!("4111111111111111");
    let err = place_order(
        &shopper,
        &store,
        &key("k5"),
        with_card.to_string().as_bytes(),
    )
    .await
    .unwrap_err();
    let problem = err.problem();
    assert_eq!(problem.code, "card_data_not_accepted");
    assert!(problem.errors.unwrap().contains_key("cardNumber"));
    for unreadable in [&b"{"[..], br#"{"firstName": 7}"#] {
        let err = place_order(&shopper, &store, &key("k5"), unreadable)
            .await
            .unwrap_err();
        assert!(matches!(err, ApiError::Validation(ref errors) if errors.contains_key("body")));
    }
    assert!(requests.all().is_empty(), "{:?}", requests.all());
}

#[tokio::test]
async fn a_visitor_without_a_cart_has_nothing_to_check_out() {
    let (shopper, _) = shopper(upstream(&[], placed()), Session::Anonymous).await;
    let store = Arc::new(IdempotencyStore::default());
    let err = place_order(&shopper, &store, &key("k6"), &body("TX"))
        .await
        .unwrap_err();
    assert_eq!(err.problem().code, "cart_empty");
}

#[test]
fn keys_are_scoped_by_the_user_else_the_guest() {
    assert_eq!(
        scope(&testing::user("Ada@Example.com")).as_deref(),
        Some("user:ada@example.com")
    );
    assert_eq!(
        scope(&Session::guest("gid_1".to_owned())).as_deref(),
        Some("guest:gid_1")
    );
    assert_eq!(scope(&Session::Anonymous), None);
}

#[tokio::test]
async fn the_key_is_one_to_255_visible_ascii_characters() {
    let parse = |value: Option<&str>| {
        let mut request = axum::http::Request::builder();
        if let Some(value) = value {
            request = request.header(IDEMPOTENCY_KEY, value);
        }
        let (mut parts, ()) = request.body(()).unwrap().into_parts();
        async move { IdempotencyKey::from_request_parts(&mut parts, &()).await }
    };
    assert_eq!(parse(Some("order-1")).await.unwrap(), key("order-1"));
    let code = |result: Result<IdempotencyKey, ApiError>| result.unwrap_err().problem().code;
    assert_eq!(code(parse(None).await), "idempotency_key_required");
    for bad in ["", "has space", &"k".repeat(256)] {
        assert_eq!(
            code(parse(Some(bad)).await),
            "idempotency_key_invalid",
            "{bad:?}"
        );
    }
}
