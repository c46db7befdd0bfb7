//! Typed configuration: `config/bff.toml` plus `BFF__SECTION__KEY` environment overrides.
//!
//! Every struct denies unknown fields, so a misspelt key fails at start-up naming the key instead
//! of being silently ignored. Secrets never live here: see [`secrets`].
//!
//! Each `[section]` has a file of its own here, its struct beside its defaults (`server.rs`,
//! `rate_limit.rs`, …); this file lists the sections ([`Config`]), loads and validates them, and
//! re-exports every section type so `crate::config::ServerConfig` and the like name them.
//! `[cache]`, `[ssr]` and `[uploads]` are still defined by the features that read them.

mod admin;
pub mod admin_tokens;
pub mod cache;
mod cidrs;
mod content;
mod deprecated;
pub mod duration;
pub mod effective;
mod error;
pub mod fingerprint;
pub mod fleet;
mod layers;
mod log;
mod maps;
pub mod origin;
pub mod overrides;
pub mod public;
mod public_section;
mod rate_limit;
mod readiness;
pub mod redact;
mod redis;
mod redis_cluster;
mod redis_coordination;
mod redis_sentinel;
mod redis_tls;
pub mod running;
mod sandbox;
pub mod secrets;
mod security;
mod seo;
pub mod seo_settings;
mod server;
mod session;
mod ssr;
mod telemetry;
pub mod tls;
mod uploads;
mod upstreams;
mod web;

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use admin::{AdminConfig, DEFAULT_AUDIT_ENTRIES};
pub use content::{ContentConfig, ContentWebhookConfig};
pub use error::ConfigError;
pub use log::{LogConfig, LogFormat};
pub use maps::{MapsConfig, TILE_PATH_TEMPLATE};
pub use origin::{Origin, Origins};
pub use public_section::{
    AnalyticsPublic, BuilderPublic, CaptchaPublic, MapsPublic, PaymentPublic, PublicConfig,
    ReviewsPublic,
};
pub use rate_limit::RateLimitConfig;
pub use readiness::ReadinessConfig;
pub use redis::{RedisConfig, SCHEMES as REDIS_SCHEMES, is_tls_scheme};
pub use redis_cluster::RedisClusterConfig;
pub use redis_coordination::RedisCoordinationConfig;
pub use redis_sentinel::RedisSentinelConfig;
pub use redis_tls::RedisTlsConfig;
pub use sandbox::{NO_SANDBOX_IN_THIS_BUILD, SANDBOX_PLACEHOLDER, SandboxConfig, resolve_sandbox};
pub use secrets::Secrets;
pub use security::SecurityConfig;
pub use seo::SeoConfig;
pub use server::{
    DEFAULT_SHUTDOWN_DELAY_DEVELOPMENT, DEFAULT_SHUTDOWN_DELAY_PRODUCTION, ServerConfig,
};
pub use session::SessionConfig;
pub use ssr::SsrConfig;
pub use telemetry::TelemetryConfig;
pub use uploads::{SLOW_UPLINK_BYTES_PER_SECOND, UploadsConfig};
pub use upstreams::{UpstreamConfig, UpstreamsConfig};
pub use web::WebConfig;

pub use cache::{CacheConfig, CachePolicy, RouteKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    Development,
    Production,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub environment: Environment,
    pub server: ServerConfig,
    pub admin: AdminConfig,
    pub web: WebConfig,
    pub log: LogConfig,
    pub telemetry: TelemetryConfig,
    pub readiness: ReadinessConfig,
    pub sandbox: SandboxConfig,
    pub upstreams: UpstreamsConfig,
    pub security: SecurityConfig,
    pub cache: CacheConfig,
    pub session: SessionConfig,
    pub rate_limit: RateLimitConfig,
    pub redis: RedisConfig,
    pub maps: MapsConfig,
    pub seo: SeoConfig,
    pub ssr: SsrConfig,
    pub uploads: UploadsConfig,
    pub public: PublicConfig,
    pub fleet: fleet::FleetConfig,
    pub content: ContentConfig,
    /// Not configuration: where each value came from, recorded by the loader (empty for a
    /// configuration built in code, whose values then all read as defaults). Outside serde, so
    /// it is in neither the fingerprint nor `check-config`'s TOML.
    #[serde(skip)]
    pub origins: Origins,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            environment: Environment::Development,
            server: ServerConfig::default(),
            admin: AdminConfig::default(),
            web: WebConfig::default(),
            log: LogConfig::default(),
            telemetry: TelemetryConfig::default(),
            readiness: ReadinessConfig::default(),
            sandbox: SandboxConfig::default(),
            upstreams: UpstreamsConfig::default(),
            security: SecurityConfig::default(),
            cache: CacheConfig::default(),
            session: SessionConfig::default(),
            rate_limit: RateLimitConfig::default(),
            redis: RedisConfig::default(),
            maps: MapsConfig::default(),
            seo: SeoConfig::default(),
            ssr: SsrConfig::default(),
            uploads: UploadsConfig::default(),
            public: PublicConfig::default(),
            fleet: fleet::FleetConfig::default(),
            content: ContentConfig::default(),
            origins: Origins::default(),
        }
    }
}

