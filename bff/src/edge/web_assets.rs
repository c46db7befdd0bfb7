//! Serving the built web app: hashed assets cached forever, and `index.html` carrying the
//! public runtime config, split around the place each page's head goes. Every other
//! non-`/api` path is the document `crate::seo` answers with that shell.
//!
//! Static files go out as stored: the variant the build precompressed (`.br`, `.gz` siblings)
//! that `Accept-Encoding` prefers, never compressed again per request. During a rollout's window
//! ([`rollout`]) the previous releases' hashed assets are served too (version skew).

pub mod rollout;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::MethodRouter;
use bytes::Bytes;
use tower::ServiceExt;
use tower_http::services::ServeDir;

use crate::cache::http::StoredEncoding;
use crate::config::WebConfig;
use crate::coordination::replicas::Redis;
use crate::coordination::shared_tier_mac::SharedTierMac;
use crate::observe::metrics::{AnsweredRoute, DOCUMENT_ROUTE};
use rollout::RolloutWindow;

/// Where Vite's `index.html` expects the runtime config: this element, whose content (`{}`, laid
/// out however a formatter likes) is replaced.
const CONFIG_ELEMENT_START: &str = r#"<script id="runtime-config" type="application/json">"#;

const IMMUTABLE: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");
const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");
/// A missing asset may be deployed a moment later (or be a previous release's, past its
/// window): no cache may keep the 404.
const NO_STORE: HeaderValue = HeaderValue::from_static("no-store");
/// Unhashed files next to `index.html` (favicon, robots.txt) may change between releases.
const SHORT: HeaderValue = HeaderValue::from_static("public, max-age=3600");

#[derive(Debug, Clone)]
pub struct WebAssets {
    dist_dir: PathBuf,
    /// The rendered `index.html` without its own title and description, split where a page's
    /// head goes; `None` when the web app has not been built.
    shell: Option<Shell>,
    /// Which web build this is: see [`build_id`]. `None` when the web app has not been built.
    build_id: Option<String>,
    /// Previous releases' dist directories, whose `/assets/*` are served while the window is open.
    previous_dist_dirs: Vec<PathBuf>,
    rollout: Arc<RolloutWindow>,
}

/// The app shell around the place of the head: `before`, the head's tags, `after`.
#[derive(Debug, Clone)]
struct Shell {
    before: String,
    after: String,
}

impl WebAssets {
    pub fn load(dist_dir: &Path, public_config_json: &str) -> Self {
        let template = match std::fs::read_to_string(dist_dir.join("index.html")) {
            Ok(template) => Some(template),
            Err(err) => {
                tracing::warn!(dir = %dist_dir.display(), %err, "web app not built; pages answer 503");
                None
            }
        };
        let index = template
            .as_deref()
            .map(|template| render_index(template, public_config_json));
        let build_id = template.as_deref().map(build_id);
        Self {
            dist_dir: dist_dir.to_owned(),
            shell: index.as_deref().map(shell),
            rollout: Arc::new(RolloutWindow::new(Duration::ZERO, build_id.clone(), None)),
            build_id,
            previous_dist_dirs: Vec::new(),
        }
    }

    /// The same, also serving the hashed assets of `config.previous_dist_dirs` for the
    /// configured window, its start shared through `redis` when set (with the MAC its values
    /// carry there). Starts recording this build's first start in Redis, and following the
    /// window's closing, when called within a Tokio runtime.
    pub fn with_previous_releases(
        mut self,
        config: &WebConfig,
        redis: Option<(Redis, SharedTierMac)>,
    ) -> Self {
        let window = config.previous_assets_window;
        self.previous_dist_dirs
            .clone_from(&config.previous_dist_dirs);
        self.rollout = Arc::new(RolloutWindow::new(window, self.build_id.clone(), redis));
        if !self.previous_dist_dirs.is_empty() {
            tracing::info!(dirs = ?self.previous_dist_dirs, window_seconds = window.as_secs(), "previous releases' assets served during the rollout window");
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                let rollout = Arc::downgrade(&self.rollout);
                runtime.spawn(RolloutWindow::follow(rollout));
            }
        }
        self
    }

    /// The rollout window (its state, and closing it from the admin API).
    pub fn rollout(&self) -> &RolloutWindow {
        &self.rollout
    }

    /// The web build this instance serves (see `build_id`); `None` when it is not built.
    pub fn build_id(&self) -> Option<&str> {
        self.build_id.as_deref()
    }

    /// Whether the web app was built (else pages answer [`Self::not_built`]).
    pub fn is_built(&self) -> bool {
        self.shell.is_some()
    }

    /// The app's document with `head` (tags) in its head; `None` when the app is not built.
    pub fn document(&self, head: &str) -> Option<Bytes> {
        let shell = self.shell.as_ref()?;
        let mut html = String::with_capacity(shell.before.len() + head.len() + shell.after.len());
        html.push_str(&shell.before);
        html.push_str(head);
        html.push_str(&shell.after);
        Some(Bytes::from(html))
    }

    /// The answer while the web app is not built: a 503 saying how to build it.
    pub fn not_built() -> Response {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::CACHE_CONTROL, NO_CACHE)],
            Html("<!doctype html><title>Not built</title><p>The web app is not built: run <code>make run</code> (or <code>npm run build</code> in <code>web/</code>).</p>"),
        )
            .into_response()
    }
}

