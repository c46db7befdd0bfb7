//! Why a fetch produced no answer.

use crate::http::error::ApiError;
use crate::upstream::UpstreamError;

/// Why a fetch produced no answer. Cloneable: every waiter of a coalesced fetch gets it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FetchFailure {
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
    /// The fetch task panicked or was aborted; its waiters are released with this error.
    #[error("the fetch task failed")]
    Aborted,
}

impl FetchFailure {
    /// Failures that stale-if-error covers (RFC 5861): server errors, timeouts, no connection.
    /// A 4xx is an answer, not an outage.
    pub(super) fn allows_stale(&self) -> bool {
        match self {
            Self::Upstream(UpstreamError::Status { status, .. }) => status.is_server_error(),
            Self::Upstream(UpstreamError::NotFound { .. } | UpstreamError::InvalidPath(_)) => false,
            Self::Upstream(_) | Self::Aborted => true,
        }
    }

    /// The status the upstream gave, for `Cache-Status: fwd-status`.
    pub(super) fn forward_status(&self) -> Option<u16> {
        match self {
            Self::Upstream(UpstreamError::Status { status, .. }) => Some(status.as_u16()),
            Self::Upstream(UpstreamError::Timeout { .. }) => Some(504),
            // Not sent at all: the upstream's breaker is open.
            Self::Upstream(UpstreamError::CircuitOpen { .. }) => Some(503),
            _ => Some(502),
        }
    }
}

/// What the API answers for a fetch that failed: the upstream's error as it is, or a 500.
impl From<FetchFailure> for ApiError {
    fn from(failure: FetchFailure) -> Self {
        match failure {
            FetchFailure::Upstream(err) => ApiError::Upstream(err),
            FetchFailure::Aborted => ApiError::Internal("cache fetch aborted".to_owned()),
        }
    }
}
