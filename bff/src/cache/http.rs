//! Turning a lookup into an HTTP answer for browsers and CDNs: `Cache-Control` with the remaining
//! freshness and the stale windows, a strong `ETag` with 304s, `Surrogate-Key`, `Cache-Status`,
//! and the stored gzip/brotli variant the client accepts.

use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Response, StatusCode, header};
use bytes::Bytes;

use super::entry::{CachedResponse, Freshness};
use super::status::cache_status_header;
use super::store::Lookup;

pub static CACHE_STATUS: HeaderName = HeaderName::from_static("cache-status");
pub static SURROGATE_KEY: HeaderName = HeaderName::from_static("surrogate-key");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Brotli,
    Gzip,
    Identity,
}

/// The best stored encoding the client accepts (`q=0` refuses; brotli preferred).
fn negotiate(headers: &HeaderMap, entry: &CachedResponse) -> Encoding {
    let accepted = |name: &str| {
        headers
            .get_all(header::ACCEPT_ENCODING)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .any(|item| {
                let mut parts = item.split(';');
                let coding = parts.next().unwrap_or_default().trim();
                let refused = parts.any(|param| {
                    param
                        .trim()
                        .strip_prefix("q=")
                        .and_then(|q| q.trim().parse::<f32>().ok())
                        .is_some_and(|q| q <= 0.0)
                });
                (coding.eq_ignore_ascii_case(name) || coding == "*") && !refused
            })
    };
    if entry.brotli.is_some() && accepted("br") {
        Encoding::Brotli
    } else if entry.gzip.is_some() && accepted("gzip") {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

/// Whether `If-None-Match` names `etag` (weak comparison, as RFC 9110 asks for).
pub fn matches_etag(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let etag = etag.as_bytes();
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .any(|candidate| candidate == "*" || candidate.trim_start_matches("W/").as_bytes() == etag)
}

/// `max-age` is the remaining freshness (0 once stale), so a browser or CDN never keeps an
/// answer longer than this cache would.
/// `Surrogate-Key`: the tags, space-separated as CDNs expect, so spaces inside a tag (product
/// titles have them) are percent-encoded.
pub fn surrogate_key<'a>(tags: impl IntoIterator<Item = &'a str>) -> Option<HeaderValue> {
    let keys: Vec<String> = tags
        .into_iter()
        .map(|tag| tag.replace('%', "%25").replace(' ', "%20"))
        .collect();
    HeaderValue::from_str(&keys.join(" ")).ok()
}

fn cache_control(entry: &CachedResponse, freshness: &Freshness, now: Instant) -> String {
    let max_age = freshness.ttl_seconds(now).max(0);
    if entry.status == StatusCode::NOT_FOUND {
        return format!("public, max-age={max_age}");
    }
    format!(
        "public, max-age={max_age}, stale-while-revalidate={}, stale-if-error={}",
        freshness.swr.as_secs(),
        freshness.sie.as_secs()
    )
}

/// The HTTP answer for `lookup`, given the request's headers.
pub fn respond(lookup: &Lookup, request_headers: &HeaderMap) -> Response<Body> {
    let entry = &lookup.entry;
    let now = Instant::now();
    let mut headers = HeaderMap::new();
    let status_value = cache_status_header(
        lookup.state,
        lookup.freshness.ttl_seconds(now),
        lookup.stored,
        lookup.forward_status,
    );
    if let Ok(value) = HeaderValue::from_str(&status_value) {
        headers.insert(CACHE_STATUS.clone(), value);
    }
    if let Ok(value) = HeaderValue::from_str(&cache_control(entry, &lookup.freshness, now)) {
        headers.insert(header::CACHE_CONTROL, value);
    }
    if let Some(value) = surrogate_key(entry.tags.iter().map(String::as_str)) {
        headers.insert(SURROGATE_KEY.clone(), value);
    }
    headers.insert(header::ETAG, entry.etag.clone());
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    headers.insert(
        header::AGE,
        HeaderValue::from(now.saturating_duration_since(entry.stored_at).as_secs()),
    );

    let (status, body) = if matches_etag(request_headers, &entry.etag) {
        (StatusCode::NOT_MODIFIED, Bytes::new())
    } else {
        headers.insert(header::CONTENT_TYPE, entry.content_type.clone());
        let (encoding, body) = match negotiate(request_headers, entry) {
            Encoding::Brotli => ("br", entry.brotli.clone()),
            Encoding::Gzip => ("gzip", entry.gzip.clone()),
            Encoding::Identity => ("identity", None),
        };
        match body {
            Some(body) => {
                headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
                (entry.status, body)
            }
            None => (entry.status, entry.body.clone()),
        }
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::entry::Fetched;
    use crate::cache::policy::{CachePolicy, RouteKind};
    use crate::cache::status::CacheState;
    use std::sync::Arc;

    fn lookup() -> Lookup {
        let body = "{\"title\":\"".to_owned() + &"x".repeat(2000) + "\"}";
        let policy = CachePolicy {
            jitter: 0.0,
            ..CachePolicy::default()
        };
        let entry = CachedResponse::new(
            RouteKind::Pages,
            Fetched {
                status: StatusCode::OK,
                body: Bytes::from(body),
                content_type: HeaderValue::from_static("application/json"),
                extra_tags: vec![],
            },
            vec!["page:home".to_owned()],
            &policy,
        );
        Lookup {
            freshness: entry.freshness(&policy),
            entry: Arc::new(entry),
            state: CacheState::Hit,
            stored: false,
            forward_status: None,
        }
    }

    fn request(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    #[test]
    fn serves_the_stored_variant_the_client_prefers() {
        let lookup = lookup();
        let br = respond(
            &lookup,
            &request(&[("accept-encoding", "gzip, deflate, br")]),
        );
        assert_eq!(br.headers()[header::CONTENT_ENCODING], "br");
        let gzip = respond(&lookup, &request(&[("accept-encoding", "gzip, br;q=0")]));
        assert_eq!(gzip.headers()[header::CONTENT_ENCODING], "gzip");
        let plain = respond(&lookup, &request(&[]));
        assert!(plain.headers().get(header::CONTENT_ENCODING).is_none());
        assert_eq!(plain.headers()[header::VARY], "accept-encoding");
    }

    #[test]
    fn a_matching_etag_is_a_304_without_a_body() {
        let lookup = lookup();
        let etag = lookup.entry.etag.to_str().unwrap().to_owned();
        for candidate in [
            etag.clone(),
            format!("W/{etag}"),
            format!("\"other\", {etag}"),
        ] {
            let response = respond(&lookup, &request(&[("if-none-match", &candidate)]));
            assert_eq!(response.status(), StatusCode::NOT_MODIFIED, "{candidate}");
            assert!(response.headers().get(header::CONTENT_TYPE).is_none());
        }
        let other = respond(&lookup, &request(&[("if-none-match", "\"other\"")]));
        assert_eq!(other.status(), StatusCode::OK);
    }

    #[test]
    fn surrogate_keys_keep_spaces_inside_tags() {
        let value = surrogate_key(["product:vanguard 15", "prices", "page:50%"]).unwrap();
        assert_eq!(value, "product:vanguard%2015 prices page:50%25");
    }

    #[test]
    fn headers_describe_freshness_and_tags() {
        let response = respond(&lookup(), &request(&[]));
        let control = response.headers()[header::CACHE_CONTROL].to_str().unwrap();
        assert!(control.starts_with("public, max-age=29"), "{control}");
        assert!(
            control.ends_with("stale-while-revalidate=600, stale-if-error=86400"),
            "{control}"
        );
        assert_eq!(response.headers()[&SURROGATE_KEY], "page:home");
        assert!(
            response.headers()[&CACHE_STATUS]
                .to_str()
                .unwrap()
                .contains("detail=hit")
        );
    }
}
