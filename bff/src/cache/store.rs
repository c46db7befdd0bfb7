//! The edge cache: moka underneath (byte-weighted, bounded), our own freshness on top (moka never
//! serves stale entries, so its expiry is only the hard limit), request coalescing with spelled-out
//! failure semantics, stale-while-revalidate, stale-if-error, and tag purges.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use moka::Expiry;
use moka::notification::RemovalCause;
use tracing::Instrument;

use bytes::Bytes;
use prometheus_client::metrics::counter::Counter;

use super::entry::{CachedResponse, Fetched};
use super::failure::FetchFailure;
use super::hit_fold::{FOLD_INTERVAL, fold_answer, fold_entry};
use super::hit_ratio::{HIT_STATES, LookupCounts, Ratios, summed};
use super::key::cache_key;
use super::l2::{LockAttempt, SharedTier, Written};
use super::lookup::Lookup;
use super::miss_reason::MissReason;
use super::policy::{CacheConfig, RouteKind};
use super::purge_receipt::{PurgeOrder, ReceiptDesk, ReceiptWaiter};
use super::recent_purges::RecentPurges;
use super::redact::redacted;
use super::rendered::{EpochCounters, Epochs, Remembered, Rendered, StoredDocument};
use super::status::CacheState;
use super::tombstones::Tombstones;
use super::top_lists::TopListRecorder;
use crate::coordination::replica_identity::ReplicaIdentity;
use crate::coordination::replicas::Redis;
use crate::coordination::replicas::purge_bus::{
    BusEvent, ExplainReply, Purge, PurgeBus, PurgeMode,
};
use crate::coordination::replicas::replication::Replication;
use crate::coordination::replicas::reply_desk::{ReplyDesk, ReplyWaiter};
use crate::coordination::shared_tier_mac::SharedTierMac;
use crate::coordination::single_flight::{self, Flight, SingleFlight};
use crate::observe::metrics::{Metrics, RedisEvent};
use crate::upstream::UpstreamError;

/// What a fetch stored (or not) and produced.
#[derive(Debug, Clone)]
struct FetchOutcome {
    entry: Arc<CachedResponse>,
    stored: bool,
    /// Another replica fetched it (this one waited on its fill lock and read L2).
    from_peer: bool,
}

type FetchResult = Result<FetchOutcome, FetchFailure>;

/// Counts per route and state: for `/admin/cache`, and the metric's counters resolved once;
/// and the misses per reason, resolved once too (counted on the miss path only).
#[derive(Debug)]
struct RouteCounters {
    counts: [AtomicU64; 5],
    metrics: [Counter; 5],
    misses: [Counter; MissReason::ALL.len()],
}

impl RouteCounters {
    fn new(route: RouteKind, metrics: &Metrics) -> Self {
        Self {
            counts: Default::default(),
            metrics: CacheState::ALL
                .map(|state| metrics.cache_lookup_counter(route.as_str(), state.as_str())),
            misses: MissReason::ALL
                .map(|reason| metrics.cache_miss_counter(route.as_str(), reason.as_str())),
        }
    }
}

/// What a purge did: the entries this replica dropped (or, soft, marked stale), and whether its
/// L2 write reached a Redis replica (a failover before it does would undo the purge in L2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PurgeReport {
    pub purged: u64,
    pub replication: Replication,
    /// The L2 version counters it moved, each covering every L2 entry of a tag, a key or a
    /// route (L2 is never scanned); 0 without Redis or when Redis did not take it.
    pub l2_invalidated: u64,
    /// Whether the other replicas were told through the purge channel; `None` without Redis
    /// (this replica is the whole fleet). `Some(false)`: kept here, replayed when Redis returns.
    pub published: Option<bool>,
}

impl std::ops::Add for PurgeReport {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        let published = match (self.published, other.published) {
            (None, None) => None,
            (one, other) => Some(one.unwrap_or(true) && other.unwrap_or(true)),
        };
        Self {
            purged: self.purged + other.purged,
            replication: self.replication.worst(other.replication),
            l2_invalidated: self.l2_invalidated + other.l2_invalidated,
            published,
        }
    }
}

#[derive(Clone)]
pub struct EdgeCache {
    inner: Arc<Inner>,
}

type Entries = moka::future::Cache<String, Arc<CachedResponse>>;

struct Inner {
    /// Pages, products, collections and the price map: a bounded set of keys.
    entries: Entries,
    /// Search results, in a byte budget of their own (`cache.search_capacity_bytes`): anyone
    /// can make new search keys, so a flood of random terms evicts only other searches, never
    /// a page, a product, a collection or the price map (nor the stale copies that carry an
    /// outage).
    search_entries: Entries,
    /// Remembered 404s, in a small budget of their own (`cache.negative_capacity_bytes`), kept
    /// out of L2: made-up titles are as many as anyone likes, so their answers may evict only
    /// each other, never what exists.
    negative_entries: Entries,
    /// A std `Mutex`: held only to look up or insert a handle, never across an await.
    /// One fetch per key in flight, shared by every request for it, with the instant it
    /// started: a stale copy's wait (`stale_wait`) counts from there, not from each request.
    inflight: SingleFlight<String, FetchResult, Instant>,
    /// Bumped by every purge; a fetch that started before a purge does not store its answer,
    /// so a purge can never be undone by a response already on its way.
    generation: AtomicU64,
    /// Swapped whole by a reload; readers clone the `Arc` and never hold the lock.
    config: RwLock<Arc<CacheConfig>>,
    /// Indexed by [`RouteKind::index`].
    counters: Vec<RouteCounters>,
    metrics: Arc<Metrics>,
    /// Answers rendered once and served again while current (see [`super::rendered`]).
    remembered: Remembered,
    /// Documents of search results, in a budget of their own (half of
    /// `cache.search_capacity_bytes`, as `remembered` is half of `cache.capacity_bytes`): random
    /// search terms evict only other searches' documents, never a product's.
    remembered_searches: Remembered,
    epochs: EpochCounters,
    /// L2 and the purge fan-out, when Redis is configured.
    shared: Option<SharedTier>,
    /// Purges Redis did not take (L2 or the channel) while it was away, applied again when the
    /// purge channel is joined again, so L2 and the other replicas never keep what was purged.
    pending_purges: std::sync::Mutex<Vec<PurgeOrder>>,
    /// Receipts for this replica's purges, from the others (see [`super::purge_receipt`]).
    receipts: Arc<ReceiptDesk>,
    /// The other replicas' answers to this replica's explain queries (see
    /// [`super::explain_fanout`]).
    explain_replies: Arc<ReplyDesk<ExplainReply>>,
    /// One document recompression at a time (see [`super::recompress`]).
    recompressing: Arc<tokio::sync::Semaphore>,
    /// One L2 read per key in flight on this replica, however many requests missed L1.
    l2_reads: SingleFlight<String, L2Found>,
    /// What happened to keys that left L1: read on a miss for its reason.
    tombstones: Tombstones,
    /// The keys and tags that missed most, and the tags that hit most, over the last minutes;
    /// shared with the storages' removal listeners, which fold a leaving entry's hits.
    top: Arc<TopListRecorder>,
    /// The last purges applied here, for explain.
    recent_purges: RecentPurges,
    /// This replica's id, as purges and L2 fills name it.
    replica_id: String,
    /// Its pod, where known (explain's replies name it).
    pod: Option<String>,
    /// While the purge channel is lost: when it was. Entries stored before then may have been
    /// purged unheard, so none of them is served as fresh: each is served stale while one
    /// revalidation runs, until the channel is joined again and L1 dropped.
    unheard_since: std::sync::Mutex<Option<Instant>>,
    /// Whether `unheard_since` is set: the lookups' check without the lock.
    unheard: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for EdgeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EdgeCache")
            .field("entries", &self.inner.entries.entry_count())
            .field("search_entries", &self.inner.search_entries.entry_count())
            .finish_non_exhaustive()
    }
}

/// moka's expiry is the entry's hard limit: the end of its last stale window.
struct HardLimit;

impl Expiry<String, Arc<CachedResponse>> for HardLimit {
    fn expire_after_create(
        &self,
        _key: &String,
        entry: &Arc<CachedResponse>,
        created_at: Instant,
    ) -> Option<Duration> {
        Some(entry.hard_until.saturating_duration_since(created_at))
    }

    fn expire_after_update(
        &self,
        _key: &String,
        entry: &Arc<CachedResponse>,
        updated_at: Instant,
        _duration_until_expiry: Option<Duration>,
    ) -> Option<Duration> {
        Some(entry.hard_until.saturating_duration_since(updated_at))
    }
}

