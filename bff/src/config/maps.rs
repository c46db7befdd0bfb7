//! `[maps]`: the map tile provider the BFF calls on the browser's behalf, and the BFF's own tile
//! path the browser is given instead.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

use super::duration;
use super::sandbox::SANDBOX_PLACEHOLDER;
use super::upstreams::{
    UpstreamConfig, default_breaker_cool_off, default_breaker_failure_threshold,
};

/// Where the browser asks for map tiles (`GET /tiles/{z}/{x}/{y}`, answered by the BFF).
pub const TILE_PATH_TEMPLATE: &str = "/tiles/{z}/{x}/{y}";

/// `[maps]`: the map tile provider. Only the BFF calls it, with the key from `BFF_MAP_TILE_KEY`
/// injected here, so no browser ever sees the key or the provider's URL.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MapsConfig {
    /// Provider URL template: `{z}`, `{x}` and `{y}` name the tile, `{key}` stands for the key
    /// (URL-encoded). May start with `${sandbox}`. Empty: no tile provider (the map draws its
    /// own outlines; `/tiles/...` answers 404).
    pub tile_url: String,
    /// A request header that carries the key (e.g. `X-Api-Key`) for providers that take it
    /// there; empty: the key goes only where `{key}` stands in `tile_url`.
    pub key_header: String,
    /// The deepest zoom level served; deeper tiles are a 400.
    pub max_zoom: u8,
    #[serde(with = "duration")]
    pub connect_timeout: Duration,
    #[serde(with = "duration")]
    pub timeout: Duration,
    /// Tile requests in flight to the provider at once; more wait up to `queue_timeout`.
    pub max_concurrency: usize,
    #[serde(with = "duration")]
    pub queue_timeout: Duration,
    /// The provider's circuit breaker, as in `[upstreams.*]`.
    pub breaker_failure_threshold: u32,
    #[serde(with = "duration")]
    pub breaker_cool_off: Duration,
}

impl Default for MapsConfig {
    fn default() -> Self {
        Self {
            tile_url: format!("{SANDBOX_PLACEHOLDER}/3p/tiles/{{z}}/{{x}}/{{y}}.png"),
            key_header: String::new(),
            max_zoom: 19,
            connect_timeout: Duration::from_secs(2),
            timeout: Duration::from_secs(5),
            max_concurrency: 32,
            queue_timeout: Duration::from_secs(1),
            breaker_failure_threshold: default_breaker_failure_threshold(),
            breaker_cool_off: default_breaker_cool_off(),
        }
    }
}

impl MapsConfig {
    /// The deepest zoom any tile provider serves.
    const DEEPEST_ZOOM: u8 = 24;

    /// Whether a tile provider is configured.
    pub fn has_provider(&self) -> bool {
        !self.tile_url.is_empty()
    }

    pub(super) fn problems(&self, sandbox_enabled: bool) -> Vec<String> {
        let mut problems = Vec::new();
        if !self.has_provider() {
            return problems;
        }
        for part in ["{z}", "{x}", "{y}"] {
            if !self.tile_url.contains(part) {
                problems.push(format!("maps.tile_url: must contain {part}"));
            }
        }
        if self.tile_url.starts_with(SANDBOX_PLACEHOLDER) {
            if !sandbox_enabled {
                problems.push(format!(
                    "maps.tile_url: refers to {SANDBOX_PLACEHOLDER} but sandbox.enabled is false"
                ));
            }
        } else if let Err(err) = Url::parse(&self.tile_url.replace(['{', '}'], "")) {
            problems.push(format!("maps.tile_url: not a URL ({err})"));
        }
        if self.max_zoom > Self::DEEPEST_ZOOM {
            problems.push(format!("maps.max_zoom: at most {}", Self::DEEPEST_ZOOM));
        }
        if !self.key_header.is_empty()
            && axum::http::HeaderName::from_bytes(self.key_header.as_bytes()).is_err()
        {
            problems.push("maps.key_header: not a header name".to_owned());
        }
        if self.max_concurrency == 0 {
            problems.push("maps.max_concurrency: must be at least 1".to_owned());
        }
        problems
    }

    /// The provider as an upstream: its timeouts and concurrency limit.
    pub fn upstream(&self) -> UpstreamConfig {
        UpstreamConfig {
            base_url: self.tile_url.clone(),
            health_path: String::new(),
            connect_timeout: self.connect_timeout,
            timeout: self.timeout,
            max_concurrency: self.max_concurrency,
            queue_timeout: self.queue_timeout,
            breaker_failure_threshold: self.breaker_failure_threshold,
            breaker_cool_off: self.breaker_cool_off,
        }
    }
}
