//! The operators' console on the admin listener: the files of its own Vite build
//! (`web.console_dir`, `npm run build:console`) under `/admin/console/`, as they are on disk.
//!
//! Loading the files needs no token (they hold none and show nothing until signed in); every
//! call the console makes goes to the `/admin` API with `Authorization: Bearer`, which it keeps
//! in memory only. No cookie is involved, so there is nothing for a cross-site request to ride
//! on (no CSRF), and the strict policy below keeps any injected script from running.

use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::extract::{OriginalUri, Request};
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use tower::ServiceExt;
use tower_http::services::ServeDir;

/// Where the console is served; its build's `base` (`web/vite.console.config.ts`) is this with
/// a trailing slash.
pub const CONSOLE_PATH: &str = "/admin/console";

/// Only the console's own files: no inline script or style (the build has none), no other
/// origin, no framing, no `<base>`, no form submission (its forms are handled by script), no
/// plugins. `connect-src 'self'` is the admin API on this listener.
pub const CONSOLE_CSP: HeaderValue = HeaderValue::from_static(
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; \
     connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'",
);

/// Hashed build files (`assets/*`): never change under their name.
const IMMUTABLE: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");
/// The document: asked again each time, so a new build is picked up at once.
const REVALIDATE: HeaderValue = HeaderValue::from_static("no-cache");

/// `/admin/console` (redirected to `/admin/console/`) and everything under it, from `dir`.
pub fn router<S: Clone + Send + Sync + 'static>(dir: &Path) -> Router<S> {
    if !dir.join("index.html").is_file() {
        tracing::warn!(dir = %dir.display(), "console not built (npm run build:console); /admin/console/ answers 404");
    }
    let dir = Arc::new(dir.to_owned());
    Router::new().nest_service(
        CONSOLE_PATH,
        tower::service_fn(move |request: Request| {
            let dir = dir.clone();
            async move { Ok::<_, std::convert::Infallible>(console_file(&dir, request).await) }
        }),
    )
}

/// The file `request` names under `dir` (the document for the folder itself), with the
/// console's security headers; GET and HEAD only (405 otherwise, from the file service).
async fn console_file(dir: &Path, request: Request) -> Response {
    let path = request.extensions().get::<OriginalUri>().map_or_else(
        || request.uri().path().to_owned(),
        |uri| uri.path().to_owned(),
    );
    if path == CONSOLE_PATH {
        return with_console_headers(Redirect::permanent("/admin/console/").into_response(), "");
    }
    let inner = request.uri().path().to_owned();
    let Ok(response) = ServeDir::new(dir)
        .append_index_html_on_directories(true)
        .oneshot(request)
        .await;
    with_console_headers(response.map(axum::body::Body::new), &inner)
}

fn with_console_headers(mut response: Response, inner_path: &str) -> Response {
    let cache_control = if inner_path.starts_with("/assets/") && response.status().is_success() {
        IMMUTABLE
    } else {
        REVALIDATE
    };
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, CONSOLE_CSP);
    headers.insert(header::CACHE_CONTROL, cache_control);
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    // The console's URL is no one else's business (it names the admin listener).
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        HeaderName::from_static("cross-origin-opener-policy"),
        HeaderValue::from_static("same-origin"),
    );
    headers.insert(
        HeaderName::from_static("cross-origin-resource-policy"),
        HeaderValue::from_static("same-origin"),
    );
    response
}
