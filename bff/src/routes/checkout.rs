//! `POST /api/checkout`: places the order with a one-time payment token (never card data),
//! idempotent per `Idempotency-Key` and visitor.

use std::sync::Arc;

use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Map, Value, json};
use utoipa_axum::router::{UtoipaMethodRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

use crate::checkout::form::{self, CheckoutForm};
use crate::checkout::idempotency::{self, Answer, IdempotencyStore, Outcome, Reply};
use crate::commerce::Shopper;
use crate::error::{ApiError, Problem};
use crate::openapi::problems;
use crate::openapi::schemas::checkout::OrderPlaced;
use crate::request_id::RequestId;
use crate::session::SessionHandle;
use crate::state::SharedState;
use crate::upstream::{Call, UpstreamError, UpstreamPath};

pub const IDEMPOTENCY_KEY: &str = "idempotency-key";
const REPLAYED: &str = "idempotent-replayed";
const PROBLEM_JSON: &str = "application/problem+json";

/// The route, with its own idempotency store (one per application).
pub fn route() -> UtoipaMethodRouter<SharedState> {
    routes!(place_order).layer(Extension(Arc::new(IdempotencyStore::default())))
}

/// A problem+json answer with extra members.
fn problem(status: StatusCode, code: &str, detail: &str, extra: Map<String, Value>) -> Answer {
    let mut body = Map::new();
    body.insert(
        "type".to_owned(),
        json!(format!("/problems/{}", code.replace('_', "-"))),
    );
    body.insert(
        "title".to_owned(),
        json!(status.canonical_reason().unwrap_or("Error")),
    );
    body.insert("status".to_owned(), json!(status.as_u16()));
    body.insert("detail".to_owned(), json!(detail));
    body.insert("code".to_owned(), json!(code));
    body.extend(extra);
    Answer {
        status,
        content_type: PROBLEM_JSON,
        body: Bytes::from(Value::Object(body).to_string()),
    }
}

fn from_error(error: &ApiError) -> Answer {
    let problem = error.problem();
    let status = StatusCode::from_u16(problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if status.is_server_error() {
        tracing::error!(error = %error, code = problem.code, "checkout failed");
    }
    Answer {
        status,
        content_type: PROBLEM_JSON,
        body: Bytes::from(serde_json::to_vec(&problem).unwrap_or_default()),
    }
}

fn respond(answer: &Answer, replayed: bool) -> Response {
    let mut response = (answer.status, answer.body.clone()).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(answer.content_type),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if replayed {
        headers.insert(REPLAYED, HeaderValue::from_static("true"));
    }
    response
}

/// The `Idempotency-Key`: 1–255 visible ASCII characters.
fn idempotency_key(headers: &HeaderMap) -> Result<String, ApiError> {
    let Some(value) = headers.get(IDEMPOTENCY_KEY) else {
        return Err(ApiError::BadRequest {
            code: "idempotency_key_required",
            detail: "An Idempotency-Key header is required to place an order.".to_owned(),
        });
    };
    let bytes = value.as_bytes();
    if bytes.is_empty() || bytes.len() > 255 || !bytes.iter().all(|b| (0x21..=0x7e).contains(b)) {
        return Err(ApiError::BadRequest {
            code: "idempotency_key_invalid",
            detail: "The Idempotency-Key must be 1 to 255 visible ASCII characters.".to_owned(),
        });
    }
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// Who is checking out, as the scope of the idempotency keys: the user, else the guest.
fn identity(session: &SessionHandle) -> Option<String> {
    let current = session.get();
    if let Some(user) = current.user() {
        let who = if user.email.is_empty() {
            idempotency::fingerprint(user.refresh_token.as_bytes())
        } else {
            user.email.to_lowercase()
        };
        return Some(format!("user:{who}"));
    }
    current.guest_id().map(|guest| format!("guest:{guest}"))
}

fn cart_empty() -> ApiError {
    ApiError::Unprocessable {
        code: "cart_empty",
        detail: "Your cart is empty".to_owned(),
    }
}

/// `POST /api/checkout`.
/// Place the order with a one-time payment token.
///
/// Idempotent per `Idempotency-Key` and visitor for 10 minutes: a repeat (also a concurrent one)
/// gets the first answer, marked `Idempotent-Replayed: true`, and never places a second order.
/// Validation failures are not kept, so a corrected request may reuse its key. After success the
/// cart is gone and, when opted in, the shopper is subscribed to the newsletter.
#[utoipa::path(post, operation_id = "placeOrder", path = "/checkout", tag = "checkout",
    request_body = crate::checkout::form::CheckoutForm,
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
    State(state): State<SharedState>,
    Extension(store): Extension<Arc<IdempotencyStore>>,
    session: SessionHandle,
    request_id: RequestId,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let key = match idempotency_key(&headers) {
        Ok(key) => key,
        Err(err) => return err.into_response(),
    };
    let value: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(_) => return invalid_body().into_response(),
    };
    // Card data never passes: the browser tokenizes the card with the payment provider.
    let card_fields = form::card_data_fields(&value);
    if !card_fields.is_empty() {
        let errors: Map<String, Value> = card_fields
            .into_iter()
            .map(|field| {
                (
                    field,
                    json!("Card data is not accepted; send the payment token only"),
                )
            })
            .collect();
        let answer = problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            "card_data_not_accepted",
            "Card data is not accepted: the card must be tokenized and only the payment token sent.",
            Map::from_iter([("errors".to_owned(), Value::Object(errors))]),
        );
        return respond(&answer, false);
    }
    let form: CheckoutForm = match serde_json::from_value(value.clone()) {
        Ok(form) => form,
        Err(_) => return invalid_body().into_response(),
    };
    let Some(scope) = identity(&session) else {
        return cart_empty().into_response();
    };
    let fingerprint = idempotency::fingerprint(&serde_json::to_vec(&value).unwrap_or_default());
    let work = place(state, session, request_id, form);
    match store
        .run(idempotency::scoped_key(&scope, &key), fingerprint, work)
        .await
    {
        Reply::Answer { answer, replayed } => respond(&answer, replayed),
        Reply::Mismatch => ApiError::Unprocessable {
            code: "idempotency_key_reused",
            detail: "This Idempotency-Key was already used with a different request.".to_owned(),
        }
        .into_response(),
    }
}

