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
//! Each replica also keeps the ids it has seen revoked in memory: its own sign-outs, the other
//! replicas' (published on the purge channel as a `revocation` message, so they are in every
//! replica's memory a moment after sign-out, and a check that cannot reach Redis later still
//! finds them), and revocations read from Redis. A revoked id seen once costs no round trip
//! again.
//!
//! Redis down (or slower than its command timeout): sign-out revokes on this replica at once,
//! and its Redis write and its message are both kept and made again once Redis answers, before
//! this replica reports it connected (see `coordination::replicas::pending_writes`; a write
//! taken without a replica's acknowledgement is kept too, as a failover could lose it). A check
//! that cannot ask Redis, for a session this replica knows nothing of, is [`Checked::Unchecked`]:
//! the caller then asks the upstream instead, by refreshing the session's tokens (a sign-out
//! revokes them there), at most once per session per `session.revocation_check_interval`
//! ([`Revocations::upstream_check_due`]). Both are logged and counted
//! (`bff_redis_errors_total{operation}`, and the session events `revocation_local_only`,
//! `revocation_unchecked` and `revocation_checked_upstream`); the alert
//! `BffSessionRevocationsUnchecked` fires on the first two.

use std::sync::Arc;
use std::time::Duration;

use super::identity::SessionIdentity;
use crate::coordination::replicas::Redis;
use crate::coordination::replicas::purge_bus::{PurgeBus, RevocationSink};
use crate::coordination::replicas::replication::Replication;
use crate::observe::metrics::{Metrics, SessionEvent};

/// Revoked ids one replica remembers at most (the oldest are forgotten first): a bound on
/// memory whatever the sign-out rate. A forgotten id is still found in Redis.
const MAX_REMEMBERED: u64 = 100_000;

/// What a revocation check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    Revoked,
    NotRevoked,
    /// Redis could not be asked, and this replica knows of no revocation: ask the upstream
    /// when [`Revocations::upstream_check_due`] says so.
    Unchecked,
}

/// Cheap to clone: every clone shares the same memory.
#[derive(Debug, Clone)]
pub struct Revocations {
    local: moka::sync::Cache<String, ()>,
    /// The coordination tier, where revocations are kept.
    shared: Option<Redis>,
    /// The purge channel, where they are announced to every replica's memory.
    bus: Option<PurgeBus>,
    /// Sessions checked with the upstream while Redis could not be asked, each remembered for
    /// `session.revocation_check_interval` (bounded as `local` is).
    checked_upstream: moka::sync::Cache<String, ()>,
    metrics: Arc<Metrics>,
    lifetime_ms: i64,
}

impl Revocations {
    /// For sessions that live at most `lifetime` (no revocation needs remembering longer);
    /// `redis`: the coordination tier; `bus`: the purge channel; `check_every`:
    /// `session.revocation_check_interval`.
    pub fn new(
        lifetime: Duration,
        redis: Option<Redis>,
        bus: Option<PurgeBus>,
        check_every: Duration,
        metrics: Arc<Metrics>,
    ) -> Self {
        Self {
            local: moka::sync::Cache::builder()
                .max_capacity(MAX_REMEMBERED)
                .time_to_live(lifetime.max(Duration::from_secs(1)))
                .build(),
            shared: redis,
            bus,
            checked_upstream: moka::sync::Cache::builder()
                .max_capacity(MAX_REMEMBERED)
                .time_to_live(check_every.max(Duration::from_millis(1)))
                .build(),
            metrics,
            lifetime_ms: i64::try_from(lifetime.as_millis()).unwrap_or(i64::MAX),
        }
    }

    /// Where the purge channel's subscriber hands the revocations it hears.
    pub fn sink(&self) -> RevocationSink {
        let revocations = self.clone();
        Arc::new(move |session| revocations.remember(&session))
    }

    /// Remembers the session `id` as revoked on this replica (heard from another replica, or
    /// refused by the upstream).
    pub fn remember(&self, id: &str) {
        self.local.insert(id.to_owned(), ());
    }

    /// Revokes `identity` for the rest of its life: on this replica at once, and on every
    /// replica once Redis has it and the others heard it on the purge channel (both awaited,
    /// together: sign-out answers after that).
    pub async fn revoke(&self, identity: &SessionIdentity) {
        self.remember(&identity.id);
        let left_ms = identity
            .left_ms(self.lifetime_ms, super::tokens::now_ms())
            .max(1_000);
        let lifetime = Duration::from_millis(u64::try_from(left_ms).unwrap_or(0));
        let announce = async {
            if let Some(bus) = &self.bus {
                bus.publish_revocation(&identity.id, lifetime).await;
            }
        };
        tokio::join!(self.write(identity, left_ms, lifetime), announce);
    }

