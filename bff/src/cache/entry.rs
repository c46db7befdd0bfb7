//! A cached answer: the body, its compressed variants (made once, at store time), a strong
//! ETag, and the instants that bound its freshness and staleness.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use axum::http::{HeaderValue, StatusCode};
use bytes::Bytes;
use sha2::{Digest, Sha256};

use super::policy::{CachePolicy, RouteKind};
use super::tag::CacheTag;
use crate::http::error::ApiError;

/// Bodies smaller than this are not worth compressing.
const COMPRESS_MIN_BYTES: usize = 256;

/// What an entry costs beyond its key, bodies and tags: the `CachedResponse` and its `Arc`,
/// the allocator's share of each buffer, and moka's own bookkeeping (its entry, the access and
/// write order nodes, the expiry timer, the frequency sketch). Measured, not guessed, with
/// `scripts/cache-memory.py` on the release build: 200 000 small search entries (27 bytes of
/// key, body and tag each) grew the resident memory by 1 019 bytes per entry, so 992 bytes of
/// overhead, rounded up. With 256 (before) the cache accounted 283 bytes for those 1 019, and a
/// full 64 MiB cache of small entries took some 3.6 times that.
pub const ENTRY_OVERHEAD_BYTES: usize = 1024;

/// What a fetch produced: a cacheable answer (200, or a 404 to remember).
#[derive(Debug, Clone)]
pub struct Fetched {
    pub status: StatusCode,
    pub body: Bytes,
    pub content_type: HeaderValue,
    /// Tags besides the route's own (a collection is also tagged with each of its products).
    pub extra_tags: Vec<CacheTag>,
    /// The upstream forbade shared caches to keep it (`Cache-Control: no-store`): answered to
    /// the requests that asked (and those coalesced with them), never stored in L1 or L2.
    pub no_store: bool,
}

impl Fetched {
    /// A 404 worth remembering for the negative ttl: the problem body a route answers with.
    pub fn not_found(detail: String) -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            body: ApiError::NotFound(detail).problem_body(),
            content_type: HeaderValue::from_static("application/problem+json"),
            extra_tags: Vec::new(),
            no_store: false,
        }
    }
}

#[derive(Debug)]
pub struct CachedResponse {
    pub route: RouteKind,
    pub status: StatusCode,
    pub content_type: HeaderValue,
    pub body: Bytes,
    pub gzip: Option<Bytes>,
    pub brotli: Option<Bytes>,
    /// Strong validator: a hash of the identity body.
    pub etag: HeaderValue,
    pub tags: Vec<String>,
    pub stored_at: Instant,
    /// This entry's draw of the policy's jitter, kept so its ttl is stable between lookups.
    jitter_factor: f64,
    /// The storage limit (moka's expiry), from the policy at store time: a later reload that
    /// lengthens the windows applies to entries stored after it.
    pub hard_until: Instant,
    /// Set by a soft purge: nanoseconds after `stored_at` at which the entry stopped being
    /// fresh (its windows count from there); 0 when no soft purge touched it. An atomic, so a
    /// purge marks the one shared entry every request holds, without copying it.
    soft_purged_after_ns: AtomicU64,
    /// Hits since the last fold into the top lists (see [`super::hit_fold`]).
    pub(super) hits: super::hit_counter::HitCounter,
    /// The upstream forbade storing it (see [`Fetched::no_store`]): answered `no-store` to the
    /// requests its fetch served, and never kept.
    pub no_store: bool,
}

/// An entry's description in L2 (its bodies are stored beside it, as they are).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SharedMeta {
    route: String,
    status: u16,
    content_type: String,
    etag: String,
    tags: Vec<String>,
    stored_at_unix_ms: u64,
    jitter_factor: f64,
}

/// An entry's windows under one policy. Computed at lookup time from the *current* policy, so a
/// reloaded ttl applies to entries already stored.
#[derive(Debug, Clone, Copy)]
pub struct Freshness {
    pub fresh_until: Instant,
    /// End of the stale-while-revalidate window.
    pub stale_until: Instant,
    /// End of the stale-if-error window.
    pub error_until: Instant,
    pub swr: Duration,
    pub sie: Duration,
}

