//! Sign-in failures counted per account and client, beside the per-IP limit. Each client (an
//! address, or an IPv6 /64: see [`super::client_ip`]) has `sign_in_failures_per_client` wrong
//! passwords per account and window; past them it gets 429 for that account only, and every
//! other client, the account's owner among them, still signs in. The account as a whole has a
//! much higher ceiling (`sign_in_failures_per_account`), for guesses spread over many
//! addresses. Counted per account alone, ten wrong passwords from anyone locked the owner out.
//!
//! The check and the count are one atomic step: every sign-in takes a failure from both
//! allowances before its password is tried ([`SignInFailures::attempt`]) and gives them back
//! when the password was right or the attempt failed for another reason
//! ([`Attempt::not_a_failure`]). Checked first and counted after, twenty guesses sent at once
//! all passed the check before any was counted; now at most the allowance are tried. An
//! attempt abandoned mid-way (its request cancelled) stays counted: the cautious side.
//!
//! The account is a hash of the lower-cased e-mail (no address is kept in memory or in Redis);
//! the client's count is a hash of both. A window starts with the first failure and lasts
//! `sign_in_failure_window`. With Redis the counts are shared by every replica (a script reads,
//! compares and increments in one step); without it, or while it does not answer, each replica
//! counts on its own (one atomic compare-and-increment).

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::config::RateLimitConfig;
use crate::coordination::replicas::{Redis, Unavailable};
use crate::observe::metrics::Metrics;

/// Counts one replica remembers at most: a bound on memory however many e-mails and clients
/// are tried (the least recently failed are forgotten first).
const MAX_COUNTS_IN_PROCESS: u64 = 200_000;

/// Takes one failure from the allowance (ARGV[2]) if any is left: `{1, 0}`; else
/// `{0, milliseconds left in the window}`. The first taken starts the window (ARGV[1] ms).
const TAKE: &str = r"
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[2]) then
  return {0, redis.call('PTTL', KEYS[1])}
end
count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {1, 0}
";

/// Gives one back (an attempt that was no failure).
const GIVE_BACK: &str = r"
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 1 then redis.call('DECR', KEYS[1]) elseif count == 1 then redis.call('DEL', KEYS[1]) end
return 0
";

/// Cheap to clone: every clone shares the same counts.
#[derive(Debug, Clone)]
pub struct SignInFailures {
    per_client: u64,
    per_account: u64,
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
    take: Arc<redis::Script>,
    give_back: Arc<redis::Script>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

/// One failure taken from one count.
#[derive(Debug)]
struct Taken {
    key: String,
    /// Where it was taken from: Redis, or this replica's count.
    shared: bool,
}

/// One sign-in attempt, counted as a failure until [`Attempt::not_a_failure`] says otherwise.
#[must_use = "an attempt that was no failure must be given back"]
#[derive(Debug)]
pub struct Attempt {
    failures: SignInFailures,
    taken: Vec<Taken>,
}

impl Attempt {
    /// The password was right, or the attempt failed for a reason that is no wrong password:
    /// the failures taken for it are given back.
    pub async fn not_a_failure(self) {
        for taken in &self.taken {
            self.failures.give_back(taken).await;
        }
    }
}

impl SignInFailures {
    pub fn new(config: &RateLimitConfig, metrics: Arc<Metrics>, redis: Option<Redis>) -> Self {
        let window = config.sign_in_failure_window.max(Duration::from_millis(1));
        Self {
            per_client: u64::from(config.sign_in_failures_per_client),
            per_account: u64::from(config.sign_in_failures_per_account),
            window,
            local: moka::sync::Cache::builder()
                .max_capacity(MAX_COUNTS_IN_PROCESS)
                .time_to_live(window)
                .build(),
            shared: redis.map(|redis| Shared {
                redis,
                take: Arc::new(redis::Script::new(TAKE)),
                give_back: Arc::new(redis::Script::new(GIVE_BACK)),
            }),
            metrics,
        }
    }

    /// Takes a failure from `client`'s allowance for `email`'s account, and from the account's,
    /// for a sign-in about to be tried, each in one step with its check; `Err(seconds until
    /// the window ends)` when either has none left (nothing is kept taken then).
    pub async fn attempt(&self, email: &str, client: IpAddr) -> Result<Attempt, u64> {
        let account = account_key(email);
        let pair = client_key(&account, client);
        let by_client = match self.take(pair, self.per_client).await {
            Ok(taken) => taken,
            Err(left) => return Err(self.refused("sign_in_client", left)),
        };
        match self.take(account, self.per_account).await {
            Ok(by_account) => Ok(Attempt {
                failures: self.clone(),
                taken: vec![by_client, by_account],
            }),
            Err(left) => {
                self.give_back(&by_client).await;
                Err(self.refused("sign_in_account", left))
            }
        }
    }

    /// A refusal, counted; the seconds to wait.
    fn refused(&self, limit: &'static str, left: Duration) -> u64 {
        self.metrics.count_rate_limited(limit);
        let left_ms = u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
        left_ms.div_ceil(1000).max(1)
    }