impl Inner {
    /// The shared tier for `route`'s entries. Search stays out of it: anyone can make new search
    /// keys, and in Redis they would compete with pages, products and collections for memory;
    /// each replica keeps its searches in its own budget (`cache.search_capacity_bytes`).
    fn shared_for(&self, route: RouteKind) -> Option<&SharedTier> {
        self.shared.as_ref().filter(|_| route != RouteKind::Search)
    }

    /// The storage `route`'s entries live in.
    fn entries_of(&self, route: RouteKind) -> &Entries {
        match route {
            RouteKind::Search => &self.search_entries,
            _ => &self.entries,
        }
    }

    /// Every storage, for purges and figures.
    fn all_entries(&self) -> [&Entries; 3] {
        [&self.entries, &self.search_entries, &self.negative_entries]
    }

    /// The storage `entry` lives in: its route's, or the 404s' own.
    fn storage_of(&self, entry: &CachedResponse) -> &Entries {
        if entry.is_negative() {
            &self.negative_entries
        } else {
            self.entries_of(entry.route)
        }
    }

    /// `key`'s entry in L1: its route's storage, else the 404s'.
    async fn get_l1(&self, route: RouteKind, key: &str) -> Option<Arc<CachedResponse>> {
        match self.entries_of(route).get(key).await {
            Some(entry) => Some(entry),
            None => self.negative_entries.get(key).await,
        }
    }

    /// Stores `entry` in L1 unless a purge happened since `generation` was read (also one that
    /// lands during the insert). Returns whether it stayed.
    async fn store_l1(&self, key: &str, entry: Arc<CachedResponse>, generation: u64) -> bool {
        if self.generation.load(Ordering::SeqCst) != generation {
            return false;
        }
        let route = entry.route;
        let entries = self.storage_of(&entry);
        // A title that exists now leaves the 404s, and the other way round.
        let other = if entries_eq(entries, &self.negative_entries) {
            self.entries_of(route)
        } else {
            &self.negative_entries
        };
        other.invalidate(key).await;
        // Before the insert, so one turned away at once (moka's admission) leaves its own
        // tombstone: this one says when the entry expires, for a miss after that (moka's
        // removal of expired entries, and its listener, may come a second late).
        self.tombstones
            .expires_at(key, unix_ms_at(entry.hard_until, Instant::now()));
        entries.insert(key.to_owned(), entry).await;
        self.epochs.bump(route);
        if self.generation.load(Ordering::SeqCst) != generation {
            entries.invalidate(key).await;
            return false;
        }
        true
    }

    fn config(&self) -> Arc<CacheConfig> {
        self.config
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn count(&self, route: RouteKind, state: CacheState) {
        if let Some(counters) = self.counters.get(route.index()) {
            let index = CacheState::ALL
                .iter()
                .position(|s| *s == state)
                .unwrap_or(0);
            counters.counts[index].fetch_add(1, Ordering::Relaxed);
            counters.metrics[index].inc();
        }
    }
}

/// Per-route figures for `/admin/cache`.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteStats {
    pub route: &'static str,
    pub entries: u64,
    pub bytes: u64,
    pub lookups: LookupCounts,
    /// `hitRatio` (hit and stale) and `staleIfErrorRatio`, apart: see [`super::hit_ratio`].
    #[serde(flatten)]
    pub ratios: Ratios,
}

#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheStats {
    pub entries: u64,
    pub bytes: u64,
    /// The budget of everything but search results and 404s.
    pub capacity_bytes: u64,
    /// What pages, products, collections and the price map weigh, within `capacity_bytes`.
    pub main_bytes: u64,
    /// What search results weigh, within their own budget.
    pub search_bytes: u64,
    pub search_capacity_bytes: u64,
    /// Remembered 404s (not in `routes`), and what they weigh within their own budget.
    pub negative_entries: u64,
    pub negative_bytes: u64,
    pub negative_capacity_bytes: u64,
    /// Server-rendered documents remembered here (both budgets; not in `entries`): one per
    /// page and variant asked for.
    pub documents: u64,
    pub in_flight: usize,
    /// Over every route's lookups: what the dashboard's "Cache hit ratio" panel shows.
    #[serde(flatten)]
    pub ratios: Ratios,
    pub routes: Vec<RouteStats>,
}

impl CacheStats {
    /// These figures with `route`'s lookups taken from `other` (the tile cache, which counts the
    /// `tiles` route in a cache of its own), and the ratios over every route again.
    pub fn with_route_from(mut self, other: &CacheStats, route: RouteKind) -> Self {
        let theirs = other.routes.iter().find(|r| r.route == route.as_str());
        if let (Some(theirs), Some(ours)) = (
            theirs,
            self.routes.iter_mut().find(|r| r.route == route.as_str()),
        ) {
            *ours = theirs.clone();
        }
        self.ratios = Ratios::of(&summed(self.routes.iter().map(|r| &r.lookups)));
        self
    }
}

impl EdgeCache {
    /// A cache of this process alone.
    pub fn new(config: CacheConfig, metrics: Arc<Metrics>) -> Self {
        Self::with_shared_tier(config, metrics, None, &ReplicaIdentity::from_environment())
    }