impl Freshness {
    pub fn is_fresh(&self, now: Instant) -> bool {
        now < self.fresh_until
    }

    pub fn within_stale_while_revalidate(&self, now: Instant) -> bool {
        now < self.stale_until
    }

    pub fn within_stale_if_error(&self, now: Instant) -> bool {
        now < self.error_until
    }

    /// When the entry is of no more use: the end of its last stale window.
    pub fn hard_until(&self) -> Instant {
        self.stale_until.max(self.error_until)
    }

    /// Remaining freshness in whole seconds; negative once stale.
    pub fn ttl_seconds(&self, now: Instant) -> i64 {
        if now < self.fresh_until {
            (self.fresh_until - now).as_secs() as i64
        } else {
            -((now - self.fresh_until).as_secs() as i64) - 1
        }
    }
}

impl CachedResponse {
    pub fn new(
        route: RouteKind,
        fetched: Fetched,
        tags: Vec<CacheTag>,
        policy: &CachePolicy,
    ) -> Self {
        let (gzip, brotli) = compressed_variants(&fetched.body, &fetched.content_type);
        let mut entry = Self {
            route,
            status: fetched.status,
            content_type: fetched.content_type,
            etag: strong_etag(&fetched.body),
            gzip,
            brotli,
            body: fetched.body,
            tags: tags.into_iter().map(String::from).collect(),
            stored_at: Instant::now(),
            jitter_factor: policy.jitter_factor(),
            hard_until: Instant::now(),
            soft_purged_after_ns: AtomicU64::new(0),
            hits: super::hit_counter::HitCounter::default(),
            no_store: fetched.no_store,
        };
        entry.hard_until = entry.freshness(policy).hard_until();
        entry
    }

    /// A remembered 404: fresh for the negative ttl, never served stale.
    pub fn is_negative(&self) -> bool {
        self.status == StatusCode::NOT_FOUND
    }

    pub fn freshness(&self, policy: &CachePolicy) -> Freshness {
        let (ttl, swr, sie) = if self.is_negative() {
            (policy.negative_ttl, Duration::ZERO, Duration::ZERO)
        } else {
            (
                policy.ttl.mul_f64(self.jitter_factor),
                policy.stale_while_revalidate,
                policy.stale_if_error,
            )
        };
        let mut fresh_until = self.stored_at + ttl;
        if let Some(purged_at) = self.soft_purged_at() {
            fresh_until = fresh_until.min(purged_at);
        }
        Freshness {
            fresh_until,
            stale_until: fresh_until + swr,
            error_until: fresh_until + sie,
            swr,
            sie,
        }
    }

    /// Marks the entry stale from `at` on (a soft purge): its stale windows count from then,
    /// so it is served stale while one refresh runs. Returns whether this mark moved its end
    /// of freshness (a second soft purge keeps the first, earlier, mark).
    pub fn mark_stale(&self, at: Instant) -> bool {
        let after = at.saturating_duration_since(self.stored_at);
        // 0 means "never marked": an entry marked at its very store instant is marked at 1 ns.
        let after_ns = u64::try_from(after.as_nanos()).unwrap_or(u64::MAX).max(1);
        let previous = self.soft_purged_after_ns.fetch_update(
            Ordering::AcqRel,
            Ordering::Acquire,
            |current| (current == 0 || after_ns < current).then_some(after_ns),
        );
        previous.is_ok()
    }

    /// When a soft purge made the entry stale, if one did.
    pub fn soft_purged_at(&self) -> Option<Instant> {
        match self.soft_purged_after_ns.load(Ordering::Acquire) {
            0 => None,
            after_ns => Some(self.stored_at + Duration::from_nanos(after_ns)),
        }
    }

    /// What L2 keeps beside the bodies, with the store time as Unix time (another replica's
    /// `Instant` means nothing here).
    pub(super) fn shared_meta(&self) -> SharedMeta {
        let age_ms = u64::try_from(self.stored_at.elapsed().as_millis()).unwrap_or(u64::MAX);
        SharedMeta {
            route: self.route.as_str().to_owned(),
            status: self.status.as_u16(),
            content_type: self.content_type.to_str().unwrap_or_default().to_owned(),
            etag: self.etag.to_str().unwrap_or_default().to_owned(),
            tags: self.tags.clone(),
            stored_at_unix_ms: crate::coordination::replicas::unix_ms().saturating_sub(age_ms),
            jitter_factor: self.jitter_factor,
        }
    }

