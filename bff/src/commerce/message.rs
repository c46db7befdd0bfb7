//! `{"message": …}`: the answer of the endpoints that relay an upstream confirmation.

use axum::Json;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// An upstream confirmation, relayed for display.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct MessageAnswer {
    /// The confirmation text; null when the upstream gave none.
    #[schema(required = true)]
    pub message: Option<String>,
}

impl MessageAnswer {
    /// The `message` string of an upstream answer (anything else counts as none).
    pub fn of(answer: &Value) -> Json<Self> {
        Json(Self {
            message: answer
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
    }
}
