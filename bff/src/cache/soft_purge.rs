//! Soft purges: what a purge names is marked stale instead of removed, so the next request is
//! served stale (`Cache-Status: ...; detail=stale`) while one refresh runs, and the upstream
//! sees one request, not a stampede. L2 is marked the same way (see [`super::l2`]).
//!
//! A soft-purged entry's stale-while-revalidate window counts from the purge; a route with no
//! such window behaves as after a hard purge, except that the stale copy is still at hand for
//! stale-if-error.

use super::store::EdgeCache;
use crate::coordination::replicas::purge_bus::Purge;

/// Marks the L1 entries `purge` names stale from now; returns how many.
pub(super) async fn mark_stale(cache: &EdgeCache, purge: &Purge) -> u64 {
    match purge {
        Purge::Tags(tags) => {
            cache
                .mark_stale_where(|_, entry| entry.tags.iter().any(|tag| tags.contains(tag)))
                .await
        }
        Purge::Keys(keys) => {
            cache
                .mark_stale_where(|key, _| keys.iter().any(|named| named == key))
                .await
        }
        Purge::AllExceptTags(kept) => {
            cache
                .mark_stale_where(|_, entry| !entry.tags.iter().any(|tag| kept.contains(tag)))
                .await
        }
        Purge::All => cache.mark_stale_where(|_, _| true).await,
    }
}
