//! Whether a write reached a Redis replica: the answer to `WAIT` after writes whose loss a
//! shopper would see (a purge, a checkout's idempotency marker and answer, a sign-out's
//! revocation, the rollout window's close). Replication is asynchronous; a primary that dies
//! before its replica has a write loses it in a failover, and `WAIT` is how the BFF learns
//! which writes are safe. It does not make a write durable: an unacknowledged one is counted
//! (`bff_redis_unacknowledged_writes_total{operation}`) and, for a purge, said in its answer.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Replication {
    /// A replica acknowledged the write within `redis.replica_ack_timeout`.
    Acknowledged,
    /// The server has no replica: there is nothing to wait for (nor to fail over to).
    NoReplicas,
    /// No replica acknowledged in time: the write would be lost if the primary died now.
    Unacknowledged,
    /// Redis did not take the write (down, or not configured): it holds on this replica alone.
    NotShared,
}

impl Replication {
    /// The less safe of two, for an answer that covers several writes.
    pub fn worst(self, other: Self) -> Self {
        let rank = |replication: Self| match replication {
            Self::Acknowledged => 0,
            Self::NoReplicas => 1,
            Self::Unacknowledged => 2,
            Self::NotShared => 3,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }
}
