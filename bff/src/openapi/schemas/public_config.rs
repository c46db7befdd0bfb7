//! `GET /api/config`: the public runtime configuration. Documentation only: the handler serves
//! `config::public::public_config_json`, the `[public]` config section camelCased plus
//! the environment name; the test below holds these types to that JSON.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Which deployment this is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeploymentEnvironment {
    Development,
    Production,
}

/// The public runtime configuration, also injected into `index.html`. Only public values: never
/// a secret. URLs are absolute.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PublicConfig {
    pub environment: DeploymentEnvironment,
    pub brand_name: String,
    pub support_email: String,
    /// Where FFL dealers send their licence.
    pub ffl_email: String,
    pub pro_deal_email: String,
    pub captcha: CaptchaConfig,
    pub payment: PaymentConfig,
    pub maps: MapsConfig,
    pub reviews: ReviewsConfig,
    pub analytics: AnalyticsConfig,
    pub builder: BuilderConfig,
    pub telemetry: TelemetryConfig,
}

/// How the browser samples what it reports (from the BFF's `[telemetry]`).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TelemetryConfig {
    /// Share of the browser's API-call traces marked sampled in their `traceparent` (0 to 1).
    pub trace_sample_ratio: f64,
    /// Share of consenting visitors whose browsers report Web Vitals (0 to 1).
    pub rum_sample_ratio: f64,
}

/// The captcha widget.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CaptchaConfig {
    pub site_key: String,
    pub script_url: String,
}

/// The payment form's tokenising script (card data never reaches the BFF).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PaymentConfig {
    pub login_id: String,
    pub client_key: String,
    pub script_url: String,
}

/// The dealer locator's map tiles.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MapsConfig {
    /// The BFF's own tile path template, `/tiles/{z}/{x}/{y}` (the provider and its key stay
    /// server-side); empty when no tile provider is configured.
    pub tile_url: String,
    pub attribution: String,
}

/// The product reviews widget.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReviewsConfig {
    pub app_key: String,
    pub script_url: String,
}

/// Analytics, loaded only with the visitor's consent.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnalyticsConfig {
    pub measurement_id: String,
}

/// The rifle builder, embedded by URL.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BuilderConfig {
    pub build_url: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::public::public_config_json;
    use crate::config::{Config, Environment};

    /// The documented shape is exactly what the handler serves: a key added to or dropped from
    /// `[public]` fails here until the schema follows.
    #[test]
    fn the_schema_matches_the_served_config() {
        for environment in [Environment::Development, Environment::Production] {
            let config = Config {
                environment,
                ..Config::default()
            };
            let json = public_config_json(&config, Some("http://127.0.0.1:9")).unwrap();
            let parsed = serde_json::from_str::<PublicConfig>(&json);
            assert!(parsed.is_ok(), "{parsed:?}\n{json}");
        }
    }
}
