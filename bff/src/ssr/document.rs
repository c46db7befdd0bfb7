//! A page's document: rendered once per cache fill, remembered in the edge cache under the
//! build id, answered by the hit path until a part changes.
//!
//! What a document is made of is what its render reads: its reads come first, off the render
//! threads (those its last render asked for, else those a pass of its loaders asks for), then
//! the head layer frames the page from their answers ([`Framing`]: head, status, the variant
//! shown), then the key, stale copy and failure memory are checked, and one fill renders.
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
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use bytes::Bytes;
use serde::Deserialize;

use super::engine::RenderError;
use super::frame::{Frame, Framing};
use super::markup::fill_root;
use super::pool::Pool;
use super::reads::{ApiAnswer, ApiReads, Need, Unread};
use super::recorded::Recorded;
use super::settings::SsrConfig;
use super::variant::{Variant, document_key};
use crate::cache::{CachedAnswer, EdgeCache, Epochs, Lookup, Rendered, ShareAgain};
use crate::coordination::single_flight::{Outcome, SingleFlight};
use crate::http::rate_limit::ClientRateLimit;
use crate::observe::metrics::Metrics;

const HTML: HeaderValue = HeaderValue::from_static("text/html; charset=utf-8");
const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");

/// Document keys remembered as failed at once, at most: a bound on memory however many keys
/// fail.
const MAX_FAILED_KEYS: u64 = 10_000;

/// Pages whose reads are remembered at once, at most (a few hundred bytes each).
const MAX_RECALLED_PAGES: u64 = 10_000;

/// Rounds of in-process reads one fill makes at most: a loader that reads what an earlier read
/// answered (a product, then its collection) costs a round each; past this the render fails.
const MAX_READ_ROUNDS: usize = 4;

/// What the failure memory holds for a page that fails before any of its reads is answered
/// (a loader reads a route no document may read, or the loaders' pass fails): it fails so for
/// every variant and whatever the data, so it is remembered by canonical key, for any parts.
const FAILS_BEFORE_READS: &str = "-";

/// A page whose document is asked for.
#[derive(Clone)]
pub struct DocumentPage {
    /// The page's canonical path (the router redirects any other spelling).
    pub path: String,
    /// The variant the request asks for, unchecked (the page's data checks it: [`Frame`]).
    pub requested: Option<Variant>,
    /// The app's route pattern (`product/:title`): what logs name, never the path.
    pub route: &'static str,
    /// Who asked: renders are counted per client, reads made as this client.
    pub client: IpAddr,
    /// The page's absolute URL, for the router.
    pub url: String,
    /// The route's documents may go to the shared cache (L2); a variant's never do.
    pub shareable: bool,
    /// What answers the render's reads, in process.
    pub reads: ApiReads,
    /// What makes the shell, head and status from the answers.
    pub framing: Arc<dyn Framing>,
}

impl std::fmt::Debug for DocumentPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocumentPage")
            .field("route", &self.route)
            .field("requested", &self.requested)
            .finish_non_exhaustive()
    }
}

