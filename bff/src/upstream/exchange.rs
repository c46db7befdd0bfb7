//! What goes through the upstream stack: the request before it is HTTP, the successful answer,
//! and the stack as one cloneable service.

use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use bytes::Bytes;
use tower::util::BoxCloneSyncService;
use url::Url;

use super::UpstreamError;
use crate::observe::request_id::RequestId;

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
    /// The upstream forbade shared caches to keep this answer (`Cache-Control: no-store`, or
    /// an unqualified `private`): it is answered to whoever asked and never stored.
    pub no_store: bool,
}

/// Whether `headers` forbid a shared cache to store the answer (RFC 9111 §3): a `no-store`
/// directive, or `private` without field names (`private="set-cookie"` only keeps those
/// fields out of a shared cache). Directive names are case-insensitive.
pub fn forbids_shared_storage(headers: &HeaderMap) -> bool {
    headers
        .get_all(axum::http::header::CACHE_CONTROL)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .any(|directive| {
            directive.eq_ignore_ascii_case("no-store") || directive.eq_ignore_ascii_case("private")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache_control(values: &[&'static str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(
                axum::http::header::CACHE_CONTROL,
                HeaderValue::from_static(value),
            );
        }
        headers
    }

    #[test]
    fn no_store_and_unqualified_private_forbid_shared_storage() {
        assert!(forbids_shared_storage(&cache_control(&["no-store"])));
        assert!(forbids_shared_storage(&cache_control(&[
            "max-age=60, No-Store"
        ])));
        assert!(forbids_shared_storage(&cache_control(&[
            "public", "private"
        ])));
    }

    #[test]
    fn other_directives_and_qualified_private_allow_it() {
        assert!(!forbids_shared_storage(&HeaderMap::new()));
        assert!(!forbids_shared_storage(&cache_control(&[
            "public, max-age=60"
        ])));
        assert!(!forbids_shared_storage(&cache_control(&[
            "private=\"set-cookie\""
        ])));
        assert!(!forbids_shared_storage(&cache_control(&[
            "no-store-ish, no-cache"
        ])));
    }
}
