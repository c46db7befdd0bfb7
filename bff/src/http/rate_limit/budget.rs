//! Budgets per minute under any key (a client, a cart), for limits checked inside a handler
//! rather than as a route layer: guest creation (only a write with no cart yet creates a guest
//! upstream) and promo-code attempts (per cart and per client).
//!
//! The same fixed one-minute window as the per-IP limits: with Redis, one count every replica
//! shares (`INCR` and `PEXPIRE` in one script); without it, or while it does not answer, a
//! count on this replica (bounded in memory, entries leave with their window).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::{COUNT, WINDOW, Window, window_ms};
use crate::coordination::replicas::{Redis, Unavailable, unix_ms};
use crate::http::error::ApiError;
use crate::observe::metrics::Metrics;

/// Keys one replica counts at most: a bound on memory however many keys are tried.
const MAX_KEYS_IN_PROCESS: u64 = 100_000;

/// One budget: `per_minute` under each key. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Budget {
    /// The `limit` label of `bff_rate_limited_total` and part of the Redis keys.
    name: &'static str,
    per_minute: u64,
    /// This replica's counts: (window number, count) per key.
    local: moka::sync::Cache<String, Arc<LocalWindow>>,
    shared: Option<Shared>,
    metrics: Arc<Metrics>,
}

#[derive(Debug)]
struct LocalWindow {
    number: u64,
    count: AtomicU64,
}

#[derive(Clone)]
struct Shared {
    redis: Redis,
    script: Arc<redis::Script>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

impl Budget {
    pub fn new(
        name: &'static str,
        per_minute: u32,
        metrics: Arc<Metrics>,
        redis: Option<Redis>,
    ) -> Self {
        Self {
            name,
            per_minute: u64::from(per_minute.max(1)),
            local: moka::sync::Cache::builder()
                .max_capacity(MAX_KEYS_IN_PROCESS)
                .time_to_live(WINDOW + Duration::from_secs(1))
                .build(),
            shared: redis.map(|redis| Shared {
                redis,
                script: Arc::new(redis::Script::new(COUNT)),
            }),
            metrics,
        }
    }

    /// Counts one use under `key` (hashed: no cart token or address is kept as it is); 429
    /// with `Retry-After` (the rest of the window) once the key is over its budget.
    pub async fn spend(&self, key: &str) -> Result<(), ApiError> {
        let key = hashed(key);
        let now_ms = unix_ms();
        let window = Window::at(now_ms);
        let count = match self.count_shared(&key, window).await {
            Ok(count) => count,
            Err(_) => self.count_local(&key, window),
        };
        if count <= self.per_minute {
            return Ok(());
        }
        self.metrics.count_rate_limited(self.name);
        Err(ApiError::TooManyRequests {
            retry_after_seconds: window.seconds_left(now_ms),
        })
    }

    async fn count_shared(&self, key: &str, window: Window) -> Result<u64, Unavailable> {
        let Some(shared) = &self.shared else {
            return Err(Unavailable {
                operation: self.name,
            });
        };
        let mut invocation = shared.script.prepare_invoke();
        invocation
            .key(
                shared
                    .redis
                    .key(&["ratelimit", self.name, key, &window.number.to_string()]),
            )
            .arg(window_ms());
        shared.redis.invoke("ratelimit", &invocation).await
    }

    fn count_local(&self, key: &str, window: Window) -> u64 {
        let entry = self.local.get_with(key.to_owned(), || {
            Arc::new(LocalWindow {
                number: window.number,
                count: AtomicU64::new(0),
            })
        });
        if entry.number != window.number {
            // Last window's count: start this one afresh.
            self.local.invalidate(key);
            return self.count_local(key, window);
        }
        entry.count.fetch_add(1, Ordering::AcqRel) + 1
    }
}

/// The first 128 bits of the key's SHA-256, in hex.
fn hashed(key: &str) -> String {
    hex::encode(&Sha256::digest(key.as_bytes())[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_key_has_its_own_budget() {
        let budget = Budget::new("test", 3, Arc::new(Metrics::new()), None);
        for _ in 0..3 {
            budget.spend("cart-a").await.unwrap();
        }
        let refused = budget.spend("cart-a").await.unwrap_err();
        assert_eq!(refused.problem().status, 429);
        budget.spend("cart-b").await.unwrap();
    }

    #[tokio::test]
    async fn without_redis_answering_the_budget_holds_on_this_replica() {
        let config = crate::config::RedisConfig {
            url: "redis://127.0.0.1:1/".to_owned(),
            ..crate::config::RedisConfig::default()
        };
        let metrics = Arc::new(Metrics::new());
        let redis = Redis::from_config(&config, None, metrics.clone()).unwrap();
        let budget = Budget::new("test", 2, metrics, redis);
        // the windows are the wall clock's minutes: spends that straddle one start counting
        // again, so such an attempt is made again with a key of its own
        for attempt in 0..3 {
            let key = format!("k{attempt}");
            let window = Window::at(unix_ms()).number;
            let (first, second) = (budget.spend(&key).await, budget.spend(&key).await);
            let third = budget.spend(&key).await;
            if Window::at(unix_ms()).number != window {
                continue;
            }
            assert!(first.is_ok() && second.is_ok(), "{first:?} {second:?}");
            assert!(third.is_err(), "the third spend in a minute is refused");
            return;
        }
        panic!("three attempts each straddled a minute");
    }
}
