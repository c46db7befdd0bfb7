//! Server-side rendering of the first screen: React's own renderer (the web app's server
//! bundle, `dist/ssr/render.js`) in an embedded QuickJS engine, run once per cache fill.
//!
//! - `engine`: one QuickJS runtime with the bundle loaded, bounded in memory and time.
//! - `pool`: the render threads (the runtime is not `Send`) behind one bounded queue.
//! - `document`: the document for a page: a coalesced fill renders it, the edge cache
//!   remembers it under the build id for the hit path, a stale copy answers while a purged
//!   document renders again, and a failed render serves the shell with the data inlined.
//! - `markup`: the rendered body and the page's data put into the shell.

mod document;
mod engine;
mod markup;
mod pool;

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use document::{DocumentParts, document_key};
pub use engine::RenderError;
pub use markup::script_safe;
pub use pool::Pool;

use crate::coordination::single_flight::SingleFlight;
use crate::observe::metrics::Metrics;

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
    /// Tests only: every render fails, as a timed-out one would. Never set in production.
    pub fault_for_tests: bool,
}

impl Default for SsrConfig {
    fn default() -> Self {
        Self {
            threads: 1,
            queue: 32,
            timeout: Duration::from_secs(1),
            memory_mb: 128,
            fault_for_tests: false,
        }
    }
}

/// The renderer and what a document fill needs beside it.
#[derive(Debug)]
pub struct Renderer {
    pool: Option<Pool>,
    metrics: Arc<Metrics>,
    /// The public runtime config as JSON, as the document embeds it.
    public_config: Arc<str>,
    /// Document fills in flight, by document key.
    fills: SingleFlight<String, document::Filled>,
}

impl Renderer {
    /// Starts the render threads over `bundle` (absent when the web app is not built: every
    /// document is then the shell).
    pub fn start(
        bundle: &std::path::Path,
        config: &SsrConfig,
        metrics: Arc<Metrics>,
        public_config: Arc<str>,
    ) -> Self {
        Self {
            pool: Pool::start(bundle, config),
            metrics,
            public_config,
            fills: SingleFlight::default(),
        }
    }

    /// Whether render threads run (the web build has a server bundle, `threads` > 0).
    pub fn is_running(&self) -> bool {
        self.pool.is_some()
    }

    /// Tests only: fail every render while `on` (see `fault_for_tests`).
    pub fn set_fault(&self, on: bool) {
        if let Some(pool) = &self.pool {
            pool.set_fault(on);
        }
    }
}

/// Where the server bundle lives in a web build.
pub fn bundle_path(dist_dir: &std::path::Path) -> std::path::PathBuf {
    dist_dir.join("ssr").join("render.js")
}
