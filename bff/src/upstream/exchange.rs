//! What goes through the upstream stack: the request before it is HTTP, the successful answer,
//! and the stack as one cloneable service.

use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use bytes::Bytes;
use tower::util::BoxCloneSyncService;
use url::Url;

use super::UpstreamError;
use crate::http::request_id::RequestId;

/// A request body.
#[derive(Debug, Clone, Default)]
pub enum Body {
    #[default]
    Empty,
    Json(Bytes),
    /// A ready-made `multipart/form-data` body; `content_type` carries its boundary.
    Multipart {
        content_type: HeaderValue,
        bytes: Bytes,
    },
}

/// One request to an upstream, before the stack turns it into HTTP.
#[derive(Debug, Clone)]
pub struct UpstreamRequest {
    pub method: Method,
    pub url: Url,
    /// Names the request in errors, traces (`url.template`) and metrics (`operation`): the
    /// path template written in code (`page/{}`), never a value a shopper sent nor a URL that
    /// may carry a key.
    pub label: String,
    pub body: Body,
    /// The caller's own token; the upstream's service credential is used when absent.
    pub bearer: Option<String>,
    pub guest_id: Option<String>,
    /// Added last (a map provider's key header).
    pub headers: HeaderMap,
    pub request_id: RequestId,
}

/// The stack as one cloneable service.
pub type Stack = BoxCloneSyncService<UpstreamRequest, UpstreamResponse, UpstreamError>;

/// A successful upstream answer.
#[derive(Debug, Clone)]
pub struct UpstreamResponse {
    pub status: StatusCode,
    pub body: Bytes,
    pub content_type: Option<HeaderValue>,
}
