//! The checkout service: places an order with a one-time payment token (never card data), once
//! per `Idempotency-Key` and visitor. It checks the cart and the form, refuses items restricted
//! where the order ships, places the order as the user or the guest, and subscribes an
//! opted-in shopper to the newsletter afterwards.
//!
//! The form is read in one direction: [`wire`] is the JSON as posted (the API's contract),
//! `from_wire` maps it once into [`model`] (what the fields mean, with the spec's rules from
//! `rules`), and the upstream bodies are built from the model: [`order`] for the checkout,
//! [`compute`] for tax and shipping. [`restrictions`] and [`card_data`] are checkout's own
//! refusals. Checkout depends on the cart (its `current` read and its `compute` call); the cart
//! names nothing here.

pub mod card_data;
pub mod compute;
mod from_wire;
pub mod model;
pub mod order;
pub mod restrictions;
mod rules;
pub mod states;
#[cfg(test)]
mod testing;
pub mod wire;

use std::sync::{Arc, OnceLock};

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::{Shopper, cart};
use crate::http::error::{ApiError, ErrorRecord};
use crate::idempotency::{self, Answer, IdempotencyStore, Outcome, Reply};
use crate::session::Session;
use crate::upstream::{Call, UpstreamError, UpstreamPath};
use card_data::card_data_fields;
use model::CheckoutDetails;
use order::OrderPayload;
use restrictions::{RestrictedItem, restricted_items};
use wire::CheckoutForm;

/// The header naming one order attempt.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// The order placed.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderPlaced {
    /// The new order's id (also what `GET /api/orders/{id}` takes).
    #[schema(required = true)]
    pub order_id: Option<i64>,
    // True when left out upstream: its 2xx answer means the order is placed, and a gap in the
    // confirmation must not turn a paid order into an error.
    #[serde(default = "placed")]
    #[schema(required = true)]
    pub success: bool,
    /// The commerce service's confirmation, for display.
    #[schema(required = true)]
    pub message: Option<String>,
}

fn placed() -> bool {
    true
}

/// The `Idempotency-Key` header: 1–255 visible ASCII characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let Some(value) = parts.headers.get(IDEMPOTENCY_KEY) else {
            return Err(ApiError::BadRequest {
                code: "idempotency_key_required",
                detail: "An Idempotency-Key header is required to place an order.".to_owned(),
            });
        };
        let bytes = value.as_bytes();
        if bytes.is_empty() || bytes.len() > 255 || !bytes.iter().all(|b| (0x21..=0x7e).contains(b))
        {
            return Err(ApiError::BadRequest {
                code: "idempotency_key_invalid",
                detail: "The Idempotency-Key must be 1 to 255 visible ASCII characters.".to_owned(),
            });
        }
        Ok(Self(String::from_utf8_lossy(bytes).into_owned()))
    }
}

/// The answer to one `POST /api/checkout`.
#[derive(Debug)]
pub struct Placement {
    /// The first answer given for the key (this request's, or an earlier one's).
    pub answer: Arc<Answer>,
    /// The answer was made for an earlier request with the same key.
    pub replayed: bool,
    /// The error this request's answer renders, for the error log (none for a replay: it was
    /// logged when it was made).
    pub error: Option<ErrorRecord>,
}

/// Places the order `body` describes, unless this visitor's `key` already did: then its answer
/// is the first one (also while that first run is in flight). Refusals before any attempt
/// (bad input, card data, no cart) are errors; the rest is the answer kept for the key.
pub async fn place_order(
    shopper: &Shopper,
    store: &Arc<IdempotencyStore>,
    key: &IdempotencyKey,
    body: &[u8],
) -> Result<Placement, ApiError> {
    let body: Value = serde_json::from_slice(body).map_err(|_| invalid_body())?;
    // Card data never passes: the browser tokenizes the card with the payment provider.
    let card_fields = card_data_fields(&body);
    if !card_fields.is_empty() {
        return Err(card_data_refused(card_fields));
    }
    let form = CheckoutDetails::from(CheckoutForm::deserialize(&body).map_err(|_| invalid_body())?);
    let scope = scope(&shopper.session().get()).ok_or_else(cart_empty)?;
    let canonical = serde_json::to_vec(&body)
        .map_err(|err| ApiError::Internal(format!("checkout body not re-encodable: {err}")))?;
    let log = Arc::new(OnceLock::new());
    let work = place(shopper.clone(), form, log.clone());
    let key = idempotency::scoped_key(&scope, &key.0);
    match store
        .run(key, idempotency::fingerprint(&canonical), work)
        .await
    {
        Reply::Answer { answer, replayed } => Ok(Placement {
            answer,
            replayed,
            error: log.get().cloned().filter(|_| !replayed),
        }),
        Reply::Mismatch => Err(ApiError::Unprocessable {
            code: "idempotency_key_reused",
            detail: "This Idempotency-Key was already used with a different request.".to_owned(),
        }),
    }
}

