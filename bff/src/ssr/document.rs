//! A page's document: rendered once per cache fill, remembered in the edge cache under the
//! build id, answered by the hit path until a part changes.
//!
//! A fill is coalesced by document key: the first request renders, the others wait for it, or
//! get the document's stale copy when there is one within its stale-while-revalidate window.
//! While any part is itself stale (a purge, an expiry), a stale document is answered as it is
//! and nothing renders: the part's refresh is under way, and the first request after it
//! renders the document once. A render that fails (an error, the time or memory limit, a full
//! queue, the test fault switch) answers the shell with the data inlined: counted, logged once
//! for the fill, never an error page and never remembered.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode};
use bytes::Bytes;
use serde::Deserialize;

use super::engine::RenderError;
use super::markup::fill_root;
use super::pool::Pool;
use super::settings::SsrConfig;
use crate::cache::{CachedAnswer, EdgeCache, Epochs, Lookup, Rendered};
use crate::coordination::single_flight::{Outcome, SingleFlight};
use crate::observe::metrics::Metrics;

const HTML: HeaderValue = HeaderValue::from_static("text/html; charset=utf-8");

/// The remembered answers' key of the document at `path` (the request's path as sent, one
/// trailing slash dropped) for the web build `build`: a pod never answers a document whose
/// chunks another build named.
pub fn document_key(build: &str, path: &str) -> String {
    let path = match path.strip_suffix('/') {
        Some(trimmed) if !trimmed.is_empty() => trimmed,
        _ => path,
    };
    format!("document:{build}:{path}")
}

/// What a page's document is made of.
#[derive(Debug, Clone)]
pub struct DocumentParts {
    /// The request's path as sent.
    pub path: String,
    /// The app's route template it matched (`search/:query`): what the logs name, never the
    /// path, which carries what a shopper searched for.
    pub route: &'static str,
    /// The page's absolute URL, for the router.
    pub url: String,
    /// The shell with the page's head (today's document, without the first screen).
    pub shell: Bytes,
    /// The cache entries the document is made from (their tags are its surrogate keys).
    pub parts: Vec<Lookup>,
    /// The cache's counters, read before the parts were looked up.
    pub epochs: Epochs,
    /// L2's purge epoch, read before the parts were looked up (`None` without Redis): a
    /// document made from them reaches L2 only if no purge has happened since.
    pub shared_epoch: Option<String>,
    /// The API answers the first screen reads, by the app's request path: status and JSON.
    pub answers: Vec<(String, u16, Bytes)>,
}

/// The renderer and what a document fill needs beside it.
#[derive(Debug)]
pub struct Renderer {
    pool: Option<Pool>,
    metrics: Arc<Metrics>,
    /// The public runtime config as JSON, as the document embeds it.
    public_config: Arc<str>,
    /// Document fills in flight, by document key.
    fills: SingleFlight<String, Filled>,
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

/// A fill's outcome, as every request that joined it gets it.
#[derive(Debug, Clone)]
pub(super) enum Filled {
    /// Rendered and remembered: the hit path's answer from now on.
    Remembered(Arc<Rendered>),
    /// A document not remembered (a part was stale, or the render failed).
    Made(Bytes),
}

#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Output {
    Html {
        html: String,
        /// The route's scripts, for the boot script to preload after the first paint.
        #[serde(default)]
        chunks: Vec<String>,
    },
    Redirect {},
}

/// What a render makes of a page.
struct FirstScreen {
    markup: String,
    chunks: Vec<String>,
}

impl Renderer {
    /// The document for `page`, given the request's headers (a matching `If-None-Match` is a
    /// 304). Always a document: a failed render is the shell with the data inlined.
    pub async fn document(
        self: &Arc<Self>,
        cache: &EdgeCache,
        build: &str,
        page: DocumentParts,
        request_headers: &HeaderMap,
    ) -> Response<Body> {
        let now = Instant::now();
        let key = document_key(build, &page.path);
        let parts_fresh = page
            .parts
            .iter()
            .all(|part| part.entry.status == StatusCode::OK && part.freshness.is_fresh(now));
        if !parts_fresh && let Some(stale) = cache.stale_document(&key, now) {
            return CachedAnswer::remembered(&stale)
                .at(now)
                .send(request_headers);
        }
        let renderer = self.clone();
        let filling = cache.clone();
        let fill_key = key.clone();
        let fill_page = page.clone();
        let (flight, role) = self.fills.join_or_start(key.clone(), async move {
            renderer.fill(&filling, fill_key, fill_page).await
        });
        if role == crate::coordination::single_flight::Role::Follower
            && let Some(stale) = cache.stale_document(&key, now)
        {
            return CachedAnswer::remembered(&stale)
                .at(now)
                .send(request_headers);
        }
        let made = match flight.await {
            Outcome::Completed(Filled::Remembered(rendered)) => {
                return CachedAnswer::remembered(&rendered).send(request_headers);
            }
            Outcome::Completed(Filled::Made(body)) => body,
            // the fill's task was lost: the shell with the data, as after a failed render
            Outcome::Panicked | Outcome::Cancelled => Bytes::from(fill_root(
                &shell_text(&page.shell),
                "",
                &answers_json(&page.answers),
                &[],
            )),
        };
        CachedAnswer::document(&page.parts, StatusCode::OK, HTML, made)
            .revalidated()
            .send(request_headers)
    }

