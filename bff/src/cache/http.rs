//! Turning lookups into HTTP answers for browsers and CDNs: `Cache-Control` with the remaining
//! freshness and the stale windows, a strong `ETag` with 304s, `Surrogate-Key`, `Cache-Status`,
//! and the stored gzip/brotli variant the client accepts. [`super::CachedAnswer`] sends every
//! cached answer with them.

use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Response, StatusCode, header};

use super::entry::Freshness;
use super::lookup::Lookup;
use super::status::{CacheState, cache_status};

/// `Cache-Status` (RFC 9211): the cache writes it, `Server-Timing` reads it back.
pub use crate::http::server_timing::CACHE_STATUS;
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
    /// A part the upstream forbade storing: `Cache-Control: no-store`, so no browser or CDN
    /// keeps what this cache would not.
    pub no_store: bool,
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
            no_store: lookup.entry.no_store,
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
            no_store: parts.iter().any(|part| part.entry.no_store),
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
        let control = if self.no_store {
            "no-store".to_owned()
        } else if self.negative {
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
