//! Answers rendered once and served many times.
//!
//! A fresh answer (one entry as it is, or a body composed from several: a product and the price
//! map) is remembered whole, under its primary entry's key: the body, its compressed variants,
//! the `ETag`, the `Surrogate-Key` and the windows. A later request for the same key is then
//! answered from it without composing, hashing, compressing or looking anything up again: that
//! is the hit path ([`crate::edge::hit_path`]), which answers before the router.
//!
//! A remembered answer is valid while every part is fresh and nothing it was made from may have
//! changed. Change is tracked by [`Epochs`], one counter per route kind, bumped after every
//! store into that kind and after every purge and policy reload (see
//! `cache::local_versions`); an answer keeps the counters read *before* its parts were
//! looked up, so a store or purge that lands at any point after that makes it invalid.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use bytes::Bytes;

use super::entry::{compressed_variants, strong_etag};
use super::hit_counter::HitCounter;
use super::http::{Described, Encoding, Timed, negotiate, not_modified, surrogate_key, tags};
/// The route epochs an answer was made under, named here since the answers are what they
/// outdate (they live with the store's other change counters).
pub use super::local_versions::Epochs;
use super::local_versions::Versions;
use super::lookup::Lookup;
use super::policy::RouteKind;
use super::status::CacheState;

/// A server-rendered document's `Content-Type`.
const DOCUMENT_TYPE: &str = "text/html; charset=utf-8";

/// A fresh 200 answer, ready to be sent again: its headers are built once, per variant, so a
/// request costs a copy of a small map and three timed values reused for a whole second.
#[derive(Debug)]
pub struct Rendered {
    described: Described,
    body: Bytes,
    gzip: Option<Bytes>,
    brotli: Option<Bytes>,
    etag: HeaderValue,
    /// The constant headers of a 304, and of the identity, gzip and brotli answers.
    not_modified: HeaderMap,
    identity: HeaderMap,
    gzipped: HeaderMap,
    brotlied: HeaderMap,
    /// The timed headers last rendered (see [`Timed`]).
    timed: Mutex<Option<Timed>>,
    /// The route kinds of the parts, in order: counted as hits whenever the answer is served.
    parts: Vec<RouteKind>,
    /// The counters as read before the parts were looked up.
    epochs: Epochs,
    /// A document's `Cache-Control` towards browsers (`no-cache`: revalidated by `ETag` on
    /// every visit), set after the timed headers; `None` keeps the parts' windows.
    cache_control: Option<HeaderValue>,
    /// Its parts' tags, each once: where its hits are folded (see [`super::hit_fold`]).
    tags: Vec<String>,
    /// Hits since the last fold.
    pub(super) hits: HitCounter,
}

impl Rendered {
    /// A server-rendered HTML document made from `parts`: remembered like a composed answer,
    /// sent to browsers as `no-cache` with its strong `ETag` (a revisit is a 304).
    pub(super) fn document(
        parts: &[&Lookup],
        body: &Bytes,
        (gzip, brotli): (Option<Bytes>, Option<Bytes>),
        epochs: Epochs,
        now: Instant,
    ) -> Option<Self> {
        Self::with_variants(
            parts,
            Some((body, HeaderValue::from_static(DOCUMENT_TYPE))),
            Some((gzip, brotli)),
            epochs,
            now,
            Some(HeaderValue::from_static("no-cache")),
        )
    }

    /// A document's gzip and brotli variants, made on the blocking pool, off the runtime's
    /// workers (none if that task is lost: the document is then sent as it is).
    pub(super) async fn document_variants(body: Bytes) -> (Option<Bytes>, Option<Bytes>) {
        tokio::task::spawn_blocking(move || {
            compressed_variants(&body, &HeaderValue::from_static(DOCUMENT_TYPE))
        })
        .await
        .unwrap_or_default()
    }

    /// A document another replica rendered from the same parts, with the compressed variants it
    /// stored (L2): nothing is compressed again.
    pub(super) fn shared_document(
        parts: &[&Lookup],
        stored: StoredDocument,
        epochs: Epochs,
        now: Instant,
    ) -> Option<Self> {
        Self::with_variants(
            parts,
            Some((&stored.body, HeaderValue::from_static(DOCUMENT_TYPE))),
            Some((stored.gzip, stored.brotli)),
            epochs,
            now,
            Some(HeaderValue::from_static("no-cache")),
        )
    }

