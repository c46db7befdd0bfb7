//! `{"message": …}`: the answer of the endpoints that relay an upstream confirmation, and the
//! upstream's confirmation they relay (auth, the newsletter, the forms).

use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::Shopper;
use crate::http::error::ApiError;
use crate::upstream::Call;

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

/// The commerce API's confirmation, `{"message": …}`: other members are ignored, an empty
/// answer or a missing message is no message, a message that is not a string breaks the
/// contract.
#[derive(Debug, Deserialize)]
pub(super) struct Confirmation {
    #[serde(default)]
    message: Option<String>,
}

impl Confirmation {
    /// The confirmation (none for an empty answer), as relayed.
    pub(super) fn relayed(answer: Option<Self>) -> MessageAnswer {
        MessageAnswer {
            message: answer.and_then(|answer| answer.message),
        }
    }
}

/// An anonymous call answered by a confirmation.
pub(super) async fn confirmed(
    shopper: &Shopper,
    call: Call<'_>,
) -> Result<MessageAnswer, ApiError> {
    Ok(Confirmation::relayed(shopper.call_as(call).await?))
}
