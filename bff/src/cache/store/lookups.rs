//! The L1 read path: one lookup, from L1 (else L2) to the answer. What it serves is what the
//! entry's [`EntryState`] says: a hit, stale while one refresh runs, or a forward (with the
//! stale copy at hand for stale-if-error); why it missed comes from the key's tombstone.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use tracing::Instrument;

use super::EdgeCache;
use crate::cache::entry::{CachedResponse, Fetched};
use crate::cache::entry_state::EntryState;
use crate::cache::failure::FetchFailure;
use crate::cache::hit_ratio::HIT_STATES;
use crate::cache::key::cache_key;
use crate::cache::lookup::Lookup;
use crate::cache::miss_reason::MissReason;
use crate::cache::policy::{CachePolicy, RouteKind};
use crate::cache::status::CacheState;
use crate::cache::tombstones::Tombstone;
use crate::coordination::single_flight;
use crate::upstream::UpstreamError;

impl EdgeCache {
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
            cache.key = %crate::cache::redact::Shown(&key),
            cache.state = tracing::field::Empty,
            cache.miss_reason = tracing::field::Empty,
        );
        let result = self
            .lookup_key(route, title, key, fetch)
            .instrument(span.clone())
            .await;
        if let Ok(lookup) = &result {
            span.record("cache.state", lookup.state.as_str());
            self.inner.counters.count(route, lookup.state);
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
    pub(in crate::cache) async fn l1_entry(
        &self,
        route: RouteKind,
        key: &str,
    ) -> Option<Arc<CachedResponse>> {
        self.inner.budgets.get(route, key).await
    }

    /// What this replica remembers of `key`'s removal, once moka's pending removals (an
    /// entry past its hard limit, one turned away for room) have left their tombstones.
    pub(in crate::cache) async fn tombstone(&self, key: &str) -> Option<Tombstone> {
        self.inner.budgets.settle().await;
        self.inner.tombstones.of(key)
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
            && title.len() > crate::cache::key::MAX_TITLE_BYTES
        {
            self.inner
                .tombstones
                .record(&key, MissReason::Bypassed, None);
            return Ok(too_long(route, key, policy));
        }
        let (cached, from_l2, outdated_in_l2) = match self.inner.budgets.get(route, &key).await {
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
        let mut entry_state = None;
        if let Some(entry) = &cached {
            let vouched = self.inner.versions.vouches_for(entry.stored_at);
            let state = EntryState::at(&entry.freshness(policy), now).vouched(vouched);
            match state.served_as() {
                Some(CacheState::Hit) => return Ok(hit(entry, CacheState::Hit)),
                Some(served) => {
                    // Joins the refresh already running for this key, or starts the only one.
                    let (_refresh, started, _) =
                        self.join_or_start(route, title, key.clone(), fetch);
                    if started {
                        tracing::debug!("background refresh started");
                    }
                    return Ok(hit(entry, served));
                }
                None => entry_state = Some(state),
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
            .filter(|_| entry_state.is_some_and(EntryState::serves_on_error));
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
                        && EntryState::at(&stale.freshness(policy), Instant::now())
                            .serves_on_error() =>
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
}

/// The answer to a product or collection title longer than
/// [`crate::cache::key::MAX_TITLE_BYTES`]: a 404 made here, stored nowhere, with no upstream
/// call.
fn too_long(route: RouteKind, key: String, policy: &CachePolicy) -> Lookup {
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