    /// A cache with L2 in `shared`'s Redis (its values signed and checked with its MAC) and
    /// purges fanned out through it, when given. Purges from other replicas are received once
    /// [`Self::listen_for_purges`] runs.
    pub fn with_shared_tier(
        config: CacheConfig,
        metrics: Arc<Metrics>,
        shared: Option<(Redis, SharedTierMac)>,
        replica: &ReplicaIdentity,
    ) -> Self {
        // Composed answers are new bytes; single entries share theirs.
        let remembered_capacity = config.capacity_bytes / 2;
        let lifetime = config.longest_entry_lifetime();
        let remembered_search_capacity = config.search_capacity_bytes / 2;
        let tombstones = Tombstones::default();
        let top = Arc::new(TopListRecorder::default());
        let bounded =
            |capacity| bounded_entries(capacity, metrics.clone(), tombstones.clone(), top.clone());
        let entries = bounded(config.capacity_bytes);
        let search_entries = bounded(config.search_capacity_bytes);
        let negative_entries = bounded(config.negative_capacity_bytes);
        Self {
            inner: Arc::new(Inner {
                entries,
                search_entries,
                negative_entries,
                inflight: SingleFlight::default(),
                generation: AtomicU64::new(0),
                config: RwLock::new(Arc::new(config)),
                counters: RouteKind::ALL
                    .iter()
                    .map(|route| RouteCounters::new(*route, &metrics))
                    .collect(),
                metrics,
                remembered: remembered_answers(
                    remembered_capacity,
                    tombstones.clone(),
                    top.clone(),
                ),
                remembered_searches: remembered_answers(
                    remembered_search_capacity,
                    tombstones.clone(),
                    top.clone(),
                ),
                epochs: EpochCounters::default(),
                shared: shared
                    .map(|(redis, mac)| SharedTier::new(redis, mac, lifetime, replica.id.clone())),
                pending_purges: std::sync::Mutex::default(),
                receipts: Arc::new(ReceiptDesk::new(replica.id.clone(), replica.pod.clone())),
                explain_replies: Arc::new(ReplyDesk::new(replica.id.clone())),
                recompressing: Arc::new(tokio::sync::Semaphore::new(1)),
                l2_reads: SingleFlight::default(),
                tombstones,
                top,
                recent_purges: RecentPurges::default(),
                replica_id: replica.id.clone(),
                pod: replica.pod.clone(),
                unheard_since: std::sync::Mutex::default(),
                unheard: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    /// Applies other replicas' purges to this cache until `stop`; drops all of L1 whenever the
    /// purge channel is joined again, since purges published meanwhile were missed. The
    /// sign-outs heard on the channel go to `revocations`. Does nothing without Redis.
    pub fn listen_for_purges(
        &self,
        stop: tokio_util::sync::CancellationToken,
        revocations: crate::coordination::replicas::purge_bus::RevocationSink,
    ) {
        let Some(shared) = &self.inner.shared else {
            return;
        };
        let cache = self.clone();
        shared.bus.spawn_subscriber(
            Arc::new(move |event| {
                let cache = cache.clone();
                let revocations = revocations.clone();
                Box::pin(async move {
                    let purged = match event {
                        BusEvent::Purge {
                            purge,
                            version,
                            mode,
                            id,
                            origin,
                        } => {
                            if let (Some(shared), Some(version)) = (&cache.inner.shared, version) {
                                shared.remember_purge(&purge, mode, version);
                            }
                            let order = PurgeOrder { id, purge, mode };
                            let purged = cache.purge_local(&order).await;
                            cache.send_receipt(&order.id, &origin, purged);
                            purged
                        }
                        BusEvent::Receipt(receipt) => {
                            cache.inner.receipts.deliver(receipt);
                            return;
                        }
                        BusEvent::ExplainQuery { id, origin, keys } => {
                            cache.answer_explain_query(id, origin, keys);
                            return;
                        }
                        BusEvent::ExplainReply(reply) => {
                            cache.inner.explain_replies.deliver(reply);
                            return;
                        }
                        BusEvent::Revoked { session } => {
                            revocations(session);
                            return;
                        }
                        BusEvent::Rejoined => {
                            cache.replay_pending_purges().await;
                            let order = PurgeOrder::new(Purge::All, PurgeMode::Hard);
                            let purged = cache.purge_local(&order).await;
                            cache.set_unheard_since(None);
                            purged
                        }
                        BusEvent::Lost => {
                            cache.set_unheard_since(Some(Instant::now()));
                            // The hit path's remembered answers are made from L1's entries.
                            cache.inner.epochs.bump_all();
                            0
                        }
                    };
                    tracing::debug!(purged, "purge from another replica applied");
                })
            }),
            stop,
        );
    }

    /// Confirms to `origin` that this replica applied its purge `purge_id` (in a task of its
    /// own: the channel's next message is not held up by the round trip). An older build's
    /// purge has no id and wants no receipt.
    fn send_receipt(&self, purge_id: &str, origin: &str, l1_dropped: u64) {
        let Some(shared) = &self.inner.shared else {
            return;
        };
        if purge_id.is_empty() {
            return;
        }
        let bus = shared.bus.clone();
        let receipt = self.inner.receipts.receipt(purge_id, l1_dropped);
        let origin = origin.to_owned();
        tokio::spawn(async move {
            bus.publish_receipt(&origin, receipt).await;
        });
    }

    /// Starts collecting the other replicas' receipts for the purge `purge_id` (before it is
    /// applied, so none arrives unseen).
    pub fn expect_receipts(&self, purge_id: &str) -> ReceiptWaiter {
        self.inner.receipts.expect(purge_id)
    }

    /// Starts collecting the other replicas' answers to the explain query `query_id` (before
    /// it is published, so none arrives unseen).
    pub(super) fn expect_explain_replies(&self, query_id: &str) -> ReplyWaiter<ExplainReply> {
        self.inner.explain_replies.expect(query_id)
    }

    /// The purge channel, when Redis is configured (explain's queries and replies travel on it).
    pub(super) fn bus(&self) -> Option<&PurgeBus> {
        self.inner.shared.as_ref().map(|shared| &shared.bus)
    }

    /// This replica's pod, where known.
    pub(super) fn pod(&self) -> Option<&str> {
        self.inner.pod.as_deref()
    }

    fn set_unheard_since(&self, since: Option<Instant>) {
        let mut unheard_since = self
            .inner
            .unheard_since
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *unheard_since = since;
        self.inner
            .unheard
            .store(since.is_some(), std::sync::atomic::Ordering::Release);
    }

    /// Whether `entry` can be served as fresh: it was stored while this replica heard every
    /// purge (the purge channel is joined, or was lost only after the entry was stored).
    fn vouched_for(&self, entry: &CachedResponse) -> bool {
        if !self
            .inner
            .unheard
            .load(std::sync::atomic::Ordering::Acquire)
        {
            return true;
        }
        self.inner
            .unheard_since
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_none_or(|since| entry.stored_at >= since)
    }

    pub fn config(&self) -> Arc<CacheConfig> {
        self.inner.config()
    }

    /// Swaps in new policies; they apply to entries stored from now on. The byte budgets stay
    /// the ones the storages were built with (see [`CacheConfig::BUDGET_KEYS`]), so
    /// [`Self::config`] and [`Self::stats`] never report a budget this cache does not enforce.
    pub fn set_config(&self, config: CacheConfig) {
        let mut current = self
            .inner
            .config
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let config = config.with_budgets_of(&current);
        *current = Arc::new(config);
        drop(current);
        // Remembered answers carry windows from the old policies.
        self.inner.epochs.bump_all();
    }

    /// The change counters, read before looking up the parts of an answer to remember.
    pub fn epochs(&self) -> Epochs {
        self.inner.epochs.read()
    }

    /// The remembered answer for `key`, if it is still current at `now`. Not counted: the
    /// caller counts it with [`Self::count_served`] once it is sent.
    pub fn remembered(&self, key: &str, now: Instant) -> Option<Arc<Rendered>> {
        self.inner
            .remembered
            .get(key)
            .filter(|answer| answer.is_current(&self.inner.epochs, now))
    }

    /// Remembers the server-rendered document `body` made from `parts` (looked up after
    /// `epochs` were read) under `key`, for the hit path: `None` (nothing remembered) unless
    /// every part is a fresh 200. A document made from search results goes to their budget.
    ///
    /// Its compressed variants are made on the blocking pool: brotli of an 80 kB document
    /// takes about 16 ms, and on a runtime worker every connection that worker serves (hits
    /// included) would wait that long, the hit path's p99.
    pub async fn remember_document(
        &self,
        key: String,
        epochs: Epochs,
        parts: &[&Lookup],
        body: &Bytes,
    ) -> Option<Arc<Rendered>> {
        let variants = Rendered::document_variants(body.clone()).await;
        let rendered = Arc::new(Rendered::document(
            parts,
            body,
            variants,
            epochs,
            Instant::now(),
        )?);
        let searched = parts
            .iter()
            .any(|part| part.entry.route == RouteKind::Search);
        let store = if searched {
            &self.inner.remembered_searches
        } else {
            &self.inner.remembered
        };
        store.insert(key, rendered.clone());
        Some(rendered)
    }

    /// The permit a document recompression holds while it runs.
    pub(super) fn recompressing(&self) -> &Arc<tokio::sync::Semaphore> {
        &self.inner.recompressing
    }

    /// Puts `better` in place of the document remembered under `key`, if that is still
    /// `current` (a newer render, or a purge since, wins): `true` when it did.
    pub(super) fn replace_remembered_document(
        &self,
        key: &str,
        current: &Arc<Rendered>,
        better: Arc<Rendered>,
    ) -> bool {
        use moka::ops::compute::{CompResult, Op};
        [&self.inner.remembered, &self.inner.remembered_searches]
            .into_iter()
            .any(|store| {
                let result = store
                    .entry_by_ref(key)
                    .and_compute_with(|entry| match entry {
                        Some(entry) if Arc::ptr_eq(entry.value(), current) => {
                            Op::Put(better.clone())
                        }
                        _ => Op::Nop,
                    });
                matches!(result, CompResult::ReplacedWith(_))
            })
    }

    /// The remembered document for `key`, if it is still current at `now`: [`Self::remembered`]
    /// over both budgets (documents of search results live in their own).
    pub fn remembered_document(&self, key: &str, now: Instant) -> Option<Arc<Rendered>> {
        self.remembered(key, now).or_else(|| {
            self.inner
                .remembered_searches
                .get(key)
                .filter(|answer| answer.is_current(&self.inner.epochs, now))
        })
    }

    /// The shared tier's purge epoch (`None` without Redis or while it does not answer), read
    /// before a document's parts are looked up: the document reaches L2 only if no purge lands
    /// from then on (a purge that lands between the lookups and the render would otherwise let
    /// a document made from purged parts into L2, recorded under the purge's new versions).
    pub async fn shared_epoch(&self) -> Option<String> {
        self.inner.shared.as_ref()?.epoch().await.ok()
    }

    /// The document another replica rendered under `key` (which names the web build) from these
    /// very parts (the same entries, by key and `ETag`), read from L2 and remembered here as if
    /// rendered here: a replica that starts, or joins a rollout, renders nothing another has.
    pub async fn shared_document(
        &self,
        key: &str,
        epochs: Epochs,
        parts: &[&Lookup],
    ) -> Option<Arc<Rendered>> {
        let shared = self.inner.shared.as_ref()?;
        let route = shareable(parts)?;
        let (meta, body, gzip, brotli) = shared.read_document(key, route).await?;
        let meta: DocumentMeta = serde_json::from_slice(&meta).ok()?;
        if meta.parts != part_names(parts) {
            return None;
        }
        let stored = StoredDocument { body, gzip, brotli };
        let rendered = Arc::new(Rendered::shared_document(
            parts,
            stored,
            epochs,
            Instant::now(),
        )?);
        self.inner
            .remembered
            .insert(key.to_owned(), rendered.clone());
        Some(rendered)
    }

    /// Stores `rendered` (made from `parts`, after the purge epoch `epoch` was read) in L2 for
    /// the other replicas, with its parts' tags, for as long as its parts may be served. Search
    /// results' documents stay out of it, as search results do.
    pub async fn share_document(
        &self,
        key: &str,
        epoch: &str,
        parts: &[&Lookup],
        rendered: &Rendered,
    ) -> bool {
        let (Some(shared), Some(route)) = (&self.inner.shared, shareable(parts)) else {
            return false;
        };
        let now = Instant::now();
        let Some(ttl) = parts
            .iter()
            .map(|part| part.freshness.hard_until().saturating_duration_since(now))
            .min()
            .filter(|ttl| !ttl.is_zero())
        else {
            return false;
        };
        let Ok(meta) = serde_json::to_vec(&DocumentMeta {
            parts: part_names(parts),
        }) else {
            return false;
        };
        let tags: Vec<&str> = parts
            .iter()
            .flat_map(|part| part.entry.tags.iter().map(String::as_str))
            .collect();
        let part_keys: Vec<&str> = parts.iter().map(|part| part.key.as_str()).collect();
        let stored = rendered.stored();
        let written = Written {
            epoch,
            ttl,
            meta,
            body: &stored.body,
            gzip: stored.gzip.as_ref(),
            brotli: stored.brotli.as_ref(),
        };
        // a purge of a whole route outdates the document if any part is of that route
        let mut routes: Vec<RouteKind> = Vec::new();
        for part in parts {
            if !routes.contains(&part.entry.route) {
                routes.push(part.entry.route);
            }
        }
        shared
            .write_document(key, route, &routes, &tags, &part_keys, written)
            .await
    }

    /// The counters as of now, when every part is still the entry its lookup returned: the
    /// epochs of an answer whose parts this very request stored (each store bumps its route's
    /// counter, so counters read before those lookups would make the answer stale at once). A
    /// store or purge that replaced a part before this read shows as a changed entry (`None`);
    /// one after it bumps the counters returned.
    pub async fn epochs_if_unchanged(&self, parts: &[&Lookup]) -> Option<Epochs> {
        let epochs = self.inner.epochs.read();
        for part in parts {
            let current = self.inner.storage_of(&part.entry).get(&part.key).await?;
            if !Arc::ptr_eq(&current, &part.entry) {
                return None;
            }
        }
        Some(epochs)
    }

    /// The document last remembered under `key`, current or not, while it is within its
    /// stale-while-revalidate window: served while its next render runs.
    pub fn stale_document(&self, key: &str, now: Instant) -> Option<Arc<Rendered>> {
        self.inner
            .remembered
            .get(key)
            .or_else(|| self.inner.remembered_searches.get(key))
            .filter(|answer| answer.within_stale_window(now))
    }

    /// Counts a remembered answer as one hit on each of its parts, as their lookups would, and
    /// once for its tags' hit ratio (folded later: see [`super::hit_fold`]).
    pub fn count_served(&self, answer: &Rendered) {
        answer.count_hit();
        for route in answer.parts() {
            self.inner.count(*route, CacheState::Hit);
        }
    }

    /// Remembers `answer` under `key` for the hit path (see [`super::http::CachedAnswer`]).
    pub(super) fn remember_answer(&self, key: String, answer: Arc<Rendered>) {
        self.inner.remembered.insert(key, answer);
    }

    /// Answers `title` on `route` from the cache, fetching with `fetch` when needed.
    pub async fn lookup<F, Fut>(
        &self,
        route: RouteKind,
        title: &str,
        fetch: F,
    ) -> Result<Lookup, FetchFailure>
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<Fetched, UpstreamError>> + Send + 'static,
    {
        let key = cache_key(route, title);
        let span = tracing::info_span!(
            "cache.lookup",
            cache.route = route.as_str(),
            cache.key = %super::redact::Shown(&key),
            cache.state = tracing::field::Empty,
            cache.miss_reason = tracing::field::Empty,
        );
        let result = self
            .lookup_key(route, title, key, fetch)
            .instrument(span.clone())
            .await;
        if let Ok(lookup) = &result {
            span.record("cache.state", lookup.state.as_str());
            self.inner.count(route, lookup.state);
            if HIT_STATES.contains(&lookup.state) {
                self.count_hit(lookup);
            }
            if let Some(reason) = lookup.miss_reason {
                span.record("cache.miss_reason", reason.as_str());
                self.count_miss(route, lookup, reason);
            }
        }
        result
    }

    /// `key`'s entry in this replica's L1, for explain (no lookup is counted).
    pub(super) async fn l1_entry(
        &self,
        route: RouteKind,
        key: &str,
    ) -> Option<Arc<CachedResponse>> {
        self.inner.get_l1(route, key).await
    }

    /// The document remembered at `key` here: whether it is current, and what it weighs.
    pub(super) fn document_state(&self, key: &str, now: Instant) -> Option<(bool, u32)> {
        let answer = self
            .inner
            .remembered
            .get(key)
            .or_else(|| self.inner.remembered_searches.get(key))?;
        Some((
            answer.is_current(&self.inner.epochs, now),
            answer.weight(key),
        ))
    }

    /// What this replica remembers of `key`'s removal, once moka's pending removals (an
    /// entry past its hard limit, one turned away for room) have left their tombstones.
    pub(super) async fn tombstone(&self, key: &str) -> Option<super::tombstones::Tombstone> {
        for entries in self.inner.all_entries() {
            entries.run_pending_tasks().await;
        }
        self.inner.tombstones.of(key)
    }

    /// The shared tier that holds `route`'s entries, if any.
    pub(super) fn shared_tier_for(&self, route: RouteKind) -> Option<&SharedTier> {
        self.inner.shared_for(route)
    }

    /// The purges applied here that touched `key` (redacted) or `tags`, newest first.
    pub(super) fn purges_touching(
        &self,
        key: &str,
        tags: &[String],
    ) -> Vec<super::recent_purges::AppliedPurge> {
        self.inner.recent_purges.touching(key, tags)
    }

    /// This replica's id.
    pub fn replica_id(&self) -> &str {
        &self.inner.replica_id
    }

    /// This replica's top lists over their window (see [`super::top_lists`]), with every hit
    /// so far folded in.
    pub fn top_lists(&self) -> super::top_lists::TopLists {
        self.fold_hits();
        self.inner
            .top
            .lists(crate::coordination::replicas::unix_ms() / 1_000)
    }

    /// Adds every L1 entry's and remembered answer's hits since the last fold to the top lists
    /// (see [`super::hit_fold`]).
    pub fn fold_hits(&self) {
        let now_secs = crate::coordination::replicas::unix_ms() / 1_000;
        let top = &self.inner.top;
        for entries in self.inner.all_entries() {
            for (key, entry) in entries.iter() {
                fold_entry(top, &key, &entry, now_secs);
            }
        }
        for remembered in [&self.inner.remembered, &self.inner.remembered_searches] {
            for (key, answer) in remembered.iter() {
                fold_answer(top, &key, &answer, now_secs);
            }
        }
    }

    /// Folds the hits every [`FOLD_INTERVAL`] until `stop`, so each lands in the top lists'
    /// minute it happened in (give or take the interval).
    pub fn spawn_hit_folds(&self, stop: tokio_util::sync::CancellationToken) {
        let cache = self.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(FOLD_INTERVAL);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    () = stop.cancelled() => break,
                    _ = ticks.tick() => {}
                }
                // A walk of every entry: off the runtime's workers, which serve the hits.
                let folding = cache.clone();
                let _ = tokio::task::spawn_blocking(move || folding.fold_hits()).await;
            }
        });
    }

