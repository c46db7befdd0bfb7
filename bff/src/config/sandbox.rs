//! `[sandbox]`: the embedded sandbox upstream (development and tests), and the `${sandbox}`
//! placeholder that other sections' URLs use to mean its origin (resolved at start-up, once the
//! sandbox is listening).

use std::net::SocketAddr;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Why `sandbox.enabled = true` is refused by a build without the `sandbox` feature.
pub const NO_SANDBOX_IN_THIS_BUILD: &str = "this build has no embedded sandbox (built without \
     the `sandbox` cargo feature, as production images are); set it to false";

/// The placeholder in URLs that stands for the embedded sandbox's origin.
pub const SANDBOX_PLACEHOLDER: &str = "${sandbox}";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SandboxConfig {
    pub enabled: bool,
    pub listen: SocketAddr,
    pub data_dir: PathBuf,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            listen: SocketAddr::from(([127, 0, 0, 1], 8081)),
            data_dir: PathBuf::from("data"),
        }
    }
}

/// Replaces a leading `${sandbox}` with the embedded sandbox's origin.
pub fn resolve_sandbox(value: &str, sandbox_origin: Option<&str>) -> String {
    match (value.strip_prefix(SANDBOX_PLACEHOLDER), sandbox_origin) {
        (Some(rest), Some(origin)) => format!("{}{rest}", origin.trim_end_matches('/')),
        _ => value.to_owned(),
    }
}
