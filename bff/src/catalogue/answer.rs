//! The HTTP answer for a body composed from several cache entries (content + price map).
//!
//! The same headers as a single cached answer (`cache::respond`), derived from all the parts:
//! - `ETag`: a strong hash of the composed body, so it changes exactly when what the shopper
//!   sees changes (a price change of this product's skus does; one elsewhere in the map does
//!   not), and a matching `If-None-Match` gets a 304;
//! - `Cache-Control`: the shortest remaining freshness and stale windows of the parts, so no
//!   browser or CDN keeps prices longer than the price map's policy allows;
//! - `Cache-Status`: one member for this cache, in the state of the part that did the most work
//!   (a miss over a coalesced wait over stale-if-error over stale over a hit);
//! - `Surrogate-Key`: every part's tags, so purging `prices` or `product:<title>` reaches CDNs.

use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use bytes::Bytes;

use crate::cache::entry::Freshness;
use crate::cache::entry::strong_etag;
use crate::cache::http::{CACHE_STATUS, SURROGATE_KEY, matches_etag, surrogate_key};
use crate::cache::status::cache_status_header;
use crate::cache::{CacheState, Lookup};

/// The answer for `body`, composed from `parts`, given the request's headers.
pub fn respond(parts: &[&Lookup], body: Bytes, request_headers: &HeaderMap) -> Response<Body> {
    let now = Instant::now();
    let etag = strong_etag(&body);
    let mut headers = HeaderMap::new();
    if let Some(freshness) = shortest(parts) {
        let decisive = parts
            .iter()
            .copied()
            .min_by_key(|part| work_rank(part.state));
        if let Some(decisive) = decisive {
            let status = cache_status_header(
                decisive.state,
                freshness.ttl_seconds(now),
                parts.iter().any(|part| part.stored),
                decisive.forward_status,
            );
            if let Ok(value) = HeaderValue::from_str(&status) {
                headers.insert(CACHE_STATUS.clone(), value);
            }
        }
        let control = format!(
            "public, max-age={}, stale-while-revalidate={}, stale-if-error={}",
            freshness.ttl_seconds(now).max(0),
            freshness.swr.as_secs(),
            freshness.sie.as_secs()
        );
        if let Ok(value) = HeaderValue::from_str(&control) {
            headers.insert(header::CACHE_CONTROL, value);
        }
    }
    if let Some(value) = surrogate_key(tags(parts)) {
        headers.insert(SURROGATE_KEY.clone(), value);
    }
    let age = parts
        .iter()
        .map(|part| {
            now.saturating_duration_since(part.entry.stored_at)
                .as_secs()
        })
        .max()
        .unwrap_or(0);
    headers.insert(header::AGE, HeaderValue::from(age));
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    let not_modified = matches_etag(request_headers, &etag);
    headers.insert(header::ETAG, etag);

    let mut response = if not_modified {
        let mut response = Response::new(Body::empty());
        *response.status_mut() = StatusCode::NOT_MODIFIED;
        response
    } else {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        Response::new(Body::from(body))
    };
    response.headers_mut().extend(headers);
    response
}

/// How much work a state stands for; the lowest rank names the composed answer's state.
fn work_rank(state: CacheState) -> u8 {
    match state {
        CacheState::Miss => 0,
        CacheState::Coalesced => 1,
        CacheState::StaleIfError => 2,
        CacheState::Stale => 3,
        CacheState::Hit => 4,
    }
}

/// The windows the composed answer may claim: each one the shortest among the parts.
fn shortest(parts: &[&Lookup]) -> Option<Freshness> {
    parts
        .iter()
        .map(|part| part.freshness)
        .reduce(|shortest, other| Freshness {
            fresh_until: shortest.fresh_until.min(other.fresh_until),
            stale_until: shortest.stale_until.min(other.stale_until),
            error_until: shortest.error_until.min(other.error_until),
            swr: shortest.swr.min(other.swr),
            sie: shortest.sie.min(other.sie),
        })
}

