//! Turning lookups into HTTP answers for browsers and CDNs: `Cache-Control` with the remaining
//! freshness and the stale windows, a strong `ETag` with 304s, `Surrogate-Key`, `Cache-Status`,
//! and the stored gzip/brotli variant the client accepts. One builder, [`CachedAnswer`], sends
//! every cached answer: a single cached entry, a body composed from several, a remembered one.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Response, StatusCode, header};
use bytes::Bytes;

use super::entry::{Freshness, strong_etag};
use super::rendered::{Epochs, Rendered};
use super::status::{CacheState, cache_status};
use super::store::{EdgeCache, Lookup};

pub static CACHE_STATUS: HeaderName = HeaderName::from_static("cache-status");
pub static SURROGATE_KEY: HeaderName = HeaderName::from_static("surrogate-key");

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Encoding {
    Brotli,
    Gzip,
    Identity,
}

/// The best stored encoding the client accepts (`q=0` refuses; brotli preferred).
pub(super) fn negotiate(headers: &HeaderMap, has_brotli: bool, has_gzip: bool) -> Encoding {
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
    if has_brotli && accepted("br") {
        Encoding::Brotli
    } else if has_gzip && accepted("gzip") {
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

/// `Surrogate-Key`: the tags, space-separated as CDNs expect, so spaces inside a tag (product
/// titles have them) are percent-encoded.
pub fn surrogate_key<'a>(tags: impl IntoIterator<Item = &'a str>) -> Option<HeaderValue> {
    let keys: Vec<String> = tags
        .into_iter()
        .map(|tag| tag.replace('%', "%25").replace(' ', "%20"))
        .collect();
    HeaderValue::from_str(&keys.join(" ")).ok()
}

/// One tag as [`surrogate_key`] wrote it, back as the tag it is (`%20` a space, `%25` a `%`);
/// any other `%` is kept as it is.
pub fn surrogate_key_tag(written: &str) -> String {
    let mut tag = String::with_capacity(written.len());
    let mut rest = written;
    while let Some(at) = rest.find('%') {
        tag.push_str(&rest[..at]);
        let escape = rest.get(at..at + 3);
        match escape {
            Some("%20") => tag.push(' '),
            Some("%25") => tag.push('%'),
            _ => {
                tag.push('%');
                rest = &rest[at + 1..];
                continue;
            }
        }
        rest = &rest[at + 3..];
    }
    tag.push_str(rest);
    tag
}

/// What the headers of a cached answer say: one lookup's, or those merged from every cache entry
/// a composed body is made of.
#[derive(Debug, Clone)]
pub(super) struct Described {
    /// For `Cache-Status`: the state of the part that did the most work.
    pub state: CacheState,
    /// Whether any part was stored by this request.
    pub stored: bool,
    pub forward_status: Option<u16>,
    /// The decisive part went forward with a stale copy at hand.
    pub stale_copy: bool,
    /// The decisive part came from L2.
    pub from_l2: bool,
    /// The windows the answer may claim (each the shortest among the parts).
    pub freshness: Freshness,
    /// A remembered 404: no stale windows are offered for it.
    pub negative: bool,
    /// When the oldest part was stored, for `Age`.
    pub stored_at: Instant,
}

impl Described {
    pub fn lookup(lookup: &Lookup) -> Self {
        Self {
            state: lookup.state,
            stored: lookup.stored,
            forward_status: lookup.forward_status,
            stale_copy: lookup.stale_copy,
            from_l2: lookup.from_l2,
            freshness: lookup.freshness,
            negative: lookup.entry.is_negative(),
            stored_at: lookup.entry.stored_at,
        }
    }

    /// The parts merged; `None` without parts.
    pub fn merged(parts: &[&Lookup]) -> Option<Self> {
        let decisive = parts
            .iter()
            .copied()
            .min_by_key(|part| work_rank(part.state))?;
        let freshness = parts
            .iter()
            .map(|part| part.freshness)
            .reduce(|shortest, other| Freshness {
                fresh_until: shortest.fresh_until.min(other.fresh_until),
                stale_until: shortest.stale_until.min(other.stale_until),
                error_until: shortest.error_until.min(other.error_until),
                swr: shortest.swr.min(other.swr),
                sie: shortest.sie.min(other.sie),
            })?;
        Some(Self {
            state: decisive.state,
            stored: parts.iter().any(|part| part.stored),
            forward_status: decisive.forward_status,
            stale_copy: decisive.stale_copy,
            from_l2: decisive.from_l2,
            freshness,
            negative: false,
            stored_at: parts.iter().map(|part| part.entry.stored_at).min()?,
        })
    }

    /// `Cache-Status`, `Cache-Control`, `Surrogate-Key`, `ETag`, `Vary` and `Age`: the headers
    /// of every cached answer, single or composed.
    ///
    /// `max-age` is the remaining freshness (0 once stale), so a browser or CDN never keeps an
    /// answer longer than this cache would.
    pub fn headers(
        &self,
        surrogate_key: Option<HeaderValue>,
        etag: HeaderValue,
        now: Instant,
    ) -> HeaderMap {
        let mut headers = self.constant_headers(surrogate_key, etag);
        self.timed(now).insert_into(&mut headers);
        headers
    }

    /// The headers that stay the same for as long as the answer does.
    pub fn constant_headers(
        &self,
        surrogate_key: Option<HeaderValue>,
        etag: HeaderValue,
    ) -> HeaderMap {
        // Room for everything an answer ends up with (these, the timed ones, the security
        // headers, the request id), so that no insert grows the map.
        let mut headers = HeaderMap::with_capacity(ANSWER_HEADERS);
        if let Some(value) = surrogate_key {
            headers.insert(SURROGATE_KEY.clone(), value);
        }
        headers.insert(header::ETAG, etag);
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        headers
    }

    /// `Cache-Status`, `Cache-Control` and `Age` as of `now`.
    pub fn timed(&self, now: Instant) -> Timed {
        let ttl = self.freshness.ttl_seconds(now);
        let age = now.saturating_duration_since(self.stored_at).as_secs();
        let status = cache_status(
            self.state,
            ttl,
            self.stored,
            self.forward_status,
            self.stale_copy,
            self.from_l2,
        );
        let max_age = ttl.max(0);
        let control = if self.negative {
            format!("public, max-age={max_age}")
        } else {
            format!(
                "public, max-age={max_age}, stale-while-revalidate={}, stale-if-error={}",
                self.freshness.swr.as_secs(),
                self.freshness.sie.as_secs()
            )
        };
        Timed {
            ttl,
            age,
            cache_status: HeaderValue::from_str(&status).ok(),
            cache_control: HeaderValue::from_str(&control).ok(),
            age_value: HeaderValue::from(age),
        }
    }
}

/// How many headers a cached answer carries at most, once dressed for the wire.
const ANSWER_HEADERS: usize = 24;

/// The headers of a cached answer that change with time, rendered for one `ttl` and `age`
/// (whole seconds): the same values serve every request until either changes.
#[derive(Debug, Clone)]
pub(super) struct Timed {
    pub ttl: i64,
    pub age: u64,
    cache_status: Option<HeaderValue>,
    cache_control: Option<HeaderValue>,
    age_value: HeaderValue,
}

impl Timed {
    pub fn insert_into(&self, headers: &mut HeaderMap) {
        if let Some(value) = &self.cache_status {
            headers.insert(CACHE_STATUS.clone(), value.clone());
        }
        if let Some(value) = &self.cache_control {
            headers.insert(header::CACHE_CONTROL, value.clone());
        }
        headers.insert(header::AGE, self.age_value.clone());
    }
}

/// How much work a state stands for; the lowest rank names a composed answer's state (a miss
/// over a coalesced wait over stale-if-error over stale over a hit).
fn work_rank(state: CacheState) -> u8 {
    match state {
        CacheState::Miss => 0,
        CacheState::Coalesced => 1,
        CacheState::StaleIfError => 2,
        CacheState::Stale => 3,
        CacheState::Hit => 4,
    }
}

/// A 304 with `headers` (which carry the `ETag`), no body and no `Content-Type`.
pub(super) fn not_modified(headers: HeaderMap) -> Response<Body> {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::NOT_MODIFIED;
    *response.headers_mut() = headers;
    response
}

/// A response extension: the body was chosen among the variants stored with it, so nothing
/// downstream compresses it again (the compression layer skips answers carrying it).
#[derive(Debug, Clone, Copy)]
pub struct StoredEncoding;

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
                if let Some(value) = &self.cache_control {
                    response
                        .headers_mut()
                        .insert(header::CACHE_CONTROL, value.clone());
                }
                response
            }
        };
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

/// Every part's tags, each once, in order.
pub(super) fn tags<'a>(parts: &[&'a Lookup]) -> Vec<&'a str> {
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
    use super::*;
    use crate::cache::entry::{CachedResponse, Fetched};
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
        };
        let response = respond(&lookup, &request(&[]));
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        let control = header(&response, "cache-control");
        assert!(!control.contains("stale"), "{control}");
    }
}
