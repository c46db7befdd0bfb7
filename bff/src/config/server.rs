//! `[server]`: the public listener, its timeouts and limits, and how long a stopping replica
//! stays in rotation.

use std::net::SocketAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

use super::duration;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// The origin shoppers use; https here turns on HSTS and the `__Host-` cookie prefix.
    pub public_origin: Url,
    pub redirect_https: bool,
    #[serde(with = "duration")]
    pub request_timeout: Duration,
    /// How long a connection may take to deliver a complete request head, counted from the
    /// connection or from the end of the previous answer (so also the keep-alive idle limit).
    #[serde(with = "duration")]
    pub header_read_timeout: Duration,
    /// How long a request body may take to arrive, counted from the end of its head and
    /// extended by one second for every `body_min_bytes_per_second` received (so a large upload
    /// at a fair rate finishes, a trickle does not): past it the answer is a 408.
    #[serde(with = "duration")]
    pub body_read_timeout: Duration,
    /// The sending rate that keeps extending `body_read_timeout`.
    pub body_min_bytes_per_second: u64,
    #[serde(with = "duration")]
    pub shutdown_grace: Duration,
    /// After SIGTERM, how long `/readyz` answers 503 while the replica still serves, before
    /// it drains: the time load balancers and endpoints need to take it out of rotation (what
    /// a `preStop` hook gives in Kubernetes). Unset: [`DEFAULT_SHUTDOWN_DELAY_PRODUCTION`]
    /// in production, [`DEFAULT_SHUTDOWN_DELAY_DEVELOPMENT`] otherwise (`make run`'s Ctrl-C).
    #[serde(
        default,
        with = "duration::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub shutdown_delay: Option<Duration>,
    pub max_body_bytes: usize,
    pub max_concurrent_requests: usize,
    /// Open connections one peer address may hold on the public listener (0: no cap). The TCP
    /// peer is all a connection cap can see: behind a proxy every connection is the proxy's,
    /// so there it is 0 or at least the proxy's connection pool.
    pub max_connections_per_ip: usize,
}

/// `server.shutdown_delay` when unset with `environment = "production"`: a few probe
/// periods, so every load balancer has seen the failed readiness before the drain.
pub const DEFAULT_SHUTDOWN_DELAY_PRODUCTION: Duration = Duration::from_secs(5);
/// `server.shutdown_delay` when unset in development: Ctrl-C on `make run` stops at once.
pub const DEFAULT_SHUTDOWN_DELAY_DEVELOPMENT: Duration = Duration::from_millis(100);

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            public_origin: Url::parse("http://localhost:8080").unwrap_or_else(|_| unreachable!()),
            redirect_https: false,
            request_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(10),
            body_min_bytes_per_second: 1024,
            shutdown_grace: Duration::from_secs(10),
            shutdown_delay: None,
            max_body_bytes: 1024 * 1024,
            max_concurrent_requests: 1024,
            max_connections_per_ip: 128,
        }
    }
}

impl ServerConfig {
    /// What is wrong with its keys: a zero timeout or rate would refuse every request.
    pub(super) fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.header_read_timeout < Duration::from_millis(1) {
            problems.push("server.header_read_timeout: must be at least 1ms".to_owned());
        }
        if self.body_read_timeout < Duration::from_millis(1) {
            problems.push("server.body_read_timeout: must be at least 1ms".to_owned());
        }
        if self.body_min_bytes_per_second == 0 {
            problems.push("server.body_min_bytes_per_second: must be at least 1".to_owned());
        }
        if self.max_concurrent_requests == 0 {
            problems.push("server.max_concurrent_requests: must be at least 1".to_owned());
        }
        problems
    }
}