fn invalid_body() -> ApiError {
    ApiError::Validation(std::collections::BTreeMap::from([(
        "body".to_owned(),
        "The request body is not valid JSON of the expected shape.".to_owned(),
    )]))
}

fn rejected(error: &ApiError) -> Outcome {
    Outcome {
        answer: Arc::new(from_error(error)),
        keep: false,
    }
}

/// Checks the cart and the form, then places the order upstream. Answers given before the
/// upstream call are not kept for the key; every answer after it is.
async fn place(
    state: SharedState,
    session: SessionHandle,
    request_id: RequestId,
    form: CheckoutForm,
) -> Outcome {
    let cart =
        match crate::commerce::cart::current(&Shopper::of(&state, &session, &request_id)).await {
            Ok(Some(cart)) if !form::is_empty(&cart) => cart,
            Ok(_) => return rejected(&cart_empty()),
            Err(err) => return rejected(&err),
        };
    let has_ffl = form::has_ffl_items(&cart);
    let errors = form.validate_checkout(has_ffl);
    if !errors.is_empty() {
        return rejected(&ApiError::Validation(errors));
    }
    let restricted = form.restricted_items(&cart);
    if !restricted.is_empty() {
        let answer = problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            "restricted_items",
            "Restricted Items in Cart",
            Map::from_iter([("items".to_owned(), Value::Array(restricted))]),
        );
        return Outcome {
            answer: Arc::new(answer),
            keep: false,
        };
    }
    let cart_id = cart.get("id").cloned().unwrap_or(Value::Null);
    let payload = form.checkout_payload(cart_id, form::all_ffl_items(&cart), has_ffl);
    match submit(&state, &session, &request_id, &payload).await {
        Ok(placed) => {
            if form.opted_in() {
                subscribe(&state, &request_id, &form);
            }
            // The upstream deleted the cart: the session's next cart read gets a new, empty
            // one, so the session holds nothing to reset.
            let body = json!({
                "orderId": placed.get("orderId").cloned().unwrap_or(Value::Null),
                "success": placed.get("success").cloned().unwrap_or(json!(true)),
                "message": placed.get("message").cloned().unwrap_or(Value::Null),
            });
            Outcome {
                answer: Arc::new(Answer {
                    status: StatusCode::OK,
                    content_type: "application/json",
                    body: Bytes::from(body.to_string()),
                }),
                keep: true,
            }
        }
        // Nothing was placed: the sign-in is over.
        Err(err @ (ApiError::SessionExpired | ApiError::Unauthorized(_))) => rejected(&err),
        Err(ApiError::Upstream(UpstreamError::Status {
            status,
            message,
            errors: None,
            ..
        })) if status == StatusCode::UNPROCESSABLE_ENTITY => Outcome {
            answer: Arc::new(problem(
                status,
                "payment_declined",
                message.as_deref().unwrap_or("The payment was declined."),
                Map::new(),
            )),
            keep: true,
        },
        Err(err) => Outcome {
            answer: Arc::new(from_error(&err)),
            keep: true,
        },
    }
}

/// `POST /Checkout/simplified` as the user (bearer, one retry on 401) or the guest
/// (`X-Guest-Id`).
async fn submit(
    state: &SharedState,
    session: &SessionHandle,
    request_id: &RequestId,
    payload: &Value,
) -> Result<Value, ApiError> {
    let path = UpstreamPath::fixed("Checkout/simplified");
    if let Some(user) = Shopper::of(state, session, request_id).user().await? {
        return Shopper::of(state, session, request_id)
            .as_user::<Value>(user, Call::post(&path, payload))
            .await;
    }
    let guest_id = session
        .get()
        .guest_id()
        .map(str::to_owned)
        .ok_or_else(cart_empty)?;
    Ok(state
        .commerce
        .call_json(
            Call::post(&path, payload).guest(Some(&guest_id)),
            request_id,
        )
        .await?)
}

/// The newsletter subscription of an opted-in shopper, after the order; a failure is only
/// logged.
fn subscribe(state: &SharedState, request_id: &RequestId, form: &CheckoutForm) {
    let state = state.clone();
    let request_id = request_id.clone();
    let body = json!({
        "email": form.email(),
        "firstName": form.first_name.as_deref().unwrap_or_default().trim(),
        "lastName": form.last_name.as_deref().unwrap_or_default().trim(),
        "captcha": "",
    });
    tokio::spawn(async move {
        let path = UpstreamPath::fixed("Newsletter/subscribe");
        if let Err(err) = state
            .commerce
            .call(Call::post(&path, &body), &request_id)
            .await
        {
            tracing::warn!(error = %err, "newsletter subscription after checkout failed");
        }
    });
}
