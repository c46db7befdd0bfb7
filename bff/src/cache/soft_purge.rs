//! Soft purges: what a purge names is marked stale instead of removed, so the next request is
//! served stale (`Cache-Status: ...; detail=stale`) while one refresh runs, and the upstream
//! sees one request, not a stampede. L2 is marked the same way (see [`super::l2`]).
//!
//! A soft-purged entry's stale-while-revalidate window counts from the purge; a route with no
//! such window behaves as after a hard purge, except that the stale copy is still at hand for
//! stale-if-error.

use super::entry::CachedResponse;
use crate::coordination::replicas::purge_bus::Purge;

/// Which L1 entries (by key and entry) `purge` names: what a soft purge marks stale.
pub(super) fn names(purge: &Purge) -> impl Fn(&str, &CachedResponse) -> bool + '_ {
    move |key, entry| match purge {
        Purge::Tags(tags) => entry.tags.iter().any(|tag| tags.contains(tag)),
        Purge::Keys(keys) => keys.iter().any(|named| named == key),
        Purge::AllExceptTags(kept) => !entry.tags.iter().any(|tag| kept.contains(tag)),
        Purge::All => true,
    }
}
