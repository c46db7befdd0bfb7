//! Everything a request handler may need, built once at start-up.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use url::Url;

use axum::extract::FromRef;
use axum::http::HeaderName;

use crate::admin::access::TokensInForce;
use crate::admin::audit::log::AuditLog;
use crate::admin::overrides::live::{Applied, LiveOverrides};
use crate::admin::overrides::store::OverrideStore;
use crate::cache::fleet::Fleet;
use crate::cache::{CacheConfig, EdgeCache};
use crate::commerce::Gateway;
use crate::commerce::catalogue::Catalogue;
use crate::config::effective::EffectiveConfig;
use crate::config::public::{PublicConfigJson, public_config_json};
use crate::config::running::{InForce, RunningConfig};
use crate::config::seo_settings::SeoSettings;
use crate::config::{Config, ConfigError, Secrets, resolve_sandbox};
use crate::content::Content;
use crate::content::dealers::Dealers;
use crate::content::geo::Geocoder;
use crate::content::tiles::{TileProvider, Tiles};
use crate::coordination::replica_identity::ReplicaIdentity;
use crate::coordination::replicas::purge_log::PurgeLog;
use crate::coordination::replicas::{Redis, Tiers};
use crate::coordination::shared_tier_mac::SharedTierMac;
use crate::edge::readiness::Readiness;
use crate::edge::web_assets::WebAssets;
use crate::http::rate_limit::ClientRateLimit;
use crate::http::rate_limit::account::SignInFailures;
use crate::http::rate_limit::shopper_limits::ShopperLimits;
use crate::http::security::SecurityHeaders;
use crate::idempotency::IdempotencyStore;
use crate::idempotency::shared_keys::SharedKeys;
use crate::observe::metrics::Metrics;
use crate::session::Sessions;
use crate::session::csrf::Csrf;
use crate::session::refresh_lease::LeaseTiming;
use crate::session::revocation::Revocations;
use crate::session::seal::Sealer;
use crate::session::tokens::Refresher;
use crate::upstream::{Transport, Upstream};

pub type SharedState = Arc<AppState>;

