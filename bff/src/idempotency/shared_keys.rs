//! Checkout idempotency keys shared by the replicas, in Redis, so a retry that lands on another
//! replica gets the first answer instead of placing a second order.
//!
//! One Redis value per scoped key, `prefix + "idempotency:" + key`, holds either
//! - an in-flight marker (the body's fingerprint and the run's token), set only when nothing
//!   holds the key, for a short lease that the running replica renews while the order runs, or
//! - the kept answer (fingerprint, status, content type, body) for [`RETENTION`],
//!
//! each behind a first line holding its MAC ([`SharedTierMac`], bound to the Redis key): an
//! answer is replayed to shoppers, so one this fleet did not write is never replayed. A value
//! whose MAC fails is counted and treated as one that does not decode (below).
//!
//! A duplicate that finds a marker waits (polling, bounded) until the answer replaces it, then
//! replays it; a marker that disappears without an answer (the run was refused before any order
//! was attempted, or its replica died and the lease ran out) lets the duplicate claim the key
//! and run itself.
//!
//! Failures: a claim Redis does not answer runs the order on this replica alone (the in-process
//! behaviour). Redis failing while this replica waits on another's run answers 409
//! `idempotency_key_in_flight` (not kept): we know an order for the key may be under way, so
//! running a second one would be worse than asking the shopper to retry. Redis failing between
//! "marker set" and "answer stored": the answer stays kept on this replica, and storing it in
//! Redis is retried in the background (with backoff, for the rest of its retention), so waiters
//! and later retries find it as soon as Redis is back. Until then the marker lives at most one
//! lease; a retry elsewhere after that runs again. That is the exposure of the in-process mode,
//! never more.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::Map;
use tokio::time::Instant;

use super::settled::{Answer, Outcome, RETENTION, Settled};
use crate::coordination::lease::{
    self, Claim, Held, Keys, Lease, OnDrop, Operations, Waited, WhenDown,
};
use crate::coordination::replicas::{Redis, Unavailable};
use crate::coordination::shared_tier_mac::{SharedTierMac, SignedKind};
use crate::http::error::ApiError;
use crate::observe::metrics::RedisEvent;

/// How often a duplicate looks for the answer of a run on another replica.
const POLL: Duration = Duration::from_millis(50);
/// The longest pause between attempts to store an answer Redis did not take. Short: each
/// attempt is one small command, and every second without the answer in Redis is a second in
/// which another replica could run the key again.
const MAX_STORE_DELAY: Duration = Duration::from_secs(2);
/// The content types answers have (an `Answer` holds a `&'static str`).
const CONTENT_TYPES: [&str; 2] = ["application/json", "application/problem+json"];

/// The keys' Redis commands, as `bff_redis_errors_total` names them. The lease is in place:
/// one key holds the run's marker (its token), then the answer that replaces it.
const IDEMPOTENCY: Operations = Operations {
    claim: "idempotency_claim",
    renew: "idempotency_renew",
    release: "idempotency_release",
    publish: "idempotency_store",
    peek: "idempotency_peek",
};

/// What one key holds in Redis.
#[derive(Debug, Clone)]
enum Entry {
    /// A run on some replica holds the key.
    Running { fingerprint: String },
    /// The kept answer, for requests with this fingerprint.
    Answered {
        fingerprint: String,
        answer: Arc<Answer>,
    },
}

/// How waiting on another replica's run ended.
enum Wait {
    Settled(Settled),
    /// The key is free again (the run kept nothing, or its lease ran out): claim it.
    Released,
    /// The run is still going after `max_wait`, or Redis stopped answering meanwhile.
    GaveUp,
}

/// The replicas' idempotency keys, cheap to clone (the background store takes a copy).
#[derive(Clone)]
pub struct SharedKeys {
    redis: Redis,
    /// Signs the markers and answers this replica writes, and checks those it reads.
    mac: SharedTierMac,
    /// How long a marker holds without renewal: a dead replica's run frees its key after this.
    /// Renewed every third of it while the run goes on, and left to lapse (never released at
    /// once) if the run dies: its order may be on its way.
    lease: Lease,
    /// How long a duplicate waits for another replica's run before answering 409.
    max_wait: Duration,
    /// This replica, in its markers' tokens: a run only renews, replaces or drops its own.
    replica: Arc<str>,
    runs: Arc<AtomicU64>,
}

