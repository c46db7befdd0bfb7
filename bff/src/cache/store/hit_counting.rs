//! Hits and misses for the top lists: a hit is one atomic add on its entry (or remembered
//! answer), folded into the lists every [`FOLD_INTERVAL`] (see [`crate::cache::hit_fold`]); a
//! miss is recorded at once, with its reason.

use super::EdgeCache;
use crate::cache::hit_fold::{FOLD_INTERVAL, fold_answer, fold_entry};
use crate::cache::lookup::Lookup;
use crate::cache::miss_reason::MissReason;
use crate::cache::policy::RouteKind;
use crate::cache::redact::redacted;
use crate::cache::top_lists::TopLists;

impl EdgeCache {
    /// This replica's top lists over their window (see [`crate::cache::top_lists`]), with every
    /// hit so far folded in.
    pub fn top_lists(&self) -> TopLists {
        self.fold_hits();
        self.inner
            .top
            .lists(crate::coordination::replicas::unix_ms() / 1_000)
    }

    /// Adds every L1 entry's and remembered answer's hits since the last fold to the top lists
    /// (see [`crate::cache::hit_fold`]).
    pub fn fold_hits(&self) {
        let now_secs = crate::coordination::replicas::unix_ms() / 1_000;
        let top = &self.inner.top;
        for entries in self.inner.budgets.all() {
            for (key, entry) in entries.iter() {
                fold_entry(top, &key, &entry, now_secs);
            }
        }
        for remembered in self.inner.remembered.both() {
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
    pub(super) fn count_hit(&self, lookup: &Lookup) {
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
    pub(super) fn count_miss(&self, route: RouteKind, lookup: &Lookup, reason: MissReason) {
        self.inner.counters.count_miss(route, reason);
        let now_secs = crate::coordination::replicas::unix_ms() / 1_000;
        self.inner
            .top
            .record_miss(&redacted(&lookup.key), &lookup.entry.tags, reason, now_secs);
    }
}