/// The application, built once at start-up. Handlers take it whole (`State<SharedState>`) or,
/// better, the one part they need through `FromRef`; nothing below the handlers takes it whole:
/// each middleware and service gets its own part.
#[derive(Debug)]
pub struct AppState {
    /// The configuration the process started with: what the parts built at start-up read
    /// (the cache policies in force are `running_config`'s: they change on reload).
    pub config: Config,
    /// The configuration in force (what reloads applied, what waits for a restart), its
    /// fingerprint and the last reload's time: `GET /admin/config`, `bff_config_info`.
    pub running_config: RunningConfig,
    /// Secrets from the environment; they never leave the server.
    pub secrets: Secrets,
    /// The Prometheus registry every part records into, scraped on the admin port.
    pub metrics: Arc<Metrics>,
    /// The commerce upstream (carts, accounts, orders, prices).
    pub commerce: Upstream,
    /// The content upstream (pages, products, collections), with its service token.
    pub content: Upstream,
    /// Commerce as the visitor: the upstream with the refresher and the refresh margin.
    pub gateway: Gateway,
    /// The security headers and the CSP, built once.
    pub security: Arc<SecurityHeaders>,
    /// The CSRF check's public origin, serialised once.
    pub csrf: Arc<Csrf>,
    /// The public runtime config, serialised once: served at `/api/config` and in `index.html`.
    pub public_config: Arc<str>,
    /// The built web app: `index.html` rendered with the public config, and the dist folder.
    pub web: Arc<WebAssets>,
    /// What the pages' heads, `/robots.txt` and `/sitemap.xml` need from the configuration.
    pub seo: Arc<SeoSettings>,
    /// The server renderer of documents (render threads over the web build's server bundle).
    pub ssr: Arc<crate::ssr::Renderer>,
    /// The last readiness verdict, reused for `readiness.cache`.
    pub readiness: Readiness,
    /// The edge cache for pages, products, collections, search and prices.
    pub cache: EdgeCache,
    /// Map tiles, apart from `cache` so they can never evict pages.
    pub tile_cache: EdgeCache,
    /// Zip codes to coordinates for the dealer search (the provider when a key is set, else the
    /// built-in centroids), chosen once.
    pub geocoder: Geocoder,
    /// The map tile provider (its key stays here); `None` when `[maps] tile_url` is empty.
    pub tiles: Option<TileProvider>,
    /// Opens and seals the session cookie.
    pub sessions: Sessions,
    /// Per-client-IP limits on sign-in, registration, the password and verification endpoints
    /// (counted in Redis when it is configured, so the limit holds across replicas).
    pub auth_rate_limit: Arc<ClientRateLimit>,
    /// The per-client-IP limit on search (in Redis too when configured).
    pub search_rate_limit: Arc<ClientRateLimit>,
    /// The content webhook's purges, coalesced per tag set (a capped one answers its retry).
    pub webhook_purges: crate::content::webhook_coalesce::Coalescer<
        Result<crate::cache::purge_fanout::PurgeAnswer, crate::content::webhook_purge_cap::Capped>,
    >,
    /// Who may call the content webhook, and the signed calls it has seen.
    pub webhook_auth: crate::content::webhook_auth::WebhookAuth,
    /// The content webhook's one cap on purges, across all tag sets.
    pub webhook_purge_cap: crate::content::webhook_purge_cap::PurgeCap,
    /// 404 answers per client IP on the product and collection routes, API and documents.
    pub not_found_limit: Arc<crate::http::rate_limit::not_found::NotFoundLimit>,
    /// Sign-in failures per account, whatever the address (in Redis too when configured).
    pub sign_in_failures: SignInFailures,
    /// Checkout answers by `Idempotency-Key` (shared with the other replicas through Redis when
    /// it is configured).
    pub idempotency: Arc<IdempotencyStore>,
    /// The file the configuration came from, re-read on reload (SIGHUP or the admin API).
    pub config_path: Option<PathBuf>,
    /// Who this replica is to the others (purge receipts, the fleet) and to operators.
    pub replica: Arc<ReplicaIdentity>,
    /// The replicas' heartbeats: `GET /admin/fleet`, and who is expected to confirm a purge.
    pub fleet: Arc<Fleet>,
    /// The recent purges, across the fleet when Redis is configured.
    pub purge_log: Arc<PurgeLog>,
    /// Redis, when `[redis]` is set: what the replicas share (see [`crate::coordination::replicas`]).
    pub redis: Option<Redis>,
    /// The admin tokens in force (`BFF_ADMIN_TOKEN` and `BFF_ADMIN_TOKENS_FILE`, re-read on
    /// reload).
    pub admin_tokens: Arc<TokensInForce>,
    /// The audit log of admin actions (in the coordination tier when Redis is configured).
    pub audit: Arc<AuditLog>,
    /// The live overrides of the cache policies: stored (in the coordination tier when Redis
    /// is configured), and this replica's reading of them.
    pub overrides: Arc<LiveOverrides>,
    /// Cancelled when shutdown starts, so readiness fails while in-flight requests drain.
    pub shutdown: CancellationToken,
    /// Cancelled on SIGTERM: readiness fails from then on while the replica still serves, and
    /// `shutdown` follows `server.shutdown_delay` later (see [`crate::edge::server::Running::terminate`]).
    pub stopping: CancellationToken,
}

/// Transports replacing reqwest for the commerce and content upstreams (an in-process router
/// in tests); `None` keeps reqwest.
#[derive(Default)]
pub struct Transports {
    pub commerce: Option<Transport>,
    pub content: Option<Transport>,
}

