//! Where an entry stands at one instant: the states its windows (see [`Freshness`]) and this
//! replica's hearing of purges give it. The lookup's hit path, the refresh under the fill lock
//! and the admin views (explain) all read this one type rather than each comparing instants.
//!
//! An entry that is absent has no state here: why its next lookup misses is a
//! [`super::miss_reason::MissReason`] (its tombstone, else cold).

use std::time::Instant;

use super::entry::Freshness;
use super::status::CacheState;

/// A stored entry's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryState {
    /// Within its ttl: served as it is.
    Fresh,
    /// Within its ttl by its dates, but stored before this replica lost the purge channel (it
    /// may have been purged unheard): served stale while one refresh runs.
    Unvouched,
    /// Past its ttl, within stale-while-revalidate: served while one background refresh runs.
    Stale,
    /// Past stale-while-revalidate, within stale-if-error: not served as it is, but kept at hand
    /// while a lookup goes forward, for when the upstream fails or is slower than
    /// `cache.stale_wait`.
    StaleIfError,
    /// Past every window: of no more use (moka drops it at its hard limit).
    Expired,
}

impl EntryState {
    /// The state `freshness`'s windows give at `now`, whoever stored it.
    #[inline]
    pub fn at(freshness: &Freshness, now: Instant) -> Self {
        if freshness.is_fresh(now) {
            Self::Fresh
        } else if freshness.within_stale_while_revalidate(now) {
            Self::Stale
        } else if freshness.within_stale_if_error(now) {
            Self::StaleIfError
        } else {
            Self::Expired
        }
    }

    /// The state a lookup serves: a fresh entry this replica cannot vouch for (stored before it
    /// lost the purge channel) is [`Self::Unvouched`].
    #[inline]
    pub fn vouched(self, vouched: bool) -> Self {
        match self {
            Self::Fresh if !vouched => Self::Unvouched,
            state => state,
        }
    }

    /// What a lookup that finds the entry in this state answers from storage at once: a hit,
    /// or stale while one refresh runs; `None` when it goes forward.
    #[inline]
    pub fn served_as(self) -> Option<CacheState> {
        match self {
            Self::Fresh => Some(CacheState::Hit),
            Self::Unvouched | Self::Stale => Some(CacheState::Stale),
            Self::StaleIfError | Self::Expired => None,
        }
    }

    /// Whether a lookup that went forward may still serve the entry should the upstream fail
    /// or be slow (stale-if-error).
    pub fn serves_on_error(self) -> bool {
        self == Self::StaleIfError
    }

    /// Its name in the admin views.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Fresh => "fresh",
            Self::Unvouched => "unvouched",
            Self::Stale => "stale",
            Self::StaleIfError => "stale-if-error",
            Self::Expired => "expired",
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn windows(now: Instant) -> Freshness {
        Freshness {
            fresh_until: now + Duration::from_secs(10),
            stale_until: now + Duration::from_secs(20),
            error_until: now + Duration::from_secs(30),
            swr: Duration::from_secs(10),
            sie: Duration::from_secs(20),
        }
    }

    #[test]
    fn the_windows_give_the_states_in_order() {
        let now = Instant::now();
        let freshness = windows(now);
        let at = |seconds| EntryState::at(&freshness, now + Duration::from_secs(seconds));
        assert_eq!(at(0), EntryState::Fresh);
        assert_eq!(at(15), EntryState::Stale);
        assert_eq!(at(25), EntryState::StaleIfError);
        assert_eq!(at(35), EntryState::Expired);
    }

    #[test]
    fn only_a_fresh_entry_this_replica_vouches_for_is_a_hit() {
        assert_eq!(
            EntryState::Fresh.vouched(true).served_as(),
            Some(CacheState::Hit)
        );
        assert_eq!(
            EntryState::Fresh.vouched(false).served_as(),
            Some(CacheState::Stale)
        );
        assert_eq!(
            EntryState::Stale.vouched(true).served_as(),
            Some(CacheState::Stale)
        );
        assert_eq!(EntryState::StaleIfError.served_as(), None);
        assert!(EntryState::StaleIfError.serves_on_error());
        assert_eq!(EntryState::Expired.vouched(false), EntryState::Expired);
        assert!(!EntryState::Expired.serves_on_error());
    }
}