/// Who is checking out, as the scope of the idempotency keys: the user, else the guest; `None`
/// for a visitor without a cart.
fn scope(session: &Session) -> Option<String> {
    if let Some(user) = session.user() {
        let who = if user.email.is_empty() {
            idempotency::fingerprint(user.refresh_token.as_bytes())
        } else {
            user.email.to_lowercase()
        };
        return Some(format!("user:{who}"));
    }
    session.guest_id().map(|guest| format!("guest:{guest}"))
}

/// Why no order was placed, and whether that answer stands for the key.
enum Failure {
    /// Refused before the order was attempted (cart, form, restrictions, sign-in): not kept,
    /// so a corrected request may reuse its key.
    Before(ApiError),
    /// The attempt's own outcome (declined, out of stock, an upstream failure): kept for the
    /// key when it is the upstream's answer about this order (see [`is_final`]).
    Attempted(ApiError),
}

/// Whether an attempt's error is the upstream's answer about this order, and so stands for its
/// key. A 5xx, a timeout, no connection, a full queue or an open breaker is not: the upstream
/// placed no order (issue #22: a retry after a 504 must run again, not replay the 504). A 4xx
/// is (declined, out of stock: bound to this body by the key's fingerprint), and so is an
/// unreadable answer to the order, which may have been placed: replaying it is safer than a
/// second order.
fn is_final(error: &ApiError) -> bool {
    match error {
        ApiError::Upstream(UpstreamError::Status { status, .. }) => !status.is_server_error(),
        ApiError::Upstream(
            UpstreamError::Timeout { .. }
            | UpstreamError::Unreachable { .. }
            | UpstreamError::Overloaded { .. }
            | UpstreamError::CircuitOpen { .. },
        ) => false,
        _ => true,
    }
}