impl AppState {
    /// `sandbox_origin` is the embedded sandbox's origin when it runs.
    pub fn new(
        config: Config,
        secrets: Secrets,
        sandbox_origin: Option<&str>,
        config_path: Option<PathBuf>,
    ) -> Result<SharedState, ConfigError> {
        Self::with_transports(
            config,
            secrets,
            sandbox_origin,
            config_path,
            Transports::default(),
        )
    }

    /// [`Self::new`], with the upstreams' transports given.
    pub fn with_transports(
        config: Config,
        secrets: Secrets,
        sandbox_origin: Option<&str>,
        config_path: Option<PathBuf>,
        transports: Transports,
    ) -> Result<SharedState, ConfigError> {
        let metrics = Arc::new(Metrics::new());
        metrics.declare_contract_pages(crate::content::PAGE_NAMES);
        let running_config = RunningConfig::new(config.clone());
        let fingerprint = running_config.current().fingerprint.clone();
        metrics.set_config_info(&fingerprint.version, &fingerprint.hash);
        let tiers = Tiers::from_config(&config.redis, Some(&secrets.redis), metrics.clone())?;
        // Everything but the edge cache's L2 is coordination data.
        let redis = tiers.as_ref().map(|tiers| tiers.coordination.clone());
        let upstream = |name: &'static str,
                        upstream_config: &crate::config::UpstreamConfig,
                        credential,
                        transport: Option<Transport>| {
            let key = format!("upstreams.{name}.base_url");
            let base = resolve_sandbox(&upstream_config.base_url, sandbox_origin);
            let base = Url::parse(&base)
                .map_err(|err| ConfigError(format!("{key}: not a URL ({err})")))?;
            match transport {
                Some(transport) => Ok(Upstream::with_transport(
                    name,
                    upstream_config,
                    base,
                    credential,
                    metrics.clone(),
                    transport,
                )),
                None => Upstream::new(name, upstream_config, base, credential, metrics.clone())
                    .map_err(|err| ConfigError(format!("upstreams.{name}: {err}"))),
            }
        };
        let commerce = upstream(
            "commerce",
            &config.upstreams.commerce,
            None,
            transports.commerce,
        )?;
        let content = upstream(
            "content",
            &config.upstreams.content,
            secrets.content_api_token.clone(),
            transports.content,
        )?;
        // What the replicas read back from Redis and serve or trust carries a MAC under a key
        // derived from the session keys.
        let mac = SharedTierMac::from_session_keys(&secrets.session_keys, metrics.clone())
            .ok_or_else(|| {
                ConfigError("BFF_SESSION_KEYS: at least one key is required".to_owned())
            })?;
        let signed = |redis: &Option<Redis>| redis.clone().map(|redis| (redis, mac.clone()));
        let public_config: Arc<str> = public_config_json(&config, sandbox_origin)?.into();
        let web = Arc::new(
            WebAssets::load(&config.web.dist_dir, &public_config)
                .with_previous_releases(&config.web, signed(&redis)),
        );
        let shutdown = CancellationToken::new();
        for tier in tiers.iter().flat_map(Tiers::distinct) {
            crate::coordination::replicas::monitor::spawn(tier.clone(), shutdown.clone());
        }
        let replica = Arc::new(ReplicaIdentity::from_environment());
        let cache = EdgeCache::with_shared_tier(
            config.cache.clone(),
            metrics.clone(),
            signed(&tiers.as_ref().map(|tiers| tiers.cache.clone())),
            &replica,
        );
        // Sign-outs are announced on the purge channel (the cache tier's), heard by its
        // subscriber, and kept in the coordination tier.
        let revocations = Revocations::new(
            config.session.absolute_lifetime,
            redis.clone(),
            tiers.as_ref().map(|tiers| {
                crate::coordination::replicas::purge_bus::PurgeBus::new(
                    tiers.cache.clone(),
                    replica.id.clone(),
                )
            }),
            config.session.revocation_check_interval,
            metrics.clone(),
        );
        cache.listen_for_purges(shutdown.clone(), revocations.sink());
        cache.spawn_hit_folds(shutdown.clone());
        let fleet = Arc::new(Fleet::new(
            redis.clone(),
            replica.clone(),
            config.fleet.clone(),
        ));
        fleet.spawn_heartbeats(
            crate::edge::fleet_figures::source(cache.clone(), web.clone(), config.clone()),
            shutdown.clone(),
        );
        let purge_log = Arc::new(PurgeLog::new(redis.clone(), config.fleet.recent_purges));
        let tile_cache = EdgeCache::new(tile_cache_config(&config.cache), metrics.clone());
        let tiles = tile_provider(&config, &secrets, sandbox_origin, metrics.clone())?;
        let sealer = Sealer::new(&secrets.session_keys).ok_or_else(|| {
            ConfigError("BFF_SESSION_KEYS: at least one key is required".to_owned())
        })?;
        let auth_rate_limit = Arc::new(ClientRateLimit::auth(
            &config.rate_limit,
            metrics.clone(),
            redis.clone(),
        ));
        let search_rate_limit = Arc::new(ClientRateLimit::search(
            &config.rate_limit,
            metrics.clone(),
            redis.clone(),
        ));
        let not_found_limit = Arc::new(crate::http::rate_limit::not_found::NotFoundLimit::new(
            ClientRateLimit::not_found(&config.rate_limit, metrics.clone(), redis.clone()),
        ));
        let sign_in_failures =
            SignInFailures::new(&config.rate_limit, metrics.clone(), redis.clone());
        let idempotency = Arc::new(IdempotencyStore::default().with_shared(redis.clone().map(
            |redis| {
                SharedKeys::new(
                    redis,
                    mac.clone(),
                    checkout_lease(&config),
                    config.server.request_timeout,
                )
            },
        )));
        let sessions = Sessions::new(&config, sealer, metrics.clone());
        let csrf = Arc::new(Csrf {
            origin: config.server.public_origin.origin().ascii_serialization(),
            metrics: metrics.clone(),
        });
        let refresher = Arc::new(Refresher::new(
            redis.clone(),
            &secrets.session_keys,
            LeaseTiming::for_upstream(&config.upstreams.commerce),
        )?);
        let gateway = Gateway {
            upstream: commerce.clone(),
            refresher,
            metrics: metrics.clone(),
            refresh_margin_s: i64::try_from(config.session.refresh_margin.as_secs()).unwrap_or(60),
            verify_after_ms: i64::try_from(config.session.verify_after.as_millis())
                .unwrap_or(i64::MAX),
            revocations,
            limits: ShopperLimits::new(&config.rate_limit, metrics.clone(), redis.clone()),
        };
        let overrides = Arc::new(LiveOverrides::new(
            OverrideStore::new(redis.clone(), config.admin.override_versions),
            replica.id.clone(),
            config.admin.override_convergence,
        ));
        let state = Arc::new(Self {
            overrides,
            cache,
            tile_cache,
            tiles,
            sessions,
            csrf,
            geocoder: Geocoder::select(secrets.geocoder_key.as_ref()),
            auth_rate_limit,
            search_rate_limit,
            not_found_limit,
            webhook_purges: crate::content::webhook_coalesce::Coalescer::default(),
            webhook_auth: crate::content::webhook_auth::WebhookAuth::new(
                secrets.webhook_secret.clone(),
                secrets.webhook_signing_secret.clone(),
                redis.clone(),
            ),
            webhook_purge_cap: crate::content::webhook_purge_cap::PurgeCap::per_minute(
                config.content.webhook.purges_per_minute,
            ),
            fleet,
            purge_log,
            sign_in_failures,
            idempotency,
            gateway,
            config_path,
            security: Arc::new(SecurityHeaders::new(&config, sandbox_origin)),
            readiness: Readiness::default(),
            seo: Arc::new(SeoSettings::new(&config, sandbox_origin)),
            ssr: Arc::new(crate::ssr::Renderer::start(
                &crate::ssr::bundle_path(&config.web.dist_dir),
                &config.ssr,
                metrics.clone(),
                public_config.clone(),
                ClientRateLimit::renders(&config.rate_limit, metrics.clone()),
            )),
            shutdown,
            stopping: CancellationToken::new(),
            admin_tokens: Arc::new(TokensInForce::new(secrets.admin_tokens.clone())),
            audit: Arc::new(AuditLog::new(
                redis.clone(),
                config.admin.audit_entries,
                &replica,
            )),
            replica,
            redis,
            config,
            running_config,
            secrets,
            metrics,
            commerce,
            content,
            public_config,
            web,
        });
        // The overrides hand each version to the state that owns them (weakly: no cycle).
        let weak = Arc::downgrade(&state);
        state.overrides.set_apply(Arc::new(move |applied| {
            if let Some(state) = weak.upgrade() {
                state.apply_overrides(applied);
            }
        }));
        Ok(state)
    }
}

