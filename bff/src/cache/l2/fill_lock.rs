//! One fetch per key across replicas: the fill lock. A cold key requested on many replicas at
//! once is fetched by the one that takes its lock (`SET NX PX`, renewed while the fetch runs,
//! released when it ends); the others wait for the value in L2, and fetch on their own when the
//! holder dies or gives nothing. The lock is a [`Lease`] that publishes nothing: its value is
//! the entry the holder writes. The locks, one key each, spread over a cluster.

use std::time::{Duration, Instant};

use crate::coordination::lease::{self, Claim, Held, Keys, Lease, OnDrop, Operations, WhenDown};
use crate::coordination::replicas::Redis;

/// How long a fill lock lives without renewal: a holder that dies frees the key this soon. A
/// live holder renews it every third of this (every second).
const LOCK_TTL: Duration = Duration::from_secs(3);
/// How often a replica waiting on another's fill looks again.
const WAIT_POLL: Duration = Duration::from_millis(20);
/// The longest a replica waits on others' fills before fetching on its own, whatever the locks
/// say (a holder's fetch is bounded by its upstream timeout; this bounds a confused one).
const WAIT_MAX: Duration = Duration::from_secs(15);

/// The fill lock's Redis commands, as `bff_redis_errors_total` names them.
const FILL_LOCK: Operations = Operations {
    claim: "cache_fill_lock",
    renew: "cache_fill_lock_renew",
    release: "cache_fill_lock_release",
    publish: "cache_fill_lock_publish",
    peek: "cache_fill_wait",
};

/// The outcome of trying a key's fill lock.
pub(in crate::cache) enum LockAttempt {
    Acquired(FillLock),
    /// Another replica is filling the key.
    Held,
    Unavailable,
}

/// A held fill lock: renewed in the background until released or dropped.
pub(in crate::cache) type FillLock = Held;

/// The fill locks of one cache's shared tier.
pub(super) struct FillLocks {
    redis: Redis,
    /// A fill is an upstream read, safe to redo: a holder dropped mid-fetch releases its lock
    /// at once.
    lease: Lease,
}

impl FillLocks {
    pub(super) fn new(redis: Redis) -> Self {
        Self {
            lease: Lease::new(redis.clone(), LOCK_TTL, true, OnDrop::Release, FILL_LOCK),
            redis,
        }
    }

    fn keys(&self, key: &str) -> Keys {
        Keys::lease_only(self.redis.key(&["cache", "lock", key]))
    }

    /// Tries to become the one replica that fills `key`.
    pub(super) async fn try_lock(&self, key: &str) -> LockAttempt {
        match self.lease.claim(&self.keys(key), &Lease::new_token()).await {
            Claim::Claimed(lock) => LockAttempt::Acquired(lock),
            // A lock alone publishes nothing: its value is the entry the holder writes.
            Claim::Busy | Claim::Published(_) => LockAttempt::Held,
            Claim::Unavailable => LockAttempt::Unavailable,
        }
    }

    pub(super) async fn release(lock: FillLock) {
        let _ = lock.release().await;
    }

    /// Waits while another replica holds `key`'s fill lock: `true` once it is free, `false`
    /// when Redis went away or the wait hit `deadline`.
    pub(super) async fn wait_while_held(&self, key: &str, deadline: Instant) -> bool {
        let keys = self.keys(key);
        let deadline = tokio::time::Instant::from_std(deadline);
        let freed = lease::wait_until(deadline, WAIT_POLL, WhenDown::Stop, || async {
            Ok((!self.lease.is_held(&keys).await?).then_some(()))
        })
        .await;
        match freed {
            lease::Waited::Ready(()) => true,
            lease::Waited::TimedOut | lease::Waited::Unavailable => false,
        }
    }

    /// The deadline for waiting on other replicas' fills, from now.
    pub(super) fn wait_deadline() -> Instant {
        Instant::now() + WAIT_MAX
    }
}
