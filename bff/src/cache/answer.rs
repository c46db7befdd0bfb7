//! The one way to send an answer from the edge cache: [`CachedAnswer`], built from what the
//! answer is made of (one stored entry, a body composed from several, a remembered answer),
//! with its options, then sent given the request's headers.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use bytes::Bytes;

use super::entry::strong_etag;
use super::http::{
    Described, Encoding, StoredEncoding, matches_etag, negotiate, not_modified, surrogate_key, tags,
};
use super::lookup::Lookup;
use super::rendered::{Epochs, Rendered};
use super::status::CacheState;
use super::store::EdgeCache;

/// The cache entries an answer sent by [`CachedAnswer`] is made from (a response extension, never
/// on the wire): what an in-process reader of the API composes its own answer's `ETag`,
/// `Surrogate-Key` and freshness from (see `crate::ssr`).
#[derive(Debug, Clone)]
pub struct AnswerParts(pub Vec<Lookup>);

/// An answer from the edge cache, and the one way to send one: built from what it is made of,
/// with options, then [`sent`](Self::send) given the request's headers. Every cached answer
/// carries the same derived headers (`ETag`, `Cache-Control`, `Cache-Status`, `Surrogate-Key`,
/// `Age`, `Vary`), and a matching `If-None-Match` is a 304.
///
/// - [`Self::entry`]: one cache entry as it is stored, in the stored gzip/brotli variant the
///   client accepts (marked [`StoredEncoding`]), with the entry's status, type and `ETag`.
/// - [`Self::json`] and [`Self::document`]: a body made from several cache entries (content and
///   the price map, a page and the answer made from it), with the headers derived from all the
///   parts:
///   - `ETag`: a strong hash of the body, so it changes exactly when what the client sees
///     changes;
///   - `Cache-Control`: the shortest remaining freshness and stale windows of the parts, so no
///     browser or CDN keeps a part longer than its own policy allows;
///   - `Cache-Status`: one member for this cache, in the state of the part that did the most
///     work;
///   - `Surrogate-Key`: every part's tags, each once, so purging any part reaches CDNs;
///   - `Age`: the oldest part's.
///
///   Without parts nothing describes the body's freshness: it is answered `no-store`. A body made
///   from one remembered 404 keeps that entry's short caching with no stale windows; only a 200
///   can be a 304. Not marked [`StoredEncoding`]: the body was never stored, so the compression
///   layer compresses it like any other answer.
/// - [`Self::remembered`]: an answer remembered for the hit path ([`Rendered`]), sent again.
///
/// With [`Self::remember`], an answer whose parts are all fresh 200s is remembered for the hit
/// path; when every part was an L1 hit, it is sent as the hit path will send it from now on.
#[must_use]
pub struct CachedAnswer<'a> {
    made_of: MadeOf<'a>,
    remember: Option<(&'a EdgeCache, Epochs)>,
    cache_control: Option<HeaderValue>,
    now: Option<Instant>,
}

