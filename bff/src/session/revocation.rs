//! Sessions revoked by sign-out, so a copy of the cookie replayed afterwards is signed out.
//!
//! A revocation is a key per session id (`session:revoked:{id}` in Redis, kept for the rest of
//! the session's absolute lifetime), read by every request that carries a signed-in session
//! when it reaches a route that uses the session. A read rather than a fan-out on the purge
//! channel into a local set: a published message is applied by the other replicas a little
//! later, so the first request after sign-out's answer could still find a replica that has
//! not heard; the key is written before sign-out answers, so that request is signed out on
//! every replica. Its cost is one `EXISTS` round trip on such a request (see
//! `benches/session_revocation.rs`); guests, anonymous visitors and the catalogue and content
//! routes pay nothing.
//!
//! Each replica also keeps the ids it has seen revoked (its own sign-outs, and revocations read
//! from Redis) in memory, so without Redis sign-out still revokes on this replica, and a
//! revoked id seen once costs no round trip again.
//!
//! Redis down: sign-out revokes on this replica only, and a request is checked against this
//! replica's memory only (fail open, as every other Redis feature falls back to one replica);
//! both are logged and counted (`bff_redis_errors_total{operation}`, and the session events
//! `revocation_local_only` and `revocation_unchecked`). The revocation Redis missed (or took
//! without a replica's acknowledgement, so a failover could lose it) is written there again
//! once it answers, before this replica reports it connected: after a failover, the replicas
//! that read the new primary find it (see `coordination::replicas::pending_writes`).

use std::sync::Arc;
use std::time::Duration;

use super::identity::SessionIdentity;
use crate::coordination::replicas::Redis;
use crate::coordination::replicas::replication::Replication;
use crate::observe::metrics::{Metrics, SessionEvent};

/// Revoked ids one replica remembers at most (the oldest are forgotten first): a bound on
/// memory whatever the sign-out rate. A forgotten id is still found in Redis.
const MAX_REMEMBERED: u64 = 100_000;

/// Cheap to clone: every clone shares the same memory.
#[derive(Debug, Clone)]
pub struct Revocations {
    local: moka::sync::Cache<String, ()>,
    shared: Option<Redis>,
    metrics: Arc<Metrics>,
    lifetime_ms: i64,
}

impl Revocations {
    /// For sessions that live at most `lifetime` (no revocation needs remembering longer).
    pub fn new(lifetime: Duration, redis: Option<Redis>, metrics: Arc<Metrics>) -> Self {
        Self {
            local: moka::sync::Cache::builder()
                .max_capacity(MAX_REMEMBERED)
                .time_to_live(lifetime.max(Duration::from_secs(1)))
                .build(),
            shared: redis,
            metrics,
            lifetime_ms: i64::try_from(lifetime.as_millis()).unwrap_or(i64::MAX),
        }
    }

    /// Revokes `identity` for the rest of its life: on this replica at once, and on every
    /// replica once Redis has it (awaited: sign-out answers after that).
    pub async fn revoke(&self, identity: &SessionIdentity) {
        self.local.insert(identity.id.clone(), ());
        let Some(redis) = &self.shared else {
            return;
        };
        let left_ms = identity
            .left_ms(self.lifetime_ms, super::tokens::now_ms())
            .max(1_000);
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(redis, &identity.id))
            .arg(1)
            .arg("PX")
            .arg(left_ms);
        let lifetime = Duration::from_millis(u64::try_from(left_ms).unwrap_or(0));
        match redis
            .query_replicated::<()>("session_revoke", &command)
            .await
        {
            Ok((_, Replication::Acknowledged | Replication::NoReplicas)) => {}
            // Written, but a failover now would lose it (already counted as unacknowledged):
            // written again once a replica can take it.
            Ok(_) => redis.keep_for_replay("session_revoke", command, lifetime),
            Err(_) => {
                self.metrics
                    .count_session_event(SessionEvent::RevocationLocalOnly);
                tracing::warn!(
                    "sign-out revoked the session on this replica only: Redis did not answer; \
                     written there once it does"
                );
                redis.keep_for_replay("session_revoke", command, lifetime);
            }
        }
    }

    /// Whether the session `id` was revoked: this replica's memory, then Redis. Redis not
    /// answering: not revoked, unless this replica knows otherwise (fail open, counted).
    pub async fn is_revoked(&self, id: &str) -> bool {
        if self.local.contains_key(id) {
            return true;
        }
        let Some(redis) = &self.shared else {
            return false;
        };
        let mut command = redis::cmd("EXISTS");
        command.arg(self.key(redis, id));
        match redis.query::<bool>("session_revoked", &command).await {
            Ok(true) => {
                self.local.insert(id.to_owned(), ());
                true
            }
            Ok(false) => false,
            Err(_) => {
                self.metrics
                    .count_session_event(SessionEvent::RevocationUnchecked);
                false
            }
        }
    }

    fn key(&self, redis: &Redis, id: &str) -> String {
        redis.key(&["session", "revoked", id])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity() -> SessionIdentity {
        SessionIdentity::begin()
    }

    #[tokio::test]
    async fn without_redis_a_revocation_holds_on_this_replica() {
        let revocations = Revocations::new(Duration::from_secs(60), None, Arc::new(Metrics::new()));
        let (revoked, other) = (identity(), identity());
        assert!(!revocations.is_revoked(&revoked.id).await);
        revocations.revoke(&revoked).await;
        assert!(revocations.is_revoked(&revoked.id).await);
        assert!(!revocations.is_revoked(&other.id).await);
    }

    #[tokio::test]
    async fn with_redis_down_revocation_is_local_fails_open_and_is_counted() {
        let config = crate::config::RedisConfig {
            url: "redis://127.0.0.1:1/".to_owned(),
            ..crate::config::RedisConfig::default()
        };
        let metrics = Arc::new(Metrics::new());
        let redis = Redis::from_config(&config, None, metrics.clone()).unwrap();
        let revocations = Revocations::new(Duration::from_secs(60), redis.clone(), metrics.clone());
        let (revoked, other) = (identity(), identity());
        revocations.revoke(&revoked).await;
        assert_eq!(
            redis.map(|redis| redis.pending_writes()),
            Some(1),
            "kept to be written when Redis answers"
        );
        assert!(revocations.is_revoked(&revoked.id).await, "locally");
        assert!(!revocations.is_revoked(&other.id).await, "fails open");
        let exposition = metrics.render();
        for expected in [
            "event=\"revocation_local_only\"} 1",
            "event=\"revocation_unchecked\"} 1",
            "bff_redis_errors_total{operation=\"session_revoke\"} 1",
            "bff_redis_errors_total{operation=\"session_revoked\"} 1",
        ] {
            assert!(exposition.contains(expected), "{expected}: {exposition}");
        }
    }
}
