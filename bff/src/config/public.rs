//! The public runtime configuration the browser gets (`GET /api/config` and `index.html`).

use std::sync::Arc;

use serde_json::Value;

use super::{Config, ConfigError, Environment, TILE_PATH_TEMPLATE, resolve_sandbox};
use crate::content::camel_case_keys;

/// The public runtime config as served: JSON, serialised once at start-up.
#[derive(Debug, Clone)]
pub struct PublicConfigJson(pub Arc<str>);

/// The `[public]` section, camelCased for the browser, `${sandbox}` resolved, plus the
/// environment name, the BFF's own map tile path and the telemetry sampling ratios. Nothing else outside `[public]` is ever
/// included (the tile provider's URL and key stay in `[maps]`).
pub fn public_config_json(
    config: &Config,
    sandbox_origin: Option<&str>,
) -> Result<String, ConfigError> {
    let mut value = serde_json::to_value(&config.public)
        .map_err(|err| ConfigError(format!("public: not serialisable ({err})")))?;
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
        // The browser starts the traces of its API calls: it samples them as the BFF samples a
        // root (so the ratio holds for browser traffic), and samples Web Vitals reports.
        map.insert(
            "telemetry".to_owned(),
            serde_json::json!({
                "traceSampleRatio": config.telemetry.sample_ratio,
                "rumSampleRatio": config.telemetry.rum_sample_ratio,
            }),
        );
    }
    Ok(value.to_string())
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