/// One run for a key: the answer, whether it is kept, and (in `log`) the error it renders.
async fn place(
    shopper: Shopper,
    form: CheckoutDetails,
    log: Arc<OnceLock<ErrorRecord>>,
) -> Outcome {
    let (error, keep) = match attempt(&shopper, &form).await {
        Ok(placed) => match serde_json::to_vec(&placed) {
            Ok(body) => {
                return Outcome {
                    answer: Arc::new(Answer {
                        status: StatusCode::OK,
                        content_type: "application/json",
                        body: Bytes::from(body),
                    }),
                    keep: true,
                };
            }
            Err(err) => (
                ApiError::Internal(format!("order confirmation not encodable: {err}")),
                true,
            ),
        },
        Err(Failure::Before(error)) => (error, false),
        Err(Failure::Attempted(error)) => {
            let keep = is_final(&error);
            (error, keep)
        }
    };
    let status =
        StatusCode::from_u16(error.problem().status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let answer = Answer {
        status,
        content_type: "application/problem+json",
        body: error.problem_body(),
    };
    // Set once: this run is the only writer.
    let _ = log.set(error.record());
    Outcome {
        answer: Arc::new(answer),
        keep,
    }
}

/// Checks the cart and the form, then places the order upstream.
async fn attempt(shopper: &Shopper, form: &CheckoutDetails) -> Result<OrderPlaced, Failure> {
    let cart = match cart::current(shopper).await {
        Ok(Some(cart)) if !cart.is_empty() => cart,
        Ok(_) => return Err(Failure::Before(cart_empty())),
        Err(err) => return Err(Failure::Before(err)),
    };
    form.check(cart.has_ffl_items()).map_err(Failure::Before)?;
    let restricted = restricted_items(form, &cart);
    if !restricted.is_empty() {
        return Err(Failure::Before(restricted_refused(&restricted)));
    }
    let placed = submit(shopper, &OrderPayload::of(form, &cart))
        .await
        .map_err(|err| match err {
            // Nothing was placed: the sign-in is over.
            err @ (ApiError::SessionExpired | ApiError::Unauthorized(_)) => Failure::Before(err),
            ApiError::Upstream(UpstreamError::Status {
                status,
                message,
                errors: None,
                ..
            }) if status == StatusCode::UNPROCESSABLE_ENTITY => {
                Failure::Attempted(declined(message))
            }
            other => Failure::Attempted(other),
        })?;
    if form.opt_in_newsletter {
        subscribe(shopper, form);
    }
    // The upstream deleted the cart: the session's next cart read gets a new, empty one, so the
    // session holds nothing to reset.
    Ok(placed)
}

/// `POST /Checkout/simplified` as the user (bearer, one retry on 401) or the guest
/// (`X-Guest-Id`).
async fn submit(shopper: &Shopper, payload: &OrderPayload<'_>) -> Result<OrderPlaced, ApiError> {
    let path = UpstreamPath::fixed("Checkout/simplified");
    if let Some(user) = shopper.user().await? {
        return shopper.as_user(user, Call::post(&path, payload)).await;
    }
    let guest_id = shopper
        .session()
        .get()
        .guest_id()
        .map(str::to_owned)
        .ok_or_else(cart_empty)?;
    shopper
        .call_as(Call::post(&path, payload).guest(Some(&guest_id)))
        .await
}

/// The newsletter subscription of an opted-in shopper.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Subscription {
    email: String,
    first_name: String,
    last_name: String,
    /// The order stands for the captcha.
    captcha: &'static str,
}

/// Subscribes the shopper after the order, in the background; a failure is only logged.
fn subscribe(shopper: &Shopper, form: &CheckoutDetails) {
    let (upstream, request_id) = (shopper.upstream().clone(), shopper.request_id().clone());
    let body = Subscription {
        email: form.email.clone(),
        first_name: form.first_name.clone(),
        last_name: form.last_name.clone(),
        captcha: "",
    };
    tokio::spawn(async move {
        let path = UpstreamPath::fixed("Newsletter/subscribe");
        if let Err(err) = upstream.call(Call::post(&path, &body), &request_id).await {
            tracing::warn!(error = %err, "newsletter subscription after checkout failed");
        }
    });
}

fn cart_empty() -> ApiError {
    ApiError::Unprocessable {
        code: "cart_empty",
        detail: "Your cart is empty".to_owned(),
    }
}

fn invalid_body() -> ApiError {
    ApiError::Validation(std::collections::BTreeMap::from([(
        "body".to_owned(),
        "The request body is not valid JSON of the expected shape.".to_owned(),
    )]))
}

fn card_data_refused(fields: Vec<String>) -> ApiError {
    ApiError::Refused {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        code: "card_data_not_accepted",
        detail: "Card data is not accepted: the card must be tokenized and only the payment \
                 token sent."
            .to_owned(),
        errors: Some(
            fields
                .into_iter()
                .map(|field| {
                    (
                        field,
                        "Card data is not accepted; send the payment token only".to_owned(),
                    )
                })
                .collect(),
        ),
        members: Map::new(),
    }
}

fn restricted_refused(items: &[RestrictedItem]) -> ApiError {
    match serde_json::to_value(items) {
        Ok(items) => ApiError::Refused {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: "restricted_items",
            detail: "Restricted Items in Cart".to_owned(),
            errors: None,
            members: Map::from_iter([("items".to_owned(), items)]),
        },
        Err(err) => ApiError::Internal(format!("restricted items not encodable: {err}")),
    }
}

fn declined(message: Option<String>) -> ApiError {
    ApiError::Refused {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        code: "payment_declined",
        detail: message.unwrap_or_else(|| "The payment was declined.".to_owned()),
        errors: None,
        members: Map::new(),
    }
}

#[cfg(test)]
mod tests;
