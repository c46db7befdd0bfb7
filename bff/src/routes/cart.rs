//! The cart, guest or signed in by the session: the BFF picks the upstream path and injects the
//! identity; the browser never sees a guest token or a bearer token.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use validator::Validate;

use crate::error::ApiError;
use crate::request_id::RequestId;
use crate::session::SessionHandle;
use crate::session::tokens;
use crate::state::SharedState;
use crate::upstream::{Call, UpstreamError, UpstreamPath};
use crate::validation::Validated;

/// The spec's default: a guest cart with no items and all amounts 0.
fn empty_cart() -> Value {
    json!({
        "id": null, "userId": null, "isAbandoned": false, "isGuest": true,
        "items": [], "inventoryWarnings": [], "subTotal": 0, "taxAmount": 0, "shipping": 0,
        "discountAmount": 0, "totalAmount": 0, "appliedDiscounts": []
    })
}

/// The upstream cart without the guest token it carries (the token is the guest's credential).
fn for_browser(mut cart: Value) -> Value {
    if let Value::Object(map) = &mut cart {
        map.remove("guestId");
    }
    cart
}

/// Merges the guest cart waiting in the session into the user's cart. On failure the guest
/// token stays in the session and the merge is retried on the next cart read: no cart is lost.
pub async fn merge_pending(
    state: &SharedState,
    session: &SessionHandle,
    request_id: &RequestId,
) -> bool {
    let current = session.get();
    let (Some(user), Some(guest_id)) = (current.user.clone(), current.pending_merge.clone()) else {
        return true;
    };
    let path = UpstreamPath::fixed("Cart/merge");
    let body = json!({"guestId": guest_id});
    let outcome = tokens::with_user(state, session, user, request_id, |bearer| {
        let state = state.clone();
        let body = body.clone();
        let path = path.clone();
        let guest_id = guest_id.clone();
        let request_id = request_id.clone();
        async move {
            let call = Call::post(&path, &body)
                .query("guestId", guest_id)
                .bearer(Some(&bearer));
            state.commerce.call(call, &request_id).await
        }
    })
    .await;
    let done = match outcome {
        Ok(_) => {
            state.metrics.count_session_event("merge_ok");
            true
        }
        // The guest (and so its cart) no longer exists upstream: nothing left to merge.
        Err(ApiError::Upstream(UpstreamError::NotFound { .. })) => true,
        Err(err) => {
            state.metrics.count_session_event("merge_failed");
            tracing::warn!(error = %err, "guest cart merge failed; kept for a retry");
            false
        }
    };
    if done {
        let mut updated = session.get();
        updated.pending_merge = None;
        session.set(updated);
    }
    done
}

/// `GET /api/cart`.
pub async fn get(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
) -> Result<Json<Value>, ApiError> {
    if let Some(user) = tokens::access_token(&state, &session, &request_id).await? {
        if session.get().pending_merge.is_some() {
            state.metrics.count_session_event("merge_retried");
            merge_pending(&state, &session, &request_id).await;
        }
        let path = UpstreamPath::fixed("Cart");
        let cart = tokens::with_user(&state, &session, user, &request_id, |bearer| {
            let state = state.clone();
            let path = path.clone();
            let request_id = request_id.clone();
            async move {
                state
                    .commerce
                    .call_json(Call::get(&path).bearer(Some(&bearer)), &request_id)
                    .await
            }
        })
        .await?;
        return Ok(Json(for_browser(cart)));
    }
    let Some(guest_id) = session.get().guest_id else {
        return Ok(Json(empty_cart()));
    };
    let path = UpstreamPath::fixed("Cart/guest")
        .segment(&guest_id)
        .map_err(UpstreamError::from)?;
    match state
        .commerce
        .call_json(Call::get(&path), &request_id)
        .await
    {
        Ok(cart) => Ok(Json(for_browser(cart))),
        // The spec's silent 404: the guest is unknown upstream; start afresh.
        Err(UpstreamError::NotFound { .. }) => {
            let mut updated = session.get();
            updated.guest_id = None;
            session.set(updated);
            Ok(Json(empty_cart()))
        }
        Err(err) => Err(err.into()),
    }
}

#[derive(Debug, Deserialize, Serialize, Validate)]
#[serde(rename_all = "camelCase")]
pub struct NewItem {
    #[serde(default)]
    #[validate(length(min = 1, message = "Product is required"))]
    product_id: String,
    #[serde(default = "one")]
    #[validate(range(min = 1, max = 999, message = "Quantity must be between 1 and 999"))]
    quantity: i64,
    /// The rest of the spec's cart line payload, passed on as it is.
    #[serde(flatten)]
    rest: serde_json::Map<String, Value>,
}

fn one() -> i64 {
    1
}

/// The guest token of this session, creating a guest upstream on first need.
async fn guest_id(
    state: &SharedState,
    session: &SessionHandle,
    request_id: &RequestId,
) -> Result<String, ApiError> {
    if let Some(guest_id) = session.get().guest_id {
        return Ok(guest_id);
    }
    let path = UpstreamPath::fixed("Auth/guest");
    let answer = state
        .commerce
        .call_json(Call::post(&path, &json!({})), request_id)
        .await?;
    let guest_id = answer
        .get("guestId")
        .and_then(Value::as_str)
        .filter(|id| id.starts_with("gid_"))
        .ok_or_else(|| {
            ApiError::Upstream(UpstreamError::Decode {
                upstream: "commerce",
                reason: "guest token missing or malformed".to_owned(),
            })
        })?
        .to_owned();
    let mut updated = session.get();
    updated.guest_id = Some(guest_id.clone());
    session.set(updated);
    Ok(guest_id)
}

/// `POST /api/cart/items`.
pub async fn add_item(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(item): Validated<NewItem>,
) -> Result<Json<Value>, ApiError> {
    let body = serde_json::to_value(&item).unwrap_or(Value::Null);
    if let Some(user) = tokens::access_token(&state, &session, &request_id).await? {
        let path = UpstreamPath::fixed("Cart/items");
        let cart = tokens::with_user(&state, &session, user, &request_id, |bearer| {
            let state = state.clone();
            let path = path.clone();
            let body = body.clone();
            let request_id = request_id.clone();
            async move {
                state
                    .commerce
                    .call_json(Call::post(&path, &body).bearer(Some(&bearer)), &request_id)
                    .await
            }
        })
        .await?;
        return Ok(Json(for_browser(cart)));
    }
    let guest_id = guest_id(&state, &session, &request_id).await?;
    let path = UpstreamPath::fixed("Cart/guest")
        .segment(&guest_id)
        .map_err(UpstreamError::from)?
        .segment("items")
        .map_err(UpstreamError::from)?;
    let cart = state
        .commerce
        .call_json(Call::post(&path, &body), &request_id)
        .await?;
    Ok(Json(for_browser(cart)))
}