/// `index` split where a page's head goes (before the runtime config, else before `</head>`),
/// with Vite's placeholder `<title>` and empty description removed: every page brings its own.
fn shell(index: &str) -> Shell {
    let mut html = index.to_owned();
    if let (Some(start), Some(end)) = (html.find("<title"), html.find("</title>"))
        && start < end
    {
        html.replace_range(start..end + "</title>".len(), "");
    }
    if let Some(start) = html.find(r#"<meta name="description""#)
        && let Some(length) = html[start..].find('>')
    {
        html.replace_range(start..=start + length, "");
    }
    let at = html
        .find(r#"<script id="runtime-config""#)
        .or_else(|| html.find("</head>"))
        .unwrap_or(0);
    let after = html.split_off(at);
    Shell {
        before: html,
        after,
    }
}

/// A web build's identity: the first 16 hex digits of the SHA-256 of its `index.html` as Vite
/// wrote it. That file names every hashed entry chunk, so it changes exactly when the code a
/// document loads changes, and every replica of one release computes the same id without being
/// told it. Keys of rendered documents and the asset-retention window of a rollout use it.
fn build_id(index_template: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(index_template.as_bytes());
    hex::encode(&digest[..8])
}

/// Puts the config JSON into the page, escaped so no value can close the script element.
fn render_index(template: &str, public_config_json: &str) -> String {
    let safe = crate::http::json_in_html::script_safe(public_config_json);
    let element = format!("{CONFIG_ELEMENT_START}{safe}</script>");
    if let Some(start) = template.find(CONFIG_ELEMENT_START)
        && let Some(length) = template[start..].find("</script>")
    {
        let end = start + length + "</script>".len();
        return format!("{}{element}{}", &template[..start], &template[end..]);
    }
    template.replacen("</head>", &format!("{element}</head>"), 1)
}

/// Routes for the web app; `document` (the page for any other path) is this router's fallback.
pub fn router<S: Clone + Send + Sync + 'static>(
    web: &Arc<WebAssets>,
    document: MethodRouter,
) -> Router<S> {
    let assets = {
        let web = web.clone();
        Router::new().fallback(move |request: Request| hashed_asset(web.clone(), request))
    };
    let root_files = {
        let dist = web.dist_dir.clone();
        let document = document.clone();
        move |request: Request| root_file_or_document(dist.clone(), document.clone(), request)
    };
    Router::new()
        .route_service("/index.html", document)
        .nest("/assets", assets)
        .fallback(root_files)
        .layer(middleware::from_fn(precompressed_build_files))
        .layer(middleware::from_fn(default_cache_control))
}

/// A directory's files as stored: the `.br` or `.gz` sibling `Accept-Encoding` prefers (q-values
/// honoured, `q=0` refused, brotli first on a tie), else the file itself, typed as the original
/// and with `Vary: Accept-Encoding`.
fn static_files(dir: &Path) -> ServeDir {
    ServeDir::new(dir)
        .append_index_html_on_directories(false)
        .precompressed_br()
        .precompressed_gzip()
}

/// `request` (its parts; a GET carries no body) served from `dir`, marked as stored so the
/// compression layer sends it as it is.
async fn serve_from(dir: &Path, parts: &axum::http::request::Parts) -> Response {
    let request = Request::from_parts(parts.clone(), Body::empty());
    let Ok(response) = static_files(dir).oneshot(request).await;
    let mut response = response.map(Body::new);
    response.extensions_mut().insert(StoredEncoding);
    response
}

/// Whether `response` is a file (a 404 or 405 from the file service is not).
fn found(response: &Response) -> bool {
    !matches!(
        response.status(),
        StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
    )
}

/// `/assets/*`: this build's file, else, while the rollout window is open, a previous
/// release's; found ones are cached for a year, a miss is a plain 404 nobody keeps.
async fn hashed_asset(web: Arc<WebAssets>, request: Request) -> Response {
    let (parts, _) = request.into_parts();
    let mut response = serve_from(&web.dist_dir.join("assets"), &parts).await;
    if !found(&response) && !web.previous_dist_dirs.is_empty() && web.rollout.is_open().await {
        for dir in &web.previous_dist_dirs {
            response = serve_from(&dir.join("assets"), &parts).await;
            if found(&response) {
                break;
            }
        }
    }
    if !found(&response) {
        return missing_asset();
    }
    let cache_control = if response.status().is_success() || response.status().is_redirection() {
        IMMUTABLE
    } else {
        NO_STORE
    };
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, cache_control);
    response
}

