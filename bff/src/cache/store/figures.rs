//! The store's figures: per-route entries, bytes and lookups for `/admin/cache`, the fleet's
//! lookup totals, and the sizes and budgets the metrics gauges show.

use std::collections::HashMap;

use super::EdgeCache;
use crate::cache::fleet::heartbeat::LookupTotals;
use crate::cache::hit_ratio::{LookupCounts, Ratios, summed};
use crate::cache::policy::RouteKind;
use crate::cache::status::CacheState;

/// Per-route figures for `/admin/cache`.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteStats {
    pub route: &'static str,
    pub entries: u64,
    pub bytes: u64,
    pub lookups: LookupCounts,
    /// `hitRatio` (hit and stale) and `staleIfErrorRatio`, apart: see
    /// [`crate::cache::hit_ratio`].
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
    pub async fn stats(&self) -> CacheStats {
        let budgets = &self.inner.budgets;
        let mut per_route: HashMap<RouteKind, (u64, u64)> = HashMap::new();
        budgets.negative().run_pending_tasks().await;
        // Per route: what exists; the 404s are counted apart.
        for entries in [budgets.main(), budgets.search()] {
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
                    .map(|state| (state.as_str(), self.inner.counters.count_of(*route, *state)))
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
        let (entries, bytes) = budgets.sizes();
        CacheStats {
            entries,
            bytes,
            capacity_bytes: config.capacity_bytes,
            main_bytes: budgets.main().weighted_size(),
            search_bytes: budgets.search().weighted_size(),
            search_capacity_bytes: config.search_capacity_bytes,
            negative_entries: budgets.negative().entry_count(),
            negative_bytes: budgets.negative().weighted_size(),
            negative_capacity_bytes: config.negative_capacity_bytes,
            documents: self.inner.remembered.document_count(),
            in_flight: self.inner.inflight.len(),
            ratios,
            routes,
        }
    }

    /// Lookups since start over every route: `served` counts hits and stale-while-revalidate
    /// answers, not stale-if-error (an outage served is not a hit), for the fleet's recent
    /// hit ratio.
    pub fn lookup_totals(&self) -> LookupTotals {
        let counters = &self.inner.counters;
        let mut totals = LookupTotals::default();
        for route in RouteKind::ALL {
            totals.served += counters.count_of(route, CacheState::Hit)
                + counters.count_of(route, CacheState::Stale);
            totals.lookups += CacheState::ALL
                .iter()
                .map(|state| counters.count_of(route, *state))
                .sum::<u64>();
        }
        totals
    }

    /// The byte budgets L1 enforces (its three storages', fixed when they were built; a reload
    /// does not change them).
    pub fn enforced_capacity_bytes(&self) -> u64 {
        self.inner.budgets.capacity_bytes()
    }

    /// Entry count and weighted size of both storages, for the metrics gauges (after applying
    /// moka's pending bookkeeping, so the figures are current).
    pub async fn size(&self) -> (u64, u64) {
        self.inner.budgets.settle().await;
        self.inner.budgets.sizes()
    }
}
