//! Writing again what Redis missed: the writes kept in [`super::pending_writes`], made again
//! by the monitor once the server answers, before it reports the tier connected.

use std::time::{Duration, Instant};

use super::Redis;
use super::connection::Connection;
use super::pending_writes::Pending;
use super::replication::Replication;

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
}
