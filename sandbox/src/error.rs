//! The sandbox's one error shape, as a .NET commerce API answers: `{"message": ..., "errors"?}`
//! with the right status (400 validation, 401, 403, 404, 409, 422, 500).

use std::collections::BTreeMap;

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// 400 with per-field messages.
    #[error("{message}")]
    Validation {
        message: String,
        errors: BTreeMap<String, String>,
    },
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    /// 422: understood but refused by a business rule (declined card, restricted item).
    #[error("{0}")]
    Unprocessable(String),
    #[error("{0}")]
    Internal(String),
}

impl SandboxError {
    /// A validation error for one field.
    pub fn field(field: &str, message: &str) -> Self {
        Self::Validation {
            message: message.to_owned(),
            errors: BTreeMap::from([(field.to_owned(), message.to_owned())]),
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            Self::Validation { .. } | Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<rusqlite::Error> for SandboxError {
    fn from(err: rusqlite::Error) -> Self {
        Self::Internal(format!("database: {err}"))
    }
}

impl IntoResponse for SandboxError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::error!(error = %self, "sandbox request failed");
        }
        let body = match &self {
            Self::Validation { message, errors } => json!({"message": message, "errors": errors}),
            other => json!({"message": other.to_string()}),
        };
        (status, Json(body)).into_response()
    }
}
