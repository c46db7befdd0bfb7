//! Idempotent order placement: the first answer for a key is the answer for every repeat of
//! that key within the retention window, and concurrent repeats share one run (single flight).
//! Keys are scoped by the caller's identity, so one visitor's key never reads another's answer.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::http::StatusCode;
use bytes::Bytes;
use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use sha2::{Digest, Sha256};

/// How long an answer is kept for its key.
pub const RETENTION: Duration = Duration::from_secs(10 * 60);

/// A finished answer: status, content type and body, replayed as it was.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: StatusCode,
    pub content_type: &'static str,
    pub body: Bytes,
}

/// What a run produced, and whether it is kept for the key. Answers given before the order was
/// attempted (bad input) are not kept: a corrected request with the same key gets a new run.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub answer: Arc<Answer>,
    pub keep: bool,
}

type Flight = Shared<BoxFuture<'static, Arc<Answer>>>;

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

pub struct IdempotencyStore {
    /// A std `Mutex`, never held across an await: it guards the look-up in both places and the
    /// hand-over from in flight to done, so no request can slip between them.
    inflight: Mutex<HashMap<String, (String, Flight)>>,
    done: moka::sync::Cache<String, (String, Arc<Answer>)>,
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
            inflight: Mutex::new(HashMap::new()),
            done: moka::sync::Cache::builder()
                .max_capacity(capacity)
                .time_to_live(retention)
                .build(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, (String, Flight)>> {
        self.inflight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The answer for `key`: a kept one, the one in flight, or a new run of `work` (in its own
    /// task, so a cancelled request cannot strand the requests waiting on it).
    pub async fn run<F>(self: &Arc<Self>, key: String, fingerprint: String, work: F) -> Reply
    where
        F: Future<Output = Outcome> + Send + 'static,
    {
        let (flight, replayed) = {
            let mut inflight = self.lock();
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
            if let Some((running_fingerprint, flight)) = inflight.get(&key) {
                if *running_fingerprint != fingerprint {
                    return Reply::Mismatch;
                }
                (flight.clone(), true)
            } else {
                (self.start(&mut inflight, key, fingerprint, work), false)
            }
        };
        Reply::Answer {
            answer: flight.await,
            replayed,
        }
    }

    /// Registers and spawns a new run for `key` (called with the in-flight map locked).
    fn start<F>(
        self: &Arc<Self>,
        inflight: &mut HashMap<String, (String, Flight)>,
        key: String,
        fingerprint: String,
        work: F,
    ) -> Flight
    where
        F: Future<Output = Outcome> + Send + 'static,
    {
        let this = self.clone();
        let task_key = key.clone();
        let task_fingerprint = fingerprint.clone();
        let task = tokio::spawn(async move {
            let outcome = work.await;
            let mut inflight = this.lock();
            if outcome.keep {
                this.done
                    .insert(task_key.clone(), (task_fingerprint, outcome.answer.clone()));
            }
            inflight.remove(&task_key);
            outcome.answer
        });
        let this = self.clone();
        let cleanup_key = key.clone();
        let flight: Flight = async move {
                match task.await {
                    Ok(answer) => answer,
                    Err(err) => {
                        this.lock().remove(&cleanup_key);
                        tracing::error!(error = %err, "checkout task failed");
                        Arc::new(Answer {
                            status: StatusCode::INTERNAL_SERVER_ERROR,
                            content_type: "application/problem+json",
                            body: Bytes::from_static(
                                br#"{"type":"/problems/internal","title":"Internal Server Error","status":500,"detail":"Something went wrong on our side.","code":"internal"}"#,
                            ),
                        })
                    }
                }
            }
            .boxed()
            .shared();
        inflight.insert(key, (fingerprint, flight.clone()));
        flight
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
