//! The store's side of sharing through L2 (the shared tier itself is [`crate::cache::l2`]'s):
//! reading an entry another replica stored, one fetch across all replicas through the fill
//! lock, and the documents one replica renders for the others. Search results stay out of L2:
//! anyone can make new search keys, and in Redis they would compete with pages, products and
//! collections for memory.

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use super::budgets::Admission;
use super::{EdgeCache, Inner, L2Found};
use crate::cache::entry::{CachedResponse, Fetched};
use crate::cache::entry_state::EntryState;
use crate::cache::failure::FetchFailure;
use crate::cache::l2::{LockAttempt, SharedTier, Written};
use crate::cache::lookup::Lookup;
use crate::cache::policy::{CachePolicy, RouteKind};
use crate::cache::rendered::{Epochs, Rendered, StoredDocument};
use crate::cache::tag::CacheTag;
use crate::coordination::single_flight;
use crate::observe::metrics::RedisEvent;
use crate::upstream::UpstreamError;

impl Inner {
    /// The shared tier for `route`'s entries: none for search results (see the module's docs);
    /// each replica keeps its searches in its own budget (`cache.search_capacity_bytes`).
    pub(super) fn shared_for(&self, route: RouteKind) -> Option<&SharedTier> {
        self.shared.as_ref().filter(|_| route != RouteKind::Search)
    }
}

impl EdgeCache {
    /// The shared tier that holds `route`'s entries, if any.
    pub(in crate::cache) fn shared_tier_for(&self, route: RouteKind) -> Option<&SharedTier> {
        self.inner.shared_for(route)
    }

    /// The L2 entry for `key` (one read per key in flight on this replica), stored in L1 when
    /// found, and whether L2 held one a purge had outdated. `None` without Redis.
    pub(super) async fn read_l2(
        &self,
        route: RouteKind,
        key: &str,
        policy: &CachePolicy,
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
                let generation = inner.versions.generation();
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
            .insert(key.to_owned(), rendered.clone(), false);
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

/// The entry for `key` from the upstream, and whether another replica fetched it. With L2, one
/// replica across all of them fetches (the fill lock's holder, which writes L2); the others wait
/// for its value, and fetch on their own when it stores none or Redis fails them.
pub(super) async fn fetch_entry<F, Fut>(
    inner: &Inner,
    route: RouteKind,
    key: &str,
    policy: &CachePolicy,
    tag: CacheTag,
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
                    && EntryState::at(&entry.freshness(policy), Instant::now()) == EntryState::Fresh
                {
                    shared.release(lock).await;
                    return Ok((entry, true));
                }
                let epoch = shared.epoch().await;
                let fetched = fetch().await;
                let result = fetched.map(build).map_err(FetchFailure::from);
                // L2 admits what L1's budgets do, but no 404s.
                if let (Ok(entry), Ok(epoch)) = (&result, &epoch)
                    && Admission::of(entry, policy) == Admission::Admitted
                    && !entry.is_negative()
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
