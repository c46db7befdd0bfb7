//! CSRF defence for the cookie session: unsafe `/api` methods need `X-CSRF: 1` (a header a
//! cross-site form cannot send and a cross-site script cannot add without a CORS preflight we
//! never grant), an `Origin` equal to the public origin when the browser sends one, and a
//! `Sec-Fetch-Site` that is not `cross-site`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::http::error::ApiError;
use crate::observe::metrics::Metrics;

fn is_unsafe(method: &Method) -> bool {
    !matches!(
        *method,
        Method::GET | Method::HEAD | Method::OPTIONS | Method::TRACE
    )
}

/// Why a request was refused, or `None` when it may go on.
fn violation(request: &Request, public_origin: &str) -> Option<&'static str> {
    if !is_unsafe(request.method()) {
        return None;
    }
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .map(|value| value.to_str().unwrap_or("\u{0}"))
    };
    if header("x-csrf") != Some("1") {
        return Some("The X-CSRF header is missing.");
    }
    if let Some(origin) = header("origin")
        && origin != public_origin
    {
        return Some("The request comes from another origin.");
    }
    if header("sec-fetch-site") == Some("cross-site") {
        return Some("The request is cross-site.");
    }
    None
}

/// The check for `POST /api/rum`, sent with `navigator.sendBeacon`, which cannot add `X-CSRF`:
/// the browser must name the storefront's origin in `Origin` (it always sends one on a beacon's
/// POST) and, when it says, be on the same origin. `None` when the request may go on.
pub fn beacon_violation(
    headers: &axum::http::HeaderMap,
    public_origin: &str,
) -> Option<&'static str> {
    let header = |name: &str| {
        headers
            .get(name)
            .map(|value| value.to_str().unwrap_or("\u{0}"))
    };
    if header("origin") != Some(public_origin) {
        return Some("The report must come from the storefront's own pages.");
    }
    if header("sec-fetch-site").is_some_and(|site| site != "same-origin") {
        return Some("The report is not same-origin.");
    }
    None
}

/// What the CSRF check needs: the public origin, and the metrics counting refusals.
#[derive(Debug)]
pub struct Csrf {
    /// The public origin (`https://shop.example`), serialised once.
    pub origin: String,
    pub metrics: Arc<Metrics>,
}

impl Csrf {
    /// The check itself: a refusal (403 `csrf_rejected`, counted and logged) or `Ok`. The
    /// upload gate runs it too, before it reserves or reads anything of an upload.
    pub fn check(&self, request: &Request) -> Result<(), ApiError> {
        let Some(reason) = violation(request, &self.origin) else {
            return Ok(());
        };
        self.metrics
            .count_session_event(crate::observe::metrics::SessionEvent::CsrfRejected);
        tracing::info!(reason, method = %request.method(), "CSRF check failed");
        Err(ApiError::Forbidden {
            code: "csrf_rejected",
            detail: reason.to_owned(),
        })
    }
}

pub async fn layer(State(csrf): State<Arc<Csrf>>, request: Request, next: Next) -> Response {
    if let Err(refused) = csrf.check(&request) {
        return refused.into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;

    fn request(method: Method, headers: &[(&str, &str)]) -> Request {
        let mut builder = Request::builder().method(method).uri("/api/auth/login");
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        builder.body(Body::empty()).unwrap()
    }

    const ORIGIN: &str = "https://shop.example";

    #[test]
    fn a_beacon_needs_the_storefronts_origin_and_no_other_site() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut map = axum::http::HeaderMap::new();
            for (name, value) in pairs {
                map.insert(*name, axum::http::HeaderValue::from_static(value));
            }
            map
        };
        assert_eq!(
            beacon_violation(
                &headers(&[("origin", ORIGIN), ("sec-fetch-site", "same-origin")]),
                ORIGIN
            ),
            None
        );
        assert_eq!(
            beacon_violation(&headers(&[("origin", ORIGIN)]), ORIGIN),
            None
        );
        assert!(beacon_violation(&headers(&[]), ORIGIN).is_some());
        assert!(
            beacon_violation(&headers(&[("origin", "https://evil.example")]), ORIGIN).is_some()
        );
        assert!(
            beacon_violation(
                &headers(&[("origin", ORIGIN), ("sec-fetch-site", "same-site")]),
                ORIGIN
            )
            .is_some()
        );
    }

    #[test]
    fn safe_methods_pass_without_the_header() {
        assert_eq!(violation(&request(Method::GET, &[]), ORIGIN), None);
    }

    #[test]
    fn unsafe_methods_need_the_header_and_a_same_origin() {
        assert!(violation(&request(Method::POST, &[]), ORIGIN).is_some());
        assert!(violation(&request(Method::POST, &[("x-csrf", "0")]), ORIGIN).is_some());
        assert_eq!(
            violation(&request(Method::POST, &[("x-csrf", "1")]), ORIGIN),
            None
        );
        assert_eq!(
            violation(
                &request(
                    Method::DELETE,
                    &[
                        ("x-csrf", "1"),
                        ("origin", ORIGIN),
                        ("sec-fetch-site", "same-origin")
                    ]
                ),
                ORIGIN
            ),
            None
        );
        assert!(
            violation(
                &request(
                    Method::PUT,
                    &[("x-csrf", "1"), ("origin", "https://evil.example")]
                ),
                ORIGIN
            )
            .is_some()
        );
        assert!(
            violation(
                &request(
                    Method::POST,
                    &[("x-csrf", "1"), ("sec-fetch-site", "cross-site")]
                ),
                ORIGIN
            )
            .is_some()
        );
    }
}