    /// Counts a lookup answered from storage for its key's and tags' hit ratio: one atomic add
    /// on the L1 entry, folded later; an entry read from L2 (which may not stay in L1) is
    /// recorded at once, as that lookup paid a Redis round trip anyway.
    fn count_hit(&self, lookup: &Lookup) {
        if lookup.from_l2 {
            let now_secs = crate::coordination::replicas::unix_ms() / 1_000;
            self.inner.top.record_hits(
                Some(&redacted(&lookup.key)),
                &lookup.entry.tags,
                1,
                now_secs,
            );
        } else {
            lookup.entry.hits.bump();
        }
    }

    /// Counts a miss for `reason`: the metric, and the top lists (the key redacted).
    fn count_miss(&self, route: RouteKind, lookup: &Lookup, reason: MissReason) {
        if let Some(counters) = self.inner.counters.get(route.index()) {
            counters.misses[reason.index()].inc();
        }
        let now_secs = crate::coordination::replicas::unix_ms() / 1_000;
        self.inner
            .top
            .record_miss(&redacted(&lookup.key), &lookup.entry.tags, reason, now_secs);
    }

    /// Why `key` (absent from L1, or present but past its windows: `expired`) missed: what
    /// this replica remembers of the key, else L2's answer (`outdated`), else cold.
    fn miss_reason(&self, key: &str, expired: bool, outdated_in_l2: bool) -> MissReason {
        if expired {
            return MissReason::Expired;
        }
        match self.inner.tombstones.of(key) {
            Some(tombstone) => tombstone.reason,
            None if outdated_in_l2 => MissReason::OutdatedInL2,
            None => MissReason::Cold,
        }
    }

