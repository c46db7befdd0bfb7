//! The remembered answers' two budgets: answers rendered once (a single entry's, a composed
//! body, a server-rendered document) and served again while current (see
//! [`crate::cache::rendered`]).
//!
//! Composed answers are new bytes; single entries share theirs. Half of `cache.capacity_bytes`
//! holds everything but search results' documents, which live in half of
//! `cache.search_capacity_bytes`: random search terms evict only other searches' documents,
//! never a product's.

use std::sync::Arc;
use std::time::Instant;

use moka::notification::RemovalCause;

use crate::cache::hit_fold::fold_answer;
use crate::cache::local_versions::Versions;
use crate::cache::miss_reason::MissReason;
use crate::cache::policy::CacheConfig;
use crate::cache::rendered::{Remembered, Rendered};
use crate::cache::tombstones::Tombstones;
use crate::cache::top_lists::TopListRecorder;

/// The two budgets of remembered answers.
pub(in crate::cache) struct RememberedAnswers {
    /// Everything but search results' documents.
    answers: Remembered,
    /// Documents made from search results.
    searches: Remembered,
}

impl RememberedAnswers {
    pub(in crate::cache) fn new(
        config: &CacheConfig,
        tombstones: &Tombstones,
        top: &Arc<TopListRecorder>,
    ) -> Self {
        Self {
            answers: remembered_answers(config.capacity_bytes / 2, tombstones, top),
            searches: remembered_answers(config.search_capacity_bytes / 2, tombstones, top),
        }
    }

    /// The answer remembered under `key` outside search results' budget, if it is still
    /// current at `now`.
    #[inline]
    pub(in crate::cache) fn current(
        &self,
        key: &str,
        versions: &Versions,
        now: Instant,
    ) -> Option<Arc<Rendered>> {
        self.answers
            .get(key)
            .filter(|answer| answer.is_current(versions, now))
    }

    /// The document remembered under `key` in search results' budget, if it is still current.
    #[inline]
    pub(in crate::cache) fn current_search(
        &self,
        key: &str,
        versions: &Versions,
        now: Instant,
    ) -> Option<Arc<Rendered>> {
        self.searches
            .get(key)
            .filter(|answer| answer.is_current(versions, now))
    }

    /// The answer remembered under `key` in either budget, current or not.
    pub(in crate::cache) fn any(&self, key: &str) -> Option<Arc<Rendered>> {
        self.answers.get(key).or_else(|| self.searches.get(key))
    }

    /// Remembers `answer` under `key`: in search results' budget when `searched`.
    pub(in crate::cache) fn insert(&self, key: String, answer: Arc<Rendered>, searched: bool) {
        let budget = if searched {
            &self.searches
        } else {
            &self.answers
        };
        budget.insert(key, answer);
    }

    /// Puts `better` in place of the answer remembered under `key`, if that is still `current`
    /// (a newer render, or a purge since, wins): `true` when it did.
    pub(in crate::cache) fn replace(
        &self,
        key: &str,
        current: &Arc<Rendered>,
        better: Arc<Rendered>,
    ) -> bool {
        use moka::ops::compute::{CompResult, Op};
        self.both().into_iter().any(|budget| {
            let result = budget
                .entry_by_ref(key)
                .and_compute_with(|entry| match entry {
                    Some(entry) if Arc::ptr_eq(entry.value(), current) => Op::Put(better.clone()),
                    _ => Op::Nop,
                });
            matches!(result, CompResult::ReplacedWith(_))
        })
    }

    /// Both budgets, for folds and figures.
    pub(in crate::cache) fn both(&self) -> [&Remembered; 2] {
        [&self.answers, &self.searches]
    }

    /// The documents remembered in both budgets.
    pub(in crate::cache) fn document_count(&self) -> u64 {
        let documents = self
            .both()
            .into_iter()
            .flat_map(|remembered| remembered.iter())
            .filter(|(key, _)| key.starts_with("document:"))
            .count();
        u64::try_from(documents).unwrap_or(u64::MAX)
    }
}

/// Remembered answers within `capacity_bytes`, each weighing what it holds beyond its parts;
/// one pushed out for room leaves an `evicted` tombstone.
fn remembered_answers(
    capacity_bytes: u64,
    tombstones: &Tombstones,
    top: &Arc<TopListRecorder>,
) -> Remembered {
    let (tombstones, top) = (tombstones.clone(), top.clone());
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