    /// The same answer with `brotli` as its brotli variant (the same body, so the same `ETag`
    /// and headers: `Content-Length` is the body's, set when it is sent).
    pub(super) fn with_brotli(&self, brotli: Bytes) -> Self {
        Self {
            described: self.described.clone(),
            body: self.body.clone(),
            gzip: self.gzip.clone(),
            brotli: Some(brotli),
            etag: self.etag.clone(),
            not_modified: self.not_modified.clone(),
            identity: self.identity.clone(),
            gzipped: self.gzipped.clone(),
            brotlied: self.brotlied.clone(),
            timed: Mutex::new(None),
            parts: self.parts.clone(),
            epochs: self.epochs,
            cache_control: self.cache_control.clone(),
            tags: self.tags.clone(),
            hits: HitCounter::default(),
        }
    }

    /// The uncompressed body.
    pub fn body(&self) -> &Bytes {
        &self.body
    }

    /// The uncompressed body and the length of its brotli variant, if it has one.
    pub(super) fn body_and_brotli_len(&self) -> (&Bytes, Option<usize>) {
        (&self.body, self.brotli.as_ref().map(Bytes::len))
    }

    /// The body and its stored variants, as L2 keeps them.
    pub(super) fn stored(&self) -> StoredDocument {
        StoredDocument {
            body: self.body.clone(),
            gzip: self.gzip.clone(),
            brotli: self.brotli.clone(),
        }
    }

    /// `parts` (one entry served as it is when `composed` is `None`, else the parts of the
    /// `composed` body, with its type) as a rememberable answer: `None` unless every part is a
    /// fresh 200. `cache_control` is sent to browsers instead of the parts' windows.
    pub(super) fn new(
        parts: &[&Lookup],
        composed: Option<(&Bytes, HeaderValue)>,
        epochs: Epochs,
        now: Instant,
        cache_control: Option<HeaderValue>,
    ) -> Option<Self> {
        Self::with_variants(parts, composed, None, epochs, now, cache_control)
    }

