//! `[upstreams.commerce]` and `[upstreams.content]`: where the BFF's two upstreams are, their
//! timeouts, concurrency limits and circuit breakers (`[maps]` reuses the same shape for the
//! tile provider).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

use super::duration;
use super::sandbox::SANDBOX_PLACEHOLDER;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UpstreamsConfig {
    pub commerce: UpstreamConfig,
    pub content: UpstreamConfig,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamConfig {
    /// Base URL; may start with `${sandbox}` to mean the embedded sandbox.
    pub base_url: String,
    /// Path (relative to the base URL) answered by the upstream when it is up.
    pub health_path: String,
    #[serde(with = "duration")]
    pub connect_timeout: Duration,
    #[serde(with = "duration")]
    pub timeout: Duration,
    /// Requests in flight to this upstream at once; more wait up to `queue_timeout`.
    pub max_concurrency: usize,
    #[serde(with = "duration")]
    pub queue_timeout: Duration,
    /// Consecutive failed calls (5xx, timeout, no connection) that open the upstream's circuit
    /// breaker; 0 never opens it.
    #[serde(default = "default_breaker_failure_threshold")]
    pub breaker_failure_threshold: u32,
    /// How long an open breaker fails calls at once before one probe is let through.
    #[serde(default = "default_breaker_cool_off", with = "duration")]
    pub breaker_cool_off: Duration,
}

pub(super) fn default_breaker_failure_threshold() -> u32 {
    5
}

pub(super) fn default_breaker_cool_off() -> Duration {
    Duration::from_secs(10)
}

impl Default for UpstreamsConfig {
    fn default() -> Self {
        Self {
            commerce: UpstreamConfig::new(format!("{SANDBOX_PLACEHOLDER}/")),
            content: UpstreamConfig::new(format!("{SANDBOX_PLACEHOLDER}/strapi/")),
        }
    }
}

impl UpstreamConfig {
    pub(super) fn new(base_url: String) -> Self {
        Self {
            base_url,
            health_path: "health".to_owned(),
            connect_timeout: Duration::from_secs(2),
            timeout: Duration::from_secs(10),
            max_concurrency: 256,
            queue_timeout: Duration::from_secs(1),
            breaker_failure_threshold: default_breaker_failure_threshold(),
            breaker_cool_off: default_breaker_cool_off(),
        }
    }
}

impl UpstreamsConfig {
    /// What is wrong with the upstreams' keys; a `${sandbox}` URL needs the sandbox enabled.
    pub(super) fn problems(&self, sandbox_enabled: bool) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, upstream) in [("commerce", &self.commerce), ("content", &self.content)] {
            let key = format!("upstreams.{name}.base_url");
            if upstream.base_url.starts_with(SANDBOX_PLACEHOLDER) {
                if !sandbox_enabled {
                    problems.push(format!(
                        "{key}: refers to {SANDBOX_PLACEHOLDER} but sandbox.enabled is false"
                    ));
                }
            } else if let Err(err) = Url::parse(&upstream.base_url) {
                problems.push(format!("{key}: not a URL ({err})"));
            }
            if upstream.max_concurrency == 0 {
                problems.push(format!(
                    "upstreams.{name}.max_concurrency: must be at least 1"
                ));
            }
        }
        problems
    }
}