/// A hashed asset this replica cannot serve: never the app shell (a browser would run HTML as a
/// script), and never cached.
fn missing_asset() -> Response {
    (
        StatusCode::NOT_FOUND,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, NO_STORE),
        ],
        "Not found",
    )
        .into_response()
}

/// Files next to `index.html` (favicon, manifest), as stored; any other path is the document.
/// The build's server-side outputs are not public: a path into them is the document too (the
/// app's 404), as if they were not there.
async fn root_file_or_document(
    dist: PathBuf,
    document: MethodRouter,
    request: Request,
) -> Response {
    let (parts, body) = request.into_parts();
    if !is_server_side_output(parts.uri.path()) {
        let response = serve_from(&dist, &parts).await;
        if found(&response) {
            return response;
        }
    }
    // The server span was named before routing, when no route had matched: name it now.
    crate::observe::telemetry::name_route(&tracing::Span::current(), &parts.method, DOCUMENT_ROUTE);
    let Ok(mut response) = document.oneshot(Request::from_parts(parts, body)).await;
    response
        .extensions_mut()
        .insert(AnsweredRoute(DOCUMENT_ROUTE));
    response
}

/// The web build's directories that only the server reads: the server renderer (`ssr/`, the
/// whole app as one script) and Vite's manifest (`.vite/`, every chunk's name and import).
const SERVER_SIDE_OUTPUTS: [&str; 2] = ["ssr", ".vite"];

/// Whether `path` names a file in [`SERVER_SIDE_OUTPUTS`] the way the file service reads it:
/// percent-decoded, `.` and empty segments skipped.
fn is_server_side_output(path: &str) -> bool {
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    let first = std::path::Path::new(decoded.as_ref())
        .components()
        .find_map(|component| match component {
            std::path::Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        });
    first.is_some_and(|name| SERVER_SIDE_OUTPUTS.contains(&name.as_str()))
}

/// A WebGL build (Unity's `Build/` folder) ships files compressed ahead of time and asks for them
/// by their full names (`game.wasm.br`). They must go out as what they contain, with the
/// encoding named, or the browser hands compressed bytes to the WebAssembly compiler: the classic
/// cause of broken Unity hosting.
async fn precompressed_build_files(request: Request, next: Next) -> Response {
    let Some((encoding, content_type)) = precompressed(request.uri().path()) else {
        return next.run(request).await;
    };
    let mut response = next.run(request).await;
    // a missing file falls back to the app shell, which is HTML and not compressed
    let is_app_shell = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/html"));
    if !response.status().is_success() || is_app_shell {
        return response;
    }
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding));
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// The encoding and the content type of a precompressed file, from its name.
fn precompressed(path: &str) -> Option<(&'static str, &'static str)> {
    let (inner, encoding) = if let Some(inner) = path.strip_suffix(".br") {
        (inner, "br")
    } else if let Some(inner) = path.strip_suffix(".gz") {
        (inner, "gzip")
    } else {
        return None;
    };
    let extension = inner
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase());
    let content_type = match extension.as_deref() {
        Some("wasm") => "application/wasm",
        Some("js") => "text/javascript",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    };
    Some((encoding, content_type))
}

