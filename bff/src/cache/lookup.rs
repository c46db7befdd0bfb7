//! The answer to one lookup: the entry, its freshness and what the cache did.

use std::sync::Arc;

use super::entry::{CachedResponse, Freshness};
use super::miss_reason::MissReason;
use super::status::CacheState;

/// The answer to one lookup.
#[derive(Debug, Clone)]
pub struct Lookup {
    /// The entry's key (`route:title`).
    pub key: String,
    pub entry: Arc<CachedResponse>,
    /// The entry's windows under the policy in force at lookup time.
    pub freshness: Freshness,
    pub state: CacheState,
    /// Whether this lookup's fetch stored the entry.
    pub stored: bool,
    /// The upstream status this lookup's fetch saw, if it fetched.
    pub forward_status: Option<u16>,
    /// A stale copy was at hand when this lookup went forward for a new one (RFC 9211
    /// `fwd=stale` rather than `fwd=uri-miss`).
    pub stale_copy: bool,
    /// The entry served came from L2 (Redis) for this lookup: this replica's L1 had none.
    pub from_l2: bool,
    /// Why this lookup missed (states `miss` and `coalesced`); `None` when it was served from
    /// storage.
    pub miss_reason: Option<MissReason>,
}
