//! `GET /api/config`: the public runtime configuration (also injected into `index.html`).

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::config::{Config, Environment, resolve_sandbox};
use crate::content::camel_case_keys;
use crate::openapi::schemas::public_config::PublicConfig;
use crate::state::SharedState;

/// The `[public]` section, camelCased for the browser, `${sandbox}` resolved, plus the
/// environment name. Nothing outside `[public]` is ever included.
pub fn public_config_json(config: &Config, sandbox_origin: Option<&str>) -> String {
    let mut value = serde_json::to_value(&config.public).unwrap_or(Value::Null);
    resolve_strings(&mut value, sandbox_origin);
    let mut value = camel_case_keys(value);
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
            headers(("Cache-Control" = String, description = "`no-cache`: revalidate every time."))),
    ),
)]
pub async fn get(State(state): State<SharedState>) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        state.public_config.clone(),
    )
        .into_response()
}
