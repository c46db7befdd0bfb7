//! L1's three byte budgets, and what each admits.
//!
//! - **main** (`cache.capacity_bytes`): pages, products, collections and the price map, a
//!   bounded set of keys;
//! - **search** (`cache.search_capacity_bytes`): anyone can make new search keys, so a flood of
//!   random terms evicts only other searches, never a page, a product, a collection or the price
//!   map (nor the stale copies that carry an outage);
//! - **negative** (`cache.negative_capacity_bytes`): remembered 404s, kept out of L2: made-up
//!   titles are as many as anyone likes, so their answers may evict only each other, never what
//!   exists.
//!
//! Each is a moka cache weighing entries in bytes and expiring them at their hard limit; an entry
//! pushed out for room or past its hard limit leaves a tombstone saying so. An answer the
//! upstream forbids keeping, or one over its route's `max_entry_bytes`, is admitted to none.

use std::sync::Arc;
use std::time::{Duration, Instant};

use moka::Expiry;
use moka::notification::RemovalCause;

use crate::cache::entry::CachedResponse;
use crate::cache::hit_fold::fold_entry;
use crate::cache::miss_reason::MissReason;
use crate::cache::policy::{CacheConfig, CachePolicy, RouteKind};
use crate::cache::tombstones::Tombstones;
use crate::cache::top_lists::TopListRecorder;
use crate::observe::metrics::Metrics;

/// One bounded storage of L1.
pub(in crate::cache) type Entries = moka::future::Cache<String, Arc<CachedResponse>>;

/// The three storages of L1, each in its own byte budget (see the module's docs).
pub(in crate::cache) struct Budgets {
    main: Entries,
    search: Entries,
    negative: Entries,
}

/// Whether a fetched entry may be kept in L1 (and L2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::cache) enum Admission {
    Admitted,
    /// The upstream forbade keeping it (`Cache-Control: no-store`): an older copy goes too.
    Forbidden,
    /// Over its route's `max_entry_bytes`: served, not kept.
    TooLarge,
}

impl Admission {
    /// What L1 makes of `entry` under `policy`.
    pub(in crate::cache) fn of(entry: &CachedResponse, policy: &CachePolicy) -> Self {
        if entry.no_store {
            Self::Forbidden
        } else if entry.body.len() > policy.max_entry_bytes {
            Self::TooLarge
        } else {
            Self::Admitted
        }
    }
}

impl Budgets {
    /// The three storages within `config`'s budgets. Their byte budgets are fixed here: a reload
    /// does not change them (see [`CacheConfig::BUDGET_KEYS`]).
    pub(in crate::cache) fn new(
        config: &CacheConfig,
        metrics: &Arc<Metrics>,
        tombstones: &Tombstones,
        top: &Arc<TopListRecorder>,
    ) -> Self {
        let bounded =
            |capacity| bounded_entries(capacity, metrics.clone(), tombstones.clone(), top.clone());
        Self {
            main: bounded(config.capacity_bytes),
            search: bounded(config.search_capacity_bytes),
            negative: bounded(config.negative_capacity_bytes),
        }
    }

    /// Pages, products, collections and the price map.
    pub(in crate::cache) fn main(&self) -> &Entries {
        &self.main
    }

    /// Search results.
    pub(in crate::cache) fn search(&self) -> &Entries {
        &self.search
    }

    /// Remembered 404s.
    pub(in crate::cache) fn negative(&self) -> &Entries {
        &self.negative
    }

    /// The storage `route`'s entries live in.
    #[inline]
    pub(in crate::cache) fn of_route(&self, route: RouteKind) -> &Entries {
        match route {
            RouteKind::Search => &self.search,
            _ => &self.main,
        }
    }

    /// Every storage, for purges and figures.
    pub(in crate::cache) fn all(&self) -> [&Entries; 3] {
        [&self.main, &self.search, &self.negative]
    }

    /// The storage `entry` lives in: its route's, or the 404s' own.
    pub(in crate::cache) fn of_entry(&self, entry: &CachedResponse) -> &Entries {
        if entry.is_negative() {
            &self.negative
        } else {
            self.of_route(entry.route)
        }
    }

    /// `key`'s entry in L1: its route's storage, else the 404s'.
    #[inline]
    pub(in crate::cache) async fn get(
        &self,
        route: RouteKind,
        key: &str,
    ) -> Option<Arc<CachedResponse>> {
        match self.of_route(route).get(key).await {
            Some(entry) => Some(entry),
            None => self.negative.get(key).await,
        }
    }

    /// The storage that must not hold `key` once `entry` is stored in its own: a title that
    /// exists now leaves the 404s, and the other way round.
    pub(in crate::cache) fn other_than(&self, entry: &CachedResponse) -> &Entries {
        if entry.is_negative() {
            self.of_route(entry.route)
        } else {
            &self.negative
        }
    }

    /// Applies moka's pending removals (an entry past its hard limit, one turned away for room)
    /// in every storage, so their tombstones and figures are current.
    pub(in crate::cache) async fn settle(&self) {
        for entries in self.all() {
            entries.run_pending_tasks().await;
        }
    }

    /// Entry count and weighted size over the three storages.
    pub(in crate::cache) fn sizes(&self) -> (u64, u64) {
        self.all().iter().fold((0, 0), |(count, bytes), entries| {
            (
                count + entries.entry_count(),
                bytes + entries.weighted_size(),
            )
        })
    }

    /// The byte budgets enforced (fixed when the storages were built).
    pub(in crate::cache) fn capacity_bytes(&self) -> u64 {
        self.all()
            .iter()
            .filter_map(|entries| entries.policy().max_capacity())
            .sum()
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
