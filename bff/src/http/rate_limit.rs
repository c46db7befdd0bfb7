//! Per-client-IP rate limits: the sign-in, registration, password and verification endpoints
//! (`auth`), and search (`search`, anonymous: random terms must not cost an upstream call and a
//! cache entry each, unbounded). Sign-in failures are also counted per account
//! ([`account::SignInFailures`]).
//!
//! The client is the TCP peer, or, when that peer is a trusted proxy, the address its header
//! names ([`client_ip::ClientAddress`]): a request is always counted under some address, never
//! let through unlimited.
//!
//! With Redis, every replica counts in one fixed one-minute window per client IP (`INCR` and
//! `PEXPIRE` in one script), so the limit holds for all replicas together: 10 a minute on three
//! replicas stays 10 a minute. Without Redis, or while it does not answer, each replica limits
//! on its own (GCRA, via `governor`), as a single replica does: the limit still holds per
//! replica, never not at all. This replica's limiter forgets the clients whose budget is whole
//! again every `SWEEP_EVERY` checks, so a stream of new addresses costs memory for about a
//! minute, not for the life of the process.
//!
//! An IPv6 client is its /64; the /48 around it (one site's allocation: 65,536 /64s) shares a
//! coarser budget of [`SITE_FACTOR`] times the client's, so holding a /48 multiplies a budget
//! by that, not by 65,536.

pub mod account;
pub mod budget;
pub mod client_ip;
pub mod edge;
pub mod not_found;
pub mod shopper_limits;

use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::RateLimitConfig;
use crate::coordination::replicas::{Redis, Unavailable, unix_ms};
use crate::http::error::ApiError;
use crate::observe::metrics::Metrics;
use client_ip::ClientAddress;

/// The shared count's window.
pub(crate) const WINDOW: Duration = Duration::from_secs(60);

/// Checks between two sweeps of this replica's limiter (`retain_recent`: the clients whose
/// budget is whole again are forgotten).
const SWEEP_EVERY: u64 = 1024;

/// How many times a client's budget the IPv6 /48 around it shares.
pub const SITE_FACTOR: u32 = 16;

/// Counts one request in a window; the first count starts the key's expiry (one window, so a
/// key never outlives its window by more than that).
pub(crate) const COUNT: &str = r"
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
";

/// One limit per client IP and minute, named for its metric and its Redis keys.
#[derive(Debug, Clone)]
pub struct ClientRateLimit {
    /// `auth` or `search`: the `limit` label of `bff_rate_limited_total` and part of the keys.
    name: &'static str,
    /// This replica's own limit, used while no shared count answers.
    limiter: Arc<DefaultKeyedRateLimiter<IpAddr>>,
    /// The same for IPv6 /48s, at [`SITE_FACTOR`] times the budget.
    sites: Arc<DefaultKeyedRateLimiter<IpAddr>>,
    /// Checks on this replica's limiters, for their sweeps.
    checks: Arc<AtomicU64>,
    /// Who the client of a request is.
    client: ClientAddress,
    /// Refusals are counted in `bff_rate_limited_total` (and, for auth, as `rate_limited`
    /// session events).
    metrics: Arc<Metrics>,
    /// The count all replicas share, when Redis is configured.
    shared: Option<SharedCount>,
    /// The same for IPv6 /48s.
    shared_sites: Option<SharedCount>,
}

/// Requests per client IP and window, counted in Redis.
#[derive(Clone)]
struct SharedCount {
    redis: Redis,
    per_window: u64,
    script: Arc<redis::Script>,
    /// A part of the keys naming what is counted beside the limit: `None` for clients,
    /// `site` for IPv6 /48s.
    scope: Option<&'static str>,
}

impl std::fmt::Debug for SharedCount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedCount")
            .field("per_window", &self.per_window)
            .finish_non_exhaustive()
    }
}

impl ClientRateLimit {
    /// The limit on sign-in, registration, the password endpoints and verification.
    pub fn auth(config: &RateLimitConfig, metrics: Arc<Metrics>, redis: Option<Redis>) -> Self {
        Self::new("auth", config.auth_per_minute, config, metrics, redis)
    }

    /// The limit on search.
    pub fn search(config: &RateLimitConfig, metrics: Arc<Metrics>, redis: Option<Redis>) -> Self {
        Self::new("search", config.search_per_minute, config, metrics, redis)
    }