    /// The entry another replica stored in L2, its windows under `policy`. `None` when the
    /// parts do not make an entry, or it is older than this machine's monotonic clock can say.
    pub(super) fn from_shared(
        meta: SharedMeta,
        body: Bytes,
        gzip: Option<Bytes>,
        brotli: Option<Bytes>,
        policy: &CachePolicy,
    ) -> Option<Self> {
        let route = RouteKind::ALL
            .into_iter()
            .find(|route| route.as_str() == meta.route)?;
        let age = Duration::from_millis(
            crate::coordination::replicas::unix_ms().saturating_sub(meta.stored_at_unix_ms),
        );
        let stored_at = Instant::now().checked_sub(age)?;
        let mut entry = Self {
            route,
            status: StatusCode::from_u16(meta.status).ok()?,
            content_type: HeaderValue::from_str(&meta.content_type).ok()?,
            etag: HeaderValue::from_str(&meta.etag).ok()?,
            gzip,
            brotli,
            body,
            tags: meta.tags,
            stored_at,
            jitter_factor: meta.jitter_factor,
            hard_until: stored_at,
            soft_purged_after_ns: AtomicU64::new(0),
            hits: super::hit_counter::HitCounter::default(),
            // only storable answers are shared
            no_store: false,
        };
        entry.hard_until = entry.freshness(policy).hard_until();
        Some(entry)
    }

    /// The bytes this entry weighs in the cache: every variant, the key, the tags and the
    /// measured per-entry overhead, so a capacity in bytes is close to the memory it takes.
    pub fn weight(&self, key: &str) -> u32 {
        let bytes = key.len()
            + self.body.len()
            + self.gzip.as_ref().map_or(0, Bytes::len)
            + self.brotli.as_ref().map_or(0, Bytes::len)
            + self.tags.iter().map(String::len).sum::<usize>()
            + ENTRY_OVERHEAD_BYTES;
        u32::try_from(bytes).unwrap_or(u32::MAX)
    }
}

/// Text formats shrink; images, fonts and archives are compressed already (another pass costs
/// CPU at store time and bytes in the cache for nothing).
/// The gzip and brotli variants worth storing beside `body` (none for small or binary bodies,
/// and none that would not be smaller). Made once, when an answer is stored.
pub(super) fn compressed_variants(
    body: &[u8],
    content_type: &HeaderValue,
) -> (Option<Bytes>, Option<Bytes>) {
    if body.len() < COMPRESS_MIN_BYTES || !compressible(content_type) {
        return (None, None);
    }
    (gzip(body), brotli(body))
}

fn compressible(content_type: &HeaderValue) -> bool {
    let essence = content_type
        .to_str()
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    essence.starts_with("text/")
        || essence.ends_with("json")
        || essence.ends_with("xml")
        || essence == "application/javascript"
        || essence == "image/svg+xml"
}
/// A strong validator for `body`: the first 128 bits of its SHA-256.
pub fn strong_etag(body: &[u8]) -> HeaderValue {
    let digest = Sha256::digest(body);
    let value = format!("\"{}\"", hex::encode(&digest[..16]));
    HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("\"0\""))
}

/// Compressed only when it is actually smaller.
fn gzip(body: &[u8]) -> Option<Bytes> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(body).ok()?;
    let out = encoder.finish().ok()?;
    (out.len() < body.len()).then(|| Bytes::from(out))
}

fn brotli(body: &[u8]) -> Option<Bytes> {
    brotli_at(body, STORE_BROTLI_QUALITY)
}

/// Brotli's quality when an answer is stored: about 16 ms for an 80 kB document, paid while a
/// shopper waits (see [`super::recompress`] for the later, smaller one).
const STORE_BROTLI_QUALITY: u32 = 9;

