//! `GET /api/orders/{id}`: an order, read with the session's identity — the bearer token when
//! signed in, the guest token (as `X-Guest-Id`) for a guest — so each visitor reads only their own.

use axum::Json;
use axum::extract::{Path, State};
use serde_json::Value;

use crate::commerce::Shopper;
use crate::error::ApiError;
use crate::openapi::problems;
use crate::openapi::schemas::account::Order;
use crate::request_id::RequestId;
use crate::session::SessionHandle;
use crate::state::SharedState;
use crate::upstream::{Call, UpstreamError, UpstreamPath};

/// An order of this visitor: the signed-in user's, or the guest's own.
#[utoipa::path(get, operation_id = "getOrder", path = "/orders/{id}", tag = "checkout",
    params(("id" = String, Path, description = "The order's id (digits).")),
    responses(
        (status = 200, description = "The order.", body = Order),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
    )
)]
pub async fn get(
    State(state): State<SharedState>,
    Path(id): Path<String>,
    session: SessionHandle,
    request_id: RequestId,
) -> Result<Json<Value>, ApiError> {
    if !id.bytes().all(|b| b.is_ascii_digit()) || id.is_empty() {
        return Err(ApiError::NotFound("There is no such order.".to_owned()));
    }
    let path = UpstreamPath::fixed("Order")
        .segment(&id)
        .map_err(UpstreamError::from)?;
    if let Some(user) = Shopper::of(&state, &session, &request_id).user().await? {
        let order = Shopper::of(&state, &session, &request_id)
            .as_user::<Value>(user, Call::get(&path))
            .await?;
        return Ok(Json(order));
    }
    let Some(guest_id) = session.get().guest_id().map(str::to_owned) else {
        return Err(ApiError::NotFound("There is no such order.".to_owned()));
    };
    let order = state
        .commerce
        .call_json(Call::get(&path).guest(Some(&guest_id)), &request_id)
        .await?;
    Ok(Json(order))
}
