//! The renderer: the render threads, and what one fill asks of them. A pass renders a page
//! through the pool (its first screen, or the reads its loaders need first), and a round of
//! reads answers what a pass asked for, in process, off the render threads.

use std::net::IpAddr;
use std::sync::Arc;

use bytes::Bytes;
use serde::Deserialize;

use super::engine::RenderError;
use super::pool::Pool;
use super::reads::{ApiAnswer, ApiReads, Need, Unread};
use super::recorded::Recorded;
use super::variant::document_key;
use crate::cache::{Lookup, Rendered};
use crate::config::SsrConfig;
use crate::coordination::single_flight::SingleFlight;
use crate::http::rate_limit::ClientRateLimit;
use crate::observe::metrics::Metrics;

/// Document keys remembered as failed at once, at most: a bound on memory however many keys
/// fail.
const MAX_FAILED_KEYS: u64 = 10_000;

/// Pages whose reads are remembered at once, at most (a few hundred bytes each).
const MAX_RECALLED_PAGES: u64 = 10_000;

/// Rounds of in-process reads one fill makes at most: a loader that reads what an earlier read
/// answered (a product, then its collection) costs a round each; past this the render fails.
const MAX_READ_ROUNDS: usize = 4;

/// The renderer and what a document fill needs beside it.
#[derive(Debug)]
pub struct Renderer {
    pool: Option<Pool>,
    pub(super) metrics: Arc<Metrics>,
    /// The public runtime config as JSON, as the document embeds it.
    pub(super) public_config: Arc<str>,
    /// Document fills in flight, by document key.
    pub(super) fills: SingleFlight<String, Filled>,
    /// Documents whose last render failed, by document key, with the parts it was made from
    /// (`key etag` each): for `ssr.failed_render_ttl`, or until a part changes.
    pub(super) failed: moka::sync::Cache<String, Arc<str>>,
    /// What each page's last render read, by canonical document key (which names the web
    /// build): read before the page's next render, which then needs no loaders' pass.
    pub(super) recalled: moka::sync::Cache<String, Arc<[Need]>>,
    /// Renders per client (this replica's CPU: counted here, not across replicas).
    pub(super) budget: ClientRateLimit,
}

impl Renderer {
    /// Starts the render threads over `bundle` (absent when the web app is not built: every
    /// document is then the shell).
    pub fn start(
        bundle: &std::path::Path,
        config: &SsrConfig,
        metrics: Arc<Metrics>,
        public_config: Arc<str>,
        budget: ClientRateLimit,
    ) -> Self {
        Self {
            pool: Pool::start(bundle, config, metrics.clone()),
            metrics,
            public_config,
            fills: SingleFlight::default(),
            failed: moka::sync::Cache::builder()
                .max_capacity(MAX_FAILED_KEYS)
                .time_to_live(config.failed_render_ttl)
                .build(),
            recalled: moka::sync::Cache::new(MAX_RECALLED_PAGES),
            budget,
        }
    }

    /// Whether render threads run (the web build has a server bundle, `threads` > 0).
    pub fn is_running(&self) -> bool {
        self.pool.is_some()
    }

    /// The URLs the last render of the page at `path` (canonical) under the web build `build`
    /// read, in the order asked, if it rendered on this replica: what its document is made of.
    pub fn recalled_reads(&self, build: &str, path: &str) -> Option<Vec<String>> {
        self.recalled
            .get(&document_key(build, path, None))
            .map(|needs| needs.iter().map(|need| need.url.clone()).collect())
    }

    /// Tests only: fail every render while `on` (see `fault_for_tests`).
    pub fn set_fault(&self, on: bool) {
        if let Some(pool) = &self.pool {
            pool.set_fault(on);
        }
    }
}