impl std::fmt::Debug for SharedKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedKeys")
            .field("lease", &self.lease.ttl())
            .field("max_wait", &self.max_wait)
            .finish_non_exhaustive()
    }
}

impl SharedKeys {
    /// `mac` signs and checks the values. `lease`: at least as long as one upstream call may
    /// take, so a live run's marker never lapses between renewals. `max_wait`: what a duplicate
    /// waits at most (the request's own timeout is the natural bound).
    pub fn new(redis: Redis, mac: SharedTierMac, lease: Duration, max_wait: Duration) -> Self {
        let ttl = lease.max(Duration::from_secs(1));
        Self {
            mac,
            lease: Lease::new(redis.clone(), ttl, true, OnDrop::Lapse, IDEMPOTENCY).acknowledged(),
            redis,
            max_wait,
            replica: uuid::Uuid::new_v4().simple().to_string().into(),
            runs: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Settles `key` across the replicas: replays the answer another run kept, waits for one
    /// in flight, or claims the key and runs `work` (also when Redis does not answer the claim).
    pub async fn run<F>(&self, key: &str, fingerprint: &str, work: F) -> Settled
    where
        F: Future<Output = Outcome> + Send,
    {
        let keys = Keys::in_place(self.redis.key(&["idempotency", key]));
        let marker = self.signed(keys.lease(), self.marker(fingerprint));
        let give_up_at = Instant::now() + self.max_wait;
        loop {
            let held = match self.lease.claim(&keys, &marker).await {
                Claim::Unavailable => return Settled::Ran(work.await),
                Claim::Claimed(lease) => {
                    return Settled::Ran(
                        self.run_claimed(lease, keys.lease(), fingerprint, work)
                            .await,
                    );
                }
                Claim::Published(held) => match self.decode(keys.lease(), &held) {
                    Ok(entry) => entry,
                    Err(Unavailable { .. }) => return Settled::Ran(work.await),
                },
                // In place, a held key reads back as what holds it, never as busy; were it
                // busy, it would be a run to wait for.
                Claim::Busy => Entry::Running {
                    fingerprint: fingerprint.to_owned(),
                },
            };
            self.redis.count(RedisEvent::IdempotencyShared);
            match self.wait(&keys, held, fingerprint, give_up_at).await {
                Wait::Settled(settled) => return settled,
                Wait::Released => {}
                Wait::GaveUp => return Settled::Ran(still_running_elsewhere()),
            }
        }
    }

    /// A marker naming the body and this run: `running`, fingerprint, token.
    fn marker(&self, fingerprint: &str) -> Vec<u8> {
        let run = self.runs.fetch_add(1, Ordering::Relaxed);
        format!("running\n{fingerprint}\n{}-{run}", self.replica).into_bytes()
    }

    /// `payload` behind its MAC for the Redis key `key`: the MAC's hex, a newline, the payload.
    fn signed(&self, key: &str, payload: Vec<u8>) -> Vec<u8> {
        let mut signed = self.mac.sign(key, &[&payload]).into_bytes();
        signed.push(b'\n');
        signed.extend_from_slice(&payload);
        signed
    }

    /// An entry this code did not write (another version, or tampering) is treated as Redis
    /// being unavailable: counted, and this replica falls back to deciding alone. One whose MAC
    /// fails (or that has none) is counted as a rejected shared-tier value.
    fn decode(&self, key: &str, held: &[u8]) -> Result<Entry, Unavailable> {
        let (mac, payload) = match held.iter().position(|byte| *byte == b'\n') {
            Some(at) => (Some(&held[..at]), &held[at + 1..]),
            None => (None, held),
        };
        if !self
            .mac
            .check(SignedKind::Idempotency, key, &[payload], mac)
        {
            return Err(Unavailable {
                operation: "idempotency_mac",
            });
        }
        decode(payload).ok_or_else(|| {
            let operation = "idempotency_decode";
            self.redis.metrics().count_redis_error(operation);
            tracing::warn!(
                operation,
                "an idempotency entry in redis does not decode; deciding on this replica alone"
            );
            Unavailable { operation }
        })
    }

    /// Polls the key until the run holding it ends. A different body under the key is a
    /// mismatch at once, as in process.
    async fn wait(&self, keys: &Keys, held: Entry, fingerprint: &str, give_up_at: Instant) -> Wait {
        if let Some(ended) = ended(held, fingerprint) {
            return ended;
        }
        let looked = lease::wait_until(give_up_at, POLL, WhenDown::Stop, || async {
            Ok(match self.lease.peek(keys).await? {
                Some(held) => ended(self.decode(keys.lease(), &held)?, fingerprint),
                None => Some(Wait::Released),
            })
        })
        .await;
        match looked {
            Waited::Ready(ended) => ended,
            // Still running, or Redis stopped answering: another replica may be placing this
            // order, so do not race it blind.
            Waited::TimedOut | Waited::Unavailable => Wait::GaveUp,
        }
    }

    /// Runs `work` under the claimed key `key` (its lease renewed meanwhile), then keeps its
    /// answer in Redis or frees the key.
    async fn run_claimed<F>(
        &self,
        mut lease: Held,
        key: &str,
        fingerprint: &str,
        work: F,
    ) -> Outcome
    where
        F: Future<Output = Outcome> + Send,
    {
        let outcome = work.await;
        lease.stop_renewing();
        if outcome.keep {
            let answer = self.signed(key, encode_answer(fingerprint, &outcome.answer));
            self.keep(lease, answer).await;
        } else {
            // Not freed: the marker lapses within one lease, then the key runs again.
            let _ = lease.release().await;
        }
        outcome
    }

    /// Stores the answer for the rest of its retention; when Redis does not take it, keeps
    /// trying in the background (the shopper's answer does not wait on Redis).
    async fn keep(&self, mut lease: Held, answer: Vec<u8>) {
        let made = Instant::now();
        if store(&mut lease, &answer, RETENTION).await.is_ok() {
            return;
        }
        tokio::spawn(async move { store_later(lease, &answer, made).await });
    }
}

/// Replaces the run's marker (or nothing, after a Redis restart) by the answer, never another
/// run's marker or answer. `Err` only when Redis did not answer: a key held by another run is
/// not retried.
async fn store(lease: &mut Held, answer: &[u8], ttl: Duration) -> Result<(), Unavailable> {
    if !lease.publish(answer, ttl).await? {
        tracing::warn!(
            "a checkout key was taken by another run after this run's lease lapsed; its answer is kept on this replica only"
        );
    }
    Ok(())
}

async fn store_later(mut lease: Held, answer: &[u8], made: Instant) {
    let mut delay = Duration::from_millis(100);
    loop {
        tokio::time::sleep(delay).await;
        let Some(left) = RETENTION.checked_sub(made.elapsed()) else {
            tracing::warn!(
                "a checkout answer was never stored in redis; kept on this replica only"
            );
            return;
        };
        if store(&mut lease, answer, left).await.is_ok() {
            tracing::info!("a checkout answer was stored in redis after a failure");
            return;
        }
        delay = (delay * 2).min(MAX_STORE_DELAY);
    }
}

/// How a key's entry ends a wait for a run of `fingerprint`: `None` while that run goes on.
fn ended(held: Entry, fingerprint: &str) -> Option<Wait> {
    match held {
        Entry::Answered {
            fingerprint: kept,
            answer,
        } => Some(Wait::Settled(if kept == fingerprint {
            Settled::Found(answer)
        } else {
            Settled::Mismatch
        })),
        Entry::Running {
            fingerprint: running,
        } if running != fingerprint => Some(Wait::Settled(Settled::Mismatch)),
        Entry::Running { .. } => None,
    }
}

/// The answer when another replica's run of the key outlasts the wait: not kept, so a retry
/// gets the first run's answer once it is there.
fn still_running_elsewhere() -> Outcome {
    Outcome {
        answer: Arc::new(Answer::from_error(&ApiError::Refused {
            status: StatusCode::CONFLICT,
            code: "idempotency_key_in_flight",
            detail: "An order with this Idempotency-Key is still being placed; retry in a few \
                     seconds."
                .to_owned(),
            errors: None,
            members: Map::new(),
        })),
        keep: false,
    }
}

/// `answered`, fingerprint, status, content type, then the body as is: lines, so the body
/// needs no escaping and `redis-cli` shows what a key holds.
fn encode_answer(fingerprint: &str, answer: &Answer) -> Vec<u8> {
    let mut encoded = format!(
        "answered\n{fingerprint}\n{}\n{}\n",
        answer.status.as_u16(),
        answer.content_type
    )
    .into_bytes();
    encoded.extend_from_slice(&answer.body);
    encoded
}

fn decode(held: &[u8]) -> Option<Entry> {
    let mut fields = held.splitn(5, |byte| *byte == b'\n');
    let kind = fields.next()?;
    let fingerprint = std::str::from_utf8(fields.next()?).ok()?.to_owned();
    match kind {
        b"running" => Some(Entry::Running { fingerprint }),
        b"answered" => {
            let status = std::str::from_utf8(fields.next()?).ok()?.parse().ok()?;
            let content_type = std::str::from_utf8(fields.next()?).ok()?;
            let answer = Answer {
                status: StatusCode::from_u16(status).ok()?,
                content_type: CONTENT_TYPES
                    .into_iter()
                    .find(|known| *known == content_type)?,
                body: Bytes::copy_from_slice(fields.next()?),
            };
            Some(Entry::Answered {
                fingerprint,
                answer: Arc::new(answer),
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RedisConfig;
    use crate::observe::metrics::Metrics;

    fn answer(body: &'static str) -> Answer {
        Answer {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            content_type: "application/problem+json",
            body: Bytes::from_static(body.as_bytes()),
        }
    }

    #[test]
    fn an_answer_decodes_as_it_was_encoded_even_with_newlines_in_its_body() {
        let encoded = encode_answer("f1", &answer("{\"detail\":\"a\nb\"}\n"));
        let Some(Entry::Answered {
            fingerprint,
            answer: decoded,
        }) = decode(&encoded)
        else {
            panic!("not an answer: {encoded:?}");
        };
        assert_eq!(fingerprint, "f1");
        assert_eq!(decoded.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(decoded.content_type, "application/problem+json");
        assert_eq!(decoded.body, "{\"detail\":\"a\nb\"}\n");
    }

    #[tokio::test]
    async fn only_values_signed_for_their_key_decode() {
        let keys = shared_keys_without_a_server();
        let encoded = encode_answer("f1", &answer("{}"));
        let signed = keys.signed("p:idempotency:a", encoded.clone());
        assert!(matches!(
            keys.decode("p:idempotency:a", &signed),
            Ok(Entry::Answered { .. })
        ));
        assert!(keys.decode("p:idempotency:b", &signed).is_err(), "moved");
        assert!(
            keys.decode("p:idempotency:a", &encoded).is_err(),
            "unsigned"
        );
        let mut forged = signed.clone();
        let last = forged.len() - 1;
        forged[last] = b']';
        assert!(keys.decode("p:idempotency:a", &forged).is_err(), "altered");
        let exposition = keys.redis.metrics().render();
        assert!(
            exposition.contains("bff_shared_tier_rejected_total{kind=\"idempotency\"} 3"),
            "{exposition}"
        );
    }

    #[tokio::test]
    async fn a_marker_decodes_to_its_fingerprint_and_foreign_values_do_not_decode() {
        let keys = shared_keys_without_a_server();
        let marker = keys.marker("f2");
        assert!(
            matches!(decode(&marker), Some(Entry::Running { fingerprint }) if fingerprint == "f2")
        );
        assert_ne!(marker, keys.marker("f2"), "each run has its own token");
        for foreign in [
            &b"1"[..],
            b"answered\nf\n200\ntext/html\n<p>",
            b"answered\nf\nabc\napplication/json\n{}",
        ] {
            assert!(decode(foreign).is_none(), "{foreign:?}");
        }
    }

    /// A handle on a port where nothing listens: every command fails at once. (Made in a
    /// runtime: its connections reconnect in tasks of their own.)
    fn shared_keys_without_a_server() -> SharedKeys {
        let config = RedisConfig {
            url: "redis://127.0.0.1:1/".to_owned(),
            ..RedisConfig::default()
        };
        let metrics = Arc::new(Metrics::new());
        let redis = Redis::from_config(&config, None, metrics.clone())
            .ok()
            .flatten()
            .unwrap();
        let mac = SharedTierMac::from_session_keys(&["key".into()], metrics).unwrap();
        SharedKeys::new(redis, mac, Duration::from_secs(1), Duration::from_secs(1))
    }

    #[tokio::test]
    async fn without_redis_the_run_happens_here_and_the_failure_is_counted() {
        let keys = shared_keys_without_a_server();
        let settled = keys
            .run("k", "f", async {
                Outcome {
                    answer: Arc::new(answer("{}")),
                    keep: true,
                }
            })
            .await;
        assert!(matches!(settled, Settled::Ran(outcome) if outcome.keep));
        let exposition = keys.redis.metrics().render();
        assert!(
            exposition.contains("bff_redis_errors_total{operation=\"idempotency_claim\"} 1"),
            "{exposition}"
        );
    }
}
