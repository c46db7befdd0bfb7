//! The edge cache: moka underneath (byte-weighted, bounded), our own freshness on top (moka never
//! serves stale entries, so its expiry is only the hard limit), request coalescing with spelled-out
//! failure semantics, stale-while-revalidate, stale-if-error, and tag purges.
//!
//! This file holds the store's parts and builds them; each job has a file of its own beside it:
//! - `budgets`: L1's three byte budgets, and which entries each admits;
//! - `lookups`: the L1 read path (a lookup, served as the entry's
//!   [`EntryState`](crate::cache::entry_state::EntryState) says), and `fills`, the write path
//!   (one fetch per key, stored in L1);
//! - `shared`: sharing through L2 (reads, the fill lock, shared documents);
//! - `remembered`, `answers` and `documents`: answers rendered once and served again, and the
//!   documents made of parts;
//! - `purges` and `purge_channel`: purges here, in L2 and on the other replicas;
//! - `route_counters`, `figures` and `hit_counting`: what is counted and reported.
//!
//! The purge generation, the route epochs and the unheard window are one type beside the store
//! (`crate::cache::local_versions`): remembered answers (`crate::cache::rendered`) read them too.

mod answers;
mod budgets;
mod documents;
mod figures;
mod fills;
mod hit_counting;
mod lookups;
mod purge_channel;
mod purges;
mod remembered;
mod route_counters;
mod shared;
#[cfg(test)]
mod tests;

use std::sync::{Arc, RwLock};
use std::time::Instant;

use super::entry::CachedResponse;
use super::failure::FetchFailure;
use super::l2::SharedTier;
use super::policy::CacheConfig;
use super::purge_receipt::{PurgeOrder, ReceiptDesk};
use super::recent_purges::RecentPurges;
use super::tombstones::Tombstones;
use super::top_lists::TopListRecorder;
use crate::cache::local_versions::Versions;
use crate::coordination::replica_identity::ReplicaIdentity;
use crate::coordination::replicas::Redis;
use crate::coordination::replicas::purge_bus::ExplainReply;
use crate::coordination::replicas::reply_desk::ReplyDesk;
use crate::coordination::shared_tier_mac::SharedTierMac;
use crate::coordination::single_flight::SingleFlight;
use crate::observe::metrics::Metrics;
use budgets::Budgets;
use remembered::RememberedAnswers;
use route_counters::LookupCounters;

pub use figures::{CacheStats, RouteStats};
pub use purges::{PurgeReport, keys_purge, tags_purge};

/// What a fetch stored (or not) and produced.
#[derive(Debug, Clone)]
struct FetchOutcome {
    entry: Arc<CachedResponse>,
    stored: bool,
    /// Another replica fetched it (this one waited on its fill lock and read L2).
    from_peer: bool,
}

type FetchResult = Result<FetchOutcome, FetchFailure>;

/// An L2 read's entry, and whether L2 held one a purge had outdated.
type L2Found = (Option<Arc<CachedResponse>>, bool);

#[derive(Clone)]
pub struct EdgeCache {
    inner: Arc<Inner>,
}

struct Inner {
    /// Pages, products, collections and the price map; search results; remembered 404s: each
    /// in a byte budget of its own.
    budgets: Budgets,
    /// A std `Mutex`: held only to look up or insert a handle, never across an await.
    /// One fetch per key in flight, shared by every request for it, with the instant it
    /// started: a stale copy's wait (`stale_wait`) counts from there, not from each request.
    inflight: SingleFlight<String, FetchResult, Instant>,
    /// The purge generation, the route epochs and the unheard window.
    versions: Versions,
    /// Swapped whole by a reload; readers clone the `Arc` and never hold the lock.
    config: RwLock<Arc<CacheConfig>>,
    /// Lookups per route and state, misses per route and reason.
    counters: LookupCounters,
    metrics: Arc<Metrics>,
    /// Answers rendered once and served again while current (see [`super::rendered`]).
    remembered: RememberedAnswers,
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
}

impl std::fmt::Debug for EdgeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EdgeCache")
            .field("entries", &self.inner.budgets.main().entry_count())
            .field("search_entries", &self.inner.budgets.search().entry_count())
            .finish_non_exhaustive()
    }
}

impl Inner {
    fn config(&self) -> Arc<CacheConfig> {
        self.config
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
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
        let lifetime = config.longest_entry_lifetime();
        let tombstones = Tombstones::default();
        let top = Arc::new(TopListRecorder::default());
        Self {
            inner: Arc::new(Inner {
                budgets: Budgets::new(&config, &metrics, &tombstones, &top),
                remembered: RememberedAnswers::new(&config, &tombstones, &top),
                inflight: SingleFlight::default(),
                versions: Versions::default(),
                config: RwLock::new(Arc::new(config)),
                counters: LookupCounters::new(&metrics),
                metrics,
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
            }),
        }
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
        self.inner.versions.changed_all();
    }

    /// This replica's id.
    pub fn replica_id(&self) -> &str {
        &self.inner.replica_id
    }

    /// This replica's pod, where known.
    pub(in crate::cache) fn pod(&self) -> Option<&str> {
        self.inner.pod.as_deref()
    }
}