    /// The revocation's key in Redis, written again later when Redis misses it.
    async fn write(&self, identity: &SessionIdentity, left_ms: i64, lifetime: Duration) {
        let Some(redis) = &self.shared else {
            return;
        };
        let mut command = redis::cmd("SET");
        command
            .arg(self.key(redis, &identity.id))
            .arg(1)
            .arg("PX")
            .arg(left_ms);
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
    /// answering: [`Checked::Unchecked`] (counted), unless this replica knows otherwise.
    pub async fn check(&self, id: &str) -> Checked {
        if self.local.contains_key(id) {
            return Checked::Revoked;
        }
        let Some(redis) = &self.shared else {
            return Checked::NotRevoked;
        };
        let mut command = redis::cmd("EXISTS");
        command.arg(self.key(redis, id));
        match redis.query::<bool>("session_revoked", &command).await {
            Ok(true) => {
                self.remember(id);
                Checked::Revoked
            }
            Ok(false) => Checked::NotRevoked,
            Err(_) => {
                self.metrics
                    .count_session_event(SessionEvent::RevocationUnchecked);
                Checked::Unchecked
            }
        }
    }

    /// Whether the session `id` was revoked, as far as this replica can tell now.
    pub async fn is_revoked(&self, id: &str) -> bool {
        self.check(id).await == Checked::Revoked
    }

    /// Whether an unchecked session `id` is due for a check with the upstream: `true` once per
    /// `session.revocation_check_interval` (the first caller of the interval gets it).
    pub fn upstream_check_due(&self, id: &str) -> bool {
        self.checked_upstream
            .entry(id.to_owned())
            .or_insert(())
            .is_fresh()
    }

    /// Forgets the upstream check of `id` that could not be made (the upstream did not
    /// answer): the next request asks again.
    pub fn upstream_check_failed(&self, id: &str) {
        self.checked_upstream.invalidate(id);
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

    #[test]
    fn a_revocation_heard_on_the_channel_holds_here() {
        let revocations = Revocations::new(
            Duration::from_secs(60),
            None,
            None,
            Duration::from_secs(30),
            Arc::new(Metrics::new()),
        );
        (revocations.sink())("heard-id".to_owned());
        assert!(revocations.local.contains_key("heard-id"));
    }

    #[tokio::test]
    async fn without_redis_a_revocation_holds_on_this_replica() {
        let revocations = Revocations::new(
            Duration::from_secs(60),
            None,
            None,
            Duration::from_secs(30),
            Arc::new(Metrics::new()),
        );
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
        let bus = redis
            .clone()
            .map(|redis| PurgeBus::new(redis, "this-replica".to_owned()));
        let revocations = Revocations::new(
            Duration::from_secs(60),
            redis.clone(),
            bus,
            Duration::from_secs(30),
            metrics.clone(),
        );
        let (revoked, other) = (identity(), identity());
        revocations.revoke(&revoked).await;
        assert_eq!(
            redis.map(|redis| redis.pending_writes()),
            Some(2),
            "the key and the message, kept to be made again when Redis answers"
        );
        assert!(revocations.is_revoked(&revoked.id).await, "locally");
        assert_eq!(revocations.check(&other.id).await, Checked::Unchecked);
        assert!(revocations.upstream_check_due(&other.id), "asked upstream");
        assert!(
            !revocations.upstream_check_due(&other.id),
            "once per interval"
        );
        revocations.upstream_check_failed(&other.id);
        assert!(
            revocations.upstream_check_due(&other.id),
            "again when the upstream did not answer"
        );
        let exposition = metrics.render();
        for expected in [
            "event=\"revocation_local_only\"} 1",
            "event=\"revocation_unchecked\"} 1",
            "bff_redis_errors_total{operation=\"revocation_publish\"} 1",
            "bff_redis_errors_total{operation=\"session_revoke\"} 1",
            "bff_redis_errors_total{operation=\"session_revoked\"} 1",
        ] {
            assert!(exposition.contains(expected), "{expected}: {exposition}");
        }
    }
}
