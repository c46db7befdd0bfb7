//! The lookups counted per route and state (for `/admin/cache` and the fleet's hit ratio) and
//! the misses per route and reason, each metric's counter resolved once, at start: the hit path
//! pays one relaxed add and one counter increment.

use std::sync::atomic::{AtomicU64, Ordering};

use prometheus_client::metrics::counter::Counter;

use crate::cache::miss_reason::MissReason;
use crate::cache::policy::RouteKind;
use crate::cache::status::CacheState;
use crate::observe::metrics::Metrics;

/// Every route's counters, indexed by [`RouteKind::index`].
#[derive(Debug)]
pub(in crate::cache) struct LookupCounters(Vec<RouteCounters>);

/// One route's counters.
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

    /// How many lookups ended in `state`.
    fn count_of(&self, state: CacheState) -> u64 {
        CacheState::ALL
            .iter()
            .position(|known| *known == state)
            .map_or(0, |index| self.counts[index].load(Ordering::Relaxed))
    }
}

impl LookupCounters {
    pub(in crate::cache) fn new(metrics: &Metrics) -> Self {
        Self(
            RouteKind::ALL
                .iter()
                .map(|route| RouteCounters::new(*route, metrics))
                .collect(),
        )
    }

    /// Counts one lookup of `route` that ended in `state`.
    #[inline]
    pub(in crate::cache) fn count(&self, route: RouteKind, state: CacheState) {
        if let Some(counters) = self.0.get(route.index()) {
            let index = CacheState::ALL
                .iter()
                .position(|s| *s == state)
                .unwrap_or(0);
            counters.counts[index].fetch_add(1, Ordering::Relaxed);
            counters.metrics[index].inc();
        }
    }

    /// Counts one miss of `route` for `reason` (the metric only).
    pub(in crate::cache) fn count_miss(&self, route: RouteKind, reason: MissReason) {
        if let Some(counters) = self.0.get(route.index()) {
            counters.misses[reason.index()].inc();
        }
    }

    /// How many lookups of `route` ended in `state`.
    pub(in crate::cache) fn count_of(&self, route: RouteKind, state: CacheState) -> u64 {
        self.0
            .get(route.index())
            .map_or(0, |counters| counters.count_of(state))
    }
}