impl AppState {
    /// Re-reads the configuration file and applies what can change at run time (the cache
    /// policies, not their byte budgets: see [`crate::config::running`]); the rest waits for a
    /// restart, as `GET /admin/config` shows. A file that does not load or validate changes
    /// nothing; the error says why.
    pub fn reload(&self) -> Result<String, ConfigError> {
        let path = self
            .config_path
            .as_deref()
            .ok_or_else(|| ConfigError("no configuration file to reload".to_owned()))?;
        let fresh = match Config::load(path) {
            Ok(fresh) => fresh,
            Err(err) => {
                tracing::error!(error = %err, path = %path.display(), "configuration reload rejected; keeping the running configuration");
                return Err(err);
            }
        };
        // The admin tokens file first: a bad one changes nothing, the cache policies included.
        let production = self.config.is_production();
        if let Err(err) = self.admin_tokens.reload(|tokens| {
            let problems = crate::edge::start_up::admin_tokens_file_problems(tokens);
            if production && !problems.is_empty() {
                return Err(ConfigError(problems.join("\n")));
            }
            Ok(())
        }) {
            tracing::error!(error = %err, "admin tokens file rejected on reload; keeping the tokens in force");
            return Err(err);
        }
        let reloaded = self.running_config.reload(
            fresh,
            crate::coordination::replicas::unix_ms(),
            |in_force| self.hand_over(in_force),
        );
        let in_force = &reloaded.in_force;
        self.fleet.note_reload();
        self.fleet.note_overrides(override_report(in_force));
        // Keys only, never values: a URL may carry a credential.
        let pending = EffectiveConfig::of(in_force, &self.secrets).pending_restart;
        let summary = if pending.is_empty() {
            "cache policies reloaded".to_owned()
        } else {
            format!(
                "cache policies reloaded; pending restart: {}",
                pending.join(", ")
            )
        };
        tracing::info!(path = %path.display(), version = %in_force.fingerprint.version, "{summary}");
        Ok(summary)
    }
}