    fn new(
        name: &'static str,
        per_minute: u32,
        config: &RateLimitConfig,
        metrics: Arc<Metrics>,
        redis: Option<Redis>,
    ) -> Self {
        let per_minute = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        let per_site =
            per_minute.saturating_mul(NonZeroU32::new(SITE_FACTOR).unwrap_or(NonZeroU32::MIN));
        let shared = |per_minute: NonZeroU32, scope| {
            redis.clone().map(|redis| SharedCount {
                redis,
                per_window: u64::from(per_minute.get()),
                script: Arc::new(redis::Script::new(COUNT)),
                scope,
            })
        };
        Self {
            name,
            limiter: Arc::new(RateLimiter::keyed(Quota::per_minute(per_minute))),
            sites: Arc::new(RateLimiter::keyed(Quota::per_minute(per_site))),
            checks: Arc::new(AtomicU64::new(0)),
            client: ClientAddress::new(config),
            metrics,
            shared: shared(per_minute, None),
            shared_sites: shared(per_site, Some("site")),
        }
    }

    /// `Err(seconds to wait)` when `ip` (or, for IPv6, its /48) is over its quota: the shared
    /// count's verdict, or this replica's own when Redis does not answer.
    async fn check(&self, ip: IpAddr) -> Result<(), u64> {
        self.check_one(&self.shared, &self.limiter, ip).await?;
        match site_of(ip) {
            Some(site) => self.check_one(&self.shared_sites, &self.sites, site).await,
            None => Ok(()),
        }
    }

    async fn check_one(
        &self,
        shared: &Option<SharedCount>,
        limiter: &DefaultKeyedRateLimiter<IpAddr>,
        key: IpAddr,
    ) -> Result<(), u64> {
        if let Some(shared) = shared
            && let Ok(verdict) = shared.check(self.name, key).await
        {
            return verdict;
        }
        self.check_local(limiter, key)
    }

    /// The client `request` is counted under.
    pub fn client_of(&self, request: &Request) -> IpAddr {
        self.client.of(request)
    }

    /// Whether `client` is within its quota, this request counted; a refusal is
    /// counted in `bff_rate_limited_total` as the layer counts it. For handlers that answer
    /// something other than a 429 past the limit (the search results' document serves its shell).
    pub async fn admits(&self, client: IpAddr) -> bool {
        let admitted = self.check(client).await.is_ok();
        if !admitted {
            self.metrics.count_rate_limited(self.name);
        }
        admitted
    }

    /// This replica's own limit (for IPv6, and its /48's).
    fn check_here(&self, ip: IpAddr) -> Result<(), u64> {
        self.check_local(&self.limiter, ip)?;
        match site_of(ip) {
            Some(site) => self.check_local(&self.sites, site),
            None => Ok(()),
        }
    }

    /// One check of one of this replica's limiters; every [`SWEEP_EVERY`] checks, both
    /// forget the keys whose budget is whole again.
    fn check_local(
        &self,
        limiter: &DefaultKeyedRateLimiter<IpAddr>,
        key: IpAddr,
    ) -> Result<(), u64> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            for limiter in [&self.limiter, &self.sites] {
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
        }
        limiter.check_key(&key).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
        })
    }
}

/// The IPv6 /48 around `ip` (its first address); `None` for IPv4.
fn site_of(ip: IpAddr) -> Option<IpAddr> {
    match ip {
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & !(u128::MAX >> 48);
            Some(IpAddr::V6(Ipv6Addr::from(prefix)))
        }
        IpAddr::V4(_) => None,
    }
}

impl SharedCount {
    /// Counts this request in the current window of `ip`; `Ok(Err(seconds until the window
    /// ends))` when it is over the limit.
    async fn check(&self, name: &str, ip: IpAddr) -> Result<Result<(), u64>, Unavailable> {
        let now_ms = unix_ms();
        let window = Window::at(now_ms);
        let ip = ip.to_string();
        let number = window.number.to_string();
        let key = match self.scope {
            None => self.redis.key(&["ratelimit", name, &ip, &number]),
            Some(scope) => self.redis.key(&["ratelimit", name, scope, &ip, &number]),
        };
        let mut invocation = self.script.prepare_invoke();
        invocation.key(key).arg(window_ms());
        let count: u64 = self.redis.invoke("ratelimit", &invocation).await?;
        Ok(if count > self.per_window {
            Err(window.seconds_left(now_ms))
        } else {
            Ok(())
        })
    }
}

pub(crate) fn window_ms() -> u64 {
    u64::try_from(WINDOW.as_millis()).unwrap_or(u64::MAX)
}

/// A fixed window of the shared count: the same for every replica at the same (Unix) time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) number: u64,
}

impl Window {
    pub(crate) fn at(unix_ms: u64) -> Self {
        Self {
            number: unix_ms / window_ms(),
        }
    }

    /// Whole seconds until the window ends (rounded up, at least 1): the `Retry-After`.
    pub(crate) fn seconds_left(self, unix_ms: u64) -> u64 {
        let ends_ms = (self.number + 1).saturating_mul(window_ms());
        ends_ms.saturating_sub(unix_ms).div_ceil(1000).max(1)
    }
}