    /// [`Self::new`], with the composed body's compressed variants when they are at hand.
    fn with_variants(
        parts: &[&Lookup],
        composed: Option<(&Bytes, HeaderValue)>,
        variants: Option<(Option<Bytes>, Option<Bytes>)>,
        epochs: Epochs,
        now: Instant,
        cache_control: Option<HeaderValue>,
    ) -> Option<Self> {
        // Served as stale (a lookup can serve a fresh-dated entry as stale while this replica
        // may have missed a purge): not remembered, whatever its dates say. Nor a part its
        // fetch did not store (over `max_entry_bytes`, or overtaken by a purge): the cache
        // keeps none of it, so its answer is not kept either.
        let fresh = |part: &&Lookup| {
            part.entry.status == StatusCode::OK
                && part.freshness.is_fresh(now)
                && !matches!(part.state, CacheState::Stale | CacheState::StaleIfError)
                && (part.stored || part.state == CacheState::Hit)
        };
        if parts.is_empty() || !parts.iter().all(fresh) {
            return None;
        }
        let mut described = Described::merged(parts)?;
        described.state = CacheState::Hit;
        described.stored = false;
        described.forward_status = None;
        described.stale_copy = false;
        let (content_type, body, gzip_body, brotli_body, etag) = match (composed, parts) {
            (None, [entry]) => {
                let entry = &entry.entry;
                (
                    entry.content_type.clone(),
                    entry.body.clone(),
                    entry.gzip.clone(),
                    entry.brotli.clone(),
                    entry.etag.clone(),
                )
            }
            (Some((body, content_type)), _) => {
                let (gzip, brotli) =
                    variants.unwrap_or_else(|| compressed_variants(body, &content_type));
                (content_type, body.clone(), gzip, brotli, strong_etag(body))
            }
            (None, _) => return None,
        };
        let part_tags = tags(parts);
        let mut not_modified =
            described.constant_headers(surrogate_key(part_tags.iter().copied()), etag.clone());
        // The timed headers as of now hold their places, so a request's values replace them
        // rather than growing a copied map.
        described.timed(now).insert_into(&mut not_modified);
        if let Some(value) = &cache_control {
            not_modified.insert(header::CACHE_CONTROL, value.clone());
        }
        // A remembered answer is always a hit: its `Server-Timing` is rendered once with it, so
        // the hit path adds no header (and no map growth) per request.
        not_modified.insert(
            crate::http::server_timing::SERVER_TIMING.clone(),
            crate::http::server_timing::HIT.clone(),
        );
        let with = |encoding: Option<&'static str>| {
            let mut headers = not_modified.clone();
            headers.insert(header::CONTENT_TYPE, content_type.clone());
            if let Some(encoding) = encoding {
                headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
            }
            headers
        };
        Some(Self {
            identity: with(None),
            gzipped: with(Some("gzip")),
            brotlied: with(Some("br")),
            not_modified,
            timed: Mutex::new(None),
            described,
            body,
            gzip: gzip_body,
            brotli: brotli_body,
            etag,
            parts: parts.iter().map(|part| part.entry.route).collect(),
            epochs,
            cache_control,
            tags: part_tags.into_iter().map(str::to_owned).collect(),
            hits: HitCounter::default(),
        })
    }

    /// The answer as a hit, given the request's headers (sent through
    /// [`crate::cache::CachedAnswer::remembered`]): the headers a lookup's hit gets from
    /// [`crate::cache::CachedAnswer::entry`], with `Age`, the ttl and `max-age` as of `now`. Its
    /// body is the stored variant the client accepts: nothing downstream may compress it again
    /// (the router marks it so; the hit path has nothing downstream).
    pub(super) fn send(&self, now: Instant, request_headers: &HeaderMap) -> Response<Body> {
        let timed = self.timed(now);
        if super::http::matches_etag(request_headers, &self.etag) {
            let mut headers = self.not_modified.clone();
            self.insert_timed(&timed, &mut headers);
            return not_modified(headers);
        }
        let (template, body) =
            match negotiate(request_headers, self.brotli.is_some(), self.gzip.is_some()) {
                Encoding::Brotli => (&self.brotlied, self.brotli.as_ref()),
                Encoding::Gzip => (&self.gzipped, self.gzip.as_ref()),
                Encoding::Identity => (&self.identity, None),
            };
        let mut headers = template.clone();
        self.insert_timed(&timed, &mut headers);
        let mut response = Response::new(Body::from(body.unwrap_or(&self.body).clone()));
        *response.headers_mut() = headers;
        response
    }

    fn insert_timed(&self, timed: &Timed, headers: &mut HeaderMap) {
        timed.insert_into(headers);
        if let Some(value) = &self.cache_control {
            headers.insert(header::CACHE_CONTROL, value.clone());
        }
    }

    /// Still within the stale-while-revalidate window of its parts at `now` (a document
    /// purged or expired may be served while its next render runs).
    pub(super) fn within_stale_window(&self, now: Instant) -> bool {
        now < self.described.freshness.stale_until
    }

    /// The timed headers as of `now`: the last ones rendered while the ttl and age (whole
    /// seconds) are unchanged, else new ones. Never waits: a request that finds another one
    /// rendering renders its own.
    fn timed(&self, now: Instant) -> Timed {
        let ttl = self.described.freshness.ttl_seconds(now);
        let age = now
            .saturating_duration_since(self.described.stored_at)
            .as_secs();
        if let Ok(mut last) = self.timed.try_lock() {
            if let Some(timed) = last.as_ref().filter(|t| t.ttl == ttl && t.age == age) {
                return timed.clone();
            }
            let timed = self.described.timed(now);
            *last = Some(timed.clone());
            return timed;
        }
        self.described.timed(now)
    }

    /// Its parts' tags, each once.
    pub fn tags(&self) -> &[String] {
        &self.tags
    }

    /// Counts one hit of this answer for its tags' hit ratio (one relaxed atomic add; folded
    /// into the top lists later, see [`super::hit_fold`]).
    pub fn count_hit(&self) {
        self.hits.bump();
    }

    /// The route kinds of its parts (each counted as a hit when it is served).
    pub fn parts(&self) -> &[RouteKind] {
        &self.parts
    }

    /// Still an answer the cache would give: every part fresh, nothing changed since.
    pub(super) fn is_current(&self, versions: &Versions, now: Instant) -> bool {
        self.described.freshness.is_fresh(now)
            && self
                .parts
                .iter()
                .all(|route| versions.unchanged(&self.epochs, *route))
    }

    /// Bytes held beyond what the parts' entries already hold.
    pub(super) fn weight(&self, key: &str) -> u32 {
        let bytes = key.len()
            + self.body.len()
            + self.gzip.as_ref().map_or(0, Bytes::len)
            + self.brotli.as_ref().map_or(0, Bytes::len)
            + 256;
        u32::try_from(bytes).unwrap_or(u32::MAX)
    }
}

/// A document's body and compressed variants, as one replica stores them for the others.
#[derive(Debug, Clone)]
pub(super) struct StoredDocument {
    pub body: Bytes,
    pub gzip: Option<Bytes>,
    pub brotli: Option<Bytes>,
}

/// Remembered answers by key: bounded in bytes, and only ever handed out while current.
pub(super) type Remembered = moka::sync::Cache<String, Arc<Rendered>>;
