//! `[admin]`: the admin listener, its timeouts, and how much of the audit log and the override
//! history is kept (the tokens are secrets: `crate::config::admin_tokens`).

use std::net::SocketAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::duration;

/// The audit log's default bound (`admin.audit_entries`): older records are dropped first.
pub const DEFAULT_AUDIT_ENTRIES: usize = 1_000;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdminConfig {
    pub listen: SocketAddr,
    /// As `server.header_read_timeout`, for the admin listener (so also its keep-alive idle
    /// limit).
    #[serde(with = "duration")]
    pub header_read_timeout: Duration,
    /// Open connections one peer address may hold on the admin listener (0: no cap).
    pub max_connections_per_ip: usize,
    /// How long an admin request may take (past it, 504): room for the purge receipts and the
    /// explain fan-out, which wait on every replica.
    #[serde(with = "duration")]
    pub request_timeout: Duration,
    /// How many admin actions the audit log keeps (in Redis for the fleet, in each replica's
    /// memory without it); older ones are dropped first.
    pub audit_entries: usize,
    /// How many versions of the live overrides are kept for diff and rollback (oldest dropped
    /// first): see [`super::overrides`].
    pub override_versions: usize,
    /// The longest a replica runs an override version other than the fleet's (or its canary)
    /// once Redis answers: each replica reads the version at least this often, beside the
    /// change channel that brings it in milliseconds. Also when an expired key is gone.
    #[serde(with = "duration")]
    pub override_convergence: Duration,
    /// The Grafana dashboard the console links to for history (its figures are the last 5
    /// minutes only); empty: the console names the dashboard's uid instead of a link.
    pub dashboard_url: String,
}

impl Default for AdminConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 9090)),
            header_read_timeout: Duration::from_secs(10),
            max_connections_per_ip: 32,
            request_timeout: Duration::from_secs(30),
            audit_entries: DEFAULT_AUDIT_ENTRIES,
            override_versions: 50,
            override_convergence: Duration::from_secs(2),
            dashboard_url: String::new(),
        }
    }
}

impl AdminConfig {
    /// What is wrong with its keys: timeouts too short to answer anything, and bounds of the
    /// audit log and the override history outside what they are meant to keep.
    pub(super) fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.header_read_timeout < Duration::from_millis(1) {
            problems.push("admin.header_read_timeout: must be at least 1ms".to_owned());
        }
        if self.request_timeout < Duration::from_millis(1) {
            problems.push("admin.request_timeout: must be at least 1ms".to_owned());
        }
        if !(1..=100_000).contains(&self.audit_entries) {
            problems.push("admin.audit_entries: must be from 1 to 100000".to_owned());
        }
        if !(1..=10_000).contains(&self.override_versions) {
            problems.push("admin.override_versions: must be from 1 to 10000".to_owned());
        }
        if self.override_convergence < Duration::from_millis(100) {
            problems.push("admin.override_convergence: must be at least 100ms".to_owned());
        }
        problems
    }
}
