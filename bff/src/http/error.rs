//! One error type for every handler, rendered as RFC 9457 problem+json.
//!
//! The client gets a stable `code` and a clean message; the full cause goes to the logs, once,
//! written by the [`log_errors`] middleware from the record every error answer carries (so an
//! error is logged in its request's span, however deep it was raised).

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Serialize;
use serde_json::{Map, Value};

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
    /// A refusal with per-field messages and/or extra problem members under its own code (a
    /// refused upload, card data, restricted items): status, code and members as given.
    #[error("{detail}")]
    Refused {
        status: StatusCode,
        code: &'static str,
        detail: String,
        errors: Option<BTreeMap<String, String>>,
        members: Map<String, Value>,
    },
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
    /// The client did not send its request body in time: its own slowness, not a gateway's.
    #[error("The request body was not received in time.")]
    RequestTimeout,
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
    /// Members particular to one problem (`items` of `restricted_items`, ...), documented by
    /// the operations that answer them.
    #[serde(flatten)]
    #[schema(ignore)]
    pub members: Map<String, Value>,
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match self {
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::BadRequest { .. } => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) | Self::SessionExpired => StatusCode::UNAUTHORIZED,
            Self::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Forbidden { .. } => StatusCode::FORBIDDEN,
            Self::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Self::Refused { status, .. } => *status,
            Self::Validation(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::BadGateway { .. } => StatusCode::BAD_GATEWAY,
            Self::Overloaded { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::Timeout => StatusCode::GATEWAY_TIMEOUT,
            Self::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
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
            | Self::Refused { code, .. }
            | Self::BadGateway { code, .. } => code,
            Self::TooManyRequests { .. } => "rate_limited",
            Self::Unauthorized(_) => "unauthorized",
            Self::PayloadTooLarge(_) => "payload_too_large",
            Self::SessionExpired => "session_expired",
            Self::Validation(_) => "validation_failed",
            Self::Overloaded { .. } => "overloaded",
            Self::Timeout => "timeout",
            Self::RequestTimeout => "request_timeout",
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
                Self::Validation(errors)
                | Self::Refused {
                    errors: Some(errors),
                    ..
                } => Some(errors.clone()),
                Self::Upstream(UpstreamError::Status {
                    status,
                    errors: Some(errors),
                    ..
                }) if status.is_client_error() => Some(errors.clone()),
                _ => None,
            },
            members: match self {
                Self::Refused { members, .. } => members.clone(),
                _ => Map::new(),
            },
        }
    }

    /// The problem+json body, for answers kept as bytes (negative cache entries, idempotent
    /// replays).
    pub fn problem_body(&self) -> Bytes {
        // A `Problem` is strings, numbers and maps of them: serialising it cannot fail.
        Bytes::from(serde_json::to_vec(&self.problem()).unwrap_or_default())
    }

    /// What the error log says about this error (the full cause, never shown to the client).
    pub fn record(&self) -> ErrorRecord {
        ErrorRecord {
            code: self.code(),
            cause: self.to_string(),
        }
    }
}

/// The cause of an error answer, attached to the response for [`log_errors`].
#[derive(Debug, Clone)]
pub struct ErrorRecord {
    pub code: &'static str,
    pub cause: String,
}

impl ErrorRecord {
    /// Attaches the record to an error answer built outside `ApiError::into_response` (a replay
    /// of a kept answer carries none: it was logged when it was made).
    pub fn attach(self, response: &mut Response) {
        response.extensions_mut().insert(self);
    }
}

/// Logs each error answer once, in its request's span: server errors at ERROR, refusals at
/// DEBUG.
pub async fn log_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    if let Some(record) = response.extensions().get::<ErrorRecord>() {
        let status = response.status().as_u16();
        if response.status().is_server_error() {
            tracing::error!(status, code = record.code, error = %record.cause, "request failed");
        } else {
            tracing::debug!(status, code = record.code, error = %record.cause, "request rejected");
        }
    }
    response
}

/// `Retry-After` of a 502, 503 or 504 that names no delay of its own.
const OUTAGE_RETRY_AFTER_SECONDS: u64 = 5;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let mut response = (status, Json(self.problem())).into_response();
        self.record().attach(&mut response);
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        let retry_after = match self {
            Self::Overloaded {
                retry_after_seconds,
            }
            | Self::TooManyRequests {
                retry_after_seconds,
            } => Some(retry_after_seconds),
            // An open circuit knows when its probe may go.
            Self::Upstream(ref err) if err.retry_after_seconds().is_some() => {
                err.retry_after_seconds()
            }
            // An upstream outage or timeout: say when trying again makes sense, so clients and
            // proxies back off instead of retrying at once.
            _ if matches!(
                status,
                StatusCode::BAD_GATEWAY
                    | StatusCode::SERVICE_UNAVAILABLE
                    | StatusCode::GATEWAY_TIMEOUT
            ) =>
            {
                Some(OUTAGE_RETRY_AFTER_SECONDS)
            }
            _ => None,
        };
        if let Some(seconds) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if status == StatusCode::REQUEST_TIMEOUT {
            // The rest of the body may still be on its way: the connection cannot carry another
            // request (RFC 9110 §15.5.9).
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
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
    fn every_gateway_failure_says_when_to_retry() {
        let failures = [
            ApiError::Timeout,
            ApiError::Upstream(UpstreamError::Timeout {
                upstream: "content",
            }),
            ApiError::Upstream(UpstreamError::Decode {
                upstream: "content",
                reason: "x".to_owned(),
            }),
        ];
        for failure in failures {
            let response = failure.into_response();
            assert!(response.status().is_server_error(), "{}", response.status());
            assert_eq!(
                response.headers().get(header::RETRY_AFTER),
                Some(&HeaderValue::from(OUTAGE_RETRY_AFTER_SECONDS)),
                "{}",
                response.status()
            );
        }
        let client_error = ApiError::NotFound("x".to_owned()).into_response();
        assert!(client_error.headers().get(header::RETRY_AFTER).is_none());
        let internal = ApiError::Internal("x".to_owned()).into_response();
        assert!(internal.headers().get(header::RETRY_AFTER).is_none());
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