enum MadeOf<'a> {
    Entry(&'a Lookup),
    Body {
        parts: Vec<&'a Lookup>,
        status: StatusCode,
        content_type: HeaderValue,
        body: Bytes,
    },
    Remembered(&'a Rendered),
}

impl<'a> CachedAnswer<'a> {
    /// The entry `lookup` found, as it is stored.
    pub fn entry(lookup: &'a Lookup) -> Self {
        Self::of(MadeOf::Entry(lookup))
    }

    /// A JSON `body` (a 200) composed from `parts`.
    pub fn json(parts: impl IntoIterator<Item = &'a Lookup>, body: Bytes) -> Self {
        Self::document(
            parts,
            StatusCode::OK,
            HeaderValue::from_static("application/json"),
            body,
        )
    }

    /// A `body` of any type and status made from `parts` (a page's HTML document, whose head is
    /// built from the page's content and the price map; the sitemap).
    pub fn document(
        parts: impl IntoIterator<Item = &'a Lookup>,
        status: StatusCode,
        content_type: HeaderValue,
        body: Bytes,
    ) -> Self {
        Self::of(MadeOf::Body {
            parts: parts.into_iter().collect(),
            status,
            content_type,
            body,
        })
    }

    /// An answer remembered for the hit path: the headers a lookup's hit gets, with `Age`, the
    /// ttl and `max-age` as of now (see [`Self::at`]), and the stored variant the client
    /// accepts. Not marked [`StoredEncoding`] (the hit path has nothing downstream).
    pub fn remembered(answer: &'a Rendered) -> Self {
        Self::of(MadeOf::Remembered(answer))
    }

    fn of(made_of: MadeOf<'a>) -> Self {
        Self {
            made_of,
            remember: None,
            cache_control: None,
            now: None,
        }
    }

    /// Remembered in `cache` for the hit path, under the first part's key, when every part is a
    /// fresh 200 (and so is the answer); `epochs` were read before the parts were looked up.
    pub fn remember(mut self, cache: &'a EdgeCache, epochs: Epochs) -> Self {
        self.remember = Some((cache, epochs));
        self
    }

    /// Towards browsers revalidated on every visit (`Cache-Control: no-cache`; its `ETag` makes
    /// that a 304); the parts' windows stay for the edge cache (`Surrogate-Key`, `Age`). A
    /// remembered answer carries its own `Cache-Control`.
    pub fn revalidated(mut self) -> Self {
        self.cache_control = Some(HeaderValue::from_static("no-cache"));
        self
    }

    /// The timed headers (`Age`, `Cache-Control`, `Cache-Status`) as of `now` rather than the
    /// moment it is sent.
    pub fn at(mut self, now: Instant) -> Self {
        self.now = Some(now);
        self
    }

    /// The HTTP answer, given the request's headers.
    pub fn send(self, request_headers: &HeaderMap) -> Response<Body> {
        let now = self.now.unwrap_or_else(Instant::now);
        let parts: &[&Lookup] = match &self.made_of {
            MadeOf::Remembered(answer) => return answer.send(now, request_headers),
            MadeOf::Entry(lookup) => std::slice::from_ref(lookup),
            MadeOf::Body { parts, .. } => parts,
        };
        let remembered = self.remember.and_then(|(cache, epochs)| {
            Some((cache, Arc::new(self.rendered(parts, epochs, now)?)))
        });
        let response = match &remembered {
            // All hits: the very answer the hit path will give from now on.
            // (An L2 hit is told as such this once; the next request is an L1 hit.)
            Some((_, rendered))
                if parts
                    .iter()
                    .all(|part| part.state == CacheState::Hit && !part.from_l2) =>
            {
                let mut response = rendered.send(now, request_headers);
                response.extensions_mut().insert(StoredEncoding);
                response
            }
            _ => {
                let mut response = match &self.made_of {
                    MadeOf::Entry(lookup) => stored(lookup, now, request_headers),
                    MadeOf::Body {
                        status,
                        content_type,
                        body,
                        ..
                    } => made(
                        parts,
                        *status,
                        content_type.clone(),
                        body.clone(),
                        now,
                        request_headers,
                    ),
                    MadeOf::Remembered(answer) => answer.send(now, request_headers),
                };
                // A part the upstream forbade storing keeps its `no-store`.
                let no_store = parts.iter().any(|part| part.entry.no_store);
                if let Some(value) = self.cache_control.as_ref().filter(|_| !no_store) {
                    response
                        .headers_mut()
                        .insert(header::CACHE_CONTROL, value.clone());
                }
                response
            }
        };
        let mut response = response;
        // what the answer is made of, for an in-process reader (the server render) that composes
        // a document from answers as this composes an answer from parts
        response.extensions_mut().insert(AnswerParts(
            parts.iter().map(|part| (*part).clone()).collect(),
        ));
        if let (Some((cache, rendered)), Some(first)) = (remembered, parts.first()) {
            cache.remember_answer(first.key.clone(), rendered);
        }
        response
    }

    /// The answer as the hit path keeps it: `None` unless every part is a fresh 200 (and so is
    /// a made body).
    fn rendered(&self, parts: &[&Lookup], epochs: Epochs, now: Instant) -> Option<Rendered> {
        let composed = match &self.made_of {
            MadeOf::Body {
                status,
                content_type,
                body,
                ..
            } => {
                if *status != StatusCode::OK {
                    return None;
                }
                Some((body, content_type.clone()))
            }
            _ => None,
        };
        Rendered::new(parts, composed, epochs, now, self.cache_control.clone())
    }
}

/// The entry `lookup` found, as stored: a 304 when `If-None-Match` names its `ETag`, otherwise
/// the stored variant the client prefers.
fn stored(lookup: &Lookup, now: Instant, request_headers: &HeaderMap) -> Response<Body> {
    let entry = &lookup.entry;
    let mut headers = Described::lookup(lookup).headers(
        surrogate_key(entry.tags.iter().map(String::as_str)),
        entry.etag.clone(),
        now,
    );
    if matches_etag(request_headers, &entry.etag) {
        return not_modified(headers);
    }
    headers.insert(header::CONTENT_TYPE, entry.content_type.clone());
    let (encoding, variant) = match negotiate(
        request_headers,
        entry.brotli.is_some(),
        entry.gzip.is_some(),
    ) {
        Encoding::Brotli => ("br", entry.brotli.as_ref()),
        Encoding::Gzip => ("gzip", entry.gzip.as_ref()),
        Encoding::Identity => ("identity", None),
    };
    let body = match variant {
        Some(body) => {
            headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
            body.clone()
        }
        None => entry.body.clone(),
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = entry.status;
    *response.headers_mut() = headers;
    response.extensions_mut().insert(StoredEncoding);
    response
}

/// A `body` made from `parts` (see [`CachedAnswer`]).
fn made(
    parts: &[&Lookup],
    status: StatusCode,
    content_type: HeaderValue,
    body: Bytes,
    now: Instant,
    request_headers: &HeaderMap,
) -> Response<Body> {
    let etag = strong_etag(&body);
    let described = match parts {
        [single] => Some(Described::lookup(single)),
        _ => Described::merged(parts),
    };
    let mut headers = match described {
        Some(described) => described.headers(surrogate_key(tags(parts)), etag.clone(), now),
        None => {
            let mut headers = HeaderMap::new();
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            headers.insert(header::ETAG, etag.clone());
            headers
        }
    };
    if status == StatusCode::OK && matches_etag(request_headers, &etag) {
        return not_modified(headers);
    }
    headers.insert(header::CONTENT_TYPE, content_type);
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::entry::{CachedResponse, Fetched};
    use crate::cache::http::*;
    use crate::cache::policy::{CachePolicy, RouteKind};
    use crate::cache::tag::CacheTag;
    use std::sync::Arc;
    use std::time::Duration;

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
                no_store: false,
            },
            vec![CacheTag::Page("home".into())],
            &policy,
        );
        Lookup {
            key: "test:key".to_owned(),
            freshness: entry.freshness(&policy),
            entry: Arc::new(entry),
            state: CacheState::Hit,
            stored: false,
            forward_status: None,
            stale_copy: false,
            from_l2: false,
            miss_reason: None,
        }
    }

    fn respond(lookup: &Lookup, request_headers: &HeaderMap) -> Response<Body> {
        CachedAnswer::entry(lookup).send(request_headers)
    }

    fn respond_composed(
        parts: &[&Lookup],
        body: Bytes,
        request_headers: &HeaderMap,
    ) -> Response<Body> {
        CachedAnswer::json(parts.iter().copied(), body).send(request_headers)
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
    fn a_surrogate_key_reads_back_as_the_tags_it_was_written_from() {
        let tags = ["product:vanguard 15", "prices", "page:50%", "page:100% 20%"];
        let value = surrogate_key(tags).unwrap();
        let read: Vec<String> = value
            .to_str()
            .unwrap()
            .split(' ')
            .map(surrogate_key_tag)
            .collect();
        assert_eq!(read, tags);
        // a `%` that starts no escape is the tag's own
        assert_eq!(surrogate_key_tag("page:50%"), "page:50%");
        assert_eq!(surrogate_key_tag("page:%2"), "page:%2");
        assert_eq!(surrogate_key_tag("page:%41"), "page:%41");
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

    /// A part of a composed answer: `ttl_s` fresh, stale windows of twice and three times that.
    fn part(route: RouteKind, tag: CacheTag, ttl_s: u64, state: CacheState) -> Lookup {
        let policy = CachePolicy {
            ttl: Duration::from_millis(ttl_s * 1000),
            stale_while_revalidate: Duration::from_millis(ttl_s * 2000),
            stale_if_error: Duration::from_millis(ttl_s * 3000),
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
                no_store: false,
            },
            vec![tag, CacheTag::Search],
            &policy,
        );
        Lookup {
            key: "test:key".to_owned(),
            freshness: entry.freshness(&policy),
            entry: Arc::new(entry),
            state,
            stored: state == CacheState::Miss,
            forward_status: (state == CacheState::Miss).then_some(200),
            stale_copy: false,
            from_l2: false,
            miss_reason: None,
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
    fn the_shortest_windows_and_every_tag_describe_a_composition() {
        let product = part(
            RouteKind::Product,
            CacheTag::Product("a".into()),
            120,
            CacheState::Hit,
        );
        let prices = part(RouteKind::Prices, CacheTag::Prices, 30, CacheState::Hit);
        let response = respond_composed(
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
            "product:a search prices"
        );
        assert!(header(&response, "cache-status").ends_with("detail=hit"));
        assert_eq!(header(&response, "content-type"), "application/json");
        assert_eq!(header(&response, "vary"), "accept-encoding");
        assert_eq!(header(&response, "age"), "0");
    }

    #[test]
    fn the_part_that_did_the_most_work_names_the_state() {
        let product = part(
            RouteKind::Product,
            CacheTag::Product("a".into()),
            120,
            CacheState::Hit,
        );
        let prices = part(RouteKind::Prices, CacheTag::Prices, 30, CacheState::Miss);
        let response = respond_composed(&[&product, &prices], Bytes::new(), &HeaderMap::new());
        let status = header(&response, "cache-status");
        assert!(status.contains("fwd=uri-miss"), "{status}");
        assert!(status.contains("stored"), "{status}");
        assert!(status.ends_with("detail=miss"), "{status}");
        let stale = part(RouteKind::Prices, CacheTag::Prices, 30, CacheState::Stale);
        let response = respond_composed(&[&product, &stale], Bytes::new(), &HeaderMap::new());
        assert!(header(&response, "cache-status").ends_with("detail=stale"));
    }

    #[test]
    fn a_composed_etag_follows_the_body_and_a_match_is_a_304() {
        let product = part(
            RouteKind::Product,
            CacheTag::Product("a".into()),
            120,
            CacheState::Hit,
        );
        let first = respond_composed(
            &[&product],
            Bytes::from_static(b"{\"inStock\":true}"),
            &HeaderMap::new(),
        );
        let changed = respond_composed(
            &[&product],
            Bytes::from_static(b"{\"inStock\":false}"),
            &HeaderMap::new(),
        );
        let etag = header(&first, "etag").to_owned();
        assert!(etag.starts_with('"') && etag.ends_with('"'));
        assert_ne!(etag, header(&changed, "etag"));
        let again = respond_composed(
            &[&product],
            Bytes::from_static(b"{\"inStock\":true}"),
            &request(&[("if-none-match", &format!("W/{etag}"))]),
        );
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        assert!(again.headers().get(header::CONTENT_TYPE).is_none());
        assert_eq!(header(&again, "etag"), etag);
        assert!(header(&again, "cache-control").starts_with("public, max-age="));
    }

    #[test]
    fn a_stale_part_makes_the_composition_stale_for_browsers() {
        let mut prices = part(RouteKind::Prices, CacheTag::Prices, 30, CacheState::Stale);
        prices.freshness.fresh_until = Instant::now() - Duration::from_secs(5);
        let product = part(
            RouteKind::Product,
            CacheTag::Product("a".into()),
            120,
            CacheState::Hit,
        );
        let response = respond_composed(&[&product, &prices], Bytes::new(), &HeaderMap::new());
        assert!(header(&response, "cache-control").starts_with("public, max-age=0,"));
    }

    #[test]
    fn a_composition_without_parts_is_not_stored() {
        let response = respond_composed(&[], Bytes::from_static(b"{}"), &HeaderMap::new());
        assert_eq!(header(&response, "cache-control"), "no-store");
        assert!(header(&response, "etag").starts_with('"'));
        assert!(response.headers().get(&CACHE_STATUS).is_none());
    }

    #[test]
    fn one_entry_and_a_composition_of_it_carry_the_same_cache_headers() {
        let lookup = lookup();
        let single = respond(&lookup, &request(&[]));
        let composed = respond_composed(&[&lookup], lookup.entry.body.clone(), &request(&[]));
        for name in [
            "cache-status",
            "cache-control",
            "surrogate-key",
            "etag",
            "vary",
            "age",
            "content-type",
        ] {
            assert_eq!(header(&single, name), header(&composed, name), "{name}");
        }
    }

    #[test]
    fn a_revalidated_document_is_no_cache_also_as_a_304_and_keeps_its_other_headers() {
        let lookup = lookup();
        let html = HeaderValue::from_static("text/html; charset=utf-8");
        let body = Bytes::from_static(b"<!doctype html>");
        let response =
            CachedAnswer::document([&lookup], StatusCode::OK, html.clone(), body.clone())
                .revalidated()
                .send(&request(&[]));
        assert_eq!(header(&response, "cache-control"), "no-cache");
        assert_eq!(
            header(&response, "content-type"),
            "text/html; charset=utf-8"
        );
        assert_eq!(header(&response, "surrogate-key"), "page:home");
        assert!(response.extensions().get::<StoredEncoding>().is_none());
        let etag = header(&response, "etag").to_owned();
        let again = CachedAnswer::document([&lookup], StatusCode::OK, html, body)
            .revalidated()
            .send(&request(&[("if-none-match", &etag)]));
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(header(&again, "cache-control"), "no-cache");
    }

    #[test]
    fn only_a_stored_entry_is_marked_as_sent_in_a_stored_encoding() {
        let lookup = lookup();
        let stored = respond(&lookup, &request(&[]));
        assert!(stored.extensions().get::<StoredEncoding>().is_some());
        let composed = respond_composed(&[&lookup], lookup.entry.body.clone(), &request(&[]));
        assert!(composed.extensions().get::<StoredEncoding>().is_none());
    }

    #[test]
    fn a_remembered_404_offers_no_stale_windows() {
        let policy = CachePolicy {
            jitter: 0.0,
            ..CachePolicy::default()
        };
        let entry = CachedResponse::new(
            RouteKind::Product,
            Fetched {
                status: StatusCode::NOT_FOUND,
                body: Bytes::from_static(b"{}"),
                content_type: HeaderValue::from_static("application/problem+json"),
                extra_tags: vec![],
                no_store: false,
            },
            vec![CacheTag::Product("x".into())],
            &policy,
        );
        let lookup = Lookup {
            key: "test:key".to_owned(),
            freshness: entry.freshness(&policy),
            entry: Arc::new(entry),
            state: CacheState::Miss,
            stored: true,
            forward_status: Some(404),
            stale_copy: false,
            from_l2: false,
            miss_reason: None,
        };
        let response = respond(&lookup, &request(&[]));
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        let control = header(&response, "cache-control");
        assert!(!control.contains("stale"), "{control}");
    }
}
