//! Typed configuration: `config/bff.toml` plus `BFF__SECTION__KEY` environment overrides.
//!
//! Every struct denies unknown fields, so a misspelt key fails at start-up naming the key instead
//! of being silently ignored. Secrets never live here: see [`secrets`].

mod cidrs;
mod deprecated;
pub mod duration;
pub mod effective;
mod error;
pub mod fingerprint;
pub mod fleet;
mod layers;
pub mod origin;
pub mod overrides;
pub mod public;
pub mod redact;
mod redis;
mod redis_cluster;
mod redis_coordination;
mod redis_sentinel;
mod redis_tls;
pub mod running;
pub mod secrets;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

pub use error::ConfigError;
pub use origin::{Origin, Origins};
pub use redis::{RedisConfig, SCHEMES as REDIS_SCHEMES, is_tls_scheme};
pub use redis_cluster::RedisClusterConfig;
pub use redis_coordination::RedisCoordinationConfig;
pub use redis_sentinel::RedisSentinelConfig;
pub use redis_tls::RedisTlsConfig;
pub use secrets::Secrets;

pub use crate::cache::CacheConfig;

/// Why `sandbox.enabled = true` is refused by a build without the `sandbox` feature.
pub const NO_SANDBOX_IN_THIS_BUILD: &str = "this build has no embedded sandbox (built without \
     the `sandbox` cargo feature, as production images are); set it to false";

/// The placeholder in URLs that stands for the embedded sandbox's origin.
pub const SANDBOX_PLACEHOLDER: &str = "${sandbox}";

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
    pub ssr: crate::ssr::SsrConfig,
    pub uploads: crate::http::uploads::UploadsConfig,
    pub public: PublicConfig,
    pub fleet: fleet::FleetConfig,
    pub content: fleet::ContentConfig,
    /// Not configuration: where each value came from, recorded by the loader (empty for a
    /// configuration built in code, whose values then all read as defaults). Outside serde, so
    /// it is in neither the fingerprint nor `check-config`'s TOML.
    #[serde(skip)]
    pub origins: Origins,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerConfig {
    pub listen: SocketAddr,
    /// The origin shoppers use; https here turns on HSTS and the `__Host-` cookie prefix.
    pub public_origin: Url,
    pub redirect_https: bool,
    #[serde(with = "duration")]
    pub request_timeout: Duration,
    /// How long a connection may take to deliver a complete request head, counted from the
    /// connection or from the end of the previous answer (so also the keep-alive idle limit).
    #[serde(with = "duration")]
    pub header_read_timeout: Duration,
    /// How long a request body may take to arrive, counted from the end of its head and
    /// extended by one second for every `body_min_bytes_per_second` received (so a large upload
    /// at a fair rate finishes, a trickle does not): past it the answer is a 408.
    #[serde(with = "duration")]
    pub body_read_timeout: Duration,
    /// The sending rate that keeps extending `body_read_timeout`.
    pub body_min_bytes_per_second: u64,
    #[serde(with = "duration")]
    pub shutdown_grace: Duration,
    /// After SIGTERM, how long `/readyz` answers 503 while the replica still serves, before
    /// it drains: the time load balancers and endpoints need to take it out of rotation (what
    /// a `preStop` hook gives in Kubernetes). Unset: [`DEFAULT_SHUTDOWN_DELAY_PRODUCTION`]
    /// in production, [`DEFAULT_SHUTDOWN_DELAY_DEVELOPMENT`] otherwise (`make run`'s Ctrl-C).
    #[serde(
        default,
        with = "duration::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub shutdown_delay: Option<Duration>,
    pub max_body_bytes: usize,
    pub max_concurrent_requests: usize,
    /// Open connections one peer address may hold on the public listener (0: no cap). The TCP
    /// peer is all a connection cap can see: behind a proxy every connection is the proxy's,
    /// so there it is 0 or at least the proxy's connection pool.
    pub max_connections_per_ip: usize,
}

