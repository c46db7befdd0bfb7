//! `[fleet]`: how replicas see each other (heartbeats) and how long a purge waits for their
//! receipts; `[content.webhook]`: how the content webhook purges.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::duration;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FleetConfig {
    /// How often each replica publishes its heartbeat to the coordination tier.
    #[serde(with = "duration")]
    pub heartbeat_interval: Duration,
    /// A replica whose last heartbeat is older than this is listed as `silent` (and is not
    /// expected to confirm purges).
    #[serde(with = "duration")]
    pub silent_after: Duration,
    /// A silent replica is dropped from the fleet this long after its last heartbeat.
    #[serde(with = "duration")]
    pub forget_after: Duration,
    /// The longest a purge waits for the other replicas' receipts before it answers and names
    /// those that did not confirm.
    #[serde(with = "duration")]
    pub purge_receipt_deadline: Duration,
    /// The longest `GET /admin/cache/explain` waits for the other replicas' L1 views before it
    /// answers and names those that did not answer.
    #[serde(with = "duration")]
    pub explain_deadline: Duration,
    /// How many purges the recent-purges list keeps (oldest dropped first).
    pub recent_purges: usize,
}

impl Default for FleetConfig {
    fn default() -> Self {
        Self {
            heartbeat_interval: Duration::from_secs(5),
            silent_after: Duration::from_secs(15),
            forget_after: Duration::from_secs(600),
            purge_receipt_deadline: Duration::from_secs(2),
            explain_deadline: Duration::from_secs(1),
            recent_purges: 200,
        }
    }
}

impl FleetConfig {
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.heartbeat_interval.is_zero() {
            problems.push("fleet.heartbeat_interval: must be more than 0".to_owned());
        }
        if self.silent_after <= self.heartbeat_interval {
            problems.push(
                "fleet.silent_after: must be longer than fleet.heartbeat_interval".to_owned(),
            );
        }
        if self.forget_after < self.silent_after {
            problems.push("fleet.forget_after: must be at least fleet.silent_after".to_owned());
        }
        if self.recent_purges == 0 {
            problems.push("fleet.recent_purges: must be at least 1".to_owned());
        }
        problems
    }
}

/// `[content]`: settings of the content service's side of the BFF.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContentConfig {
    pub webhook: ContentWebhookConfig,
}

/// `[content.webhook]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContentWebhookConfig {
    /// Webhook events (`entry.update`, `entry.publish`, ...) whose purge is soft: the entries
    /// are marked stale and served stale while one refresh runs. Every other event purges hard
    /// (removes them), as `entry.delete` and `entry.unpublish` should.
    pub soft_purge_events: Vec<String>,
    /// Purges the webhook may run a minute on one replica, whatever tags they name (see
    /// [`crate::content::webhook_purge_cap`]).
    pub purges_per_minute: u32,
}

impl Default for ContentWebhookConfig {
    fn default() -> Self {
        Self {
            soft_purge_events: Vec::new(),
            purges_per_minute: crate::content::webhook_purge_cap::DEFAULT_PER_MINUTE,
        }
    }
}

impl ContentConfig {
    pub fn problems(&self) -> Vec<String> {
        if self.webhook.purges_per_minute == 0 {
            return vec!["content.webhook.purges_per_minute: must be at least 1".to_owned()];
        }
        Vec::new()
    }
}
