//! Idempotent order placement: the first answer for a key is the answer for every repeat of
//! that key within the retention window, and concurrent repeats share one run (single flight).
//! Keys are scoped by the caller's identity, so one visitor's key never reads another's answer.
//! With Redis, a run's leader also settles the key with the other replicas ([`SharedKeys`]);
//! concurrent duplicates on one replica still share one run, so they cost one claim.

pub mod settled;
pub mod shared_keys;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};

pub use self::settled::{Answer, Outcome, RETENTION, Settled};
use self::shared_keys::SharedKeys;
use crate::coordination::single_flight::{self, SingleFlight};
use crate::http::error::ApiError;

/// The reply for one request: the answer, and whether it was produced for an earlier request.
#[derive(Debug)]
pub enum Reply {
    Answer {
        answer: Arc<Answer>,
        replayed: bool,
    },
    /// The key was used with a different request body.
    Mismatch,
}

/// Checkout answers by key: kept ones (for the retention window) and runs in flight, whose
/// per-run data is the request body's fingerprint.
pub struct IdempotencyStore {
    inflight: SingleFlight<String, Settled, String>,
    done: moka::sync::Cache<String, (String, Arc<Answer>)>,
    /// The keys the replicas share, when Redis is configured.
    shared: Option<SharedKeys>,
}

impl std::fmt::Debug for IdempotencyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IdempotencyStore")
    }
}

impl Default for IdempotencyStore {
    fn default() -> Self {
        Self::new(RETENTION, 100_000)
    }
}

/// The store key for a caller's identity and its key (hashed: neither is kept in clear).
pub fn scoped_key(scope: &str, key: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(scope.as_bytes());
    hasher.update([0]);
    hasher.update(key.as_bytes());
    hex::encode(hasher.finalize())
}

/// A fingerprint of a request body.
pub fn fingerprint(body: &[u8]) -> String {
    hex::encode(Sha256::digest(body))
}

impl IdempotencyStore {
    pub fn new(retention: Duration, capacity: u64) -> Self {
        Self {
            inflight: SingleFlight::default(),
            done: moka::sync::Cache::builder()
                .max_capacity(capacity)
                .time_to_live(retention)
                .build(),
            shared: None,
        }
    }

    /// This store, settling each key with the other replicas through `shared` when given.
    pub fn with_shared(self, shared: Option<SharedKeys>) -> Self {
        Self { shared, ..self }
    }

    /// The answer for `key`: a kept one, the one in flight, or a new run of `work` (in its own
    /// task, so a cancelled request cannot strand the requests waiting on it). The look-up of
    /// kept answers and runs happens under the runs' lock, and a run's answer is kept under
    /// the same lock before its key is released: no request can slip between the two.
    pub async fn run<F>(&self, key: String, fingerprint: String, work: F) -> Reply
    where
        F: Future<Output = Outcome> + Send + 'static,
    {
        let (flight, replayed) = {
            let mut runs = self.inflight.lock();
            if let Some((kept_fingerprint, answer)) = self.done.get(&key) {
                return if kept_fingerprint == fingerprint {
                    Reply::Answer {
                        answer,
                        replayed: true,
                    }
                } else {
                    Reply::Mismatch
                };
            }
            match runs.get(&key) {
                Some((_, running_fingerprint)) if *running_fingerprint != fingerprint => {
                    return Reply::Mismatch;
                }
                Some((flight, _)) => (flight, true),
                None => {
                    let done = self.done.clone();
                    let (kept_key, kept_fingerprint) = (key.clone(), fingerprint.clone());
                    // Boxed before it is wrapped: the order's future is large, and moving it by
                    // value through the wrappers overflowed the stack of a debug build.
                    let work = self.settle(&key, &fingerprint, Box::pin(work));
                    let flight = runs.start(key, fingerprint, work, move |settled| {
                        if let Some(answer) = settled.kept_answer() {
                            done.insert(kept_key, (kept_fingerprint, answer));
                        }
                    });
                    (flight, false)
                }
            }
        };
        match flight.await {
            single_flight::Outcome::Completed(Settled::Ran(outcome)) => Reply::Answer {
                answer: outcome.answer,
                replayed,
            },
            single_flight::Outcome::Completed(Settled::Found(answer)) => Reply::Answer {
                answer,
                replayed: true,
            },
            single_flight::Outcome::Completed(Settled::Mismatch) => Reply::Mismatch,
            single_flight::Outcome::Panicked | single_flight::Outcome::Cancelled => Reply::Answer {
                answer: Arc::new(Answer::from_error(&ApiError::Internal(
                    "the checkout run did not finish".to_owned(),
                ))),
                replayed,
            },
        }
    }

    /// The run's work: settled with the other replicas when Redis is configured, else `work`
    /// alone.
    fn settle<F>(
        &self,
        key: &str,
        fingerprint: &str,
        work: F,
    ) -> impl Future<Output = Settled> + Send + 'static
    where
        F: Future<Output = Outcome> + Send + 'static,
    {
        let shared = self.shared.clone();
        let (key, fingerprint) = (key.to_owned(), fingerprint.to_owned());
        async move {
            match shared {
                Some(shared) => shared.run(&key, &fingerprint, work).await,
                None => Settled::Ran(work.await),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;
    use bytes::Bytes;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn answer(text: &'static str) -> Arc<Answer> {
        Arc::new(Answer {
            status: StatusCode::OK,
            content_type: "application/json",
            body: Bytes::from_static(text.as_bytes()),
        })
    }

    #[tokio::test]
    async fn concurrent_duplicates_share_one_run_and_repeats_replay_it() {
        let store = Arc::new(IdempotencyStore::default());
        let runs = Arc::new(AtomicUsize::new(0));
        let mut handles = Vec::new();
        for _ in 0..10 {
            let store = store.clone();
            let runs = runs.clone();
            handles.push(tokio::spawn(async move {
                store
                    .run("k".to_owned(), "f".to_owned(), async move {
                        runs.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        Outcome {
                            answer: answer("1"),
                            keep: true,
                        }
                    })
                    .await
            }));
        }
        for handle in handles {
            let reply = handle.await.unwrap_or(Reply::Mismatch);
            assert!(matches!(reply, Reply::Answer { answer, .. } if answer.body == "1"));
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        let again = store
            .run("k".to_owned(), "f".to_owned(), async {
                Outcome {
                    answer: answer("2"),
                    keep: true,
                }
            })
            .await;
        assert!(matches!(again, Reply::Answer { answer, replayed: true } if answer.body == "1"));
        let other_body = store
            .run("k".to_owned(), "g".to_owned(), async {
                Outcome {
                    answer: answer("3"),
                    keep: true,
                }
            })
            .await;
        assert!(matches!(other_body, Reply::Mismatch));
    }

    #[tokio::test]
    async fn answers_not_kept_let_the_key_run_again() {
        let store = Arc::new(IdempotencyStore::default());
        let first = store
            .run("k".to_owned(), "f".to_owned(), async {
                Outcome {
                    answer: answer("bad"),
                    keep: false,
                }
            })
            .await;
        assert!(matches!(first, Reply::Answer { answer, .. } if answer.body == "bad"));
        let second = store
            .run("k".to_owned(), "g".to_owned(), async {
                Outcome {
                    answer: answer("ok"),
                    keep: true,
                }
            })
            .await;
        assert!(matches!(second, Reply::Answer { answer, replayed: false } if answer.body == "ok"));
    }
}
