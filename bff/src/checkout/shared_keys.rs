//! Checkout idempotency keys shared by the replicas, in Redis, so a retry that lands on another
//! replica gets the first answer instead of placing a second order.
//!
//! One Redis value per scoped key, `prefix + "idempotency:" + key`, holds either
//! - an in-flight marker (the body's fingerprint and the run's token), set only when nothing
//!   holds the key, for a short lease that the running replica renews while the order runs, or
//! - the kept answer (fingerprint, status, content type, body) for [`RETENTION`].
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

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::Map;
use tokio::time::Instant;

use super::idempotency::{Answer, Outcome, RETENTION, Settled};
use crate::error::ApiError;
use crate::metrics::RedisEvent;
use crate::replicas::{Redis, Unavailable};

/// How often a duplicate looks for the answer of a run on another replica.
const POLL: Duration = Duration::from_millis(50);
/// The longest pause between attempts to store an answer Redis did not take. Short: each
/// attempt is one small command, and every second without the answer in Redis is a second in
/// which another replica could run the key again.
const MAX_STORE_DELAY: Duration = Duration::from_secs(2);
/// The content types answers have (an `Answer` holds a `&'static str`).
const CONTENT_TYPES: [&str; 2] = ["application/json", "application/problem+json"];

/// Claims a key for a run unless a run or an answer holds it; returns what holds it (nil when
/// the claim was made). One script, so two replicas can never both claim.
const CLAIM: &str = r"
local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
";

/// Extends the lease, only while the marker is still this run's.
const RENEW: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
";

/// Replaces this run's marker (or nothing, after a Redis restart) by the answer; never
/// overwrites another run's marker or answer.
const STORE: &str = r"
local held = redis.call('GET', KEYS[1])
if held == false or held == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
";

/// Drops this run's marker, so a corrected request may use the key at once.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

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
enum Waited {
    Settled(Settled),
    /// The key is free again (the run kept nothing, or its lease ran out): claim it.
    Released,
    /// The run is still going after `max_wait`, or Redis stopped answering meanwhile.
    GaveUp,
}

struct Scripts {
    claim: redis::Script,
    renew: redis::Script,
    store: redis::Script,
    release: redis::Script,
}

/// The replicas' idempotency keys, cheap to clone (the background store takes a copy).
#[derive(Clone)]
pub struct SharedKeys {
    redis: Redis,
    /// How long a marker holds without renewal: a dead replica's run frees its key after this.
    /// Renewed every third of it while the run goes on.
    lease: Duration,
    /// How long a duplicate waits for another replica's run before answering 409.
    max_wait: Duration,
    /// This replica, in its markers' tokens: a run only renews, replaces or drops its own.
    replica: Arc<str>,
    runs: Arc<AtomicU64>,
    scripts: Arc<Scripts>,
}

impl std::fmt::Debug for SharedKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedKeys")
            .field("lease", &self.lease)
            .field("max_wait", &self.max_wait)
            .finish_non_exhaustive()
    }
}

impl SharedKeys {
    /// `lease`: at least as long as one upstream call may take, so a live run's marker never
    /// lapses between renewals. `max_wait`: what a duplicate waits at most (the request's own
    /// timeout is the natural bound).
    pub fn new(redis: Redis, lease: Duration, max_wait: Duration) -> Self {
        Self {
            redis,
            lease: lease.max(Duration::from_secs(1)),
            max_wait,
            replica: uuid::Uuid::new_v4().simple().to_string().into(),
            runs: Arc::new(AtomicU64::new(0)),
            scripts: Arc::new(Scripts {
                claim: redis::Script::new(CLAIM),
                renew: redis::Script::new(RENEW),
                store: redis::Script::new(STORE),
                release: redis::Script::new(RELEASE),
            }),
        }
    }

    /// Settles `key` across the replicas: replays the answer another run kept, waits for one
    /// in flight, or claims the key and runs `work` (also when Redis does not answer the claim).
    pub async fn run<F>(&self, key: &str, fingerprint: &str, work: F) -> Settled
    where
        F: Future<Output = Outcome> + Send,
    {
        let key = self.redis.key(&["idempotency", key]);
        let marker = self.marker(fingerprint);
        let give_up_at = Instant::now() + self.max_wait;
        loop {
            let held = match self.claim(&key, &marker).await {
                Err(Unavailable { .. }) => return Settled::Ran(work.await),
                Ok(None) => {
                    return Settled::Ran(self.run_claimed(&key, &marker, fingerprint, work).await);
                }
                Ok(Some(held)) => held,
            };
            self.redis.count(RedisEvent::IdempotencyShared);
            match self.wait(&key, held, fingerprint, give_up_at).await {
                Waited::Settled(settled) => return settled,
                Waited::Released => {}
                Waited::GaveUp => return Settled::Ran(still_running_elsewhere()),
            }
        }
    }

    /// A marker naming the body and this run: `running`, fingerprint, token.
    fn marker(&self, fingerprint: &str) -> Vec<u8> {
        let run = self.runs.fetch_add(1, Ordering::Relaxed);
        format!("running\n{fingerprint}\n{}-{run}", self.replica).into_bytes()
    }

    async fn claim(&self, key: &str, marker: &[u8]) -> Result<Option<Entry>, Unavailable> {
        let mut invocation = self.scripts.claim.prepare_invoke();
        invocation.key(key).arg(marker).arg(millis(self.lease));
        let held: Option<Vec<u8>> = self.redis.invoke("idempotency_claim", &invocation).await?;
        held.map(|held| self.decode(&held)).transpose()
    }

