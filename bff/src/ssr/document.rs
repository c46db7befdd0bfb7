//! A page's document: rendered once per cache fill, remembered in the edge cache under the
//! build id, answered by the hit path until a part changes.
//!
//! A fill is coalesced by document key: the first request renders, the others wait for it, or
//! get the document's stale copy when there is one within its stale-while-revalidate window.
//! While any part is itself stale (a purge, an expiry), a stale document is answered as it is
//! and nothing renders: the part's refresh is under way, and the first request after it
//! renders the document once. A render that fails (an error, the time or memory limit, a full
//! queue, the test fault switch) answers the shell with the data inlined: counted, logged once
//! for the fill (naming the route template, never the path or the query: a search term is
//! personal), never an error page.
//!
//! A document whose render failed is remembered as failed, per document key, for
//! `ssr.failed_render_ttl` while its parts are the same entries: meanwhile its misses get the
//! shell with the data and no render, so one page that cannot render (a CMS edit every
//! document includes) costs one render per key and window, not one per request. Renders are
//! also counted per client (`rate_limit.renders_per_minute`): past it, that client's misses get
//! the shell with the data. Both limits sit just before the render, behind every cache hit.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode};
use bytes::Bytes;
use serde::Deserialize;

use super::engine::RenderError;
use super::markup::fill_root;
use super::pool::Pool;
use super::reads::{ApiReads, Need, Unread};
use super::settings::SsrConfig;
use super::variant::{Variant, document_key};
use crate::cache::{CachedAnswer, EdgeCache, Epochs, Lookup, Rendered, ShareAgain};
use crate::coordination::single_flight::{Outcome, SingleFlight};
use crate::http::rate_limit::ClientRateLimit;
use crate::observe::metrics::Metrics;

const HTML: HeaderValue = HeaderValue::from_static("text/html; charset=utf-8");

/// Document keys remembered as failed at once, at most: a bound on memory however many keys
/// fail.
const MAX_FAILED_KEYS: u64 = 10_000;

/// Rounds of in-process reads one fill makes at most: a loader that reads what an earlier read
/// answered (a product, then its collection) costs a round each; past this the render fails.
const MAX_READ_ROUNDS: usize = 4;

/// What a page's document is made of.
#[derive(Debug, Clone)]
pub struct DocumentParts {
    /// The page's canonical path (the router redirects any other spelling).
    pub path: String,
    /// The variant of the page the document shows (checked against the page's data), if any.
    pub variant: Option<Variant>,
    /// The app's route pattern (`product/:title`): what logs name, never the path.
    pub route: &'static str,
    /// Who asked: renders are counted per client.
    pub client: IpAddr,
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
    /// What answers the render's other reads, in process (`None`: a read fails the render).
    pub reads: Option<ApiReads>,
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
    /// Documents whose last render failed, by document key, with the parts it was made from
    /// (`key etag` each): for `ssr.failed_render_ttl`, or until a part changes.
    failed: moka::sync::Cache<String, Arc<str>>,
    /// Renders per client (this replica's CPU: counted here, not across replicas).
    budget: ClientRateLimit,
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
            budget,
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
    /// A document not remembered (a part was stale), and the parts it is made from (`None`: an
    /// answer it inlines has no cache entry behind it, so nothing describes its freshness).
    Made(Bytes, Option<Vec<Lookup>>),
    /// No first screen: the shell with the data, for this reason (`bff_ssr_fallbacks_total`).
    Shell(&'static str),
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
    /// The loaders asked for reads the input had no answer to.
    Needs {
        needs: Vec<Need>,
    },
}

/// What a render makes of a page.
struct FirstScreen {
    markup: String,
    chunks: Vec<String>,
}

/// One pass of the render: the page, or the reads it needs first.
enum Pass {
    Screen(FirstScreen),
    Needs(Vec<Need>),
}

/// Why a fill's reads gave no answers to render with.
enum ReadsFailed {
    /// Refused (not a readable route), or the render asked past [`MAX_READ_ROUNDS`]: the
    /// document's own failure, remembered for its key.
    Document(String),
    /// A readable route did not answer in time: tried again on the next miss.
    Read(Unread),
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
        let key = document_key(build, &page.path, page.variant.as_ref());
        // the hit path answers most hits; a request it passed on (a variant spelled otherwise,
        // an unknown sku) may still name a remembered document
        if let Some(remembered) = cache.remembered_document(&key, now) {
            cache.count_served(&remembered);
            return CachedAnswer::remembered(&remembered)
                .at(now)
                .send(request_headers);
        }
        let parts_fresh = page
            .parts
            .iter()
            .all(|part| part.entry.status == StatusCode::OK && part.freshness.is_fresh(now));
        if !parts_fresh && let Some(stale) = cache.stale_document(&key, now) {
            return CachedAnswer::remembered(&stale)
                .at(now)
                .send(request_headers);
        }
        if self.failed_recently(&key, &page.parts) {
            return self.shell(&page, "failed_recently", request_headers);
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
            Outcome::Completed(Filled::Made(body, parts)) => (body, parts),
            Outcome::Completed(Filled::Shell(reason)) => {
                return self.shell(&page, reason, request_headers);
            }
            // the fill's task was lost: the shell with the data, as after a failed render
            Outcome::Panicked | Outcome::Cancelled => {
                return self.shell(&page, "fill_lost", request_headers);
            }
        };
        let (body, parts) = made;
        CachedAnswer::document(parts.iter().flatten(), StatusCode::OK, HTML, body)
            .revalidated()
            .send(request_headers)
    }