    async fn lookup_key<F, Fut>(
        &self,
        route: RouteKind,
        title: &str,
        key: String,
        fetch: F,
    ) -> Result<Lookup, FetchFailure>
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<Fetched, UpstreamError>> + Send + 'static,
    {
        let config = self.inner.config();
        let policy = config.policy(route);
        if matches!(route, RouteKind::Product | RouteKind::Collection)
            && title.len() > super::key::MAX_TITLE_BYTES
        {
            self.inner
                .tombstones
                .record(&key, MissReason::Bypassed, None);
            return Ok(too_long(route, key, policy));
        }
        let (cached, from_l2, outdated_in_l2) = match self.inner.get_l1(route, &key).await {
            Some(entry) => (Some(entry), false, false),
            None => {
                let (shared, outdated) = self.read_l2(route, &key, policy).await;
                let found = shared.is_some();
                (shared, found, outdated)
            }
        };
        let now = Instant::now();
        let hit = |entry: &Arc<CachedResponse>, state| Lookup {
            key: key.clone(),
            freshness: entry.freshness(policy),
            entry: entry.clone(),
            state,
            stored: false,
            forward_status: None,
            stale_copy: false,
            from_l2,
            miss_reason: None,
        };
        if let Some(entry) = &cached {
            let freshness = entry.freshness(policy);
            let vouched = self.vouched_for(entry);
            if freshness.is_fresh(now) && vouched {
                return Ok(hit(entry, CacheState::Hit));
            }
            if freshness.within_stale_while_revalidate(now) || freshness.is_fresh(now) {
                // Joins the refresh already running for this key, or starts the only one.
                let (_refresh, started, _) = self.join_or_start(route, title, key.clone(), fetch);
                if started {
                    tracing::debug!("background refresh started");
                }
                return Ok(hit(entry, CacheState::Stale));
            }
        }
        // Past here nothing stored could be served as it is: this lookup misses.
        let miss_reason = self.miss_reason(&key, cached.is_some(), outdated_in_l2);
        let (shared, leader, fetch_started) = self.join_or_start(route, title, key.clone(), fetch);
        // With a stale copy still good for stale-if-error, a slow upstream is waited for only
        // briefly: the fetch runs in its own task and stores its answer whenever it comes. The
        // wait counts from the fetch's start, so once a revalidation has outlasted it every
        // request gets the stale copy at once (nginx's `proxy_cache_use_stale updating`).
        let stale_copy = cached
            .as_ref()
            .filter(|entry| entry.freshness(policy).within_stale_if_error(now));
        let outcome = match stale_copy {
            Some(stale) => {
                let wait = config.stale_wait.saturating_sub(fetch_started.elapsed());
                match tokio::time::timeout(wait, shared).await {
                    Ok(outcome) => outcome,
                    Err(_) => {
                        tracing::warn!(
                            wait_ms = crate::config::duration::millis(config.stale_wait),
                            "upstream slow; serving stale while the revalidation goes on"
                        );
                        return Ok(hit(stale, CacheState::StaleIfError));
                    }
                }
            }
            None => shared.await,
        };
        let fetched = match outcome {
            single_flight::Outcome::Completed(result) => result,
            single_flight::Outcome::Panicked | single_flight::Outcome::Cancelled => {
                Err(FetchFailure::Aborted)
            }
        };
        match fetched {
            Ok(outcome) => Ok(Lookup {
                key,
                freshness: outcome.entry.freshness(policy),
                forward_status: Some(outcome.entry.status.as_u16()),
                entry: outcome.entry,
                state: if leader && !outcome.from_peer {
                    CacheState::Miss
                } else {
                    CacheState::Coalesced
                },
                stored: outcome.stored,
                stale_copy: cached.is_some(),
                from_l2: false,
                miss_reason: Some(miss_reason),
            }),
            Err(failure) => match cached {
                Some(stale)
                    if failure.allows_stale()
                        && stale
                            .freshness(policy)
                            .within_stale_if_error(Instant::now()) =>
                {
                    tracing::warn!(error = %failure, "upstream failed; serving stale-if-error");
                    Ok(Lookup {
                        forward_status: failure.forward_status(),
                        ..hit(&stale, CacheState::StaleIfError)
                    })
                }
                _ => Err(failure),
            },
        }
    }

    /// The fetch in flight for `key`, or a new one. The fetch runs in its own task, so the
    /// request that started it may go away (client disconnect, timeout) without stranding the
    /// others; the upstream timeout lives inside it. Returns whether this call started it, and
    /// when it started.
    fn join_or_start<F, Fut>(
        &self,
        route: RouteKind,
        title: &str,
        key: String,
        fetch: F,
    ) -> (Flight<FetchResult>, bool, Instant)
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<Fetched, UpstreamError>> + Send + 'static,
    {
        // Held from the look-up to the start, so two requests cannot both start a fetch; a
        // request that joins builds nothing.
        let mut runs = self.inner.inflight.lock();
        if let Some((flight, started)) = runs.get(&key) {
            return (flight, false, *started);
        }
        let inner = self.inner.clone();
        let policy = inner.config().policy(route).clone();
        let tag = route.tag(title);
        let task_key = key.clone();
        let span = tracing::info_span!("cache.fetch", cache.route = route.as_str());
        let work = async move {
            let generation = inner.generation.load(Ordering::SeqCst);
            let timed_fetch = {
                let inner = inner.clone();
                move || async move {
                    let started = Instant::now();
                    let fetched = fetch().await;
                    inner.metrics.observe_cache_fetch(
                        route.as_str(),
                        if fetched.is_ok() { "ok" } else { "error" },
                        started.elapsed(),
                    );
                    fetched
                }
            };
            let fetched = fetch_entry(&inner, route, &task_key, &policy, tag, timed_fetch).await;
            let (entry, from_peer) = match fetched {
                Ok(fetched) => fetched,
                Err(failure) => {
                    inner
                        .tombstones
                        .record(&task_key, MissReason::NotCacheable, None);
                    return Err(failure);
                }
            };
            let cacheable = !entry.no_store && entry.body.len() <= policy.max_entry_bytes;
            if entry.no_store {
                // What the upstream now forbids keeping is not served stale either: an older
                // copy goes, and so do the answers remembered from it.
                inner.storage_of(&entry).invalidate(&task_key).await;
                inner.epochs.bump(entry.route);
                inner
                    .tombstones
                    .record(&task_key, MissReason::NotCacheable, None);
            } else if !cacheable {
                inner
                    .tombstones
                    .record(&task_key, MissReason::TooLarge, None);
            }
            let mut stored = false;
            if cacheable && inner.generation.load(Ordering::SeqCst) == generation {
                stored = inner.store_l1(&task_key, entry.clone(), generation).await;
            }
            Ok(FetchOutcome {
                entry,
                stored,
                from_peer,
            })
        }
        .instrument(span);
        let started = Instant::now();
        (runs.start(key, started, work, |_| {}), true, started)
    }

    /// Drops every entry carrying one of `tags`, on every replica; returns how many this
    /// replica held. A tag may be spelled as the purge API spells it (`product:summit lr`) or
    /// as `Surrogate-Key` writes it (`product:summit%20lr`), which is what an operator or a
    /// CDN's purge hook copies from an answer: both name the same entries.
    pub async fn purge_tags(&self, tags: &[String]) -> PurgeReport {
        self.purge(&PurgeOrder::new(tags_purge(tags), PurgeMode::Hard))
            .await
    }

    /// Drops the entries at `keys` (`route:title`, titles normalised like requests' are).
    pub async fn purge_keys(&self, keys: &[String]) -> PurgeReport {
        self.purge(&PurgeOrder::new(keys_purge(keys), PurgeMode::Hard))
            .await
    }

    /// Drops every entry that carries none of `kept` (the webhook's answer to a change it
    /// cannot map: all content, but not the price map).
    pub async fn purge_all_except_tags(&self, kept: &[String]) -> PurgeReport {
        self.purge(&PurgeOrder::new(
            Purge::AllExceptTags(kept.to_vec()),
            PurgeMode::Hard,
        ))
        .await
    }

