//! `GET /api/orders/{id}`: an order, read with the session's identity — the bearer token when
//! signed in, the guest token (as `X-Guest-Id`) for a guest — so each visitor reads only their own.

use axum::Json;

use crate::commerce::Shopper;
use crate::commerce::orders::{self, Order};
use crate::http::error::ApiError;
use crate::http::extract::Path;
use crate::routes::openapi::problems;

/// An order of this visitor: the signed-in user's, or the guest's own.
#[utoipa::path(get, operation_id = "getOrder", path = "/orders/{id}", tag = "checkout",
    params(("id" = String, Path, description = "The order's id (digits).")),
    responses(
        (status = 200, description = "The order.", body = Order),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
    )
)]
pub async fn get(shopper: Shopper, Path(id): Path<String>) -> Result<Json<Order>, ApiError> {
    orders::order(&shopper, &id).await.map(Json)
}