/// The audit log's default bound (`admin.audit_entries`): older records are dropped first.
pub const DEFAULT_AUDIT_ENTRIES: usize = 1_000;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdminConfig {
    pub listen: SocketAddr,
    /// As `server.header_read_timeout`, for the admin listener (so also its keep-alive idle
    /// limit).
    #[serde(with = "duration")]
    pub header_read_timeout: Duration,
    /// Open connections one peer address may hold on the admin listener (0: no cap).
    pub max_connections_per_ip: usize,
    /// How long an admin request may take (past it, 504): room for the purge receipts and the
    /// explain fan-out, which wait on every replica.
    #[serde(with = "duration")]
    pub request_timeout: Duration,
    /// How many admin actions the audit log keeps (in Redis for the fleet, in each replica's
    /// memory without it); older ones are dropped first.
    pub audit_entries: usize,
    /// How many versions of the live overrides are kept for diff and rollback (oldest dropped
    /// first): see [`overrides`].
    pub override_versions: usize,
    /// The longest a replica runs an override version other than the fleet's (or its canary)
    /// once Redis answers: each replica reads the version at least this often, beside the
    /// change channel that brings it in milliseconds. Also when an expired key is gone.
    #[serde(with = "duration")]
    pub override_convergence: Duration,
    /// The Grafana dashboard the console links to for history (its figures are the last 5
    /// minutes only); empty: the console names the dashboard's uid instead of a link.
    pub dashboard_url: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebConfig {
    pub dist_dir: PathBuf,
    /// The operators' console (its own Vite build), served on the admin listener under
    /// `/admin/console/`; a missing directory answers 404 there and changes nothing else.
    pub console_dir: PathBuf,
    /// Built web apps of previous releases, whose hashed `/assets/*` are also served while the
    /// rollout window is open, so a page loaded from the previous release keeps loading its
    /// chunks (version skew during and after a rollout).
    pub previous_dist_dirs: Vec<PathBuf>,
    /// How long after the first start of this build (recorded in Redis, else this replica's
    /// start) the previous releases' assets are served; 0 never serves them.
    #[serde(with = "duration")]
    pub previous_assets_window: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// JSON in production, human-readable otherwise.
    Auto,
    Json,
    Pretty,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    pub format: LogFormat,
    /// An `EnvFilter` directive, e.g. `info,bff=debug`. `RUST_LOG` wins when set.
    pub filter: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TelemetryConfig {
    /// OTLP/HTTP endpoint for traces (e.g. `http://otel-collector:4318/v1/traces`); empty is off.
    pub otlp_endpoint: String,
    pub service_name: String,
    pub sample_ratio: f64,
    /// Share of consenting visitors whose browsers report Web Vitals to `POST /api/rum`.
    pub rum_sample_ratio: f64,
    /// Requests per minute per client whose `traceparent` sampled flag is honoured; past them a
    /// request is sampled by `sample_ratio` like one without the header.
    pub traceparent_sampled_per_minute: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReadinessConfig {
    /// How long one readiness verdict is reused, so probes never hammer the upstreams.
    #[serde(with = "duration")]
    pub cache: Duration,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SandboxConfig {
    pub enabled: bool,
    pub listen: SocketAddr,
    pub data_dir: PathBuf,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UpstreamsConfig {
    pub commerce: UpstreamConfig,
    pub content: UpstreamConfig,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpstreamConfig {
    /// Base URL; may start with `${sandbox}` to mean the embedded sandbox.
    pub base_url: String,
    /// Path (relative to the base URL) answered by the upstream when it is up.
    pub health_path: String,
    #[serde(with = "duration")]
    pub connect_timeout: Duration,
    #[serde(with = "duration")]
    pub timeout: Duration,
    /// Requests in flight to this upstream at once; more wait up to `queue_timeout`.
    pub max_concurrency: usize,
    #[serde(with = "duration")]
    pub queue_timeout: Duration,
    /// Consecutive failed calls (5xx, timeout, no connection) that open the upstream's circuit
    /// breaker; 0 never opens it.
    #[serde(default = "default_breaker_failure_threshold")]
    pub breaker_failure_threshold: u32,
    /// How long an open breaker fails calls at once before one probe is let through.
    #[serde(default = "default_breaker_cool_off", with = "duration")]
    pub breaker_cool_off: Duration,
}

fn default_breaker_failure_threshold() -> u32 {
    5
}

fn default_breaker_cool_off() -> Duration {
    Duration::from_secs(10)
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SecurityConfig {
    #[serde(with = "duration")]
    pub hsts_max_age: Duration,
    /// Extra origins allowed by the CSP, besides `'self'` and the origins of the public
    /// third-party script URLs. `${sandbox}` is allowed.
    pub csp_script_src: Vec<String>,
    pub csp_frame_src: Vec<String>,
    pub csp_img_src: Vec<String>,
    pub csp_connect_src: Vec<String>,
}

/// The session cookie and the tokens it carries.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionConfig {
    /// Cookie name; `__Host-` is prefixed when the public origin is https (then the cookie is
    /// also `Secure`).
    pub cookie_name: String,
    /// Cookie lifetime (a signed-in session also ends when its refresh token does).
    #[serde(with = "duration")]
    pub max_age: Duration,
    /// Access tokens this close to expiry are refreshed before use.
    #[serde(with = "duration")]
    pub refresh_margin: Duration,
    /// `GET /api/session` confirms a signed-in session with the upstream (one profile read)
    /// when the upstream has not accepted it for this long, so a session signed out or revoked
    /// elsewhere stops showing as signed in within this time rather than when its access token
    /// expires. 0: on every `GET /api/session`.
    #[serde(with = "duration")]
    pub verify_after: Duration,
    /// A signed-in session ends this long after its sign-in, whatever its tokens (refreshes
    /// renew the tokens, never this); its cookie's `Max-Age` never outlasts it.
    #[serde(with = "duration")]
    pub absolute_lifetime: Duration,
    /// While Redis cannot say whether a signed-in session was signed out on another replica,
    /// the session is checked with the upstream instead (its tokens refreshed: a sign-out
    /// revokes them there) at most once per this interval on each replica.
    #[serde(with = "duration")]
    pub revocation_check_interval: Duration,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            cookie_name: "session".to_owned(),
            max_age: Duration::from_secs(30 * 86_400),
            refresh_margin: Duration::from_secs(60),
            verify_after: Duration::from_secs(5 * 60),
            absolute_lifetime: Duration::from_secs(14 * 86_400),
            revocation_check_interval: Duration::from_secs(30),
        }
    }
}

/// Per-client-IP limits on the sign-in, registration, password and verification endpoints and
/// on search; sign-in failures per account.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RateLimitConfig {
    /// Requests per minute per client IP on each limited auth endpoint.
    pub auth_per_minute: u32,
    /// Searches per minute per client IP.
    pub search_per_minute: u32,
    /// Wrong passwords (or unknown e-mails) per account and client (an address, or an IPv6
    /// /64) within `sign_in_failure_window`; past them, that client's sign-ins to that account
    /// answer 429, and every other client still signs in.
    pub sign_in_failures_per_client: u32,
    /// Wrong passwords per account within the window from any number of clients, a much higher
    /// ceiling; past it, every sign-in to that account answers 429.
    pub sign_in_failures_per_account: u32,
    /// The per-account window, counted from the account's first failure.
    #[serde(with = "duration")]
    pub sign_in_failure_window: Duration,
    /// Guests created upstream per client and minute (a write with no cart yet, e.g. a
    /// cookie-less add-to-cart, creates one).
    pub guests_per_minute: u32,
    /// Promo-code attempts per cart and minute, from any number of clients.
    pub promo_codes_per_cart_per_minute: u32,
    /// Promo-code attempts per client and minute, on any number of carts.
    pub promo_codes_per_client_per_minute: u32,
    /// A header set by a trusted proxy that carries the client IP (e.g. `x-forwarded-for`),
    /// believed only from a peer in `trusted_proxies`: read right to left, the first entry that
    /// is not a trusted proxy is the client. Empty, missing from a request, unparsable or sent
    /// by any other peer: the connection's peer address, which clients cannot forge.
    pub trusted_client_ip_header: String,
    /// The proxies (CIDRs, or single addresses) whose `trusted_client_ip_header` is believed,
    /// and whose own entries in it are skipped. Must not be empty when the header is set.
    #[serde(with = "cidrs")]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Dealer registrations per minute per client IP (checked before the upload is read).
    pub dealer_registrations_per_minute: u32,
    /// Pro Deal applications per minute per client IP, and per account (from any number of
    /// clients): both checked before the upload is read.
    pub pro_deal_per_client_per_minute: u32,
    pub pro_deal_per_account_per_minute: u32,
    /// Image requests per minute per client IP.
    pub image_requests_per_minute: u32,
    /// 404 answers for products and collections per minute per client IP: past them the client
    /// gets 429 on those routes (cold misses that find the title are not counted).
    pub not_found_per_minute: u32,
    /// Server renders per minute per client IP, on each replica: past them the client's
    /// document misses get the shell with the page's data, unrendered (hits are not counted).
    pub renders_per_minute: u32,
    /// CSP violation reports per minute per client IP.
    pub csp_reports_per_minute: u32,
    /// Web Vitals reports (`POST /api/rum`) per minute per client IP.
    pub rum_reports_per_minute: u32,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        Self {
            auth_per_minute: 10,
            search_per_minute: 120,
            sign_in_failures_per_client: 10,
            sign_in_failures_per_account: 100,
            sign_in_failure_window: Duration::from_secs(15 * 60),
            guests_per_minute: 30,
            promo_codes_per_cart_per_minute: 10,
            promo_codes_per_client_per_minute: 30,
            trusted_client_ip_header: String::new(),
            trusted_proxies: Vec::new(),
            dealer_registrations_per_minute: 5,
            pro_deal_per_client_per_minute: 5,
            pro_deal_per_account_per_minute: 3,
            image_requests_per_minute: 5,
            not_found_per_minute: 60,
            renders_per_minute: 120,
            csp_reports_per_minute: 30,
            rum_reports_per_minute: 30,
        }
    }
}

/// What crawlers and link previews are told: `/robots.txt` and the default preview image (see
/// `crate::seo`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SeoConfig {
    /// `false` answers `Disallow: /` in `/robots.txt` (a staging site must stay out of search
    /// results); `true` allows everything but `disallow`.
    pub allow_indexing: bool,
    /// Path prefixes crawlers are asked to skip: pages that are personal, transactional or
    /// endless (search results).
    pub disallow: Vec<String>,
    /// The preview image (`og:image`) of pages without one of their own: absolute, a path on
    /// the public origin, or under `${sandbox}`.
    pub default_image: String,
}

impl Default for SeoConfig {
    fn default() -> Self {
        Self {
            allow_indexing: true,
            disallow: [
                "/checkout",
                "/confirm/",
                "/profile",
                "/login",
                "/register",
                "/forgot-password",
                "/auth/",
                "/verify-email",
                "/Newsletter/verify/",
                "/search/",
            ]
            .map(str::to_owned)
            .to_vec(),
            default_image: format!("{SANDBOX_PLACEHOLDER}/media/logo.svg"),
        }
    }
}

/// Values the browser receives at `/api/config` and inside `index.html`. Everything here is
/// public by definition; secrets live in [`Secrets`] and never in this struct.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PublicConfig {
    pub brand_name: String,
    pub support_email: String,
    pub ffl_email: String,
    pub pro_deal_email: String,
    pub captcha: CaptchaPublic,
    pub payment: PaymentPublic,
    pub maps: MapsPublic,
    pub reviews: ReviewsPublic,
    pub analytics: AnalyticsPublic,
    pub builder: BuilderPublic,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CaptchaPublic {
    pub site_key: String,
    pub script_url: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PaymentPublic {
    pub login_id: String,
    pub client_key: String,
    pub script_url: String,
}

/// The browser's map: the provider's attribution. The tile URL it gets is always the BFF's own
/// [`TILE_PATH_TEMPLATE`] (the provider and its key stay server-side, see [`MapsConfig`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MapsPublic {
    pub attribution: String,
}

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

    fn problems(&self, sandbox_enabled: bool) -> Vec<String> {
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

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReviewsPublic {
    pub app_key: String,
    pub script_url: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnalyticsPublic {
    pub measurement_id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BuilderPublic {
    pub build_url: String,
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
            ssr: crate::ssr::SsrConfig::default(),
            uploads: crate::http::uploads::UploadsConfig::default(),
            public: PublicConfig::default(),
            fleet: fleet::FleetConfig::default(),
            content: fleet::ContentConfig::default(),
            origins: Origins::default(),
        }
    }
}

/// `server.shutdown_delay` when unset with `environment = "production"`: a few probe
/// periods, so every load balancer has seen the failed readiness before the drain.
pub const DEFAULT_SHUTDOWN_DELAY_PRODUCTION: Duration = Duration::from_secs(5);
/// `server.shutdown_delay` when unset in development: Ctrl-C on `make run` stops at once.
pub const DEFAULT_SHUTDOWN_DELAY_DEVELOPMENT: Duration = Duration::from_millis(100);

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

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            public_origin: Url::parse("http://localhost:8080").unwrap_or_else(|_| unreachable!()),
            redirect_https: false,
            request_timeout: Duration::from_secs(30),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(10),
            body_min_bytes_per_second: 1024,
            shutdown_grace: Duration::from_secs(10),
            shutdown_delay: None,
            max_body_bytes: 1024 * 1024,
            max_concurrent_requests: 1024,
            max_connections_per_ip: 128,
        }
    }
}