async fn default_cache_control(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    if !response.headers().contains_key(header::CACHE_CONTROL) {
        let value = if response.status().is_success() {
            SHORT
        } else {
            NO_CACHE
        };
        response.headers_mut().insert(header::CACHE_CONTROL, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::{build_id, is_server_side_output, precompressed, render_index, shell};

    #[test]
    fn the_server_side_outputs_are_recognised_however_the_path_is_spelled() {
        for path in [
            "/ssr/render.js",
            "/.vite/manifest.json",
            "//ssr/render.js",
            "/./ssr/render.js",
            "/%73sr/render.js",
            "/%2Evite/manifest.json",
            "/ssr/render.js.br",
        ] {
            assert!(is_server_side_output(path), "{path}");
        }
        for path in [
            "/favicon.svg",
            "/ssrx/render.js",
            "/vite/manifest.json",
            "/",
        ] {
            assert!(!is_server_side_output(path), "{path}");
        }
    }

    #[test]
    fn a_build_is_named_by_its_index() {
        let one = build_id(r#"<script type="module" src="/assets/index-AAAA.js"></script>"#);
        let same = build_id(r#"<script type="module" src="/assets/index-AAAA.js"></script>"#);
        let next = build_id(r#"<script type="module" src="/assets/index-BBBB.js"></script>"#);
        assert_eq!(one, same);
        assert_ne!(one, next);
        assert_eq!(one.len(), 16);
        assert!(one.bytes().all(|byte| byte.is_ascii_hexdigit()));
    }

    #[test]
    fn precompressed_files_are_typed_by_what_they_contain() {
        assert_eq!(
            precompressed("/Build/game.wasm.br"),
            Some(("br", "application/wasm"))
        );
        assert_eq!(
            precompressed("/Build/game.framework.js.br"),
            Some(("br", "text/javascript"))
        );
        assert_eq!(
            precompressed("/Build/game.data.br"),
            Some(("br", "application/octet-stream"))
        );
        assert_eq!(
            precompressed("/Build/game.wasm.gz"),
            Some(("gzip", "application/wasm"))
        );
        assert_eq!(precompressed("/Build/game.wasm"), None);
        assert_eq!(precompressed("/favicon.svg"), None);
    }

    #[test]
    fn config_cannot_close_the_script_element() {
        let html = render_index(
            r#"<head><script id="runtime-config" type="application/json">{}</script></head>"#,
            r#"{"brandName":"</script><script>alert(1)</script>"}"#,
        );
        assert_eq!(html.matches("</script>").count(), 1, "{html}");
        assert!(html.contains(r"\u003c/script\u003e"));
    }

    #[test]
    fn the_placeholder_is_replaced_however_it_is_laid_out() {
        // as Prettier writes it: the app reads the first such element, so there must be one
        let template = "<head>\n    <script id=\"runtime-config\" type=\"application/json\">\n      {}\n    </script>\n  </head>";
        let html = render_index(template, r#"{"brandName":"Talonforge"}"#);
        assert_eq!(html.matches(r#"id="runtime-config""#).count(), 1, "{html}");
        assert!(
            html.contains(
                r#"<script id="runtime-config" type="application/json">{"brandName":"Talonforge"}</script>"#
            ),
            "{html}"
        );
    }

    #[test]
    fn config_is_added_to_head_without_a_placeholder() {
        let html = render_index("<html><head></head></html>", "{}");
        assert!(
            html.contains(
                r#"<script id="runtime-config" type="application/json">{}</script></head>"#
            )
        );
    }

    #[test]
    fn the_shell_drops_the_placeholder_head_and_splits_before_the_config() {
        let split = shell(
            r#"<head><meta charset="UTF-8" /><meta name="description" content="" /><title>Storefront</title><script id="runtime-config" type="application/json">{}</script></head>"#,
        );
        assert_eq!(split.before, r#"<head><meta charset="UTF-8" />"#);
        assert!(split.after.starts_with(r#"<script id="runtime-config""#));
    }
}
