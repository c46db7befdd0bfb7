//! `[fleet]`: how replicas see each other (heartbeats) and how long a purge waits for their
//! receipts. (`[content]` has its own file, `content.rs`.)

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::duration;

// `[content]` was defined here; its old path `config::fleet::ContentConfig` still names it.
pub use super::content::{ContentConfig, ContentWebhookConfig};

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
