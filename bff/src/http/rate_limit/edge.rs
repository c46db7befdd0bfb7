//! The per-client limits of the edge's abuse defences (issue 30): dealer registrations (checked
//! before the upload is read), image requests, 404 answers for made-up titles, CSP reports, and
//! the `traceparent` budget. Each is a [`ClientRateLimit`] under its own name, counted like the
//! others (in Redis when configured, else on this replica).

use std::net::IpAddr;
use std::sync::Arc;

use super::ClientRateLimit;
use crate::config::RateLimitConfig;
use crate::coordination::replicas::Redis;
use crate::observe::metrics::Metrics;

impl ClientRateLimit {
    /// The limit on dealer registrations.
    pub fn dealer_registrations(
        config: &RateLimitConfig,
        metrics: Arc<Metrics>,
        redis: Option<Redis>,
    ) -> Self {
        let per_minute = config.dealer_registrations_per_minute;
        Self::new("dealer_registration", per_minute, config, metrics, redis)
    }

    /// The limit on image requests.
    pub fn image_requests(
        config: &RateLimitConfig,
        metrics: Arc<Metrics>,
        redis: Option<Redis>,
    ) -> Self {
        let per_minute = config.image_requests_per_minute;
        Self::new("image_request", per_minute, config, metrics, redis)
    }

    /// The limit on 404 answers for products and collections.
    pub fn not_found(
        config: &RateLimitConfig,
        metrics: Arc<Metrics>,
        redis: Option<Redis>,
    ) -> Self {
        Self::new(
            "not_found",
            config.not_found_per_minute,
            config,
            metrics,
            redis,
        )
    }

    /// The budget of server renders per client: counted on this replica alone (a render is
    /// this pod's CPU), and only when a document miss would render, never on a hit.
    pub fn renders(config: &RateLimitConfig, metrics: Arc<Metrics>) -> Self {
        Self::new("render", config.renders_per_minute, config, metrics, None)
    }

    /// The limit on CSP violation reports.
    pub fn csp_reports(
        config: &RateLimitConfig,
        metrics: Arc<Metrics>,
        redis: Option<Redis>,
    ) -> Self {
        let per_minute = config.csp_reports_per_minute;
        Self::new("csp_report", per_minute, config, metrics, redis)
    }

    /// The limit on Web Vitals reports: a forged `Origin` is easy to send, so without one a
    /// single client could skew the charts and the alerts that read them at will.
    pub fn rum_reports(
        config: &RateLimitConfig,
        metrics: Arc<Metrics>,
        redis: Option<Redis>,
    ) -> Self {
        let per_minute = config.rum_reports_per_minute;
        Self::new("rum_report", per_minute, config, metrics, redis)
    }

    /// The budget of requests whose `traceparent` sampled flag is honoured.
    pub fn traceparent(
        per_minute: u32,
        config: &RateLimitConfig,
        metrics: Arc<Metrics>,
        redis: Option<Redis>,
    ) -> Self {
        Self::new("traceparent", per_minute, config, metrics, redis)
    }

    /// Counts one for `ip`; `Err(seconds to wait)` once it is over the quota (counted in
    /// `bff_rate_limited_total` under this limit's name).
    pub async fn count(&self, ip: IpAddr) -> Result<(), u64> {
        let verdict = self.check(ip).await;
        if verdict.is_err() {
            self.metrics.count_rate_limited(self.name);
        }
        verdict
    }

    /// Counts one for `ip` on this replica alone, without Redis: for checks on every request
    /// (the `traceparent` budget), where a Redis round trip would cost more than it saves.
    pub fn count_here(&self, ip: IpAddr) -> Result<(), u64> {
        let verdict = self.check_here(ip);
        if verdict.is_err() {
            self.metrics.count_rate_limited(self.name);
        }
        verdict
    }
}
