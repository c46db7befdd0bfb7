//! Writes a shopper would miss (a sign-out's revocation) that Redis did not take, or took
//! without a replica's acknowledgement, kept to be written again.
//!
//! During a failover the old primary is gone and the new one not yet followed: such a write
//! fails, and holds on its own replica only. Once the tier answers again, the other replicas
//! read the new primary, which never had it: a signed-out cookie would work again there. A
//! write a replica did not acknowledge is as exposed: a primary killed right after it takes it
//! along. So these writes are kept here, and the monitor writes them again (with `WAIT`) on
//! each check that finds the server answering, before it reports the tier connected. Each
//! write is an idempotent `SET … PX`, so writing it twice is harmless.
//!
//! Bounded: at most `MAX_PENDING` writes (the oldest dropped first, with a warning), each
//! kept no longer than the life of what it records.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::Redis;
use super::connection::Connection;
use super::replication::Replication;

/// Writes kept at most: a bound on memory during a long outage.
const MAX_PENDING: usize = 10_000;

/// One write to make again.
struct Pending {
    /// As `bff_redis_errors_total` names it.
    operation: &'static str,
    command: redis::Cmd,
    /// Past this, what it records has expired anyway.
    until: Instant,
}

#[derive(Default)]
pub(super) struct PendingWrites {
    writes: Mutex<VecDeque<Pending>>,
}

impl PendingWrites {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Pending>> {
        self.writes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn push(&self, pending: Pending) {
        let mut writes = self.lock();
        if writes.len() == MAX_PENDING
            && let Some(dropped) = writes.pop_front()
        {
            tracing::warn!(
                operation = dropped.operation,
                "too many writes waiting for Redis; the oldest is dropped and holds on this replica only"
            );
        }
        writes.push_back(pending);
    }
}

impl Redis {
    /// Keeps `command` (an idempotent write) to be written again once Redis answers, for at
    /// most `lifetime`: after the write failed, or no replica acknowledged it.
    pub fn keep_for_replay(
        &self,
        operation: &'static str,
        command: redis::Cmd,
        lifetime: Duration,
    ) {
        self.inner.pending_writes.push(Pending {
            operation,
            command,
            until: Instant::now() + lifetime,
        });
    }

    /// Writes the kept writes again, oldest first, on a connection of their own: just after
    /// the server came back, a pooled connection may still hold the old one and fail its next
    /// command. Stops at the first write Redis does not take or no replica acknowledges (it
    /// is kept, with those after it, for the next check).
    pub(super) async fn replay_pending_writes(&self) {
        {
            let mut writes = self.inner.pending_writes.lock();
            let now = Instant::now();
            // What they record has expired anyway.
            writes.retain(|pending| pending.until > now);
            if writes.is_empty() {
                return;
            }
        }
        let Some(mut connection) = self.fresh_connection().await else {
            return;
        };
        loop {
            let Some(pending) = self.inner.pending_writes.lock().pop_front() else {
                return;
            };
            let written = self
                .within_timeout(
                    pending.operation,
                    pending.command.query_async::<()>(&mut connection),
                )
                .await;
            let replication = match written {
                Ok(()) => {
                    self.replicated(
                        pending.operation,
                        &mut connection,
                        &super::written_key(&pending.command),
                    )
                    .await
                }
                Err(_) => Replication::NotShared,
            };
            if matches!(
                replication,
                Replication::Acknowledged | Replication::NoReplicas
            ) {
                tracing::info!(
                    operation = pending.operation,
                    "a write Redis had missed was written again"
                );
            } else {
                self.inner.pending_writes.lock().push_front(pending);
                return;
            }
        }
    }

    /// A new connection to the server of the moment, within `redis.connect_timeout`. On a
    /// cluster, the pool's own: the cluster client reconnects to each node by itself and
    /// routes each write to its slot's primary.
    async fn fresh_connection(&self) -> Option<Connection> {
        if self.inner.cluster {
            return Some(self.connection());
        }
        let client = self.client().ok()?;
        let manager = redis::aio::ConnectionManager::new_with_config(
            client,
            self.inner.manager_config.clone(),
        );
        tokio::time::timeout(self.inner.connect_timeout * 2, manager)
            .await
            .ok()?
            .ok()
            .map(Connection::Single)
    }

    /// How many writes wait to be written again.
    pub fn pending_writes(&self) -> usize {
        self.inner.pending_writes.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::config::RedisConfig;
    use crate::observe::metrics::Metrics;

    /// A handle on a port where nothing listens: every command fails at once.
    fn unreachable() -> Redis {
        let config = RedisConfig {
            url: "redis://127.0.0.1:1/".to_owned(),
            ..RedisConfig::default()
        };
        Redis::from_config(&config, None, Arc::new(Metrics::new()))
            .ok()
            .flatten()
            .unwrap()
    }

    #[tokio::test]
    async fn a_write_redis_does_not_take_stays_kept_and_an_expired_one_is_dropped() {
        let redis = unreachable();
        let mut set = redis::cmd("SET");
        set.arg("k").arg(1);
        redis.keep_for_replay("session_revoke", set.clone(), Duration::from_secs(60));
        redis.keep_for_replay("session_revoke", set, Duration::ZERO);
        assert_eq!(redis.pending_writes(), 2);
        redis.replay_pending_writes().await;
        assert_eq!(
            redis.pending_writes(),
            1,
            "the expired one dropped, the other kept"
        );
        redis.replay_pending_writes().await;
        assert_eq!(redis.pending_writes(), 1);
    }

    #[test]
    fn the_oldest_write_goes_first_when_the_bound_is_reached() {
        let writes = PendingWrites::default();
        for index in 0..=MAX_PENDING {
            let mut command = redis::cmd("SET");
            command.arg(index);
            writes.push(Pending {
                operation: "session_revoke",
                command,
                until: Instant::now() + Duration::from_secs(60),
            });
        }
        let kept = writes.lock();
        assert_eq!(kept.len(), MAX_PENDING);
        assert_eq!(
            kept.front()
                .map(|pending| pending.command.get_packed_command()),
            {
                let mut second = redis::cmd("SET");
                second.arg(1);
                Some(second.get_packed_command())
            }
        );
    }
}
