//! What an `/api` answer tells a developer in the browser's network panel: `Server-Timing` with
//! the cache's state (`cache;desc=hit`) and the time spent on upstreams (`upstream;dur=12.3`,
//! in milliseconds, only when the request called one), and the W3C trace-context level 2
//! `traceresponse` naming the request's trace, for support tickets.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

use crate::observe::request_id::RequestId;

/// `Cache-Status` (RFC 9211), which the cache writes on its answers and this layer reads back.
pub static CACHE_STATUS: HeaderName = HeaderName::from_static("cache-status");
pub static SERVER_TIMING: HeaderName = HeaderName::from_static("server-timing");
pub static TRACERESPONSE: HeaderName = HeaderName::from_static("traceresponse");

/// The hit path's `Server-Timing`: a hit calls no upstream.
pub static HIT: HeaderValue = HeaderValue::from_static("cache;desc=hit");

/// Middleware (inside the server span): annotates `/api` answers.
pub async fn annotate(request: Request, next: Next) -> Response {
    if !request.uri().path().starts_with("/api/") {
        return next.run(request).await;
    }
    let id = request.extensions().get::<RequestId>().cloned();
    let mut response = next.run(request).await;
    let upstream = id.and_then(|id| id.upstream_time());
    let headers = response.headers_mut();
    if let Some(value) = server_timing(cache_state(headers), upstream) {
        headers.insert(SERVER_TIMING.clone(), value);
    }
    if let Some(value) = crate::observe::telemetry::traceresponse(&tracing::Span::current()) {
        headers.insert(TRACERESPONSE.clone(), value);
    }
    response
}

/// The cache's state from the answer's `Cache-Status` (RFC 9211 `detail=`): the first part
/// that was not a hit (a composed answer has several), else `hit`.
fn cache_state(headers: &HeaderMap) -> Option<&str> {
    let mut states = headers
        .get_all(&CACHE_STATUS)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|part| {
            part.split(';')
                .find_map(|param| param.trim().strip_prefix("detail="))
        })
        .peekable();
    let first = *states.peek()?;
    Some(states.find(|state| *state != "hit").unwrap_or(first))
}

fn server_timing(
    cache: Option<&str>,
    upstream: Option<std::time::Duration>,
) -> Option<HeaderValue> {
    let mut metrics = Vec::new();
    if let Some(state) = cache {
        metrics.push(format!("cache;desc={state}"));
    }
    if let Some(elapsed) = upstream {
        metrics.push(format!(
            "upstream;dur={:.1}",
            elapsed.as_secs_f64() * 1000.0
        ));
    }
    if metrics.is_empty() {
        return None;
    }
    HeaderValue::from_str(&metrics.join(", ")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn statuses(values: &[&'static str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(&CACHE_STATUS, HeaderValue::from_static(value));
        }
        headers
    }

    #[test]
    fn the_cache_state_is_the_first_part_that_was_not_a_hit() {
        let hit = statuses(&["bff; hit; ttl=30; detail=hit"]);
        assert_eq!(cache_state(&hit), Some("hit"));
        let composed = statuses(&[
            "bff; hit; ttl=30; detail=hit",
            "bff; fwd=uri-miss; fwd-status=200; stored; ttl=300; detail=miss",
        ]);
        assert_eq!(cache_state(&composed), Some("miss"));
        assert_eq!(cache_state(&HeaderMap::new()), None);
    }

    #[test]
    fn server_timing_names_the_cache_state_and_the_upstream_time_in_milliseconds() {
        let value = server_timing(Some("miss"), Some(Duration::from_micros(12_345)));
        assert_eq!(
            value.as_ref().and_then(|v| v.to_str().ok()),
            Some("cache;desc=miss, upstream;dur=12.3")
        );
        assert_eq!(server_timing(None, None), None);
        let hit = server_timing(Some("hit"), None);
        assert_eq!(hit.as_ref(), Some(&HIT));
    }
}