/// `body` in brotli at `quality` (0–11), when that is smaller.
pub(super) fn brotli_at(body: &[u8], quality: u32) -> Option<Bytes> {
    let mut out = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut out, 4096, quality, 22);
        writer.write_all(body).ok()?;
    }
    (out.len() < body.len()).then(|| Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fetched(status: StatusCode, body: &str) -> Fetched {
        Fetched {
            status,
            body: Bytes::from(body.to_owned()),
            content_type: HeaderValue::from_static("application/json"),
            extra_tags: vec![],
            no_store: false,
        }
    }

    #[test]
    fn variants_decompress_to_the_body_and_share_one_etag() {
        let body = "{\"menus\":[".to_owned() + &"{\"title\":\"Rifles\"},".repeat(100) + "{}]}";
        let entry = CachedResponse::new(
            RouteKind::Pages,
            fetched(StatusCode::OK, &body),
            vec![],
            &CachePolicy::default(),
        );
        let gz = entry.gzip.clone().expect("gzip variant");
        let mut decoded = String::new();
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut decoded)
            .unwrap();
        assert_eq!(decoded, body);
        let br = entry.brotli.clone().expect("brotli variant");
        let mut decoded = Vec::new();
        std::io::Read::read_to_end(&mut brotli::Decompressor::new(&br[..], 4096), &mut decoded)
            .unwrap();
        assert_eq!(decoded, body.as_bytes());
        let again = CachedResponse::new(
            RouteKind::Pages,
            fetched(StatusCode::OK, &body),
            vec![],
            &CachePolicy::default(),
        );
        assert_eq!(entry.etag, again.etag);
        assert!(entry.etag.to_str().unwrap().starts_with('"'));
    }

    #[test]
    fn a_404_lives_for_the_negative_ttl_without_stale_windows() {
        let policy = CachePolicy {
            negative_ttl: Duration::from_millis(5_000),
            ..CachePolicy::default()
        };
        let entry = CachedResponse::new(
            RouteKind::Product,
            fetched(StatusCode::NOT_FOUND, "{}"),
            vec![],
            &policy,
        );
        let freshness = entry.freshness(&policy);
        assert_eq!(
            freshness.fresh_until - entry.stored_at,
            Duration::from_secs(5)
        );
        assert_eq!(freshness.hard_until(), freshness.fresh_until);
    }

    #[test]
    fn freshness_follows_the_current_policy() {
        let policy = CachePolicy {
            jitter: 0.0,
            ..CachePolicy::default()
        };
        let entry = CachedResponse::new(
            RouteKind::Pages,
            fetched(StatusCode::OK, "{}"),
            vec![],
            &policy,
        );
        let shorter = CachePolicy {
            ttl: Duration::from_millis(1_000),
            ..policy.clone()
        };
        assert_eq!(
            entry.freshness(&shorter).fresh_until - entry.stored_at,
            Duration::from_secs(1)
        );
    }

    #[test]
    fn an_entry_weighs_its_key_body_and_tags_plus_the_measured_overhead() {
        let entry = CachedResponse::new(
            RouteKind::Search,
            fetched(StatusCode::OK, "[]"),
            vec![CacheTag::Search],
            &CachePolicy::default(),
        );
        let key = "search:qwertyuiopas";
        assert_eq!(
            entry.weight(key) as usize,
            key.len() + 2 + "search".len() + ENTRY_OVERHEAD_BYTES
        );
    }

    #[test]
    fn small_bodies_are_not_compressed() {
        let entry = CachedResponse::new(
            RouteKind::Pages,
            fetched(StatusCode::OK, "{}"),
            vec![],
            &CachePolicy::default(),
        );
        assert!(entry.gzip.is_none() && entry.brotli.is_none());
    }

    #[test]
    fn images_are_stored_as_they_are() {
        let png = Fetched {
            content_type: HeaderValue::from_static("image/png"),
            ..fetched(StatusCode::OK, &"x".repeat(4096))
        };
        let entry = CachedResponse::new(RouteKind::Tiles, png, vec![], &CachePolicy::default());
        assert!(entry.gzip.is_none() && entry.brotli.is_none());

        let svg = Fetched {
            content_type: HeaderValue::from_static("image/svg+xml; charset=utf-8"),
            ..fetched(StatusCode::OK, &"<g/>".repeat(1024))
        };
        let entry = CachedResponse::new(RouteKind::Pages, svg, vec![], &CachePolicy::default());
        assert!(entry.gzip.is_some() && entry.brotli.is_some());
    }
}
