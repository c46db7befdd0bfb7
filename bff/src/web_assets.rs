//! Serving the built web app: hashed assets cached forever, `index.html` never cached and
//! carrying the public runtime config, and the SPA fallback for every other non-`/api` path.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use tower_http::services::ServeDir;

use crate::error::ApiError;

/// Where Vite's `index.html` expects the runtime config; the `{}` is replaced.
const CONFIG_PLACEHOLDER: &str =
    r#"<script id="runtime-config" type="application/json">{}</script>"#;

const IMMUTABLE: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");
const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");
/// Unhashed files next to `index.html` (favicon, robots.txt) may change between releases.
const SHORT: HeaderValue = HeaderValue::from_static("public, max-age=3600");

#[derive(Debug, Clone)]
pub struct WebAssets {
    dist_dir: PathBuf,
    /// The rendered `index.html`, or `None` when the web app has not been built.
    index: Option<Bytes>,
}

impl WebAssets {
    pub fn load(dist_dir: &Path, public_config_json: &str) -> Self {
        let index = match std::fs::read_to_string(dist_dir.join("index.html")) {
            Ok(template) => Some(Bytes::from(render_index(&template, public_config_json))),
            Err(err) => {
                tracing::warn!(dir = %dist_dir.display(), %err, "web app not built; pages answer 503");
                None
            }
        };
        Self {
            dist_dir: dist_dir.to_owned(),
            index,
        }
    }
}

/// Puts the config JSON into the page, escaped so no value can close the script element.
fn render_index(template: &str, public_config_json: &str) -> String {
    let safe = public_config_json
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029");
    let element = format!(r#"<script id="runtime-config" type="application/json">{safe}</script>"#);
    if template.contains(CONFIG_PLACEHOLDER) {
        template.replace(CONFIG_PLACEHOLDER, &element)
    } else {
        template.replacen("</head>", &format!("{element}</head>"), 1)
    }
}

/// Routes for the web app; the SPA fallback is this router's fallback.
pub fn router<S: Clone + Send + Sync + 'static>(web: &Arc<WebAssets>) -> Router<S> {
    let dist = &web.dist_dir;
    let assets = Router::new()
        .fallback_service(ServeDir::new(dist.join("assets")))
        .layer(middleware::from_fn(immutable_when_found));
    let root_files = ServeDir::new(dist)
        .append_index_html_on_directories(false)
        .fallback(get(index).with_state(web.clone()));
    Router::new()
        .route("/index.html", get(index).with_state(web.clone()))
        .nest("/assets", assets)
        .fallback_service(root_files)
        .layer(middleware::from_fn(precompressed_build_files))
        .layer(middleware::from_fn(default_cache_control))
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

async fn index(State(web): State<Arc<WebAssets>>, uri: Uri) -> Response {
    // `/api` and `/api/` are not matched by the nested API router; they are still API paths, and
    // the app shell must never answer for one.
    if uri.path() == "/api" || uri.path().starts_with("/api/") {
        return ApiError::NotFound("No API endpoint at this path.".to_owned()).into_response();
    }
    match &web.index {
        Some(html) => (
            [
                (header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8")),
                (header::CACHE_CONTROL, NO_CACHE),
            ],
            html.clone(),
        )
            .into_response(),
        None => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::CACHE_CONTROL, NO_CACHE)],
            Html("<!doctype html><title>Not built</title><p>The web app is not built: run <code>make run</code> (or <code>npm run build</code> in <code>web/</code>).</p>"),
        )
            .into_response(),
    }
}

/// Hashed assets never change, so a found one is cached for a year; a miss must not be.
async fn immutable_when_found(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let value = if response.status().is_success() {
        IMMUTABLE
    } else {
        NO_CACHE
    };
    response.headers_mut().insert(header::CACHE_CONTROL, value);
    response
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
    use super::{precompressed, render_index};

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
    fn config_is_added_to_head_without_a_placeholder() {
        let html = render_index("<html><head></head></html>", "{}");
        assert!(
            html.contains(
                r#"<script id="runtime-config" type="application/json">{}</script></head>"#
            )
        );
    }
}