    /// The shell with the page's data and no first screen, counted under `reason`.
    fn shell(
        &self,
        page: &DocumentParts,
        reason: &'static str,
        request_headers: &HeaderMap,
    ) -> Response<Body> {
        self.metrics.count_render_fallback(reason);
        let body = fill_root(
            &shell_text(&page.shell),
            "",
            &answers_json(&page.answers),
            &[],
        );
        CachedAnswer::document(&page.parts, StatusCode::OK, HTML, Bytes::from(body))
            .revalidated()
            .send(request_headers)
    }

    /// Whether the document's last render, from these very parts, failed within
    /// `ssr.failed_render_ttl`.
    fn failed_recently(&self, key: &str, parts: &[Lookup]) -> bool {
        self.failed
            .get(key)
            .is_some_and(|made_from| *made_from == *part_signature(parts))
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
        // the last check before the CPU is spent: every cache has been asked
        if !self.budget.admits(page.client).await {
            return Filled::Shell("over_budget");
        }
        let shell = shell_text(&page.shell);
        let url = match &page.variant {
            Some(variant) => format!("{}?{}", page.url, variant.query()),
            None => page.url.clone(),
        };
        // the page's answers, and those of the reads the render asks for, each recorded with
        // the cache entries it is made from
        let mut answers = page.answers.clone();
        let mut made_of = page.parts.clone();
        let mut described = true;
        let mut rounds = 0;
        let (screen, answers) = loop {
            let inlined = answers_json(&answers);
            let needs = match self.render(&url, &inlined).await {
                Ok(Pass::Screen(screen)) => break (screen, inlined),
                Ok(Pass::Needs(needs)) => needs,
                Err(error) => {
                    if error.is_the_documents() {
                        self.failed.insert(key, part_signature(&page.parts));
                    }
                    tracing::warn!(http.route = %format_args!("/{}", page.route), %error, "server render failed: the shell with the page's data is served instead");
                    return Filled::Shell("render_failed");
                }
            };
            rounds += 1;
            // off the render thread: the thread serves other documents meanwhile
            match self.read(&page, &answers, needs, rounds).await {
                Ok(read) => {
                    for answer in read {
                        match answer.parts {
                            Some(parts) => made_of.extend(parts),
                            None => described = false,
                        }
                        answers.push((answer.key, answer.status, answer.body));
                    }
                }
                Err(ReadsFailed::Document(why)) => {
                    self.failed.insert(key, part_signature(&page.parts));
                    tracing::warn!(http.route = %format_args!("/{}", page.route), error = %why, "server render failed: the shell with the page's data is served instead");
                    return Filled::Shell("read_refused");
                }
                Err(ReadsFailed::Read(unread)) => {
                    tracing::warn!(http.route = %format_args!("/{}", page.route), error = %unread, "server render failed: the shell with the page's data is served instead");
                    return Filled::Shell("read_failed");
                }
            }
        };
        let body = Bytes::from(fill_root(&shell, &screen.markup, &answers, &screen.chunks));
        if !described {
            return Filled::Made(body, None);
        }
        let parts: Vec<&Lookup> = made_of.iter().collect();
        // parts this request stored bumped the counters read before the lookups
        let epochs = match cache.epochs_if_unchanged(&parts).await {
            Some(epochs) => epochs,
            None => page.epochs,
        };
        match cache
            .remember_document(key.clone(), epochs, &parts, &body)
            .await
        {
            Some(rendered) => {
                let shared = match &page.shared_epoch {
                    Some(epoch) => cache.share_document(&key, epoch, &parts, &rendered).await,
                    None => false,
                };
                let share = shared.then(|| ShareAgain {
                    epoch: page.shared_epoch.clone().unwrap_or_default(),
                    parts: made_of.clone(),
                });
                cache.recompress_document_later(key, rendered.clone(), share);
                Filled::Remembered(rendered)
            }
            None => Filled::Made(body, Some(made_of)),
        }
    }

