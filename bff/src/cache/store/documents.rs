//! Server-rendered documents made of parts (the entries their page reads): remembered here while
//! every part is what it was, served stale while the next render runs, and recompressed later.
//! Sharing them with the other replicas through L2 is [`super::shared`]'s.

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;

use super::EdgeCache;
use crate::cache::local_versions::Epochs;
use crate::cache::lookup::Lookup;
use crate::cache::policy::RouteKind;
use crate::cache::rendered::Rendered;

impl EdgeCache {
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
        self.inner
            .remembered
            .insert(key, rendered.clone(), searched);
        Some(rendered)
    }

    /// The permit a document recompression holds while it runs.
    pub(in crate::cache) fn recompressing(&self) -> &Arc<tokio::sync::Semaphore> {
        &self.inner.recompressing
    }

    /// Puts `better` in place of the document remembered under `key`, if that is still
    /// `current` (a newer render, or a purge since, wins): `true` when it did.
    pub(in crate::cache) fn replace_remembered_document(
        &self,
        key: &str,
        current: &Arc<Rendered>,
        better: Arc<Rendered>,
    ) -> bool {
        self.inner.remembered.replace(key, current, better)
    }

    /// The remembered document for `key`, if it is still current at `now`: [`Self::remembered`]
    /// over both budgets (documents of search results live in their own).
    pub fn remembered_document(&self, key: &str, now: Instant) -> Option<Arc<Rendered>> {
        self.remembered(key, now).or_else(|| {
            self.inner
                .remembered
                .current_search(key, &self.inner.versions, now)
        })
    }

    /// The counters as of now, when every part is still the entry its lookup returned: the
    /// epochs of an answer whose parts this very request stored (each store bumps its route's
    /// counter, so counters read before those lookups would make the answer stale at once). A
    /// store or purge that replaced a part before this read shows as a changed entry (`None`);
    /// one after it bumps the counters returned.
    pub async fn epochs_if_unchanged(&self, parts: &[&Lookup]) -> Option<Epochs> {
        let epochs = self.inner.versions.epochs();
        for part in parts {
            let current = self
                .inner
                .budgets
                .of_entry(&part.entry)
                .get(&part.key)
                .await?;
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
            .any(key)
            .filter(|answer| answer.within_stale_window(now))
    }

    /// The document remembered at `key` here: whether it is current, and what it weighs.
    pub(in crate::cache) fn document_state(&self, key: &str, now: Instant) -> Option<(bool, u32)> {
        let answer = self.inner.remembered.any(key)?;
        Some((
            answer.is_current(&self.inner.versions, now),
            answer.weight(key),
        ))
    }
}