/// Answers 429 with `Retry-After` once the client is over `limit`'s quota.
pub async fn layer(
    State(limit): State<Arc<ClientRateLimit>>,
    request: Request,
    next: Next,
) -> Response {
    let ip = limit.client.of(&request);
    if let Err(retry_after_seconds) = limit.check(ip).await {
        limit.metrics.count_rate_limited(limit.name);
        if limit.name == "auth" {
            limit
                .metrics
                .count_session_event(crate::observe::metrics::SessionEvent::RateLimited);
        }
        return ApiError::TooManyRequests {
            retry_after_seconds,
        }
        .into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ten_a_minute(redis: Option<Redis>) -> ClientRateLimit {
        ClientRateLimit::auth(
            &RateLimitConfig {
                auth_per_minute: 10,
                ..RateLimitConfig::default()
            },
            Arc::new(Metrics::new()),
            redis,
        )
    }

    #[tokio::test]
    async fn the_quota_plus_one_is_refused_with_a_wait() {
        let limit = ten_a_minute(None);
        let ip: IpAddr = "203.0.113.7".parse().unwrap();
        for _ in 0..10 {
            assert!(limit.check(ip).await.is_ok());
        }
        let wait = limit.check(ip).await.unwrap_err();
        assert!((1..=6).contains(&wait), "{wait}");
        assert!(
            limit.check("203.0.113.8".parse().unwrap()).await.is_ok(),
            "per IP"
        );
    }

    #[tokio::test]
    async fn without_redis_answering_each_replica_still_limits_on_its_own() {
        let config = crate::config::RedisConfig {
            url: "redis://127.0.0.1:1/".to_owned(),
            ..crate::config::RedisConfig::default()
        };
        let metrics = Arc::new(Metrics::new());
        let redis = Redis::from_config(&config, None, metrics.clone()).unwrap();
        let limit = ten_a_minute(redis);
        let ip: IpAddr = "203.0.113.9".parse().unwrap();
        for _ in 0..10 {
            assert!(limit.check(ip).await.is_ok());
        }
        assert!(limit.check(ip).await.is_err());
        let exposition = metrics.render();
        assert!(
            exposition.contains("bff_redis_errors_total{operation=\"ratelimit\"} 11"),
            "{exposition}"
        );
    }

    /// Issue 46, finding 5: an IPv6 /48 holder had 65,536 budgets (one per /64). The /48
    /// shares `SITE_FACTOR` times a client's.
    #[tokio::test]
    async fn an_ipv6_48_shares_a_coarser_budget_than_its_64s() {
        let limit = ClientRateLimit::auth(
            &RateLimitConfig {
                auth_per_minute: 2,
                ..RateLimitConfig::default()
            },
            Arc::new(Metrics::new()),
            None,
        );
        let mut admitted = 0;
        for subnet in 0..20u16 {
            let client: IpAddr = format!("2001:db8:7:{subnet:x}::").parse().unwrap();
            for _ in 0..2 {
                admitted += usize::from(limit.check(client).await.is_ok());
            }
        }
        assert_eq!(admitted, 2 * SITE_FACTOR as usize, "the /48's budget");
        let elsewhere: IpAddr = "2001:db8:8::".parse().unwrap();
        assert!(limit.check(elsewhere).await.is_ok(), "another /48");
        let v4: IpAddr = "203.0.113.9".parse().unwrap();
        assert!(limit.check(v4).await.is_ok());
    }

    /// Issue 46, finding 5: this replica's limiter kept every client it ever saw.
    #[tokio::test]
    async fn the_limiter_forgets_clients_whose_budget_is_whole_again() {
        // 60,000 a minute: a client's one request is forgotten after a millisecond.
        let limit = ClientRateLimit::auth(
            &RateLimitConfig {
                auth_per_minute: 60_000,
                ..RateLimitConfig::default()
            },
            Arc::new(Metrics::new()),
            None,
        );
        for n in 0..2_000u32 {
            let client = IpAddr::from(std::net::Ipv4Addr::from(0x0a00_0000 + n));
            assert!(limit.check(client).await.is_ok());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        let one: IpAddr = "203.0.113.1".parse().unwrap();
        for _ in 0..SWEEP_EVERY {
            let _ = limit.check(one).await;
        }
        assert!(
            limit.limiter.len() <= 1,
            "{} remembered",
            limit.limiter.len()
        );
    }

    #[test]
    fn the_wait_is_the_rest_of_the_window_rounded_up() {
        let window = Window::at(120_000);
        assert_eq!(window, Window::at(179_999));
        assert_ne!(window, Window::at(180_000));
        assert_eq!(window.seconds_left(120_000), 60);
        assert_eq!(window.seconds_left(178_001), 2);
        assert_eq!(window.seconds_left(179_999), 1);
    }
}
