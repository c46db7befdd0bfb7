//! The public runtime configuration the browser gets (`GET /api/config` and `index.html`): built
//! from [`Config`] as typed values and serialised once at start-up. These types are the API's
//! schema too (`PublicConfig` in the OpenAPI document), so what is served is what is documented.

use std::sync::Arc;

use serde::Serialize;
use utoipa::ToSchema;

use super::{Config, ConfigError, Environment, TILE_PATH_TEMPLATE, resolve_sandbox};

/// The public runtime config as served: JSON, serialised once at start-up.
#[derive(Debug, Clone)]
pub struct PublicConfigJson(pub Arc<str>);

/// The `[public]` section, `${sandbox}` resolved, plus the environment name, the BFF's own map
/// tile path and the telemetry sampling ratios. Nothing else outside `[public]` is ever included
/// (the tile provider's URL and key stay in `[maps]`).
pub fn public_config_json(
    config: &Config,
    sandbox_origin: Option<&str>,
) -> Result<String, ConfigError> {
    serde_json::to_string(&BrowserConfig::new(config, sandbox_origin))
        .map_err(|err| ConfigError(format!("public: not serialisable ({err})")))
}

/// Which deployment this is.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeploymentEnvironment {
    Development,
    Production,
}

/// The public runtime configuration, also injected into `index.html`. Only public values: never
/// a secret. URLs are absolute.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = PublicConfig)]
pub struct BrowserConfig {
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
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TelemetryConfig {
    /// Share of the browser's API-call traces marked sampled in their `traceparent` (0 to 1).
    pub trace_sample_ratio: f64,
    /// Share of consenting visitors whose browsers report Web Vitals (0 to 1).
    pub rum_sample_ratio: f64,
}

/// The captcha widget.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CaptchaConfig {
    pub site_key: String,
    pub script_url: String,
}

/// The payment form's tokenising script (card data never reaches the BFF).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PaymentConfig {
    pub login_id: String,
    pub client_key: String,
    pub script_url: String,
}

/// The dealer locator's map tiles.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MapsConfig {
    /// The BFF's own tile path template, `/tiles/{z}/{x}/{y}` (the provider and its key stay
    /// server-side); empty when no tile provider is configured.
    pub tile_url: String,
    pub attribution: String,
}

/// The product reviews widget.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReviewsConfig {
    pub app_key: String,
    pub script_url: String,
}

/// Analytics, loaded only with the visitor's consent.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnalyticsConfig {
    pub measurement_id: String,
}

/// The rifle builder, embedded by URL.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BuilderConfig {
    pub build_url: String,
}

impl BrowserConfig {
    fn new(config: &Config, sandbox_origin: Option<&str>) -> Self {
        let public = &config.public;
        let resolve = |value: &str| resolve_sandbox(value, sandbox_origin);
        Self {
            environment: match config.environment {
                Environment::Development => DeploymentEnvironment::Development,
                Environment::Production => DeploymentEnvironment::Production,
            },
            brand_name: resolve(&public.brand_name),
            support_email: resolve(&public.support_email),
            ffl_email: resolve(&public.ffl_email),
            pro_deal_email: resolve(&public.pro_deal_email),
            captcha: CaptchaConfig {
                site_key: resolve(&public.captcha.site_key),
                script_url: resolve(&public.captcha.script_url),
            },
            payment: PaymentConfig {
                login_id: resolve(&public.payment.login_id),
                client_key: resolve(&public.payment.client_key),
                script_url: resolve(&public.payment.script_url),
            },
            maps: MapsConfig {
                tile_url: if config.maps.has_provider() {
                    TILE_PATH_TEMPLATE.to_owned()
                } else {
                    String::new()
                },
                attribution: resolve(&public.maps.attribution),
            },
            reviews: ReviewsConfig {
                app_key: resolve(&public.reviews.app_key),
                script_url: resolve(&public.reviews.script_url),
            },
            analytics: AnalyticsConfig {
                measurement_id: resolve(&public.analytics.measurement_id),
            },
            builder: BuilderConfig {
                build_url: resolve(&public.builder.build_url),
            },
            // The browser starts the traces of its API calls: it samples them as the BFF samples
            // a root (so the ratio holds for browser traffic), and samples Web Vitals reports.
            telemetry: TelemetryConfig {
                trace_sample_ratio: config.telemetry.sample_ratio,
                rum_sample_ratio: config.telemetry.rum_sample_ratio,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn served(config: &Config) -> Value {
        let text = public_config_json(config, Some("http://127.0.0.1:9")).unwrap_or_default();
        serde_json::from_str(&text).unwrap_or_default()
    }

    /// Every `[public]` value camelCased with `${sandbox}` resolved, the environment, the BFF's
    /// own tile path (never the provider's) and the browser's sampling ratios: nothing else.
    #[test]
    fn the_browser_gets_the_public_section_resolved_and_nothing_else() {
        let mut config = Config::default();
        config.public.builder.build_url = "${sandbox}/3p/builder".to_owned();
        config.maps.tile_url = "https://tiles.example/{z}/{x}/{y}.png?key={key}".to_owned();
        config.telemetry.rum_sample_ratio = 0.25;
        let public = &config.public;
        assert_eq!(
            served(&config),
            json!({
                "environment": "development",
                "brandName": public.brand_name,
                "supportEmail": public.support_email,
                "fflEmail": public.ffl_email,
                "proDealEmail": public.pro_deal_email,
                "captcha": {
                    "siteKey": public.captcha.site_key,
                    "scriptUrl": resolve_sandbox(&public.captcha.script_url, Some("http://127.0.0.1:9")),
                },
                "payment": {
                    "loginId": public.payment.login_id,
                    "clientKey": public.payment.client_key,
                    "scriptUrl": resolve_sandbox(&public.payment.script_url, Some("http://127.0.0.1:9")),
                },
                "maps": {"tileUrl": "/tiles/{z}/{x}/{y}", "attribution": public.maps.attribution},
                "reviews": {
                    "appKey": public.reviews.app_key,
                    "scriptUrl": resolve_sandbox(&public.reviews.script_url, Some("http://127.0.0.1:9")),
                },
                "analytics": {"measurementId": public.analytics.measurement_id},
                "builder": {"buildUrl": "http://127.0.0.1:9/3p/builder"},
                "telemetry": {
                    "traceSampleRatio": config.telemetry.sample_ratio,
                    "rumSampleRatio": 0.25,
                },
            })
        );
        assert!(
            !served(&config).to_string().contains("${sandbox}"),
            "every placeholder is resolved"
        );
    }

    #[test]
    fn without_a_tile_provider_the_map_gets_no_tile_url_and_production_says_so() {
        let mut config = Config {
            environment: Environment::Production,
            ..Config::default()
        };
        config.maps.tile_url = String::new();
        let served = served(&config);
        assert_eq!(served["maps"]["tileUrl"], "");
        assert_eq!(served["environment"], "production");
    }
}
