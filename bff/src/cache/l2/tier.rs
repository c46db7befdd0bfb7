//! The handle on one cache's shared tier: the Redis it lives in, the MAC that signs and checks
//! its values, the purge channel, what this replica remembers of the purge versions, and the
//! fill locks. The jobs done with it (read, write, purge, explain, the version floor) each live
//! in a file of their own beside this one, as `impl SharedTier` blocks.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::fill_lock::{FillLock, FillLocks, LockAttempt};
use crate::cache::entry::CachedResponse;
use crate::cache::policy::{CachePolicy, RouteKind};
use crate::cache::versions::VersionMemory;
use crate::coordination::replicas::Redis;
use crate::coordination::replicas::purge_bus::PurgeBus;
use crate::coordination::shared_tier_mac::SharedTierMac;

/// The L2 tier and the purge fan-out of one cache.
pub(in crate::cache) struct SharedTier {
    pub(super) redis: Redis,
    /// Signs what this replica writes, and checks what it reads.
    pub(super) mac: SharedTierMac,
    pub(in crate::cache) bus: PurgeBus,
    /// The highest purge versions seen, to restore any that went back.
    pub(super) versions: VersionMemory,
    /// The longest an entry can live: how long version keys and the memory of them last.
    pub(super) lifetime: Duration,
    /// This replica's id, recorded with every value it writes.
    pub(super) replica: String,
    /// One fetch per key across replicas.
    fill_locks: FillLocks,
}

impl SharedTier {
    /// The tier in `redis`, its values signed and checked with `mac`, for entries that live at
    /// most `lifetime`, shared by `replica`.
    pub(in crate::cache) fn new(
        redis: Redis,
        mac: SharedTierMac,
        lifetime: Duration,
        replica: String,
    ) -> Self {
        Self {
            mac,
            bus: PurgeBus::new(redis.clone(), replica.clone()),
            replica,
            fill_locks: FillLocks::new(redis.clone()),
            redis,
            versions: VersionMemory::new(lifetime),
            lifetime,
        }
    }

    pub(in crate::cache) fn redis(&self) -> &Redis {
        &self.redis
    }

    /// Tries to become the one replica that fills `key`.
    pub(in crate::cache) async fn try_lock(&self, key: &str) -> LockAttempt {
        self.fill_locks.try_lock(key).await
    }

    pub(in crate::cache) async fn release(&self, lock: FillLock) {
        FillLocks::release(lock).await;
    }

    /// Waits while another replica holds `key`'s fill lock, then reads what it stored.
    /// `None`: the holder stored nothing (it failed, or the answer was not cacheable), Redis
    /// went away, or the wait hit its bound; the caller tries the lock again or fetches.
    pub(in crate::cache) async fn wait_for_fill(
        &self,
        route: RouteKind,
        key: &str,
        policy: &CachePolicy,
        deadline: Instant,
    ) -> Option<Arc<CachedResponse>> {
        if !self.fill_locks.wait_while_held(key, deadline).await {
            return None;
        }
        self.read(route, key, policy).await
    }

    /// The deadline for waiting on other replicas' fills, from now.
    pub(in crate::cache) fn wait_deadline() -> Instant {
        FillLocks::wait_deadline()
    }
}
