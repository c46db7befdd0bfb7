//! `[ssr]` in the configuration: threads, queue, time and memory per render.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// `[ssr]` in config/bff.toml.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SsrConfig {
    /// Render threads, each with its own engine (0: no server rendering, every document is
    /// the shell with its data inlined). Pods have one CPU: one thread.
    pub threads: usize,
    /// Renders that may wait for a thread; past it a fill serves the shell at once.
    pub queue: usize,
    /// The most one render may take before the engine stops it.
    #[serde(with = "crate::config::duration")]
    pub timeout: Duration,
    /// The most memory one engine may hold.
    pub memory_mb: usize,
    /// How long a document whose render failed is answered with the shell and its data
    /// without rendering again (while its parts are unchanged): one render per document key
    /// and window, however many requests ask for it.
    #[serde(with = "crate::config::duration")]
    pub failed_render_ttl: Duration,
    /// Tests only: every render of a first screen fails, as a timed-out one would (the loaders'
    /// pass, which renders nothing, still runs). Never set in production.
    pub fault_for_tests: bool,
}

impl Default for SsrConfig {
    fn default() -> Self {
        Self {
            threads: 1,
            queue: 32,
            timeout: Duration::from_secs(1),
            memory_mb: 128,
            failed_render_ttl: Duration::from_secs(30),
            fault_for_tests: false,
        }
    }
}
