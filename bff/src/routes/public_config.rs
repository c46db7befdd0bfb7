//! `GET /api/config`: the public runtime configuration (also injected into `index.html`).

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::cache::entry::strong_etag;
use crate::cache::http::matches_etag;
use crate::config::public::BrowserConfig;
use crate::config::public::PublicConfigJson;
use crate::routes::openapi::cached::{CachedBody, CachedResponses};

/// The public runtime configuration.
///
/// What the web app needs at run time (brand, contact addresses, third-party script URLs and
/// public keys); the same JSON is injected into `index.html`, so this is for development servers.
#[utoipa::path(
    get,
    path = "/config",
    operation_id = "getConfig",
    tag = "config",
    responses(
        CachedResponses<BrowserConfig>,
    ),
)]
pub async fn get(
    State(PublicConfigJson(public_config)): State<PublicConfigJson>,
    headers: HeaderMap,
) -> Response {
    // The configuration is fixed for the process's life, so revalidation is one hash away; the
    // browser (told `no-cache`) asks each time and mostly gets an empty 304.
    let etag = strong_etag(public_config.as_bytes());
    let cache_headers = [
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        (header::ETAG, etag.clone()),
    ];
    if matches_etag(&headers, &etag) {
        return (StatusCode::NOT_MODIFIED, cache_headers).into_response();
    }
    (
        cache_headers,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        public_config.to_string(),
    )
        .into_response()
}

impl CachedBody for BrowserConfig {
    const DESCRIPTION: &'static str = "The configuration.";
    const ETAG: &'static str = "Of this configuration; send it back as If-None-Match.";
    const CACHE_CONTROL: &'static str = "`no-cache`: revalidate every time.";
    const FROM_THE_CACHE: bool = false;
}