impl Config {
    /// How long a replica fails readiness after SIGTERM before it drains.
    pub fn shutdown_delay(&self) -> Duration {
        self.server
            .shutdown_delay
            .unwrap_or(match self.environment {
                Environment::Production => DEFAULT_SHUTDOWN_DELAY_PRODUCTION,
                Environment::Development => DEFAULT_SHUTDOWN_DELAY_DEVELOPMENT,
            })
    }
}

/// A loaded, valid configuration, and one notice per deprecated key it was given (naming the
/// key, where it was set and the key that replaces it), for start-up to log.
#[derive(Debug)]
pub struct Loaded {
    pub config: Config,
    pub deprecations: Vec<String>,
}

impl Config {
    /// Loads `path` (which must exist) and the process's `BFF__` environment overrides, then
    /// validates. Deprecated keys are accepted silently: start-up and `check-config` use
    /// [`Config::load_reporting`], which returns their notices.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        Self::load_reporting(path).map(|loaded| loaded.config)
    }

    /// [`Config::load`], with the deprecation notices of the old keys it accepted.
    pub fn load_reporting(path: &Path) -> Result<Loaded, ConfigError> {
        // Variables that are not UTF-8 cannot be overrides (names and values are text).
        let env = std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        });
        Self::load_with_env_reporting(path, env)
    }

    /// [`Config::load`] with the environment given, e.g. by a test, instead of the process's.
    pub fn load_with_env(
        path: &Path,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self, ConfigError> {
        Self::load_with_env_reporting(path, env).map(|loaded| loaded.config)
    }

    /// [`Config::load_with_env`], with the deprecation notices of the old keys it accepted.
    pub fn load_with_env_reporting(
        path: &Path,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Loaded, ConfigError> {
        if !path.is_file() {
            return Err(ConfigError(format!(
                "config file {} not found",
                path.display()
            )));
        }
        let defaults = toml::Table::try_from(Config::default())
            .map_err(|err| ConfigError(format!("the built-in defaults: {err}")))?;
        let layered: layers::Layered<Config> = layers::load(defaults, path, env)?;
        let config = Config {
            origins: layered.origins,
            ..layered.value
        };
        let deprecations = layered.notices;
        config.validate()?;
        Ok(Loaded {
            config,
            deprecations,
        })
    }

    /// Rules serde cannot express.
    fn validate(&self) -> Result<(), ConfigError> {
        // Each section checks its own keys; the rules that span sections (the sandbox and the
        // URLs that refer to it, the environment) are here.
        let mut problems = self.upstreams.problems(self.sandbox.enabled);
        problems.extend(self.maps.problems(self.sandbox.enabled));
        problems.extend(self.redis.problems());
        problems.extend(self.telemetry.problems());
        problems.extend(self.cache.validate());
        problems.extend(self.fleet.problems());
        problems.extend(self.content.problems());
        problems.extend(self.rate_limit.problems());
        problems.extend(self.session.problems());
        problems.extend(self.server.problems());
        problems.extend(self.admin.problems());
        // `[uploads]` is still defined in `http/uploads`: its rules stay here until it moves.
        if self.uploads.min_bytes_per_second == 0 {
            problems.push("uploads.min_bytes_per_second: must be at least 1".to_owned());
        }
        if self.uploads.body_deadline < Duration::from_millis(1) {
            problems.push("uploads.body_deadline: must be at least 1ms".to_owned());
        }
        if cfg!(not(feature = "sandbox")) && self.sandbox.enabled {
            problems.push(format!("sandbox.enabled: {NO_SANDBOX_IN_THIS_BUILD}"));
        }
        if self.environment == Environment::Production && self.sandbox.enabled {
            problems.push(
                "sandbox.enabled: the sandbox must be disabled when environment = \"production\""
                    .to_owned(),
            );
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ConfigError(problems.join("\n")))
        }
    }

    pub fn is_production(&self) -> bool {
        self.environment == Environment::Production
    }

    /// Whether the public origin is https (HSTS, secure cookies).
    pub fn is_secure(&self) -> bool {
        self.server.public_origin.scheme() == "https"
    }

    /// The effective configuration as TOML, for `bff check-config`.
    pub fn to_toml(&self) -> Result<String, ConfigError> {
        toml::to_string_pretty(self).map_err(|err| ConfigError(err.to_string()))
    }
}

#[cfg(test)]
mod tests;
