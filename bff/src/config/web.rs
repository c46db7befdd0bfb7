//! `[web]`: where the built web app, the operators' console and previous releases' assets are
//! read from, and how long those previous assets are served after a rollout.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::duration;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebConfig {
    pub dist_dir: PathBuf,
    /// The operators' console (its own Vite build), served on the admin listener under
    /// `/admin/console/`; a missing directory answers 404 there and changes nothing else.
    pub console_dir: PathBuf,
    /// Built web apps of previous releases, whose hashed `/assets/*` are also served while the
    /// rollout window is open, so a page loaded from the previous release keeps loading its
    /// chunks (version skew during and after a rollout).
    pub previous_dist_dirs: Vec<PathBuf>,
    /// How long after the first start of this build (recorded in Redis, else this replica's
    /// start) the previous releases' assets are served; 0 never serves them.
    #[serde(with = "duration")]
    pub previous_assets_window: Duration,
}

impl Default for WebConfig {
    fn default() -> Self {
        Self {
            dist_dir: PathBuf::from("web/dist"),
            console_dir: PathBuf::from("web/dist-console"),
            previous_dist_dirs: Vec::new(),
            previous_assets_window: Duration::from_secs(3_600),
        }
    }
}