/// One fill, as its leader runs it: the page, the reads answered so far and the frame they
/// made.
#[derive(Debug, Clone)]
struct Fill {
    key: String,
    /// The canonical document's key: the page's reads are remembered under it.
    canonical: String,
    page: DocumentPage,
    /// The URL rendered (the canonical one, with the variant shown).
    url: String,
    read: Recorded,
    /// A first screen the loaders' pass already rendered (a page that reads nothing).
    screen: Option<FirstScreen>,
    shell: Bytes,
    /// The cache's counters, read before any part was looked up.
    epochs: Epochs,
    /// L2's purge epoch, read before any part was looked up (`None`: the document stays out of
    /// L2): a document made from them reaches L2 only if no purge has happened since.
    shared_epoch: Option<String>,
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
    /// What each page's last render read, by canonical document key (which names the web
    /// build): read before the page's next render, which then needs no loaders' pass.
    recalled: moka::sync::Cache<String, Arc<[Need]>>,
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
#[derive(Debug, Clone)]
struct FirstScreen {
    markup: String,
    chunks: Vec<String>,
}

/// One pass of the render: the page, or the reads it needs first.
enum Pass {
    Screen(FirstScreen),
    Needs(Vec<Need>),
}

/// Why a document has no first screen before its render.
enum Unrendered {
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
    fn reason(&self) -> &'static str {
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

/// The page's first reads: what its last render read, else what a loaders' pass asks for.
struct FirstReads {
    read: Recorded,
    /// The loaders' pass rendered the page (it reads nothing).
    screen: Option<FirstScreen>,
}

impl Renderer {
    /// The document for `page`, given the request's headers (a matching `If-None-Match` is a
    /// 304). Always a document (`None` only when the web app is not built): a failed render is
    /// the shell with the data inlined.
    ///
    /// The page's reads come first, off the render threads: those its last render asked for,
    /// else those a pass of its loaders asks for. Their answers make the frame (head, status,
    /// the variant shown), then the document's key, freshness and failure memory are checked,
    /// and only then does one fill per key render.
    pub async fn document(
        self: &Arc<Self>,
        cache: &EdgeCache,
        build: &str,
        page: DocumentPage,
        request_headers: &HeaderMap,
    ) -> Option<Response<Body>> {
        let now = Instant::now();
        let asked = document_key(build, &page.path, page.requested.as_ref());
        // the hit path answers most hits; a request it passed on (a variant spelled otherwise,
        // an unknown sku) may still name a remembered document
        if let Some(remembered) = cache.remembered_document(&asked, now) {
            cache.count_served(&remembered);
            return Some(
                CachedAnswer::remembered(&remembered)
                    .at(now)
                    .send(request_headers),
            );
        }
        let canonical = document_key(build, &page.path, None);
        if self
            .failed
            .get(&canonical)
            .is_some_and(|made_from| &*made_from == FAILS_BEFORE_READS)
        {
            let frame = page.framing.frame(&[], page.requested.as_ref())?;
            return Some(self.shell(
                &frame,
                &Recorded::default(),
                "failed_recently",
                request_headers,
            ));
        }
        // read before any part is looked up: a store or purge after this makes the document
        // stale, and keeps it out of L2
        let epochs = cache.epochs();
        let shared_epoch = if page.shareable {
            cache.shared_epoch().await
        } else {
            None
        };
        let first = match self.first_reads(&canonical, &page).await {
            Ok(first) => first,
            Err((unrendered, read)) => {
                let frame = page.framing.frame(&read.answers, page.requested.as_ref())?;
                return Some(self.shell(&frame, &read, unrendered.reason(), request_headers));
            }
        };
        let FirstReads { read, screen } = first;
        let frame = page.framing.frame(&read.answers, page.requested.as_ref())?;
        let key = document_key(build, &page.path, frame.variant.as_ref());
        if key != asked
            && let Some(remembered) = cache.remembered_document(&key, now)
        {
            cache.count_served(&remembered);
            return Some(
                CachedAnswer::remembered(&remembered)
                    .at(now)
                    .send(request_headers),
            );
        }
        if !frame.first_screen || !read.described() {
            return Some(unrendered(&frame, &read, request_headers));
        }
        if !read.fresh(now)
            && let Some(stale) = cache.stale_document(&key, now)
        {
            return Some(
                CachedAnswer::remembered(&stale)
                    .at(now)
                    .send(request_headers),
            );
        }
        if self
            .failed
            .get(&key)
            .is_some_and(|made_from| *made_from == *read.signature())
        {
            return Some(self.shell(&frame, &read, "failed_recently", request_headers));
        }
        let url = match &frame.variant {
            Some(variant) => format!("{}?{}", page.url, variant.query()),
            None => page.url.clone(),
        };
        let fill = Fill {
            key: key.clone(),
            canonical,
            url,
            read: read.clone(),
            screen,
            shell: frame.shell.clone(),
            epochs,
            // a variant stays in this replica's cache: only the canonical document goes to L2
            shared_epoch: shared_epoch.filter(|_| frame.variant.is_none()),
            page,
        };
        let renderer = self.clone();
        let filling = cache.clone();
        let (flight, role) =
            self.fills.join_or_start(
                key.clone(),
                async move { renderer.fill(&filling, fill).await },
            );
        if role == crate::coordination::single_flight::Role::Follower
            && let Some(stale) = cache.stale_document(&key, now)
        {
            return Some(
                CachedAnswer::remembered(&stale)
                    .at(now)
                    .send(request_headers),
            );
        }
        let (body, parts) = match flight.await {
            // remembered for the hit path from now on; when a read went past the cache (a miss,
            // a refresh), this answer says so, as a composed answer's does
            Outcome::Completed(Filled::Remembered(rendered)) => {
                let parts = read.parts();
                if parts.iter().all(|part| part.miss_reason.is_none()) {
                    return Some(CachedAnswer::remembered(&rendered).send(request_headers));
                }
                (rendered.body().clone(), Some(parts))
            }
            Outcome::Completed(Filled::Made(body, parts)) => (body, parts),
            Outcome::Completed(Filled::Shell(reason)) => {
                return Some(self.shell(&frame, &read, reason, request_headers));
            }
            // the fill's task was lost: the shell with the data, as after a failed render
            Outcome::Panicked | Outcome::Cancelled => {
                return Some(self.shell(&frame, &read, "fill_lost", request_headers));
            }
        };
        Some(
            CachedAnswer::document(parts.iter().flatten(), StatusCode::OK, HTML, body)
                .revalidated()
                .send(request_headers),
        )
    }