/// A fill's outcome, as every request that joined it gets it.
#[derive(Debug, Clone)]
pub(super) enum Filled {
    /// Rendered and remembered: the hit path's answer from now on.
    Remembered(Arc<Rendered>),
    /// A document not remembered (a part was stale), and the parts it is made from (`None`: an
    /// answer it inlines has no cache entry behind it, so nothing describes its freshness).
    Made(Bytes, Option<Vec<Lookup>>),
    /// No first screen: the shell with the data, for this reason (`bff_ssr_fallbacks_total`).
    Shell(&'static str),
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(super) enum Output {
    Html {
        html: String,
        /// The route's scripts, for the boot script to preload after the first paint.
        #[serde(default)]
        chunks: Vec<String>,
    },
    Redirect {},
    /// The loaders asked for reads the input had no answer to.
    Needs {
        needs: Vec<Need>,
    },
}

/// What a render makes of a page.
#[derive(Debug, Clone)]
pub(super) struct FirstScreen {
    pub markup: String,
    pub chunks: Vec<String>,
}

/// One pass of the render: the page, or the reads it needs first.
pub(super) enum Pass {
    Screen(FirstScreen),
    Needs(Vec<Need>),
}

/// Why a document has no first screen before its render.
pub(super) enum Unrendered {
    /// The loaders' pass failed.
    Render(RenderError),
    /// Refused (not a readable route), or the render asked past [`MAX_READ_ROUNDS`]: the
    /// document's own failure, remembered for it.
    Refused(String),
    /// A readable route did not answer in time: tried again on the next miss.
    Read(Unread),
}

impl Unrendered {
    /// The fallback's reason (`bff_ssr_fallbacks_total`).
    pub(super) fn reason(&self) -> &'static str {
        match self {
            Self::Render(_) => "render_failed",
            Self::Refused(_) => "read_refused",
            Self::Read(_) => "read_failed",
        }
    }
}

impl std::fmt::Display for Unrendered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Render(error) => error.fmt(f),
            Self::Refused(why) => f.write_str(why),
            Self::Read(unread) => unread.fmt(f),
        }
    }
}

impl Renderer {
    /// The answers to the reads a render asked for (round `round` of the fill), read in
    /// process, all at once. A read refused (a route no document may read) fails the document,
    /// counted under its route template.
    pub(super) async fn read(
        &self,
        reads: &ApiReads,
        client: IpAddr,
        answered: &Recorded,
        needs: Vec<Need>,
        round: usize,
    ) -> Result<Vec<ApiAnswer>, Unrendered> {
        // a render that asks again for what it was given would ask for ever
        let again = needs
            .iter()
            .all(|need| answered.answers.iter().any(|answer| answer.key == need.key));
        if round > MAX_READ_ROUNDS || again {
            return Err(Unrendered::Refused(format!(
                "the render still asks for reads after {round} rounds"
            )));
        }
        let read =
            futures::future::join_all(needs.iter().map(|need| reads.read(need, client))).await;
        let mut answers = Vec::with_capacity(read.len());
        for answer in read {
            match answer {
                Ok(answer) => answers.push(answer),
                Err(unread @ Unread::Refused { .. }) => {
                    self.metrics.count_refused_read(unread.template());
                    return Err(Unrendered::Refused(unread.to_string()));
                }
                Err(unread) => return Err(Unrendered::Read(unread)),
            }
        }
        Ok(answers)
    }

    /// The first screen's markup for `url` and its route's scripts, counted by outcome.
    pub(super) async fn render(&self, url: &str, answers: &str) -> Result<Pass, RenderError> {
        let Some(pool) = &self.pool else {
            return Err(RenderError::Stopped);
        };
        let input = format!(
            r#"{{"url":{},"config":{},"answers":{answers}}}"#,
            serde_json::Value::String(url.to_owned()),
            self.public_config,
        );
        let (result, elapsed) = pool.render(input).await;
        let mut result = result.and_then(|json| match serde_json::from_str::<Output>(&json) {
            Ok(Output::Html { html, chunks }) => Ok(Pass::Screen(FirstScreen {
                markup: html,
                chunks,
            })),
            Ok(Output::Needs { needs }) if !needs.is_empty() => Ok(Pass::Needs(needs)),
            Ok(Output::Needs { .. }) => Err(RenderError::Script("it needs nothing".to_owned())),
            Ok(Output::Redirect {}) => Err(RenderError::Script("the page redirects".to_owned())),
            Err(error) => Err(RenderError::Script(error.to_string())),
        });
        // the test-only fault switch stands in for a first screen that fails to render
        if matches!(result, Ok(Pass::Screen(_))) && pool.faulty() {
            result = Err(RenderError::Fault);
        }
        let outcome = match &result {
            Ok(Pass::Screen(_)) => "ok",
            Ok(Pass::Needs(_)) => "needs",
            Err(RenderError::Timeout) => "timeout",
            Err(RenderError::Busy) => "busy",
            Err(RenderError::Fault) => "fault",
            Err(RenderError::Backoff) => "backoff",
            Err(_) => "failed",
        };
        self.metrics.count_render(outcome, elapsed);
        result
    }
}