impl Default for AdminConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 9090)),
            header_read_timeout: Duration::from_secs(10),
            max_connections_per_ip: 32,
            request_timeout: Duration::from_secs(30),
            audit_entries: DEFAULT_AUDIT_ENTRIES,
            override_versions: 50,
            override_convergence: Duration::from_secs(2),
            dashboard_url: String::new(),
        }
    }
}

impl Default for WebConfig {
    fn default() -> Self {
        Self {
            dist_dir: PathBuf::from("web/dist"),
            console_dir: PathBuf::from("web/dist-console"),
            previous_dist_dirs: Vec::new(),
            previous_assets_window: Duration::from_secs(3_600),
        }
    }
}

impl Default for LogConfig {
    fn default() -> Self {
        Self {
            format: LogFormat::Auto,
            filter: "info".to_owned(),
        }
    }
}

impl Default for TelemetryConfig {
    fn default() -> Self {
        Self {
            otlp_endpoint: String::new(),
            service_name: "bff".to_owned(),
            sample_ratio: 1.0,
            rum_sample_ratio: 1.0,
            traceparent_sampled_per_minute: 10,
        }
    }
}

impl Default for ReadinessConfig {
    fn default() -> Self {
        Self {
            cache: Duration::from_secs(5),
        }
    }
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            listen: SocketAddr::from(([127, 0, 0, 1], 8081)),
            data_dir: PathBuf::from("data"),
        }
    }
}

