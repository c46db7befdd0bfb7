//! The answer of `POST /api/checkout`.

use serde::Serialize;
use utoipa::ToSchema;

/// The order placed.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderPlaced {
    /// The new order's id (also what `GET /api/orders/{id}` takes).
    #[schema(required = true)]
    pub order_id: Option<i64>,
    pub success: bool,
    /// The commerce service's confirmation, for display.
    #[schema(required = true)]
    pub message: Option<String>,
}
