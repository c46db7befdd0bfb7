//! The L1 write path: one fetch per key in flight, shared by every request for it, and its
//! answer stored in L1 when its budget admits it and no purge overtook it.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tracing::Instrument;

use super::budgets::Admission;
use super::shared::fetch_entry;
use super::{EdgeCache, FetchOutcome, FetchResult, Inner};
use crate::cache::entry::{CachedResponse, Fetched};
use crate::cache::miss_reason::MissReason;
use crate::cache::policy::RouteKind;
use crate::coordination::single_flight::Flight;
use crate::upstream::UpstreamError;

impl EdgeCache {
    /// The fetch in flight for `key`, or a new one. The fetch runs in its own task, so the
    /// request that started it may go away (client disconnect, timeout) without stranding the
    /// others; the upstream timeout lives inside it. Returns whether this call started it, and
    /// when it started.
    pub(super) fn join_or_start<F, Fut>(
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
            let generation = inner.versions.generation();
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
            let admission = Admission::of(&entry, &policy);
            match admission {
                Admission::Forbidden => {
                    // What the upstream now forbids keeping is not served stale either: an
                    // older copy goes, and so do the answers remembered from it.
                    inner.budgets.of_entry(&entry).invalidate(&task_key).await;
                    inner.versions.changed(entry.route);
                    inner
                        .tombstones
                        .record(&task_key, MissReason::NotCacheable, None);
                }
                Admission::TooLarge => {
                    inner
                        .tombstones
                        .record(&task_key, MissReason::TooLarge, None);
                }
                Admission::Admitted => {}
            }
            let mut stored = false;
            if admission == Admission::Admitted && !inner.versions.purged_since(generation) {
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
}

impl Inner {
    /// Stores `entry` in L1 unless a purge happened since `generation` was read (also one that
    /// lands during the insert). Returns whether it stayed.
    pub(super) async fn store_l1(
        &self,
        key: &str,
        entry: Arc<CachedResponse>,
        generation: u64,
    ) -> bool {
        if self.versions.purged_since(generation) {
            return false;
        }
        let route = entry.route;
        let entries = self.budgets.of_entry(&entry);
        // A title that exists now leaves the 404s, and the other way round.
        self.budgets.other_than(&entry).invalidate(key).await;
        // Before the insert, so one turned away at once (moka's admission) leaves its own
        // tombstone: this one says when the entry expires, for a miss after that (moka's
        // removal of expired entries, and its listener, may come a second late).
        self.tombstones
            .expires_at(key, unix_ms_at(entry.hard_until, Instant::now()));
        entries.insert(key.to_owned(), entry).await;
        self.versions.changed(route);
        if self.versions.purged_since(generation) {
            entries.invalidate(key).await;
            return false;
        }
        true
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