/// Every part's tags, each once, in order.
fn tags<'a>(parts: &[&'a Lookup]) -> Vec<&'a str> {
    let mut tags: Vec<&str> = Vec::new();
    for tag in parts.iter().flat_map(|part| part.entry.tags.iter()) {
        if !tags.contains(&tag.as_str()) {
            tags.push(tag);
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use axum::http::StatusCode;

    use super::*;
    use crate::cache::entry::CachedResponse;
    use crate::cache::{CachePolicy, Fetched, RouteKind};

    fn part(route: RouteKind, tag: &str, ttl_s: u64, state: CacheState) -> Lookup {
        let policy = CachePolicy {
            ttl_ms: ttl_s * 1000,
            stale_while_revalidate_ms: ttl_s * 2000,
            stale_if_error_ms: ttl_s * 3000,
            jitter: 0.0,
            ..CachePolicy::default()
        };
        let entry = CachedResponse::new(
            route,
            Fetched {
                status: StatusCode::OK,
                body: Bytes::from_static(b"{}"),
                content_type: HeaderValue::from_static("application/json"),
                extra_tags: vec![],
            },
            vec![tag.to_owned(), "shared".to_owned()],
            &policy,
        );
        Lookup {
            freshness: entry.freshness(&policy),
            entry: Arc::new(entry),
            state,
            stored: state == CacheState::Miss,
            forward_status: (state == CacheState::Miss).then_some(200),
        }
    }

    fn header<'a>(response: &'a Response<Body>, name: &str) -> &'a str {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
    }

    #[test]
    fn the_shortest_windows_and_every_tag_describe_the_composition() {
        let product = part(RouteKind::Product, "product:a", 120, CacheState::Hit);
        let prices = part(RouteKind::Prices, "prices", 30, CacheState::Hit);
        let response = respond(
            &[&product, &prices],
            Bytes::from_static(b"{\"a\":1}"),
            &HeaderMap::new(),
        );
        assert_eq!(response.status(), StatusCode::OK);
        let control = header(&response, "cache-control");
        assert!(control.starts_with("public, max-age=29"), "{control}");
        assert!(
            control.ends_with("stale-while-revalidate=60, stale-if-error=90"),
            "{control}"
        );
        assert_eq!(
            header(&response, "surrogate-key"),
            "product:a shared prices"
        );
        assert!(header(&response, "cache-status").ends_with("detail=hit"));
        assert_eq!(header(&response, "content-type"), "application/json");
    }

    #[test]
    fn the_part_that_did_the_most_work_names_the_state() {
        let product = part(RouteKind::Product, "product:a", 120, CacheState::Hit);
        let prices = part(RouteKind::Prices, "prices", 30, CacheState::Miss);
        let response = respond(&[&product, &prices], Bytes::new(), &HeaderMap::new());
        let status = header(&response, "cache-status");
        assert!(status.contains("fwd=uri-miss"), "{status}");
        assert!(status.contains("stored"), "{status}");
        assert!(status.ends_with("detail=miss"), "{status}");
        let stale = part(RouteKind::Prices, "prices", 30, CacheState::Stale);
        let response = respond(&[&product, &stale], Bytes::new(), &HeaderMap::new());
        assert!(header(&response, "cache-status").ends_with("detail=stale"));
    }

    #[test]
    fn the_etag_follows_the_body_and_a_match_is_a_304() {
        let product = part(RouteKind::Product, "product:a", 120, CacheState::Hit);
        let first = respond(
            &[&product],
            Bytes::from_static(b"{\"inStock\":true}"),
            &HeaderMap::new(),
        );
        let changed = respond(
            &[&product],
            Bytes::from_static(b"{\"inStock\":false}"),
            &HeaderMap::new(),
        );
        let etag = header(&first, "etag").to_owned();
        assert!(etag.starts_with('"') && etag.ends_with('"'));
        assert_ne!(etag, header(&changed, "etag"));
        let mut conditional = HeaderMap::new();
        conditional.insert(
            header::IF_NONE_MATCH,
            HeaderValue::from_str(&format!("W/{etag}")).unwrap(),
        );
        let again = respond(
            &[&product],
            Bytes::from_static(b"{\"inStock\":true}"),
            &conditional,
        );
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        assert!(again.headers().get(header::CONTENT_TYPE).is_none());
        assert_eq!(header(&again, "etag"), etag);
    }

    #[test]
    fn a_stale_part_makes_the_composition_stale_for_browsers() {
        let mut prices = part(RouteKind::Prices, "prices", 30, CacheState::Stale);
        prices.freshness.fresh_until = Instant::now() - Duration::from_secs(5);
        let product = part(RouteKind::Product, "product:a", 120, CacheState::Hit);
        let response = respond(&[&product, &prices], Bytes::new(), &HeaderMap::new());
        assert!(header(&response, "cache-control").starts_with("public, max-age=0,"));
    }
}
