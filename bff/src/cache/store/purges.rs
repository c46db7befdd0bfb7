//! Purges: applied in L2, here, and on every other replica (through the purge channel), in that
//! order; kept for later when Redis does not take them. Hard purges drop what they name, soft
//! ones mark it stale (see [`crate::cache::soft_purge`]); either leaves a tombstone naming the
//! purge, and outdates every remembered answer.

use std::sync::Arc;
use std::time::Instant;

use super::EdgeCache;
use crate::cache::entry::CachedResponse;
use crate::cache::miss_reason::MissReason;
use crate::cache::purge_receipt::PurgeOrder;
use crate::coordination::replicas::purge_bus::{Purge, PurgeMode};
use crate::coordination::replicas::replication::Replication;

/// What a purge did: the entries this replica dropped (or, soft, marked stale), and whether its
/// L2 write reached a Redis replica (a failover before it does would undo the purge in L2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PurgeReport {
    pub purged: u64,
    pub replication: Replication,
    /// The L2 version counters it moved, each covering every L2 entry of a tag, a key or a
    /// route (L2 is never scanned); 0 without Redis or when Redis did not take it.
    pub l2_invalidated: u64,
    /// Whether the other replicas were told through the purge channel; `None` without Redis
    /// (this replica is the whole fleet). `Some(false)`: kept here, replayed when Redis returns.
    pub published: Option<bool>,
}

impl std::ops::Add for PurgeReport {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        let published = match (self.published, other.published) {
            (None, None) => None,
            (one, other) => Some(one.unwrap_or(true) && other.unwrap_or(true)),
        };
        Self {
            purged: self.purged + other.purged,
            replication: self.replication.worst(other.replication),
            l2_invalidated: self.l2_invalidated + other.l2_invalidated,
            published,
        }
    }
}

impl EdgeCache {
    /// Drops every entry carrying one of `tags`, on every replica; returns how many this
    /// replica held. A tag may be spelled as the purge API spells it (`product:summit lr`) or
    /// as `Surrogate-Key` writes it (`product:summit%20lr`), which is what an operator or a
    /// CDN's purge hook copies from an answer: both name the same entries.
    pub async fn purge_tags(&self, tags: &[String]) -> PurgeReport {
        self.purge(&PurgeOrder::new(tags_purge(tags), PurgeMode::Hard))
            .await
    }

    /// Drops the entries at `keys` (`route:title`, titles normalised like requests' are).
    pub async fn purge_keys(&self, keys: &[String]) -> PurgeReport {
        self.purge(&PurgeOrder::new(keys_purge(keys), PurgeMode::Hard))
            .await
    }

    /// Drops every entry that carries none of `kept` (the webhook's answer to a change it
    /// cannot map: all content, but not the price map).
    pub async fn purge_all_except_tags(&self, kept: &[String]) -> PurgeReport {
        self.purge(&PurgeOrder::new(
            Purge::AllExceptTags(kept.to_vec()),
            PurgeMode::Hard,
        ))
        .await
    }

    pub async fn purge_all(&self) -> PurgeReport {
        self.purge(&PurgeOrder::new(Purge::All, PurgeMode::Hard))
            .await
    }

    /// Applies `purge` in L2, here, and on every other replica (through the purge channel), in
    /// that order: L2 first, so a lookup or a document fill on this replica between the two
    /// can never read what is being purged back from L2 into L1 (with counters already bumped,
    /// it would be handed out as current until its next change).
    /// `order.id` names the purge on the channel, in the receipts and in the replicas' miss
    /// reasons (collect its receipts with [`Self::expect_receipts`] first).
    pub async fn purge(&self, order: &PurgeOrder) -> PurgeReport {
        let purge = &order.purge;
        let shared = match &self.inner.shared {
            Some(shared) if !is_empty(purge) => {
                Some((shared, shared.purge(purge, order.mode).await))
            }
            _ => None,
        };
        let purged = self.purge_local(order).await;
        let mut replication = if is_empty(purge) {
            Replication::NoReplicas
        } else {
            Replication::NotShared
        };
        let mut l2_invalidated = 0;
        let mut published = self.inner.shared.as_ref().map(|_| is_empty(purge));
        if let Some((shared, applied)) = shared {
            let sent = match applied {
                Some((version, replicated)) => {
                    replication = replicated;
                    l2_invalidated = shared.purge_scope(purge);
                    shared
                        .bus
                        .publish(&order.id, purge.clone(), Some(version), order.mode)
                        .await
                }
                None => false,
            };
            published = Some(sent);
            if !sent {
                self.keep_pending(order.clone());
            }
        }
        PurgeReport {
            purged,
            replication,
            l2_invalidated,
            published,
        }
    }

    /// Applies `purge` to L2 and publishes it; kept for later when Redis does not take it.
    async fn share_purge(&self, order: PurgeOrder) {
        let Some(shared) = &self.inner.shared else {
            return;
        };
        if is_empty(&order.purge) {
            return;
        }
        if let Some((version, _)) = shared.purge(&order.purge, order.mode).await
            && shared
                .bus
                .publish(&order.id, order.purge.clone(), Some(version), order.mode)
                .await
        {
            return;
        }
        self.keep_pending(order);
    }

    /// Keeps `order` for when Redis returns: it reached neither L2 nor the other replicas.
    fn keep_pending(&self, order: PurgeOrder) {
        tracing::warn!(
            purge = ?order.purge,
            id = %order.id,
            "purge kept for when Redis returns: it reached neither L2 nor the other replicas"
        );
        self.inner
            .pending_purges
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(order);
    }