    pub async fn purge_all(&self) -> PurgeReport {
        self.purge(&PurgeOrder::new(Purge::All, PurgeMode::Hard))
            .await
    }

    /// Applies `purge` in L2, here, and on every other replica (through the purge channel), in
    /// that order: L2 first, so a lookup or a document fill on this replica between the two
    /// can never read what is being purged back from L2 into L1 (with counters already bumped,
    /// it would be handed out as current until its next change).
    /// `order.id` names the purge on the channel, in the receipts and in the replicas' miss
    /// reasons (collect its receipts with [`Self::expect_receipts`] first).
    pub async fn purge(&self, order: &PurgeOrder) -> PurgeReport {
        let purge = &order.purge;
        let shared = match &self.inner.shared {
            Some(shared) if !is_empty(purge) => {
                Some((shared, shared.purge(purge, order.mode).await))
            }
            _ => None,
        };
        let purged = self.purge_local(order).await;
        let mut replication = if is_empty(purge) {
            Replication::NoReplicas
        } else {
            Replication::NotShared
        };
        let mut l2_invalidated = 0;
        let mut published = self.inner.shared.as_ref().map(|_| is_empty(purge));
        if let Some((shared, applied)) = shared {
            let sent = match applied {
                Some((version, replicated)) => {
                    replication = replicated;
                    l2_invalidated = shared.purge_scope(purge);
                    shared
                        .bus
                        .publish(&order.id, purge.clone(), Some(version), order.mode)
                        .await
                }
                None => false,
            };
            published = Some(sent);
            if !sent {
                self.keep_pending(order.clone());
            }
        }
        PurgeReport {
            purged,
            replication,
            l2_invalidated,
            published,
        }
    }

    /// Applies `purge` to L2 and publishes it; kept for later when Redis does not take it.
    async fn share_purge(&self, order: PurgeOrder) {
        let Some(shared) = &self.inner.shared else {
            return;
        };
        if is_empty(&order.purge) {
            return;
        }
        if let Some((version, _)) = shared.purge(&order.purge, order.mode).await
            && shared
                .bus
                .publish(&order.id, order.purge.clone(), Some(version), order.mode)
                .await
        {
            return;
        }
        self.keep_pending(order);
    }

    /// Keeps `order` for when Redis returns: it reached neither L2 nor the other replicas.
    fn keep_pending(&self, order: PurgeOrder) {
        tracing::warn!(
            purge = ?order.purge,
            id = %order.id,
            "purge kept for when Redis returns: it reached neither L2 nor the other replicas"
        );
        self.inner
            .pending_purges
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(order);
    }

    async fn replay_pending_purges(&self) {
        let pending = std::mem::take(
            &mut *self
                .inner
                .pending_purges
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for order in pending {
            self.share_purge(order).await;
        }
    }

    /// Applies `order` to this replica's L1 only; returns how many entries it dropped (or, for
    /// a soft purge, marked stale). Every key it drops (and every key it names) is remembered
    /// as purged by the order's id.
    async fn purge_local(&self, order: &PurgeOrder) -> u64 {
        let purged = if order.mode == PurgeMode::Soft {
            self.mark_stale_where(super::soft_purge::names(&order.purge))
        } else {
            self.drop_purged(order).await
        };
        self.inner.recent_purges.record(
            &order.purge,
            order.mode,
            Some(order.id.as_str()),
            &self.inner.replica_id,
            purged,
        );
        purged
    }

    /// A hard purge's half of [`Self::purge_local`]: drops what `order` names from L1.
    async fn drop_purged(&self, order: &PurgeOrder) -> u64 {
        let id: Option<Arc<str>> = Some(Arc::from(order.id.as_str()));
        match &order.purge {
            Purge::Tags(tags) => {
                let tags = tags.clone();
                self.purge_where(id, move |entry| {
                    entry.tags.iter().any(|tag| tags.contains(tag))
                })
                .await
            }
            Purge::Keys(keys) => {
                self.inner.generation.fetch_add(1, Ordering::SeqCst);
                let mut purged = 0;
                for key in keys {
                    for entries in self.inner.all_entries() {
                        if entries.remove(key).await.is_some() {
                            purged += 1;
                        }
                    }
                    self.inner
                        .tombstones
                        .record(key, MissReason::Purged, id.clone());
                }
                self.inner.epochs.bump_all();
                purged
            }
            Purge::AllExceptTags(kept) => {
                let kept = kept.clone();
                self.purge_where(id, move |entry| {
                    !entry.tags.iter().any(|tag| kept.contains(tag))
                })
                .await
            }
            Purge::All => self.purge_where(id, |_| true).await,
        }
    }

    /// Marks every L1 entry `predicate` picks (by key and entry) stale from now, for a soft
    /// purge (see [`super::soft_purge`]); returns how many it marked. Fetches already under way
    /// do not store their answers (they may predate the change), and the hit path's remembered
    /// answers are outdated, as by a purge.
    pub(super) fn mark_stale_where(
        &self,
        predicate: impl Fn(&str, &CachedResponse) -> bool,
    ) -> u64 {
        self.inner.generation.fetch_add(1, Ordering::SeqCst);
        let now = Instant::now();
        let mut marked = 0;
        for entries in self.inner.all_entries() {
            for (key, entry) in entries.iter() {
                if predicate(&key, &entry) && entry.mark_stale(now) {
                    marked += 1;
                }
            }
        }
        self.inner.epochs.bump_all();
        marked
    }

    async fn purge_where(
        &self,
        purge_id: Option<Arc<str>>,
        predicate: impl Fn(&CachedResponse) -> bool + Send + Sync + 'static,
    ) -> u64 {
        self.inner.generation.fetch_add(1, Ordering::SeqCst);
        let mut purged = 0;
        for entries in self.inner.all_entries() {
            let matching: Vec<Arc<String>> = entries
                .iter()
                .filter(|(_, entry)| predicate(entry))
                .map(|(key, _)| key)
                .collect();
            for key in &matching {
                entries.invalidate(key.as_str()).await;
                self.inner
                    .tombstones
                    .record(key, MissReason::Purged, purge_id.clone());
            }
            purged += matching.len() as u64;
        }
        self.inner.epochs.bump_all();
        purged
    }

    /// The L2 entry for `key` (one read per key in flight on this replica), stored in L1 when
    /// found, and whether L2 held one a purge had outdated. `None` without Redis.
    async fn read_l2(
        &self,
        route: RouteKind,
        key: &str,
        policy: &super::policy::CachePolicy,
    ) -> L2Found {
        if self.inner.shared_for(route).is_none() {
            return (None, false);
        }
        let inner = self.inner.clone();
        let (task_key, policy) = (key.to_owned(), policy.clone());
        let (flight, _) = self
            .inner
            .l2_reads
            .join_or_start(key.to_owned(), async move {
                let generation = inner.generation.load(Ordering::SeqCst);
                let Some(shared) = inner.shared.as_ref() else {
                    return (None, false);
                };
                let (entry, outdated) = shared.read_explained(route, &task_key, &policy).await;
                // A 404 an older build wrote is not believed: 404s stay out of L2.
                let Some(entry) = entry.filter(|entry| !entry.is_negative()) else {
                    return (None, outdated);
                };
                inner.store_l1(&task_key, entry.clone(), generation).await;
                (Some(entry), false)
            });
        match flight.await {
            single_flight::Outcome::Completed(found) => found,
            single_flight::Outcome::Panicked | single_flight::Outcome::Cancelled => (None, false),
        }
    }

    pub async fn stats(&self) -> CacheStats {
        let mut per_route: HashMap<RouteKind, (u64, u64)> = HashMap::new();
        self.inner.negative_entries.run_pending_tasks().await;
        // Per route: what exists; the 404s are counted apart.
        for entries in [&self.inner.entries, &self.inner.search_entries] {
            entries.run_pending_tasks().await;
            for (key, entry) in entries.iter() {
                let figures = per_route.entry(entry.route).or_default();
                figures.0 += 1;
                figures.1 += u64::from(entry.weight(&key));
            }
        }
        let routes = RouteKind::ALL
            .iter()
            .map(|route| {
                let lookups: LookupCounts = CacheState::ALL
                    .iter()
                    .enumerate()
                    .map(|(index, state)| {
                        let count = self
                            .inner
                            .counters
                            .get(route.index())
                            .map_or(0, |c| c.counts[index].load(Ordering::Relaxed));
                        (state.as_str(), count)
                    })
                    .collect();
                let (entries, bytes) = per_route.get(route).copied().unwrap_or_default();
                RouteStats {
                    route: route.as_str(),
                    entries,
                    bytes,
                    ratios: Ratios::of(&lookups),
                    lookups,
                }
            })
            .collect::<Vec<_>>();
        let ratios = Ratios::of(&summed(routes.iter().map(|r| &r.lookups)));
        let config = self.config();
        let (entries, bytes) = self.sum_sizes();
        CacheStats {
            entries,
            bytes,
            capacity_bytes: config.capacity_bytes,
            main_bytes: self.inner.entries.weighted_size(),
            search_bytes: self.inner.search_entries.weighted_size(),
            search_capacity_bytes: config.search_capacity_bytes,
            negative_entries: self.inner.negative_entries.entry_count(),
            negative_bytes: self.inner.negative_entries.weighted_size(),
            negative_capacity_bytes: config.negative_capacity_bytes,
            documents: self.document_count(),
            in_flight: self.inner.inflight.len(),
            ratios,
            routes,
        }
    }

    /// Lookups since start over every route: `served` counts hits and stale-while-revalidate
    /// answers, not stale-if-error (an outage served is not a hit), for the fleet's recent
    /// hit ratio.
    pub fn lookup_totals(&self) -> crate::cache::fleet::heartbeat::LookupTotals {
        let count = |counters: &RouteCounters, state: CacheState| {
            CacheState::ALL
                .iter()
                .position(|known| *known == state)
                .map_or(0, |index| counters.counts[index].load(Ordering::Relaxed))
        };
        let mut totals = crate::cache::fleet::heartbeat::LookupTotals::default();
        for counters in &self.inner.counters {
            totals.served += count(counters, CacheState::Hit) + count(counters, CacheState::Stale);
            totals.lookups += CacheState::ALL
                .iter()
                .map(|state| count(counters, *state))
                .sum::<u64>();
        }
        totals
    }

    /// The byte budgets L1 enforces (its three storages', fixed when they were built; a reload
    /// does not change them).
    pub fn enforced_capacity_bytes(&self) -> u64 {
        self.inner
            .all_entries()
            .iter()
            .filter_map(|entries| entries.policy().max_capacity())
            .sum()
    }

    /// The documents remembered in both budgets of remembered answers.
    fn document_count(&self) -> u64 {
        let documents = [&self.inner.remembered, &self.inner.remembered_searches]
            .into_iter()
            .flat_map(|remembered| remembered.iter())
            .filter(|(key, _)| key.starts_with("document:"))
            .count();
        u64::try_from(documents).unwrap_or(u64::MAX)
    }

    /// Entry count and weighted size of both storages, for the metrics gauges (after applying
    /// moka's pending bookkeeping, so the figures are current).
    pub async fn size(&self) -> (u64, u64) {
        for entries in self.inner.all_entries() {
            entries.run_pending_tasks().await;
        }
        self.sum_sizes()
    }

    fn sum_sizes(&self) -> (u64, u64) {
        self.inner
            .all_entries()
            .iter()
            .fold((0, 0), |(count, bytes), entries| {
                (
                    count + entries.entry_count(),
                    bytes + entries.weighted_size(),
                )
            })
    }
}

/// `instant` as Unix ms, by its distance from `now`.
fn unix_ms_at(instant: Instant, now: Instant) -> u64 {
    let unix_now = crate::coordination::replicas::unix_ms();
    let ms = |duration: Duration| u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
    if instant >= now {
        unix_now.saturating_add(ms(instant - now))
    } else {
        unix_now.saturating_sub(ms(now - instant))
    }
}

/// An L2 read's entry, and whether L2 held one a purge had outdated.
type L2Found = (Option<Arc<CachedResponse>>, bool);

/// The purge of `tags`, each as the purge API spells it (`product:summit lr`) or as
/// `Surrogate-Key` writes it (`product:summit%20lr`): both name the same entries.
pub fn tags_purge(tags: &[String]) -> Purge {
    let mut purged: Vec<String> = Vec::with_capacity(tags.len());
    for tag in tags {
        let tag = tag.trim().to_lowercase();
        let decoded = super::http::surrogate_key_tag(&tag);
        // both spellings when they differ: a tag that holds `%20` itself is purged too
        for name in [decoded, tag] {
            if !purged.contains(&name) {
                purged.push(name);
            }
        }
    }
    Purge::Tags(purged)
}

/// The purge of `keys` (`route:title`, titles normalised like requests' are).
pub fn keys_purge(keys: &[String]) -> Purge {
    let keys = keys
        .iter()
        .map(|key| match key.split_once(':') {
            Some((route, title)) => format!(
                "{}:{}",
                route.trim().to_lowercase(),
                super::key::normalise(title)
            ),
            None => key.trim().to_lowercase(),
        })
        .collect();
    Purge::Keys(keys)
}

/// A purge that names nothing (no tag, no key): nothing to share.
fn is_empty(purge: &Purge) -> bool {
    match purge {
        Purge::Tags(names) | Purge::Keys(names) => names.is_empty(),
        Purge::AllExceptTags(_) | Purge::All => false,
    }
}

/// What L2 keeps beside a document: the parts it was made from, each `key etag`.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct DocumentMeta {
    parts: Vec<String>,
}

