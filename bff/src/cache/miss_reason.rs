//! Why a lookup missed: one reason per miss, named the same in `bff_cache_misses_total`, the
//! `cache.lookup` span (`cache.miss_reason`), `/admin/cache/explain` and the top lists.

/// The one reason a lookup found nothing it could serve. Decided on the miss path only: from
/// the entry still at hand (expired), L2's answer (outdated in L2), or the tombstone a removal
/// left (see [`super::tombstones`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MissReason {
    /// Never cached here (or forgotten: tombstones are bounded).
    Cold,
    /// Past its stale window: the entry is of no more use.
    Expired,
    /// Pushed out for room (the L1 byte budget).
    Evicted,
    /// Removed by a purge (named by the purge's id when it has one).
    Purged,
    /// The last answer was over the route's `max_entry_bytes`: served, not stored.
    TooLarge,
    /// The last fetch brought nothing storable (a 5xx, a timeout, no connection).
    NotCacheable,
    /// A request the cache does not serve (a title over the length limit).
    Bypassed,
    /// L2 held it, under versions a purge has moved past.
    OutdatedInL2,
}

impl MissReason {
    pub const ALL: [MissReason; 8] = [
        MissReason::Cold,
        MissReason::Expired,
        MissReason::Evicted,
        MissReason::Purged,
        MissReason::TooLarge,
        MissReason::NotCacheable,
        MissReason::Bypassed,
        MissReason::OutdatedInL2,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Cold => "cold",
            Self::Expired => "expired",
            Self::Evicted => "evicted",
            Self::Purged => "purged",
            Self::TooLarge => "too_large",
            Self::NotCacheable => "not_cacheable",
            Self::Bypassed => "bypassed",
            Self::OutdatedInL2 => "outdated_in_l2",
        }
    }

    /// The position in [`Self::ALL`]: the pre-resolved counters' index.
    pub const fn index(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_sits_at_its_index() {
        for (index, reason) in MissReason::ALL.iter().enumerate() {
            assert_eq!(reason.index(), index, "{}", reason.as_str());
        }
    }
}
