//! `GET /Order/{orderId}`: a user reads their own orders (bearer token), a guest the orders they
//! placed as that guest (`X-Guest-Id`). Every other order, and every caller with neither, is a
//! 404: nobody can tell whether someone else's order number exists.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::get;
use axum::{Json, Router};

use super::shop::carts::{self, Owner};
use super::shop::order_store::{self, OrderView};
use super::tokens::MaybeUser;
use crate::SandboxState;
use crate::error::SandboxError;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new().route("/Order/{order_id}", get(order))
}

async fn order(
    State(state): State<Arc<SandboxState>>,
    MaybeUser(user): MaybeUser,
    headers: HeaderMap,
    Path(order_id): Path<String>,
) -> Result<Json<OrderView>, SandboxError> {
    let not_found = || SandboxError::NotFound(format!("Order {order_id} not found"));
    let owner = match (user, carts::guest_from_headers(&headers)) {
        (Some(user), _) => Owner::User(user.id),
        (None, Some(guest_id)) => Owner::Guest(guest_id),
        (None, None) => return Err(not_found()),
    };
    let id: i64 = order_id.trim().parse().map_err(|_| not_found())?;
    state
        .db
        .call(|conn| order_store::find_for(conn, id, &owner))?
        .map(Json)
        .ok_or_else(not_found)
}
