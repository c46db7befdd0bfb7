//! Why an upstream call did not produce a usable answer, and what the API's client is told.

use axum::http::StatusCode;

use super::PathError;

/// Why an upstream call did not produce a usable answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UpstreamError {
    #[error("{upstream}: {path} not found")]
    NotFound {
        upstream: &'static str,
        path: String,
        /// The upstream's own message, for the shopper ("Product TF-X not found").
        message: Option<String>,
    },
    #[error("{upstream}: answered {status}")]
    Status {
        upstream: &'static str,
        status: StatusCode,
        message: Option<String>,
        /// Per-field messages of a validation failure.
        errors: Option<std::collections::BTreeMap<String, String>>,
    },
    #[error("{upstream}: unreachable ({reason})")]
    Unreachable {
        upstream: &'static str,
        reason: String,
    },
    #[error("{upstream}: timed out")]
    Timeout { upstream: &'static str },
    #[error("{upstream}: too many requests in flight")]
    Overloaded { upstream: &'static str },
    /// The upstream's circuit breaker is open: recent calls failed, so this one was not sent.
    #[error("{upstream}: circuit open after repeated failures")]
    CircuitOpen {
        upstream: &'static str,
        /// Until a probe may go through.
        retry_after: std::time::Duration,
    },
    #[error("{upstream}: unreadable answer ({reason})")]
    Decode {
        upstream: &'static str,
        reason: String,
    },
    /// The answer lacks a field the API's type requires, or has it with another type.
    #[error("{upstream}: answer breaks the contract at `{field}` ({reason})")]
    Contract {
        upstream: &'static str,
        field: String,
        reason: String,
    },
    /// A request body could not be encoded (a bug: the API's types always serialise).
    #[error("{upstream}: request body not encodable ({reason})")]
    Encode {
        upstream: &'static str,
        reason: String,
    },
    #[error("invalid path: {0}")]
    InvalidPath(#[from] PathError),
}

impl UpstreamError {
    pub fn status(&self) -> StatusCode {
        match self {
            Self::NotFound { .. } | Self::InvalidPath(_) => StatusCode::NOT_FOUND,
            // A validation failure upstream is this API's 422, with its per-field messages.
            Self::Status {
                status,
                errors: Some(_),
                ..
            } if *status == StatusCode::BAD_REQUEST => StatusCode::UNPROCESSABLE_ENTITY,
            Self::Status { status, .. } if is_relayed(*status) => *status,
            Self::Timeout { .. } => StatusCode::GATEWAY_TIMEOUT,
            Self::Overloaded { .. } | Self::CircuitOpen { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::Encode { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_GATEWAY,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound { .. } | Self::InvalidPath(_) => "not_found",
            Self::Status {
                status,
                errors: Some(_),
                ..
            } if *status == StatusCode::BAD_REQUEST
                || *status == StatusCode::UNPROCESSABLE_ENTITY =>
            {
                "validation_failed"
            }
            Self::Status { status, .. } => match *status {
                StatusCode::BAD_REQUEST => "bad_request",
                StatusCode::UNAUTHORIZED => "unauthorized",
                StatusCode::FORBIDDEN => "forbidden",
                StatusCode::CONFLICT => "conflict",
                StatusCode::UNPROCESSABLE_ENTITY => "unprocessable",
                StatusCode::TOO_MANY_REQUESTS => "rate_limited",
                _ => "upstream_unavailable",
            },
            Self::Timeout { .. } => "upstream_timeout",
            Self::Overloaded { .. } => "overloaded",
            Self::Contract { .. } => "upstream_contract",
            Self::Encode { .. } => "internal",
            _ => "upstream_unavailable",
        }
    }

    /// When trying again makes sense, for `Retry-After`, when the error knows (whole seconds,
    /// rounded up, at least 1).
    pub fn retry_after_seconds(&self) -> Option<u64> {
        match self {
            Self::CircuitOpen { retry_after, .. } => {
                let whole = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
                Some(whole.max(1))
            }
            _ => None,
        }
    }

    /// What a shopper may be told: the upstream's own message for its 4xx answers, a generic
    /// sentence otherwise (never hostnames or transport errors).
    pub fn public_detail(&self) -> String {
        match self {
            Self::NotFound {
                message: Some(message),
                ..
            } => message.clone(),
            Self::NotFound { .. } | Self::InvalidPath(_) => "Not found.".to_owned(),
            Self::Status {
                status,
                message: Some(message),
                ..
            } if is_relayed(*status) => message.clone(),
            Self::Timeout { .. } => "The service took too long to answer.".to_owned(),
            Self::Overloaded { .. } => "The service is busy; please retry shortly.".to_owned(),
            Self::Encode { .. } => "Something went wrong on our side.".to_owned(),
            _ => "The service is unavailable; please retry shortly.".to_owned(),
        }
    }
}

/// The upstream client errors that mean the same for this API's client and so pass through as
/// they are (the OpenAPI document lists them per operation). Any other 4xx (405, 410, 418, ...)
/// says the BFF called the upstream wrongly: a 502 like any other unusable answer.
fn is_relayed(status: StatusCode) -> bool {
    matches!(
        status,
        StatusCode::BAD_REQUEST
            | StatusCode::UNAUTHORIZED
            | StatusCode::FORBIDDEN
            | StatusCode::NOT_FOUND
            | StatusCode::CONFLICT
            | StatusCode::UNPROCESSABLE_ENTITY
            | StatusCode::TOO_MANY_REQUESTS
    )
}

/// A non-2xx answer as the error it is, with the upstream's message and field errors.
pub(super) fn failure(
    upstream: &'static str,
    path: &str,
    status: StatusCode,
    body: &[u8],
) -> UpstreamError {
    if status == StatusCode::NOT_FOUND {
        UpstreamError::NotFound {
            upstream,
            path: path.to_owned(),
            message: message_of(body),
        }
    } else {
        UpstreamError::Status {
            upstream,
            status,
            message: message_of(body),
            errors: errors_of(body),
        }
    }
}

pub(super) fn transport_error(upstream: &'static str, err: &reqwest::Error) -> UpstreamError {
    if err.is_timeout() {
        UpstreamError::Timeout { upstream }
    } else {
        UpstreamError::Unreachable {
            upstream,
            reason: err.to_string(),
        }
    }
}

/// The per-field `errors` of an upstream validation failure, if any.
fn errors_of(body: &[u8]) -> Option<std::collections::BTreeMap<String, String>> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let errors = value.get("errors")?.as_object()?;
    Some(
        errors
            .iter()
            .filter_map(|(field, message)| Some((field.clone(), message.as_str()?.to_owned())))
            .collect(),
    )
}

/// The `message` of an upstream JSON error body (the commerce API's shape), if any.
fn message_of(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    value
        .get("message")
        .or_else(|| value.pointer("/error/message"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(status: u16, message: &str) -> UpstreamError {
        UpstreamError::Status {
            upstream: "commerce",
            status: StatusCode::from_u16(status).unwrap(),
            message: Some(message.to_owned()),
            errors: None,
        }
    }

    #[test]
    fn meaningful_client_errors_pass_through_with_their_message() {
        for status in [400, 401, 403, 409, 422, 429] {
            let error = answered(status, "Already subscribed");
            assert_eq!(error.status().as_u16(), status);
            assert_eq!(error.public_detail(), "Already subscribed");
        }
    }

    #[test]
    fn a_not_found_keeps_the_upstreams_message() {
        let body = br#"{"message": "Product TF-X not found"}"#;
        let error = failure(
            "commerce",
            "ProductNotification/subscribe",
            StatusCode::NOT_FOUND,
            body,
        );
        assert_eq!(error.status(), StatusCode::NOT_FOUND);
        assert_eq!(error.public_detail(), "Product TF-X not found");
        let bare = failure("content", "products/x", StatusCode::NOT_FOUND, b"");
        assert_eq!(bare.public_detail(), "Not found.");
    }

    #[test]
    fn an_open_circuit_is_a_503_saying_when_to_retry() {
        let open = |millis| UpstreamError::CircuitOpen {
            upstream: "content",
            retry_after: std::time::Duration::from_millis(millis),
        };
        assert_eq!(open(9_200).status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(open(9_200).code(), "upstream_unavailable");
        assert_eq!(open(9_200).retry_after_seconds(), Some(10));
        assert_eq!(open(0).retry_after_seconds(), Some(1));
        assert_eq!(open(3_000).retry_after_seconds(), Some(3));
    }

    #[test]
    fn other_client_errors_are_a_bad_gateway() {
        for status in [405, 410, 413, 415, 418] {
            let error = answered(status, "teapot internals");
            assert_eq!(error.status(), StatusCode::BAD_GATEWAY, "{status}");
            assert_eq!(error.code(), "upstream_unavailable");
            assert!(!error.public_detail().contains("teapot"));
        }
    }
}
