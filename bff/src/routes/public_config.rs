//! `GET /api/config`: the public runtime configuration (also injected into `index.html`).

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::cache::entry::strong_etag;
use crate::cache::http::matches_etag;
use crate::config::{Config, Environment, TILE_PATH_TEMPLATE, resolve_sandbox};
use crate::content::camel_case_keys;
use crate::openapi::schemas::public_config::PublicConfig;
use crate::state::SharedState;

/// The `[public]` section, camelCased for the browser, `${sandbox}` resolved, plus the
/// environment name and the BFF's own map tile path. Nothing else outside `[public]` is ever
/// included (the tile provider's URL and key stay in `[maps]`).
pub fn public_config_json(config: &Config, sandbox_origin: Option<&str>) -> String {
    let mut value = serde_json::to_value(&config.public).unwrap_or(Value::Null);
    resolve_strings(&mut value, sandbox_origin);
    let mut value = camel_case_keys(value);
    if let Some(Value::Object(maps)) = value.get_mut("maps") {
        let tile_url = if config.maps.has_provider() {
            TILE_PATH_TEMPLATE
        } else {
            ""
        };
        maps.insert("tileUrl".to_owned(), Value::from(tile_url));
    }
    if let Value::Object(map) = &mut value {
        let environment = match config.environment {
            Environment::Development => "development",
            Environment::Production => "production",
        };
        map.insert("environment".to_owned(), Value::from(environment));
    }
    value.to_string()
}

fn resolve_strings(value: &mut Value, sandbox_origin: Option<&str>) {
    match value {
        Value::String(text) => *text = resolve_sandbox(text, sandbox_origin),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| resolve_strings(item, sandbox_origin)),
        Value::Object(map) => map
            .values_mut()
            .for_each(|item| resolve_strings(item, sandbox_origin)),
        _ => {}
    }
}

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
        (status = 200, description = "The configuration.", body = PublicConfig,
            headers(
                ("Cache-Control" = String, description = "`no-cache`: revalidate every time."),
                ("ETag" = String, description = "Of this configuration; send it back as If-None-Match."),
            )),
        (status = 304, description = "Not modified: the If-None-Match ETag is current."),
    ),
)]
pub async fn get(State(state): State<SharedState>, headers: HeaderMap) -> Response {
    // The configuration is fixed for the process's life, so revalidation is one hash away; the
    // browser (told `no-cache`) asks each time and mostly gets an empty 304.
    let etag = strong_etag(state.public_config.as_bytes());
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
        state.public_config.clone(),
    )
        .into_response()
}
