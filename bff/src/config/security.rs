//! `[security]`: HSTS and the extra origins the Content-Security-Policy allows.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::duration;
use super::sandbox::SANDBOX_PLACEHOLDER;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SecurityConfig {
    #[serde(with = "duration")]
    pub hsts_max_age: Duration,
    /// Extra origins allowed by the CSP, besides `'self'` and the origins of the public
    /// third-party script URLs. `${sandbox}` is allowed.
    pub csp_script_src: Vec<String>,
    pub csp_frame_src: Vec<String>,
    pub csp_img_src: Vec<String>,
    pub csp_connect_src: Vec<String>,
}

impl Default for SecurityConfig {
    fn default() -> Self {
        Self {
            hsts_max_age: Duration::from_secs(730 * 86_400),
            csp_script_src: Vec::new(),
            csp_frame_src: vec![SANDBOX_PLACEHOLDER.to_owned()],
            csp_img_src: vec![SANDBOX_PLACEHOLDER.to_owned()],
            csp_connect_src: vec![SANDBOX_PLACEHOLDER.to_owned()],
        }
    }
}