    async fn peek(&self, key: &str) -> Result<Option<Entry>, Unavailable> {
        let held: Option<Vec<u8>> = self
            .redis
            .query("idempotency_peek", redis::cmd("GET").arg(key))
            .await?;
        held.map(|held| self.decode(&held)).transpose()
    }

    /// An entry this code did not write (another version, or tampering) is treated as Redis
    /// being unavailable: counted, and this replica falls back to deciding alone.
    fn decode(&self, held: &[u8]) -> Result<Entry, Unavailable> {
        decode(held).ok_or_else(|| {
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
    async fn wait(
        &self,
        key: &str,
        mut held: Entry,
        fingerprint: &str,
        give_up_at: Instant,
    ) -> Waited {
        loop {
            match held {
                Entry::Answered {
                    fingerprint: kept,
                    answer,
                } => {
                    return Waited::Settled(if kept == fingerprint {
                        Settled::Found(answer)
                    } else {
                        Settled::Mismatch
                    });
                }
                Entry::Running {
                    fingerprint: running,
                } if running != fingerprint => {
                    return Waited::Settled(Settled::Mismatch);
                }
                Entry::Running { .. } => {}
            }
            if Instant::now() + POLL > give_up_at {
                return Waited::GaveUp;
            }
            tokio::time::sleep(POLL).await;
            held = match self.peek(key).await {
                Ok(Some(entry)) => entry,
                Ok(None) => return Waited::Released,
                // Another replica may be placing this order: do not race it blind.
                Err(_) => return Waited::GaveUp,
            };
        }
    }

    /// Runs `work` under the claimed key, renewing its lease, then keeps its answer in Redis or
    /// frees the key.
    async fn run_claimed<F>(&self, key: &str, marker: &[u8], fingerprint: &str, work: F) -> Outcome
    where
        F: Future<Output = Outcome> + Send,
    {
        let outcome = tokio::select! {
            outcome = work => outcome,
            never = self.renew_forever(key, marker) => match never {},
        };
        if outcome.keep {
            self.keep(key, marker, encode_answer(fingerprint, &outcome.answer))
                .await;
        } else {
            let mut invocation = self.scripts.release.prepare_invoke();
            invocation.key(key).arg(marker);
            // Not freed: the marker lapses within one lease, then the key runs again.
            let _ = self
                .redis
                .invoke::<i64>("idempotency_release", &invocation)
                .await;
        }
        outcome
    }

    /// Renews the lease every third of it; polled beside the run, so a slow renewal never
    /// delays the order.
    async fn renew_forever(&self, key: &str, marker: &[u8]) -> Infallible {
        let period = self.lease / 3;
        let mut renewals = tokio::time::interval_at(Instant::now() + period, period);
        loop {
            renewals.tick().await;
            let mut invocation = self.scripts.renew.prepare_invoke();
            invocation.key(key).arg(marker).arg(millis(self.lease));
            if let Ok(0) = self
                .redis
                .invoke::<i64>("idempotency_renew", &invocation)
                .await
            {
                tracing::warn!(
                    "a checkout run lost its idempotency lease; another replica may run the key"
                );
            }
        }
    }

    /// Stores the answer for the rest of its retention; when Redis does not take it, keeps
    /// trying in the background (the shopper's answer does not wait on Redis).
    async fn keep(&self, key: &str, marker: &[u8], answer: Vec<u8>) {
        let made = Instant::now();
        if self.store(key, marker, &answer, RETENTION).await.is_ok() {
            return;
        }
        let (this, key, marker) = (self.clone(), key.to_owned(), marker.to_vec());
        tokio::spawn(async move { this.store_later(&key, &marker, &answer, made).await });
    }

    async fn store_later(&self, key: &str, marker: &[u8], answer: &[u8], made: Instant) {
        let mut delay = Duration::from_millis(100);
        loop {
            tokio::time::sleep(delay).await;
            let Some(left) = RETENTION.checked_sub(made.elapsed()) else {
                tracing::warn!(
                    "a checkout answer was never stored in redis; kept on this replica only"
                );
                return;
            };
            if self.store(key, marker, answer, left).await.is_ok() {
                tracing::info!("a checkout answer was stored in redis after a failure");
                return;
            }
            delay = (delay * 2).min(MAX_STORE_DELAY);
        }
    }

    /// `Err` only when Redis did not answer: a key held by another run is not retried.
    async fn store(
        &self,
        key: &str,
        marker: &[u8],
        answer: &[u8],
        ttl: Duration,
    ) -> Result<(), Unavailable> {
        let mut invocation = self.scripts.store.prepare_invoke();
        invocation.key(key).arg(marker).arg(answer).arg(millis(ttl));
        let stored: i64 = self.redis.invoke("idempotency_store", &invocation).await?;
        if stored == 0 {
            tracing::warn!(
                "a checkout key was taken by another run after this run's lease lapsed; its answer is kept on this replica only"
            );
        }
        Ok(())
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

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
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
    use crate::metrics::Metrics;

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
        let redis = Redis::from_config(&config, None, Arc::new(Metrics::new()))
            .ok()
            .flatten()
            .unwrap();
        SharedKeys::new(redis, Duration::from_secs(1), Duration::from_secs(1))
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