impl Default for UpstreamsConfig {
    fn default() -> Self {
        Self {
            commerce: UpstreamConfig::new(format!("{SANDBOX_PLACEHOLDER}/")),
            content: UpstreamConfig::new(format!("{SANDBOX_PLACEHOLDER}/strapi/")),
        }
    }
}

impl UpstreamConfig {
    fn new(base_url: String) -> Self {
        Self {
            base_url,
            health_path: "health".to_owned(),
            connect_timeout: Duration::from_secs(2),
            timeout: Duration::from_secs(10),
            max_concurrency: 256,
            queue_timeout: Duration::from_secs(1),
            breaker_failure_threshold: default_breaker_failure_threshold(),
            breaker_cool_off: default_breaker_cool_off(),
        }
    }
}

impl Default for SecurityConfig {
    fn default() -> Self {
        Self {
            hsts_max_age: Duration::from_secs(730 * 86_400),
            csp_script_src: Vec::new(),
            csp_frame_src: vec![SANDBOX_PLACEHOLDER.to_owned()],
            csp_img_src: vec![SANDBOX_PLACEHOLDER.to_owned()],
            csp_connect_src: vec![SANDBOX_PLACEHOLDER.to_owned()],
        }
    }
}

impl Default for PublicConfig {
    fn default() -> Self {
        Self {
            brand_name: "Talonforge Arms".to_owned(),
            support_email: "support@talonforge.example".to_owned(),
            ffl_email: "ffl@talonforge.example".to_owned(),
            pro_deal_email: "prodeal@talonforge.example".to_owned(),
            captcha: CaptchaPublic::default(),
            payment: PaymentPublic::default(),
            maps: MapsPublic::default(),
            reviews: ReviewsPublic::default(),
            analytics: AnalyticsPublic::default(),
            builder: BuilderPublic::default(),
        }
    }
}

