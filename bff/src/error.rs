//! One error type for every handler, rendered as RFC 9457 problem+json.
//!
//! The client gets a stable `code` and a clean message; the full cause goes to the logs.

use std::collections::BTreeMap;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::upstream::UpstreamError;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    NotFound(String),
    #[error("{detail}")]
    BadRequest { code: &'static str, detail: String },
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    PayloadTooLarge(String),
    /// The signed-in session could not be renewed: the visitor must sign in again.
    #[error("Your session has expired; please sign in again.")]
    SessionExpired,
    #[error("{detail}")]
    Forbidden { code: &'static str, detail: String },
    #[error("Too many requests; retry in {retry_after_seconds} s.")]
    TooManyRequests { retry_after_seconds: u64 },
    #[error("{detail}")]
    Unprocessable { code: &'static str, detail: String },
    /// Field-level validation failures, with the specs' messages.
    #[error("validation failed")]
    Validation(BTreeMap<String, String>),
    /// An upstream answered in a way this API names itself (e.g. the map provider refusing the
    /// configured key), rather than relaying its status.
    #[error("{detail}")]
    BadGateway { code: &'static str, detail: String },
    #[error("too many requests")]
    Overloaded { retry_after_seconds: u64 },
    #[error("request timed out")]
    Timeout,
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
    #[error("internal error: {0}")]
    Internal(String),
}

/// The RFC 9457 body.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(example = json!({
    "type": "/problems/validation-failed",
    "title": "Unprocessable Entity",
    "status": 422,
    "detail": "validation failed",
    "code": "validation_failed",
    "errors": {"email": "Please enter a valid email address"}
}))]
pub struct Problem {
    /// A relative URI naming the kind of problem: `/problems/<code with dashes>`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The HTTP status's reason phrase.
    pub title: &'static str,
    /// The HTTP status code.
    pub status: u16,
    /// A message for people, safe to show (never internal details).
    pub detail: String,
    /// A stable, machine-readable code, such as `validation_failed` or `not_found`.
    pub code: &'static str,
    /// For validation failures: one message per field (camelCase names; nested as `a.b`, `a[0].b`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false)]
    pub errors: Option<BTreeMap<String, String>>,
}

impl ApiError {
    fn status(&self) -> StatusCode {
        match self {
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::BadRequest { .. } => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) | Self::SessionExpired => StatusCode::UNAUTHORIZED,
            Self::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Forbidden { .. } => StatusCode::FORBIDDEN,
            Self::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Self::Validation(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::BadGateway { .. } => StatusCode::BAD_GATEWAY,
            Self::Overloaded { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::Timeout => StatusCode::GATEWAY_TIMEOUT,
            Self::Upstream(err) => err.status(),
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::NotFound(_) => "not_found",
            Self::BadRequest { code, .. }
            | Self::Unprocessable { code, .. }
            | Self::Forbidden { code, .. }
            | Self::BadGateway { code, .. } => code,
            Self::TooManyRequests { .. } => "rate_limited",
            Self::Unauthorized(_) => "unauthorized",
            Self::PayloadTooLarge(_) => "payload_too_large",
            Self::SessionExpired => "session_expired",
            Self::Validation(_) => "validation_failed",
            Self::Overloaded { .. } => "overloaded",
            Self::Timeout => "timeout",
            Self::Upstream(err) => err.code(),
            Self::Internal(_) => "internal",
        }
    }

    /// What the client may read: internal details stay in the logs.
    fn detail(&self) -> String {
        match self {
            Self::Internal(_) => "Something went wrong on our side.".to_owned(),
            Self::Upstream(err) => err.public_detail(),
            other => other.to_string(),
        }
    }

    pub fn problem(&self) -> Problem {
        let status = self.status();
        Problem {
            kind: format!("/problems/{}", self.code().replace('_', "-")),
            title: status.canonical_reason().unwrap_or("Error"),
            status: status.as_u16(),
            detail: self.detail(),
            code: self.code(),
            errors: match self {
                Self::Validation(errors) => Some(errors.clone()),
                Self::Upstream(UpstreamError::Status {
                    status,
                    errors: Some(errors),
                    ..
                }) if status.is_client_error() => Some(errors.clone()),
                _ => None,
            },
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::error!(error = %self, code = self.code(), "request failed");
        } else {
            tracing::debug!(error = %self, code = self.code(), "request rejected");
        }
        let mut response = (status, Json(self.problem())).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let Self::Overloaded {
            retry_after_seconds,
        }
        | Self::TooManyRequests {
            retry_after_seconds,
        } = self
        {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_seconds));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_details_never_reach_the_client() {
        let problem = ApiError::Internal("db password is hunter2".to_owned()).problem();
        assert_eq!(problem.status, 500);
        assert!(!problem.detail.contains("hunter2"));
    }

    #[test]
    fn validation_errors_carry_their_fields() {
        let errors = BTreeMap::from([("email".to_owned(), "Required".to_owned())]);
        let problem = ApiError::Validation(errors).problem();
        assert_eq!(problem.status, 422);
        assert_eq!(problem.code, "validation_failed");
        assert_eq!(
            problem.errors.and_then(|e| e.get("email").cloned()),
            Some("Required".to_owned())
        );
    }

    #[test]
    fn overload_says_when_to_retry() {
        let response = ApiError::Overloaded {
            retry_after_seconds: 2,
        }
        .into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            response.headers().get(header::RETRY_AFTER),
            Some(&HeaderValue::from(2u64))
        );
        assert_eq!(
            response.headers().get(header::CONTENT_TYPE),
            Some(&HeaderValue::from_static("application/problem+json"))
        );
    }
}