fn part_names(parts: &[&Lookup]) -> Vec<String> {
    parts
        .iter()
        .map(|part| {
            format!(
                "{} {}",
                part.key,
                part.entry.etag.to_str().unwrap_or_default()
            )
        })
        .collect()
}

/// The route whose generation a shared document records (its first part's: the page's own
/// content), or `None` when it may not be shared (no parts, or search results among them).
fn shareable(parts: &[&Lookup]) -> Option<RouteKind> {
    if parts
        .iter()
        .any(|part| part.entry.route == RouteKind::Search)
    {
        return None;
    }
    parts.first().map(|part| part.entry.route)
}

/// Remembered answers within `capacity_bytes`, each weighing what it holds beyond its parts;
/// one pushed out for room leaves an `evicted` tombstone.
fn remembered_answers(
    capacity_bytes: u64,
    tombstones: Tombstones,
    top: Arc<TopListRecorder>,
) -> Remembered {
    Remembered::builder()
        .max_capacity(capacity_bytes)
        .weigher(|key: &String, answer: &Arc<Rendered>| answer.weight(key))
        .eviction_listener(move |key, answer, cause| {
            // Whatever the cause, its hits so far are folded once (see `super::hit_fold`).
            fold_answer(
                &top,
                &key,
                &answer,
                crate::coordination::replicas::unix_ms() / 1_000,
            );
            if cause == RemovalCause::Size {
                tombstones.record(&key, MissReason::Evicted, None);
            }
        })
        .build()
}

/// Whether `a` and `b` are the same storage.
fn entries_eq(a: &Entries, b: &Entries) -> bool {
    std::ptr::eq(a, b)
}

/// The answer to a product or collection title longer than [`super::key::MAX_TITLE_BYTES`]:
/// a 404 made here, stored nowhere, with no upstream call.
fn too_long(route: RouteKind, key: String, policy: &super::policy::CachePolicy) -> Lookup {
    let fetched = Fetched::not_found(format!("There is no {} with this title.", route.as_str()));
    let entry = Arc::new(CachedResponse::new(route, fetched, Vec::new(), policy));
    Lookup {
        key,
        freshness: entry.freshness(policy),
        entry,
        state: CacheState::Miss,
        stored: false,
        forward_status: None,
        stale_copy: false,
        from_l2: false,
        miss_reason: Some(MissReason::Bypassed),
    }
}

/// One bounded storage: moka weighing each entry in bytes (see [`CachedResponse::weight`]),
/// expiring it at its hard limit, counting evictions by cause. An entry pushed out for room or
/// past its hard limit leaves a tombstone saying so (a purge writes its own, with its id).
fn bounded_entries(
    capacity_bytes: u64,
    metrics: Arc<Metrics>,
    tombstones: Tombstones,
    top: Arc<TopListRecorder>,
) -> Entries {
    moka::future::Cache::builder()
        .max_capacity(capacity_bytes)
        .weigher(|key: &String, entry: &Arc<CachedResponse>| entry.weight(key))
        .expire_after(HardLimit)
        .support_invalidation_closures()
        .eviction_listener(move |key, entry, cause| {
            // Whatever the cause, its hits so far are folded once (see `super::hit_fold`).
            fold_entry(
                &top,
                &key,
                &entry,
                crate::coordination::replicas::unix_ms() / 1_000,
            );
            let cause = match cause {
                RemovalCause::Size => {
                    tombstones.record(&key, MissReason::Evicted, None);
                    "size"
                }
                RemovalCause::Expired => {
                    tombstones.record(&key, MissReason::Expired, None);
                    "expired"
                }
                RemovalCause::Explicit => "purged",
                RemovalCause::Replaced => return,
            };
            metrics.count_cache_eviction(cause);
        })
        .build()
}