impl Default for CaptchaPublic {
    fn default() -> Self {
        Self {
            site_key: "sandbox-site-key".to_owned(),
            script_url: format!("{SANDBOX_PLACEHOLDER}/3p/recaptcha/api.js"),
        }
    }
}

impl Default for PaymentPublic {
    fn default() -> Self {
        Self {
            login_id: "sandbox-login-id".to_owned(),
            client_key: "sandbox-public-client-key".to_owned(),
            script_url: format!("{SANDBOX_PLACEHOLDER}/3p/accept/Accept.js"),
        }
    }
}

impl Default for MapsPublic {
    fn default() -> Self {
        Self {
            attribution: "Sandbox tiles".to_owned(),
        }
    }
}

impl Default for ReviewsPublic {
    fn default() -> Self {
        Self {
            app_key: "sandbox-reviews".to_owned(),
            script_url: format!("{SANDBOX_PLACEHOLDER}/3p/reviews/widget.js"),
        }
    }
}

impl Default for AnalyticsPublic {
    fn default() -> Self {
        Self {
            measurement_id: "G-SANDBOX".to_owned(),
        }
    }
}

impl Default for BuilderPublic {
    fn default() -> Self {
        Self {
            build_url: "/Build".to_owned(),
        }
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
        let mut problems = Vec::new();
        for (name, upstream) in [
            ("commerce", &self.upstreams.commerce),
            ("content", &self.upstreams.content),
        ] {
            let key = format!("upstreams.{name}.base_url");
            if upstream.base_url.starts_with(SANDBOX_PLACEHOLDER) {
                if !self.sandbox.enabled {
                    problems.push(format!(
                        "{key}: refers to {SANDBOX_PLACEHOLDER} but sandbox.enabled is false"
                    ));
                }
            } else if let Err(err) = Url::parse(&upstream.base_url) {
                problems.push(format!("{key}: not a URL ({err})"));
            }
            if upstream.max_concurrency == 0 {
                problems.push(format!(
                    "upstreams.{name}.max_concurrency: must be at least 1"
                ));
            }
        }
        problems.extend(self.maps.problems(self.sandbox.enabled));
        problems.extend(self.redis.problems());
        if !(0.0..=1.0).contains(&self.telemetry.sample_ratio) {
            problems.push("telemetry.sample_ratio: must be between 0 and 1".to_owned());
        }
        if !(0.0..=1.0).contains(&self.telemetry.rum_sample_ratio) {
            problems.push("telemetry.rum_sample_ratio: must be between 0 and 1".to_owned());
        }
        problems.extend(self.cache.validate());
        problems.extend(self.fleet.problems());
        problems.extend(self.content.problems());
        let limits = &self.rate_limit;
        for (key, value) in [
            ("auth_per_minute", u64::from(limits.auth_per_minute)),
            ("search_per_minute", u64::from(limits.search_per_minute)),
            (
                "sign_in_failures_per_client",
                u64::from(limits.sign_in_failures_per_client),
            ),
            (
                "sign_in_failures_per_account",
                u64::from(limits.sign_in_failures_per_account),
            ),
        ] {
            if value == 0 {
                problems.push(format!("rate_limit.{key}: must be at least 1"));
            }
        }
        if limits.sign_in_failure_window < Duration::from_millis(1) {
            problems.push("rate_limit.sign_in_failure_window: must be at least 1ms".to_owned());
        }
        if !limits.trusted_client_ip_header.trim().is_empty() && limits.trusted_proxies.is_empty() {
            problems.push(
                "rate_limit.trusted_client_ip_header: set, but rate_limit.trusted_proxies is \
                 empty; list the proxies (CIDRs) whose header is believed, or unset the header"
                    .to_owned(),
            );
        }
        if self.session.cookie_name.is_empty()
            || !self
                .session
                .cookie_name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            problems.push("session.cookie_name: letters, digits, '_' and '-' only".to_owned());
        }
        if self.server.header_read_timeout < Duration::from_millis(1) {
            problems.push("server.header_read_timeout: must be at least 1ms".to_owned());
        }
        if self.admin.header_read_timeout < Duration::from_millis(1) {
            problems.push("admin.header_read_timeout: must be at least 1ms".to_owned());
        }
        if self.admin.request_timeout < Duration::from_millis(1) {
            problems.push("admin.request_timeout: must be at least 1ms".to_owned());
        }
        if !(1..=100_000).contains(&self.admin.audit_entries) {
            problems.push("admin.audit_entries: must be from 1 to 100000".to_owned());
        }
        if !(1..=10_000).contains(&self.admin.override_versions) {
            problems.push("admin.override_versions: must be from 1 to 10000".to_owned());
        }
        if self.admin.override_convergence < Duration::from_millis(100) {
            problems.push("admin.override_convergence: must be at least 100ms".to_owned());
        }
        if self.server.body_read_timeout < Duration::from_millis(1) {
            problems.push("server.body_read_timeout: must be at least 1ms".to_owned());
        }
        if self.server.body_min_bytes_per_second == 0 {
            problems.push("server.body_min_bytes_per_second: must be at least 1".to_owned());
        }
        if self.uploads.min_bytes_per_second == 0 {
            problems.push("uploads.min_bytes_per_second: must be at least 1".to_owned());
        }
        if self.uploads.body_deadline < Duration::from_millis(1) {
            problems.push("uploads.body_deadline: must be at least 1ms".to_owned());
        }
        if self.server.max_concurrent_requests == 0 {
            problems.push("server.max_concurrent_requests: must be at least 1".to_owned());
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

/// Replaces a leading `${sandbox}` with the embedded sandbox's origin.
pub fn resolve_sandbox(value: &str, sandbox_origin: Option<&str>) -> String {
    match (value.strip_prefix(SANDBOX_PLACEHOLDER), sandbox_origin) {
        (Some(rest), Some(origin)) => format!("{}{rest}", origin.trim_end_matches('/')),
        _ => value.to_owned(),
    }
}

#[cfg(test)]
mod tests;
