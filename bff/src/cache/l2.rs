//! The second cache tier, in Redis, shared by every replica: L1 (moka, per process) → L2 →
//! upstream. An L1 miss reads L2 before the upstream; a fill writes both. A cold key requested
//! on many replicas at once is fetched by one of them: the one that takes the key's fill lock
//! (`SET NX PX`, renewed while the fetch runs, released when it ends); the others wait for the
//! value in L2, and fetch on their own when the holder dies or gives nothing.
//!
//! Purges never scan Redis. Every stored entry records the versions of its tags and of its
//! route, read atomically when it is written; a purge increments those versions, and a read that
//! finds a recorded version out of date drops the entry. A fill also carries the purge epoch it
//! saw before fetching, and is refused when any purge happened since, so an answer already on
//! its way can never undo a purge (as the L1's own generation counter does in process).
//! A server-rendered document is stored the same way, with its parts' tags and also their keys'
//! versions (a purge by key bumps those), so a purge that names any of its parts outdates it.
//!
//! Every value carries a MAC ([`SharedTierMac`]) over its key, its bodies, its meta and the
//! versions it was recorded under: one this fleet did not write (by hand, or from an old value
//! put back after a purge) is a miss, refetched and written over.
//!
//! [`SharedTierMac`]: crate::coordination::shared_tier_mac::SharedTierMac
//!
//! Every Redis failure here is a fallback, never an error: no L2 value, or a fetch of our own.
//!
//! One job per file, each an `impl` of [`SharedTier`] or a type it holds:
//! - [`tier`]: the handle (Redis, MAC, purge channel, version memory, fill locks);
//! - [`keys`]: the names of its keys in Redis, and why they share one slot;
//! - [`wire`]: the fields of a stored value and those its MAC covers;
//! - [`read`]: an entry or a document, checked against its recorded versions;
//! - [`write`]: an entry or a document, refused when a purge overtook it, within the byte budget;
//! - [`purge`]: moving the version counters and the epoch, hard or soft;
//! - [`version_floor`]: the purge epoch, and versions that went back in a failover;
//! - [`fill_lock`]: one fetch per key across replicas;
//! - [`inspect`]: what L2 holds at a key, for explain.

mod fill_lock;
mod inspect;
mod keys;
mod purge;
mod read;
mod tier;
mod version_floor;
mod wire;
mod write;

pub(super) use fill_lock::LockAttempt;
pub(super) use tier::SharedTier;
pub(super) use write::Written;