impl AppState {
    /// Reads the live overrides once (bounded by the convergence bound), so the replica starts
    /// with them, then keeps reading them until shutdown (see [`LiveOverrides::spawn`]).
    pub async fn start_overrides(&self) {
        let bound = self.overrides.convergence();
        if tokio::time::timeout(bound, self.overrides.sync())
            .await
            .is_err()
        {
            tracing::warn!("live overrides not read at start; reading them in the background");
        }
        self.overrides.spawn(self.shutdown.clone());
    }

    /// Runs `applied` (a new live override version) at once: the configuration in force, the
    /// caches' policies, the fleet's report of it.
    fn apply_overrides(&self, applied: &Applied) {
        let in_force = self
            .running_config
            .set_overrides(applied, |in_force| self.hand_over(in_force));
        self.fleet.note_overrides(override_report(&in_force));
    }

    /// Hands the configuration in force to the parts that apply it live: the caches' policies
    /// (what a reload and an override change) and `bff_config_info`.
    fn hand_over(&self, in_force: &InForce) {
        self.tile_cache
            .set_config(tile_cache_config(&in_force.config.cache));
        self.cache.set_config(in_force.config.cache.clone());
        let fingerprint = &in_force.fingerprint;
        self.metrics
            .set_config_info(&fingerprint.version, &fingerprint.hash);
    }
}

