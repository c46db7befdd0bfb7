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

use super::frame::{Frame, Framing};
use super::markup::fill_root;
use super::reads::ApiReads;
use super::recorded::Recorded;
use super::renderer::{Filled, FirstScreen, Pass, Renderer, Unrendered};
use super::variant::{Variant, document_key};
use crate::cache::{CachedAnswer, EdgeCache, Epochs, Lookup, ShareAgain};
use crate::coordination::single_flight::Outcome;

const HTML: HeaderValue = HeaderValue::from_static("text/html; charset=utf-8");
const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");

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
            match self
                .read(&page.reads, page.client, &read, needs.clone(), 1)
                .await
            {
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
            match self
                .read(&page.reads, page.client, &read, needs.clone(), rounds)
                .await
            {
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