    /// Shares again the purges Redis did not take while it was away.
    pub(super) async fn replay_pending_purges(&self) {
        let pending = std::mem::take(
            &mut *self
                .inner
                .pending_purges
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for order in pending {
            self.share_purge(order).await;
        }
    }

    /// Applies `order` to this replica's L1 only; returns how many entries it dropped (or, for
    /// a soft purge, marked stale). Every key it drops (and every key it names) is remembered
    /// as purged by the order's id.
    pub(super) async fn purge_local(&self, order: &PurgeOrder) -> u64 {
        let purged = if order.mode == PurgeMode::Soft {
            self.mark_stale_where(crate::cache::soft_purge::names(&order.purge))
        } else {
            self.drop_purged(order).await
        };
        self.inner.recent_purges.record(
            &order.purge,
            order.mode,
            Some(order.id.as_str()),
            &self.inner.replica_id,
            purged,
        );
        purged
    }

    /// A hard purge's half of [`Self::purge_local`]: drops what `order` names from L1.
    async fn drop_purged(&self, order: &PurgeOrder) -> u64 {
        let id: Option<Arc<str>> = Some(Arc::from(order.id.as_str()));
        match &order.purge {
            Purge::Tags(tags) => {
                let tags = tags.clone();
                self.purge_where(id, move |entry| {
                    entry.tags.iter().any(|tag| tags.contains(tag))
                })
                .await
            }
            Purge::Keys(keys) => {
                self.inner.versions.purging();
                let mut purged = 0;
                for key in keys {
                    for entries in self.inner.budgets.all() {
                        if entries.remove(key).await.is_some() {
                            purged += 1;
                        }
                    }
                    self.inner
                        .tombstones
                        .record(key, MissReason::Purged, id.clone());
                }
                self.inner.versions.changed_all();
                purged
            }
            Purge::AllExceptTags(kept) => {
                let kept = kept.clone();
                self.purge_where(id, move |entry| {
                    !entry.tags.iter().any(|tag| kept.contains(tag))
                })
                .await
            }
            Purge::All => self.purge_where(id, |_| true).await,
        }
    }

    /// Marks every L1 entry `predicate` picks (by key and entry) stale from now, for a soft
    /// purge (see [`crate::cache::soft_purge`]); returns how many it marked. Fetches already
    /// under way do not store their answers (they may predate the change), and the hit path's
    /// remembered answers are outdated, as by a purge.
    pub(in crate::cache) fn mark_stale_where(
        &self,
        predicate: impl Fn(&str, &CachedResponse) -> bool,
    ) -> u64 {
        self.inner.versions.purging();
        let now = Instant::now();
        let mut marked = 0;
        for entries in self.inner.budgets.all() {
            for (key, entry) in entries.iter() {
                if predicate(&key, &entry) && entry.mark_stale(now) {
                    marked += 1;
                }
            }
        }
        self.inner.versions.changed_all();
        marked
    }

    async fn purge_where(
        &self,
        purge_id: Option<Arc<str>>,
        predicate: impl Fn(&CachedResponse) -> bool + Send + Sync + 'static,
    ) -> u64 {
        self.inner.versions.purging();
        let mut purged = 0;
        for entries in self.inner.budgets.all() {
            let matching: Vec<Arc<String>> = entries
                .iter()
                .filter(|(_, entry)| predicate(entry))
                .map(|(key, _)| key)
                .collect();
            for key in &matching {
                entries.invalidate(key.as_str()).await;
                self.inner
                    .tombstones
                    .record(key, MissReason::Purged, purge_id.clone());
            }
            purged += matching.len() as u64;
        }
        self.inner.versions.changed_all();
        purged
    }

    /// The purges applied here that touched `key` (redacted) or `tags`, newest first.
    pub(in crate::cache) fn purges_touching(
        &self,
        key: &str,
        tags: &[String],
    ) -> Vec<crate::cache::recent_purges::AppliedPurge> {
        self.inner.recent_purges.touching(key, tags)
    }
}

/// The purge of `tags`, each as the purge API spells it (`product:summit lr`) or as
/// `Surrogate-Key` writes it (`product:summit%20lr`): both name the same entries.
pub fn tags_purge(tags: &[String]) -> Purge {
    let mut purged: Vec<String> = Vec::with_capacity(tags.len());
    for tag in tags {
        let tag = tag.trim().to_lowercase();
        let decoded = crate::cache::http::surrogate_key_tag(&tag);
        // both spellings when they differ: a tag that holds `%20` itself is purged too
        for name in [decoded, tag] {
            if !purged.contains(&name) {
                purged.push(name);
            }
        }
    }
    Purge::Tags(purged)
}

/// The purge of `keys` (`route:title`, titles normalised like requests' are).
pub fn keys_purge(keys: &[String]) -> Purge {
    let keys = keys
        .iter()
        .map(|key| match key.split_once(':') {
            Some((route, title)) => format!(
                "{}:{}",
                route.trim().to_lowercase(),
                crate::cache::key::normalise(title)
            ),
            None => key.trim().to_lowercase(),
        })
        .collect();
    Purge::Keys(keys)
}

/// A purge that names nothing (no tag, no key): nothing to share.
fn is_empty(purge: &Purge) -> bool {
    match purge {
        Purge::Tags(names) | Purge::Keys(names) => names.is_empty(),
        Purge::AllExceptTags(_) | Purge::All => false,
    }
}