    /// The answers to the reads a render asked for (round `round` of the fill), read in
    /// process, all at once. A read refused (a route no document may read) fails the document,
    /// counted under its route template and logged naming it, never the path or the query.
    async fn read(
        &self,
        page: &DocumentParts,
        answered: &[(String, u16, Bytes)],
        needs: Vec<Need>,
        round: usize,
    ) -> Result<Vec<super::reads::ApiAnswer>, ReadsFailed> {
        let Some(reads) = &page.reads else {
            return Err(ReadsFailed::Document(
                "the render reads the API, and this document has no reader".to_owned(),
            ));
        };
        // a render that asks again for what it was given would ask for ever
        let again = needs
            .iter()
            .all(|need| answered.iter().any(|(key, ..)| *key == need.key));
        if round > MAX_READ_ROUNDS || again {
            return Err(ReadsFailed::Document(format!(
                "the render still asks for reads after {round} rounds"
            )));
        }
        let read =
            futures::future::join_all(needs.iter().map(|need| reads.read(need, page.client))).await;
        let mut answers = Vec::with_capacity(read.len());
        for answer in read {
            match answer {
                Ok(answer) => answers.push(answer),
                Err(unread @ Unread::Refused { .. }) => {
                    self.metrics.count_refused_read(unread.template());
                    return Err(ReadsFailed::Document(unread.to_string()));
                }
                Err(unread) => return Err(ReadsFailed::Read(unread)),
            }
        }
        Ok(answers)
    }

    /// The first screen's markup for `url` and its route's scripts, counted by outcome.
    async fn render(&self, url: &str, answers: &str) -> Result<Pass, RenderError> {
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
            Ok(Output::Html { html, chunks }) => Ok(Pass::Screen(FirstScreen {
                markup: html,
                chunks,
            })),
            Ok(Output::Needs { needs }) if !needs.is_empty() => Ok(Pass::Needs(needs)),
            Ok(Output::Needs { .. }) => Err(RenderError::Script("it needs nothing".to_owned())),
            Ok(Output::Redirect {}) => Err(RenderError::Script("the page redirects".to_owned())),
            Err(error) => Err(RenderError::Script(error.to_string())),
        });
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

/// The parts a document is made from, each `key etag`: a failure is remembered for these.
fn part_signature(parts: &[Lookup]) -> Arc<str> {
    let mut signature = String::new();
    for part in parts {
        signature.push_str(&part.key);
        signature.push(' ');
        signature.push_str(part.entry.etag.to_str().unwrap_or_default());
        signature.push('\n');
    }
    signature.into()
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
