//! Per-client-IP rate limits (GCRA, via `governor`) on the sign-in, registration and password
//! endpoints.

use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::RateLimitConfig;
use crate::error::ApiError;
use crate::metrics::Metrics;

#[derive(Debug, Clone)]
pub struct AuthRateLimit {
    limiter: Arc<DefaultKeyedRateLimiter<IpAddr>>,
    header: Option<String>,
    /// Refusals are counted as `rate_limited` session events.
    metrics: Arc<Metrics>,
}

impl AuthRateLimit {
    pub fn new(config: &RateLimitConfig, metrics: Arc<Metrics>) -> Self {
        let per_minute = NonZeroU32::new(config.auth_per_minute).unwrap_or(NonZeroU32::MIN);
        let header = config.trusted_client_ip_header.trim().to_lowercase();
        Self {
            limiter: Arc::new(RateLimiter::keyed(Quota::per_minute(per_minute))),
            header: (!header.is_empty()).then_some(header),
            metrics,
        }
    }

    /// The client's IP: from the trusted proxy's header when configured (its last entry, the
    /// one that proxy appended), else the TCP peer.
    fn client_ip(&self, request: &Request) -> Option<IpAddr> {
        if let Some(name) = &self.header {
            return request
                .headers()
                .get(name.as_str())
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.rsplit(',').next())
                .and_then(|last| last.trim().parse().ok());
        }
        request
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|info| info.0.ip())
    }

    /// `Err(seconds to wait)` when `ip` is over its quota.
    fn check(&self, ip: IpAddr) -> Result<(), u64> {
        self.limiter.check_key(&ip).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
        })
    }
}

pub async fn layer(
    State(limit): State<Arc<AuthRateLimit>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(ip) = limit.client_ip(&request)
        && let Err(retry_after_seconds) = limit.check(ip)
    {
        limit
            .metrics
            .count_session_event(crate::metrics::SessionEvent::RateLimited);
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

    #[test]
    fn the_quota_plus_one_is_refused_with_a_wait() {
        let limit = AuthRateLimit::new(
            &RateLimitConfig {
                auth_per_minute: 10,
                trusted_client_ip_header: String::new(),
            },
            Arc::new(Metrics::new()),
        );
        let ip: IpAddr = "203.0.113.7".parse().unwrap();
        for _ in 0..10 {
            assert!(limit.check(ip).is_ok());
        }
        let wait = limit.check(ip).unwrap_err();
        assert!((1..=6).contains(&wait), "{wait}");
        assert!(
            limit.check("203.0.113.8".parse().unwrap()).is_ok(),
            "per IP"
        );
    }
}
