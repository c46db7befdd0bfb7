//! `[content]`: the content service's side of the BFF: how its webhook purges.

use serde::{Deserialize, Serialize};

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

/// The default of `content.webhook.purges_per_minute`: a busy editorial team publishes a few
/// entries a minute; sixty leaves room for a bulk publish without letting a flood purge the
/// cache continuously.
pub const DEFAULT_PURGES_PER_MINUTE: u32 = 60;

impl Default for ContentWebhookConfig {
    fn default() -> Self {
        Self {
            soft_purge_events: Vec::new(),
            purges_per_minute: DEFAULT_PURGES_PER_MINUTE,
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
