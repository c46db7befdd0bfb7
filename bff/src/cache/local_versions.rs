//! What changed since: this replica's version counters and purge epochs, in one type.
//!
//! Whatever a reader holds (a fetch on its way, a remembered answer, an entry in L1) is checked
//! against one of them before it is stored or served:
//! - the **purge generation**, bumped by every purge (hard or soft): a fetch that started before
//!   a purge does not store its answer, so a purge can never be undone by a response already on
//!   its way;
//! - the **route epochs** ([`Epochs`]), one counter per route kind, bumped after every store into
//!   that kind and after every purge and policy reload: a remembered answer keeps the counters
//!   read *before* its parts were looked up, so a store or purge that lands at any point after
//!   that makes it outdated (see [`crate::cache::rendered`]);
//! - the **unheard window**: while the purge channel is lost, entries stored before then may
//!   have been purged unheard, so none of them is vouched for as fresh.
//!
//! L2's versions (of tags, keys and routes, and its purge epoch) live in Redis, beside the
//! entries they cover (see `cache::l2`); the store reads L2's epoch through its shared tier.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::cache::policy::RouteKind;

/// The route epochs of every route kind, as read at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Epochs([u64; RouteKind::ALL.len()]);

/// The live counters (see the module's docs).
#[derive(Debug, Default)]
pub(in crate::cache) struct Versions {
    generation: AtomicU64,
    epochs: [AtomicU64; RouteKind::ALL.len()],
    /// While the purge channel is lost: when it was.
    unheard_since: Mutex<Option<Instant>>,
    /// Whether `unheard_since` is set: the lookups' check without the lock.
    unheard: AtomicBool,
}

impl Versions {
    /// The purge generation, read before a fetch or an L2 read whose answer is to be stored.
    pub(in crate::cache) fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Whether a purge happened since `generation` was read.
    pub(in crate::cache) fn purged_since(&self, generation: u64) -> bool {
        self.generation() != generation
    }

    /// Before a purge drops or marks anything: fetches already under way keep their answers.
    pub(in crate::cache) fn purging(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// The route epochs as of now.
    pub(in crate::cache) fn epochs(&self) -> Epochs {
        Epochs(std::array::from_fn(|index| {
            self.epochs[index].load(Ordering::Acquire)
        }))
    }

    /// After a store into (or a removal from) `route` (the entry is visible before the bump).
    pub(in crate::cache) fn changed(&self, route: RouteKind) {
        self.epochs[route.index()].fetch_add(1, Ordering::AcqRel);
    }

    /// After a purge or a reload: every remembered answer is outdated.
    pub(in crate::cache) fn changed_all(&self) {
        for counter in &self.epochs {
            counter.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// Whether `route`'s epoch is still the one in `since`.
    #[inline]
    pub(in crate::cache) fn unchanged(&self, since: &Epochs, route: RouteKind) -> bool {
        self.epochs[route.index()].load(Ordering::Acquire) == since.0[route.index()]
    }

    /// Opens (`Some`: the purge channel was lost then) or closes (`None`: joined again) the
    /// unheard window.
    pub(in crate::cache) fn set_unheard_since(&self, since: Option<Instant>) {
        let mut unheard_since = self
            .unheard_since
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *unheard_since = since;
        self.unheard.store(since.is_some(), Ordering::Release);
    }

    /// Whether an entry stored at `stored_at` can be served as fresh: it was stored while this
    /// replica heard every purge (the purge channel is joined, or was lost only after the entry
    /// was stored). One atomic load while the channel is joined.
    #[inline]
    pub(in crate::cache) fn vouches_for(&self, stored_at: Instant) -> bool {
        if !self.unheard.load(Ordering::Acquire) {
            return true;
        }
        self.unheard_since
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_none_or(|since| stored_at >= since)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_change_outdates_its_route_and_a_purge_every_route() {
        let versions = Versions::default();
        let before = versions.epochs();
        versions.changed(RouteKind::Pages);
        assert!(!versions.unchanged(&before, RouteKind::Pages));
        assert!(versions.unchanged(&before, RouteKind::Product));
        let before = versions.epochs();
        versions.changed_all();
        assert!(
            RouteKind::ALL
                .iter()
                .all(|route| !versions.unchanged(&before, *route))
        );
    }

    #[test]
    fn a_purge_is_seen_by_whoever_read_the_generation_before_it() {
        let versions = Versions::default();
        let generation = versions.generation();
        assert!(!versions.purged_since(generation));
        versions.purging();
        assert!(versions.purged_since(generation));
    }

    #[test]
    fn entries_stored_before_the_channel_was_lost_are_not_vouched_for_until_it_is_joined() {
        let versions = Versions::default();
        let stored_at = Instant::now();
        assert!(versions.vouches_for(stored_at));
        versions.set_unheard_since(Some(stored_at + Duration::from_millis(1)));
        assert!(!versions.vouches_for(stored_at));
        assert!(versions.vouches_for(stored_at + Duration::from_millis(2)));
        versions.set_unheard_since(None);
        assert!(versions.vouches_for(stored_at));
    }
}