    /// Renders `page` and remembers it under `key` when every part is fresh.
    async fn fill(&self, cache: &EdgeCache, key: String, page: DocumentParts) -> Filled {
        let parts: Vec<&Lookup> = page.parts.iter().collect();
        if page.shared_epoch.is_some() {
            // another replica may have rendered it from these very parts
            let epochs = cache.epochs_if_unchanged(&parts).await;
            if let Some(shared) = match epochs {
                Some(epochs) => cache.shared_document(&key, epochs, &parts).await,
                None => None,
            } {
                return Filled::Remembered(shared);
            }
        }
        let answers = answers_json(&page.answers);
        let shell = shell_text(&page.shell);
        let screen = match self.render(&page.url, &answers).await {
            Ok(screen) => screen,
            Err(error) => {
                tracing::warn!(route = page.route, %error, "server render failed: the shell with the page's data is served instead");
                return Filled::Made(Bytes::from(fill_root(&shell, "", &answers, &[])));
            }
        };
        let body = Bytes::from(fill_root(&shell, &screen.markup, &answers, &screen.chunks));
        // parts this request stored bumped the counters read before the lookups
        let epochs = match cache.epochs_if_unchanged(&parts).await {
            Some(epochs) => epochs,
            None => page.epochs,
        };
        match cache.remember_document(key.clone(), epochs, &parts, &body) {
            Some(rendered) => {
                if let Some(epoch) = &page.shared_epoch {
                    cache.share_document(&key, epoch, &parts, &rendered).await;
                }
                Filled::Remembered(rendered)
            }
            None => Filled::Made(body),
        }
    }

    /// The first screen's markup for `url` and its route's scripts, counted by outcome.
    async fn render(&self, url: &str, answers: &str) -> Result<FirstScreen, RenderError> {
        let Some(pool) = &self.pool else {
            return Err(RenderError::Stopped);
        };
        let input = format!(
            r#"{{"url":{},"config":{},"answers":{answers}}}"#,
            serde_json::Value::String(url.to_owned()),
            self.public_config,
        );
        let (result, elapsed) = pool.render(input).await;
        let result = result.and_then(|json| match serde_json::from_str::<Output>(&json) {
            Ok(Output::Html { html, chunks }) => Ok(FirstScreen {
                markup: html,
                chunks,
            }),
            Ok(Output::Redirect {}) => Err(RenderError::Script("the page redirects".to_owned())),
            Err(error) => Err(RenderError::Script(error.to_string())),
        });
        let outcome = match &result {
            Ok(_) => "ok",
            Err(RenderError::Timeout) => "timeout",
            Err(RenderError::Busy) => "busy",
            Err(RenderError::Fault) => "fault",
            Err(_) => "failed",
        };
        self.metrics.count_render(outcome, elapsed);
        result
    }
}

fn shell_text(shell: &Bytes) -> String {
    String::from_utf8_lossy(shell).into_owned()
}

/// `{"/api/pages/app":{"status":200,"body":{…}},…}` from answers whose bodies are JSON.
fn answers_json(answers: &[(String, u16, Bytes)]) -> String {
    let mut json = String::from("{");
    for (index, (path, status, body)) in answers.iter().enumerate() {
        if index > 0 {
            json.push(',');
        }
        let body = std::str::from_utf8(body)
            .ok()
            .filter(|text| serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok())
            .unwrap_or("null");
        json.push_str(&format!(
            r#"{}:{{"status":{status},"body":{body}}}"#,
            serde_json::Value::String(path.clone())
        ));
    }
    json.push('}');
    json
}