/// What the heartbeat says of the overrides in force: their version and drift.
fn override_report(in_force: &InForce) -> crate::cache::fleet::heartbeat::OverrideReport {
    crate::cache::fleet::heartbeat::OverrideReport {
        version: Some(in_force.overrides.version),
        drift: in_force
            .overrides
            .layer
            .drift(&in_force.layered.cache)
            .into_iter()
            .map(|drift| drift.key)
            .collect(),
    }
}

/// How long a checkout run's idempotency marker holds in Redis between renewals: as long as one
/// commerce call may take (queued, then answered), so a live run never loses its key.
fn checkout_lease(config: &Config) -> Duration {
    let commerce = &config.upstreams.commerce;
    commerce.timeout.saturating_add(commerce.queue_timeout)
}

/// The tile cache: the `[cache]` policies with the tiles' own capacity.
fn tile_cache_config(cache: &CacheConfig) -> CacheConfig {
    CacheConfig {
        capacity_bytes: cache.tile_capacity_bytes,
        ..cache.clone()
    }
}

/// The `[maps]` provider, its key from `BFF_MAP_TILE_KEY`.
fn tile_provider(
    config: &Config,
    secrets: &Secrets,
    sandbox_origin: Option<&str>,
    metrics: Arc<Metrics>,
) -> Result<Option<TileProvider>, ConfigError> {
    let maps = &config.maps;
    if !maps.has_provider() {
        return Ok(None);
    }
    let template = resolve_sandbox(&maps.tile_url, sandbox_origin);
    let base = Url::parse(&template.replace(['{', '}'], ""))
        .map_err(|err| ConfigError(format!("maps.tile_url: not a URL ({err})")))?;
    let upstream = Upstream::new("tiles", &maps.upstream(), base, None, metrics)
        .map_err(|err| ConfigError(format!("maps: {err}")))?;
    let key_header = (!maps.key_header.is_empty())
        .then(|| HeaderName::from_bytes(maps.key_header.as_bytes()))
        .transpose()
        .map_err(|_| ConfigError("maps.key_header: not a header name".to_owned()))?;
    Ok(Some(TileProvider::new(
        upstream,
        template,
        secrets.map_tile_key.clone(),
        key_header,
    )))
}

impl FromRef<SharedState> for PublicConfigJson {
    fn from_ref(state: &SharedState) -> Self {
        PublicConfigJson(state.public_config.clone())
    }
}

impl FromRef<SharedState> for SignInFailures {
    fn from_ref(state: &SharedState) -> Self {
        state.sign_in_failures.clone()
    }
}

impl FromRef<SharedState> for Gateway {
    fn from_ref(state: &SharedState) -> Self {
        state.gateway.clone()
    }
}

impl FromRef<SharedState> for Content {
    fn from_ref(state: &SharedState) -> Self {
        Content {
            upstream: state.content.clone(),
            cache: state.cache.clone(),
            metrics: state.metrics.clone(),
        }
    }
}

impl FromRef<SharedState> for Dealers {
    fn from_ref(state: &SharedState) -> Self {
        Dealers {
            content: Content::from_ref(state),
            geocoder: state.geocoder,
        }
    }
}

impl FromRef<SharedState> for Catalogue {
    fn from_ref(state: &SharedState) -> Self {
        Catalogue {
            content: Content::from_ref(state),
            commerce: state.commerce.clone(),
        }
    }
}

impl FromRef<SharedState> for Tiles {
    fn from_ref(state: &SharedState) -> Self {
        Tiles {
            provider: state.tiles.clone(),
            cache: state.tile_cache.clone(),
            max_zoom: state.config.maps.max_zoom,
        }
    }
}