    /// One failure from `key`'s count of `allowed`; `Err(time left in its window)`.
    async fn take(&self, key: String, allowed: u64) -> Result<Taken, Duration> {
        let (taken, left, shared) = match self.take_shared(&key, allowed).await {
            Some((taken, left)) => (taken, left, true),
            None => {
                let (taken, left) = self.take_local(&key, allowed);
                (taken, left, false)
            }
        };
        if taken {
            Ok(Taken { key, shared })
        } else {
            Err(left)
        }
    }

    async fn give_back(&self, taken: &Taken) {
        if taken.shared
            && let Some(shared) = &self.shared
        {
            let mut invocation = shared.give_back.prepare_invoke();
            invocation.key(self.redis_key(shared, &taken.key));
            let _: Result<i64, Unavailable> =
                shared.redis.invoke("sign_in_failures", &invocation).await;
            return;
        }
        if let Some(count) = self.local.get(&taken.key) {
            let _ = count
                .failures
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
        }
    }

    async fn take_shared(&self, key: &str, allowed: u64) -> Option<(bool, Duration)> {
        let shared = self.shared.as_ref()?;
        let mut invocation = shared.take.prepare_invoke();
        invocation
            .key(self.redis_key(shared, key))
            .arg(u64::try_from(self.window.as_millis()).unwrap_or(u64::MAX))
            .arg(allowed);
        let (taken, left_ms): (i64, i64) = shared
            .redis
            .invoke("sign_in_failures", &invocation)
            .await
            .ok()?;
        // A key without expiry (never set so by the script) waits a whole window.
        let left = u64::try_from(left_ms).map_or(self.window, Duration::from_millis);
        Some((taken == 1, left))
    }

    /// One compare-and-increment on this replica's count.
    fn take_local(&self, key: &str, allowed: u64) -> (bool, Duration) {
        let count = self.local.get_with(key.to_owned(), || {
            Arc::new(LocalCount {
                window_started: Instant::now(),
                failures: AtomicU64::new(0),
            })
        });
        let taken = count
            .failures
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < allowed).then_some(n + 1)
            })
            .is_ok();
        let left = self.window.saturating_sub(count.window_started.elapsed());
        (taken, left)
    }

    fn redis_key(&self, shared: &Shared, key: &str) -> String {
        shared.redis.key(&["ratelimit", "account", key])
    }
}

/// The account's name in the counts: the first 128 bits of the SHA-256 of the trimmed,
/// lower-cased e-mail, in hex.
fn account_key(email: &str) -> String {
    let digest = Sha256::digest(email.trim().to_lowercase().as_bytes());
    hex::encode(&digest[..16])
}

/// A client's count for an account: the account's key and the client, hashed together (the
/// client's address is not kept either), after `client:` so it never names an account's count.
fn client_key(account: &str, client: IpAddr) -> String {
    let digest = Sha256::digest(format!("{account} {client}").as_bytes());
    format!("client:{}", hex::encode(&digest[..16]))
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

    /// A client's address, the `n`th.
    fn client(n: u8) -> IpAddr {
        IpAddr::from([198, 51, 100, n])
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
            let attempt = failures
                .attempt("Shopper@example.com", client(1))
                .await
                .unwrap();
            drop(attempt); // a wrong password: the failure stays taken
        }
        let wait = failures
            .attempt("shopper@example.com", client(2))
            .await
            .unwrap_err();
        assert!((1..=900).contains(&wait), "{wait}");
        assert!(
            failures
                .attempt("other@example.com", client(3))
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn a_client_past_its_allowance_is_refused_for_that_account_only() {
        let failures = SignInFailures::new(
            &RateLimitConfig {
                sign_in_failures_per_client: 2,
                sign_in_failures_per_account: 100,
                ..RateLimitConfig::default()
            },
            Arc::new(Metrics::new()),
            None,
        );
        for _ in 0..2 {
            let _wrong_password = failures.attempt("shopper@example.com", client(1)).await;
        }
        assert!(
            failures
                .attempt("shopper@example.com", client(1))
                .await
                .is_err()
        );
        assert!(
            failures
                .attempt("other@example.com", client(1))
                .await
                .is_ok()
        );
        assert!(
            failures
                .attempt("shopper@example.com", client(2))
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn an_attempt_that_was_no_failure_gives_its_failure_back() {
        let failures = three_per_window(None);
        for _ in 0..10 {
            let attempt = failures
                .attempt("shopper@example.com", client(4))
                .await
                .unwrap();
            attempt.not_a_failure().await;
        }
        assert!(
            failures
                .attempt("shopper@example.com", client(5))
                .await
                .is_ok()
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn parallel_attempts_take_at_most_the_allowance() {
        let failures = three_per_window(None);
        let attempts = (0..20).map(|_| {
            let failures = failures.clone();
            tokio::spawn(async move {
                failures
                    .attempt("shopper@example.com", client(6))
                    .await
                    .is_ok()
            })
        });
        let taken = futures::future::join_all(attempts)
            .await
            .into_iter()
            .filter(|taken| *taken.as_ref().unwrap())
            .count();
        assert_eq!(taken, 3);
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
            let _wrong_password = failures
                .attempt("shopper@example.com", client(7))
                .await
                .unwrap();
        }
        assert!(
            failures
                .attempt("shopper@example.com", client(8))
                .await
                .is_err()
        );
    }
}
