//! `[readiness]`: how `/readyz` spares the upstreams.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::duration;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReadinessConfig {
    /// How long one readiness verdict is reused, so probes never hammer the upstreams.
    #[serde(with = "duration")]
    pub cache: Duration,
}

impl Default for ReadinessConfig {
    fn default() -> Self {
        Self {
            cache: Duration::from_secs(5),
        }
    }
}
