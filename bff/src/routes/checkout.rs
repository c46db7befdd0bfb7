//! `POST /api/checkout`: places the order with a one-time payment token (never card data),
//! idempotent per `Idempotency-Key` and visitor.

use std::sync::Arc;

use axum::Extension;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::{UtoipaMethodRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

use crate::commerce::Shopper;
use crate::commerce::checkout::wire::CheckoutForm;
use crate::commerce::checkout::{self, IdempotencyKey, OrderPlaced, Placement};
use crate::edge::state::SharedState;
use crate::http::error::Problem;
use crate::http::extract::RawBody;
use crate::idempotency::IdempotencyStore;
use crate::routes::openapi::problems;

/// The route, with the application's idempotency store.
pub fn route(state: &SharedState) -> UtoipaMethodRouter<SharedState> {
    routes!(place_order).layer(Extension(state.idempotency.clone()))
}

/// `POST /api/checkout`.
/// Place the order with a one-time payment token.
///
/// Idempotent per `Idempotency-Key` and visitor for 10 minutes: a repeat (also a concurrent one)
/// gets the first answer, marked `Idempotent-Replayed: true`, and never places a second order.
/// Validation failures are not kept, so a corrected request may reuse its key. After success the
/// cart is gone and, when opted in, the shopper is subscribed to the newsletter.
#[utoipa::path(post, operation_id = "placeOrder", path = "/checkout", tag = "checkout",
    request_body = CheckoutForm,
    params(("Idempotency-Key" = String, Header, description = "1–255 visible ASCII characters, new for each order.",
        min_length = 1, max_length = 255, pattern = "^[!-~]{1,255}$")),
    responses(
        (status = 200, description = "The order is placed.", body = OrderPlaced,
            links(("getOrder" = (operation_id = "getOrder", parameters(("id" = "$response.body#/orderId"))))),
            headers(("Idempotent-Replayed" = String, description = "`true` when this is the answer of an earlier request with the same key."))),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
        (status = 409, response = problems::Conflict),
        (status = 422, description = "Validation failed (`errors` per field; card fields are refused), the cart is empty (`cart_empty`), holds items restricted where it ships (`restricted_items`, with `items`), the payment was declined (`payment_declined`), or the key was used with another body (`idempotency_key_reused`).",
            body = Problem, content_type = "application/problem+json"),
    )
)]
pub async fn place_order(
    Extension(store): Extension<Arc<IdempotencyStore>>,
    shopper: Shopper,
    key: IdempotencyKey,
    // Read as bytes: the card-data check runs on the raw JSON before it is typed.
    RawBody(body): RawBody,
) -> Response {
    let mut response = match checkout::place_order(&shopper, &store, &key, &body).await {
        Ok(placement) => {
            if placement.replayed {
                shopper.metrics().count_idempotent_replay();
            }
            kept_answer(placement)
        }
        Err(err) => err.into_response(),
    };
    // Every checkout answer, refusals too (they echo the shopper's input), is for one shopper
    // only; the session layer says the same of answers that read the session.
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
    response
}

/// The kept answer as it was made, marked when it is a replay.
fn kept_answer(placement: Placement) -> Response {
    let Placement {
        answer,
        replayed,
        error,
    } = placement;
    let mut response = (answer.status, answer.body.clone()).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(answer.content_type),
    );
    if replayed {
        headers.insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    if let Some(error) = error {
        error.attach(&mut response);
    }
    response
}