    /// The page's first reads, answered: those its last render asked for (by `canonical`
    /// key), else those a pass of its loaders asks for, remembered for the next render. On
    /// failure, why, and what was read.
    async fn first_reads(
        &self,
        canonical: &str,
        page: &DocumentPage,
    ) -> Result<FirstReads, (Unrendered, Recorded)> {
        let mut read = Recorded::default();
        let needs = match self.recalled.get(canonical) {
            Some(needs) => needs.to_vec(),
            None => match self.render(&page.url, &read.json()).await {
                Ok(Pass::Needs(needs)) => needs,
                Ok(Pass::Screen(screen)) => {
                    self.recalled.insert(canonical.to_owned(), Arc::from([]));
                    return Ok(FirstReads {
                        read,
                        screen: Some(screen),
                    });
                }
                Err(error) => {
                    if error.is_the_documents() {
                        self.failed
                            .insert(canonical.to_owned(), FAILS_BEFORE_READS.into());
                    }
                    let unrendered = Unrendered::Render(error);
                    self.log_fallback(page.route, &unrendered);
                    return Err((unrendered, read));
                }
            },
        };
        if !needs.is_empty() {
            match self.read(page, &read, needs.clone(), 1).await {
                Ok(answers) => read.extend(needs, answers),
                Err(unrendered) => {
                    if matches!(unrendered, Unrendered::Refused(_)) {
                        self.failed
                            .insert(canonical.to_owned(), FAILS_BEFORE_READS.into());
                    }
                    self.log_fallback(page.route, &unrendered);
                    return Err((unrendered, read));
                }
            }
        }
        self.recalled
            .insert(canonical.to_owned(), read.needs.clone().into());
        Ok(FirstReads { read, screen: None })
    }

    /// The shell with the page's head and data and no first screen, counted under `reason`.
    fn shell(
        &self,
        frame: &Frame,
        read: &Recorded,
        reason: &'static str,
        request_headers: &HeaderMap,
    ) -> Response<Body> {
        self.metrics.count_render_fallback(reason);
        let body = fill_root(&shell_text(&frame.shell), "", &read.json(), &[]);
        let parts = read.parts();
        CachedAnswer::document(&parts, StatusCode::OK, HTML, Bytes::from(body))
            .revalidated()
            .send(request_headers)
    }

    /// Logs a fill that serves the shell, naming the route template, never the path or the
    /// query (a search term is personal).
    fn log_fallback(&self, route: &str, error: &dyn std::fmt::Display) {
        tracing::warn!(http.route = %format_args!("/{route}"), %error, "server render failed: the shell with the page's data is served instead");
    }