/// The entry for `key` from the upstream, and whether another replica fetched it. With L2, one
/// replica across all of them fetches (the fill lock's holder, which writes L2); the others wait
/// for its value, and fetch on their own when it stores none or Redis fails them.
async fn fetch_entry<F, Fut>(
    inner: &Inner,
    route: RouteKind,
    key: &str,
    policy: &super::policy::CachePolicy,
    tag: super::tag::CacheTag,
    fetch: F,
) -> Result<(Arc<CachedResponse>, bool), FetchFailure>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<Fetched, UpstreamError>>,
{
    let build = |fetched: Fetched| {
        let mut tags = vec![tag];
        tags.extend(fetched.extra_tags.iter().cloned());
        Arc::new(CachedResponse::new(route, fetched, tags, policy))
    };
    let Some(shared) = inner.shared_for(route) else {
        return Ok((build(fetch().await?), false));
    };
    let deadline = SharedTier::wait_deadline();
    loop {
        match shared.try_lock(key).await {
            LockAttempt::Acquired(lock) => {
                shared.redis().count(RedisEvent::FillLockAcquired);
                // The previous holder may have just stored a fresh answer.
                if let Some(entry) = shared.read(route, key, policy).await
                    && entry.freshness(policy).is_fresh(Instant::now())
                {
                    shared.release(lock).await;
                    return Ok((entry, true));
                }
                let epoch = shared.epoch().await;
                let fetched = fetch().await;
                let result = fetched.map(build).map_err(FetchFailure::from);
                if let (Ok(entry), Ok(epoch)) = (&result, &epoch)
                    && entry.body.len() <= policy.max_entry_bytes
                    && !entry.is_negative()
                    && !entry.no_store
                {
                    shared.write(key, entry, epoch).await;
                }
                shared.release(lock).await;
                return result.map(|entry| (entry, false));
            }
            LockAttempt::Held => {
                shared.redis().count(RedisEvent::FillLockWaited);
                if let Some(entry) = shared.wait_for_fill(route, key, policy, deadline).await {
                    return Ok((entry, true));
                }
                if Instant::now() >= deadline {
                    shared.redis().count(RedisEvent::FillLockGaveUp);
                    break;
                }
                // The holder stored nothing: the next to take the lock fetches.
            }
            LockAttempt::Unavailable => break,
        }
    }
    Ok((build(fetch().await?), false))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use axum::http::{HeaderValue, StatusCode};
    use bytes::Bytes;

    use super::*;
    use crate::cache::policy::CachePolicy;

    fn cache() -> EdgeCache {
        let config = CacheConfig {
            pages: CachePolicy {
                jitter: 0.0,
                ..CachePolicy::default()
            },
            ..CacheConfig::default()
        };
        EdgeCache::new(config, Arc::new(Metrics::new()))
    }

    fn page(body: &str) -> Fetched {
        Fetched {
            status: StatusCode::OK,
            body: Bytes::from(body.to_owned()),
            content_type: HeaderValue::from_static("application/json"),
            extra_tags: vec![],
            no_store: false,
        }
    }

    #[tokio::test]
    async fn a_panicking_fetch_releases_its_waiters_and_the_next_lookup_fetches_again() {
        let cache = cache();
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let leader = {
            let cache = cache.clone();
            tokio::spawn(async move {
                cache
                    .lookup(RouteKind::Pages, "home", move || async move {
                        let _ = released.await;
                        panic!("upstream parser exploded");
                    })
                    .await
            })
        };
        tokio::task::yield_now().await;
        let waiter = {
            let cache = cache.clone();
            tokio::spawn(async move {
                cache
                    .lookup(RouteKind::Pages, "home", || async { Ok(page("unused")) })
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let _ = release.send(());
        assert!(matches!(leader.await.unwrap(), Err(FetchFailure::Aborted)));
        assert!(matches!(waiter.await.unwrap(), Err(FetchFailure::Aborted)));
        let next = cache
            .lookup(RouteKind::Pages, "home", || async { Ok(page("{}")) })
            .await
            .unwrap();
        assert_eq!(next.state, CacheState::Miss);
    }

    #[tokio::test]
    async fn a_cancelled_leader_does_not_strand_its_waiters() {
        let cache = cache();
        let fetches = Arc::new(AtomicUsize::new(0));
        let counted = fetches.clone();
        let leader = {
            let cache = cache.clone();
            tokio::spawn(async move {
                cache
                    .lookup(RouteKind::Pages, "home", move || async move {
                        counted.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        Ok(page("{\"fresh\":true}"))
                    })
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        let waiter = {
            let cache = cache.clone();
            tokio::spawn(async move {
                cache
                    .lookup(RouteKind::Pages, "home", || async {
                        Ok(page("second fetch"))
                    })
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        // The request that started the fetch goes away (client disconnect).
        leader.abort();
        let answer = waiter.await.unwrap().unwrap();
        assert_eq!(answer.state, CacheState::Coalesced);
        assert_eq!(answer.entry.body, Bytes::from_static(b"{\"fresh\":true}"));
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
        let stored = cache
            .lookup(RouteKind::Pages, "home", || async { Ok(page("unused")) })
            .await
            .unwrap();
        assert_eq!(stored.state, CacheState::Hit);
    }

    #[tokio::test]
    async fn a_purge_during_a_fetch_keeps_the_fetched_answer_out_of_the_cache() {
        let cache = cache();
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let fetch = {
            let cache = cache.clone();
            tokio::spawn(async move {
                cache
                    .lookup(RouteKind::Pages, "home", move || async move {
                        let _ = released.await;
                        Ok(page("{\"before\":\"purge\"}"))
                    })
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        cache.purge_tags(&["page:home".to_owned()]).await;
        let _ = release.send(());
        let answer = fetch.await.unwrap().unwrap();
        assert!(!answer.stored, "the purge won");
        let next = cache
            .lookup(RouteKind::Pages, "home", || async { Ok(page("{}")) })
            .await
            .unwrap();
        assert_eq!(next.state, CacheState::Miss);
    }

    /// nginx's `proxy_cache_use_stale updating`: the stale wait counts from the revalidation's
    /// start, so a request arriving after it has run out gets the stale copy without waiting.
    #[tokio::test]
    async fn once_a_revalidation_outlasts_the_stale_wait_later_requests_do_not_wait() {
        let wait = Duration::from_millis(1_000);
        let config = CacheConfig {
            stale_wait: wait,
            pages: CachePolicy {
                ttl: Duration::from_millis(1),
                stale_while_revalidate: Duration::ZERO,
                stale_if_error: Duration::from_millis(600_000),
                jitter: 0.0,
                ..CachePolicy::default()
            },
            ..CacheConfig::default()
        };
        let cache = EdgeCache::new(config, Arc::new(Metrics::new()));
        cache
            .lookup(RouteKind::Pages, "home", || async { Ok(page("{}")) })
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let hung = move || async move {
            let _ = released.await;
            Ok(page("{\"fresh\":true}"))
        };
        let first = cache.lookup(RouteKind::Pages, "home", hung).await.unwrap();
        assert_eq!(
            first.state,
            CacheState::StaleIfError,
            "after waiting {wait:?}"
        );
        let started = Instant::now();
        let later = cache
            .lookup(RouteKind::Pages, "home", || async { Ok(page("unused")) })
            .await
            .unwrap();
        assert_eq!(later.state, CacheState::StaleIfError);
        assert!(
            started.elapsed() < wait / 2,
            "waited {:?} for a revalidation already {wait:?} old",
            started.elapsed()
        );
        let _ = release.send(());
    }

    #[tokio::test]
    async fn oversized_answers_are_served_but_not_stored() {
        let config = CacheConfig {
            pages: CachePolicy {
                max_entry_bytes: 10,
                ..CachePolicy::default()
            },
            ..CacheConfig::default()
        };
        let cache = EdgeCache::new(config, Arc::new(Metrics::new()));
        let big = "x".repeat(100);
        let first = cache
            .lookup(RouteKind::Pages, "home", {
                let big = big.clone();
                move || async move { Ok(page(&big)) }
            })
            .await
            .unwrap();
        assert_eq!(first.entry.body.len(), 100);
        assert!(!first.stored);
        let second = cache
            .lookup(
                RouteKind::Pages,
                "home",
                move || async move { Ok(page(&big)) },
            )
            .await
            .unwrap();
        assert_eq!(second.state, CacheState::Miss);
    }
}
