//! Sign-in failures counted per account, beside the per-IP limit: an attacker spreading guesses
//! for one account over many addresses still gets `sign_in_failures_per_account` wrong
//! passwords per window, then 429 for that account until the window ends.
//!
//! The account is a hash of the lower-cased e-mail (no address is kept in memory or in Redis).
//! A window starts with the account's first failure and lasts `sign_in_failure_window_ms`.
//! With Redis the count is shared by every replica (`INCR` + `PEXPIRE`, as the per-IP limit);
//! without it, or while it does not answer, each replica counts on its own.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::config::RateLimitConfig;
use crate::metrics::Metrics;
use crate::replicas::{Redis, Unavailable};

/// Accounts with failures one replica remembers at most: a bound on memory however many
/// e-mails are tried (the least recently failed are forgotten first).
const MAX_ACCOUNTS_IN_PROCESS: u64 = 100_000;

/// The account's count in the current window and the window's remaining milliseconds (`0, 0`
/// when there is no window).
const READ: &str = r"
local count = redis.call('GET', KEYS[1])
if not count then return {0, 0} end
return {tonumber(count), redis.call('PTTL', KEYS[1])}
";

/// One more failure; the first starts the window.
const FAIL: &str = r"
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
";

/// Cheap to clone: every clone shares the same counts.
#[derive(Debug, Clone)]
pub struct SignInFailures {
    allowed: u64,
    window: Duration,
    /// This replica's own counts, used while no shared count answers; entries leave with
    /// their window.
    local: moka::sync::Cache<String, Arc<LocalCount>>,
    shared: Option<Shared>,
    metrics: Arc<Metrics>,
}

#[derive(Debug)]
struct LocalCount {
    window_started: Instant,
    failures: AtomicU64,
}

#[derive(Clone)]
struct Shared {
    redis: Redis,
    read: Arc<redis::Script>,
    fail: Arc<redis::Script>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

impl SignInFailures {
    pub fn new(config: &RateLimitConfig, metrics: Arc<Metrics>, redis: Option<Redis>) -> Self {
        let window = Duration::from_millis(config.sign_in_failure_window_ms.max(1));
        Self {
            allowed: u64::from(config.sign_in_failures_per_account),
            window,
            local: moka::sync::Cache::builder()
                .max_capacity(MAX_ACCOUNTS_IN_PROCESS)
                .time_to_live(window)
                .build(),
            shared: redis.map(|redis| Shared {
                redis,
                read: Arc::new(redis::Script::new(READ)),
                fail: Arc::new(redis::Script::new(FAIL)),
            }),
            metrics,
        }
    }

    /// `Err(seconds until the window ends)` when `email`'s account has used up its failures.
    pub async fn check(&self, email: &str) -> Result<(), u64> {
        let account = account_key(email);
        let (failures, left) = match self.read_shared(&account).await {
            Some(figures) => figures,
            None => self.read_local(&account),
        };
        if failures < self.allowed {
            return Ok(());
        }
        self.metrics.count_rate_limited("sign_in_account");
        let left_ms = u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
        Err(left_ms.div_ceil(1000).max(1))
    }

    /// Counts a wrong password (or unknown e-mail) for `email`'s account.
    pub async fn record_failure(&self, email: &str) {
        let account = account_key(email);
        if let Some(shared) = &self.shared {
            let mut invocation = shared.fail.prepare_invoke();
            invocation
                .key(self.redis_key(shared, &account))
                .arg(u64::try_from(self.window.as_millis()).unwrap_or(u64::MAX));
            let counted: Result<u64, Unavailable> =
                shared.redis.invoke("sign_in_failures", &invocation).await;
            if counted.is_ok() {
                return;
            }
        }
        self.local
            .get_with(account, || {
                Arc::new(LocalCount {
                    window_started: Instant::now(),
                    failures: AtomicU64::new(0),
                })
            })
            .failures
            .fetch_add(1, Ordering::Relaxed);
    }

    async fn read_shared(&self, account: &str) -> Option<(u64, Duration)> {
        let shared = self.shared.as_ref()?;
        let mut invocation = shared.read.prepare_invoke();
        invocation.key(self.redis_key(shared, account));
        let (failures, left_ms): (u64, i64) = shared
            .redis
            .invoke("sign_in_failures", &invocation)
            .await
            .ok()?;
        let left_ms = u64::try_from(left_ms).unwrap_or(0);
        Some((failures, Duration::from_millis(left_ms)))
    }

    fn read_local(&self, account: &str) -> (u64, Duration) {
        self.local
            .get(account)
            .map_or((0, Duration::ZERO), |count| {
                let left = self.window.saturating_sub(count.window_started.elapsed());
                (count.failures.load(Ordering::Relaxed), left)
            })
    }

    fn redis_key(&self, shared: &Shared, account: &str) -> String {
        shared.redis.key(&["ratelimit", "account", account])
    }
}

/// The account's name in the counts: the first 128 bits of the SHA-256 of the trimmed,
/// lower-cased e-mail, in hex.
fn account_key(email: &str) -> String {
    let digest = Sha256::digest(email.trim().to_lowercase().as_bytes());
    hex::encode(&digest[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three_per_window(redis: Option<Redis>) -> SignInFailures {
        SignInFailures::new(
            &RateLimitConfig {
                sign_in_failures_per_account: 3,
                ..RateLimitConfig::default()
            },
            Arc::new(Metrics::new()),
            redis,
        )
    }

    #[test]
    fn an_account_is_named_by_its_lower_cased_email_and_never_by_the_email() {
        assert_eq!(
            account_key(" Shopper@Example.com"),
            account_key("shopper@example.com")
        );
        assert_ne!(
            account_key("shopper@example.com"),
            account_key("other@example.com")
        );
        assert!(!account_key("shopper@example.com").contains("shopper"));
    }

    #[tokio::test]
    async fn the_failures_past_the_allowance_lock_that_account_only() {
        let failures = three_per_window(None);
        for _ in 0..3 {
            assert!(failures.check("shopper@example.com").await.is_ok());
            failures.record_failure("Shopper@example.com").await;
        }
        let wait = failures.check("shopper@example.com").await.unwrap_err();
        assert!((1..=900).contains(&wait), "{wait}");
        assert!(failures.check("other@example.com").await.is_ok());
    }

    #[tokio::test]
    async fn without_redis_answering_each_replica_still_counts_on_its_own() {
        let config = crate::config::RedisConfig {
            url: "redis://127.0.0.1:1/".to_owned(),
            ..crate::config::RedisConfig::default()
        };
        let redis = Redis::from_config(&config, None, Arc::new(Metrics::new())).unwrap();
        let failures = three_per_window(redis);
        for _ in 0..3 {
            failures.record_failure("shopper@example.com").await;
        }
        assert!(failures.check("shopper@example.com").await.is_err());
    }
}