    /// Renders the fill's page and remembers it under its key when every part is fresh.
    async fn fill(&self, cache: &EdgeCache, fill: Fill) -> Filled {
        let Fill {
            key,
            canonical,
            page,
            url,
            mut read,
            mut screen,
            shell,
            epochs,
            shared_epoch,
        } = fill;
        if shared_epoch.is_some() {
            // another replica may have rendered it from these very parts
            let made_of = read.parts();
            let parts: Vec<&Lookup> = made_of.iter().collect();
            let epochs = cache.epochs_if_unchanged(&parts).await;
            if let Some(shared) = match epochs {
                Some(epochs) => cache.shared_document(&key, epochs, &parts).await,
                None => None,
            } {
                return Filled::Remembered(shared);
            }
        }
        // the last check before the CPU is spent: every cache has been asked
        if screen.is_none() && !self.budget.admits(page.client).await {
            return Filled::Shell("over_budget");
        }
        let mut rounds = 1;
        let screen = loop {
            if let Some(screen) = screen.take() {
                break screen;
            }
            let needs = match self.render(&url, &read.json()).await {
                Ok(Pass::Screen(screen)) => break screen,
                Ok(Pass::Needs(needs)) => needs,
                Err(error) => {
                    if error.is_the_documents() {
                        self.failed.insert(key, read.signature());
                    }
                    self.log_fallback(page.route, &error);
                    return Filled::Shell("render_failed");
                }
            };
            rounds += 1;
            // off the render thread: the thread serves other documents meanwhile
            match self.read(&page, &read, needs.clone(), rounds).await {
                Ok(answers) => {
                    read.extend(needs, answers);
                    self.recalled
                        .insert(canonical.clone(), read.needs.clone().into());
                }
                Err(unrendered) => {
                    if matches!(unrendered, Unrendered::Refused(_)) {
                        self.failed.insert(canonical, FAILS_BEFORE_READS.into());
                    }
                    self.log_fallback(page.route, &unrendered);
                    return Filled::Shell(unrendered.reason());
                }
            }
        };
        let body = Bytes::from(fill_root(
            &shell_text(&shell),
            &screen.markup,
            &read.json(),
            &screen.chunks,
        ));
        if !read.described() {
            return Filled::Made(body, None);
        }
        let made_of = read.parts();
        let parts: Vec<&Lookup> = made_of.iter().collect();
        // parts this request stored bumped the counters read before the lookups
        let epochs = match cache.epochs_if_unchanged(&parts).await {
            Some(epochs) => epochs,
            None => epochs,
        };
        match cache
            .remember_document(key.clone(), epochs, &parts, &body)
            .await
        {
            Some(rendered) => {
                let shared = match &shared_epoch {
                    Some(epoch) => cache.share_document(&key, epoch, &parts, &rendered).await,
                    None => false,
                };
                let share = shared.then(|| ShareAgain {
                    epoch: shared_epoch.clone().unwrap_or_default(),
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
    /// counted under its route template.
    async fn read(
        &self,
        page: &DocumentPage,
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
            futures::future::join_all(needs.iter().map(|need| page.reads.read(need, page.client)))
                .await;
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

/// A document with nothing rendered: the frame's shell as it is, with its status (a 404), for
/// the app to render in the browser. Cached as its parts when every answer is described; else
/// revalidated every time, and without the data (an answer nothing describes, a problem the
/// API answered without an entry, is the app's to ask for again and show).
fn unrendered(frame: &Frame, read: &Recorded, request_headers: &HeaderMap) -> Response<Body> {
    if read.described() {
        let parts = read.parts();
        return CachedAnswer::document(&parts, frame.status, HTML, frame.shell.clone())
            .revalidated()
            .send(request_headers);
    }
    let mut response = Response::new(Body::from(frame.shell.clone()));
    *response.status_mut() = frame.status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HTML);
    headers.insert(header::CACHE_CONTROL, NO_CACHE);
    response
}

fn shell_text(shell: &Bytes) -> String {
    String::from_utf8_lossy(shell).into_owned()
}
