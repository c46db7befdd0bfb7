//! Prometheus metrics with OpenTelemetry semantic-convention names, labelled by route template
//! (never the raw path, whose cardinality a client controls).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use std::fmt::Write as _;

use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

/// Latency buckets in seconds: fine below 100 ms where cache hits live, coarse up to timeouts.
const BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// The label for requests no route matched (files the web build does not have, unknown URLs).
pub const UNMATCHED_ROUTE: &str = "unmatched";

/// The template of the app's documents: every path the router leaves to the web app (its
/// fallback) that is not a file. One label for all pages, as the hit path counts their hits.
pub const DOCUMENT_ROUTE: &str = "/{*path}";

/// The route template of an answer from a router's fallback, which has no [`MatchedPath`]: set
/// on the response by the handler that chose it, so [`track`] counts a document under
/// [`DOCUMENT_ROUTE`] and not as unmatched.
#[derive(Debug, Clone, Copy)]
pub struct AnsweredRoute(pub &'static str);

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ServerLabels {
    http_route: String,
    http_request_method: String,
    http_response_status_code: u16,
}

/// `http.client.request.duration`'s attributes, named as the `upstream` span names them with
/// dots as underscores (Prometheus spelling), so a metric and a trace of the same call filter
/// the same way.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ClientLabels {
    upstream: &'static str,
    http_request_method: String,
    /// The upstream path template (`page/{}`), from code: bounded.
    url_template: String,
    /// The upstream's host and port, from configuration: bounded.
    server_address: String,
    server_port: u16,
    /// Absent when no answer came (a timeout, no connection).
    http_response_status_code: Option<u16>,
    /// Absent on success; the status code for a 4xx or 5xx; else the error's code
    /// (`upstream_timeout`, `upstream_unavailable`, ...).
    error_type: Option<String>,
}

/// One finished call to an upstream, as the `upstream` span describes it.
#[derive(Debug, Clone, Copy)]
pub struct ClientCall<'a> {
    pub upstream: &'static str,
    pub method: &'a str,
    pub url_template: &'a str,
    pub server_address: &'a str,
    pub server_port: u16,
    pub status: Option<u16>,
    pub error_type: Option<&'a str>,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CacheLookupLabels {
    route: String,
    state: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CacheMissLabels {
    route: String,
    reason: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BreakerStateLabels {
    upstream: &'static str,
    /// `closed`, `open` or `half_open`: one series each, 1 for the current state.
    state: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TransitionLabels {
    upstream: &'static str,
    /// The state entered: `open`, `half_open`, `closed`.
    to: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct CauseLabels {
    cause: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FetchLabels {
    route: String,
    outcome: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct EventLabels {
    event: SessionEvent,
}

/// What happened to a session, counted in `bff_session_events_total{event}`.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum SessionEvent {
    RefreshOk,
    RefreshFailed,
    MergeOk,
    MergeFailed,
    /// A cart read found a merge still pending and tried it again.
    MergeRetried,
    CsrfRejected,
    /// A session cookie that did not open (tampered, or sealed with a retired key).
    CookieRejected,
    RateLimited,
    /// `GET /api/session` confirmed a session with the upstream.
    VerifyOk,
    /// The upstream refused a session being confirmed (signed out or revoked elsewhere).
    VerifyRevoked,
    /// A session could not be confirmed (upstream unavailable); it was shown unconfirmed.
    VerifyUnavailable,
    /// A request carried a session revoked by sign-out: it was signed out.
    Revoked,
    /// A signed-in session past `session.absolute_lifetime` was ended.
    LifetimeEnded,
    /// Sign-out could not share the revocation (Redis unavailable): revoked on this replica only.
    RevocationLocalOnly,
    /// A session's revocation could not be read from Redis: checked against this replica only.
    RevocationUnchecked,
    /// An unchecked session was checked with the upstream instead (its tokens refreshed), once
    /// per `session.revocation_check_interval`.
    RevocationCheckedUpstream,
}

impl SessionEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::RefreshOk => "refresh_ok",
            Self::RefreshFailed => "refresh_failed",
            Self::MergeOk => "merge_ok",
            Self::MergeFailed => "merge_failed",
            Self::MergeRetried => "merge_retried",
            Self::CsrfRejected => "csrf_rejected",
            Self::CookieRejected => "cookie_rejected",
            Self::RateLimited => "rate_limited",
            Self::VerifyOk => "verify_ok",
            Self::VerifyRevoked => "verify_revoked",
            Self::VerifyUnavailable => "verify_unavailable",
            Self::Revoked => "revoked",
            Self::LifetimeEnded => "lifetime_ended",
            Self::RevocationLocalOnly => "revocation_local_only",
            Self::RevocationUnchecked => "revocation_unchecked",
            Self::RevocationCheckedUpstream => "revocation_checked_upstream",
        }
    }
}

impl EncodeLabelValue for SessionEvent {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        encoder.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OperationLabels {
    operation: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RenderLabels {
    outcome: &'static str,
}

/// A route template (`/api/cart`), never a path.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TemplateLabels {
    http_route: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FallbackLabels {
    reason: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DirectiveLabels {
    directive: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PageLabels {
    page: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    kind: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LimitLabels {
    limit: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct TierLabels {
    tier: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RedisEventLabels {
    event: RedisEvent,
}

/// What the replicas' shared tier did, counted in `bff_redis_events_total{event}`.
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum RedisEvent {
    /// An L1 miss found a fresh entry in L2.
    L2Hit,
    /// An L1 miss found an entry in L2 that is past its freshness (served stale or revalidated).
    L2Stale,
    /// An L1 miss found nothing in L2.
    L2Miss,
    /// This replica took the fill lock and fetched.
    FillLockAcquired,
    /// Another replica held the fill lock; this one waited and got its value.
    FillLockWaited,
    /// The lock holder gave no value in time (or died): this replica fetched on its own.
    FillLockGaveUp,
    PurgeSent,
    PurgeReceived,
    /// The purge channel was lost and found again: L1 is dropped (after up to 1 s of jitter),
    /// since purges may be missed.
    PurgeResubscribed,
    /// This replica took a session's refresh lease and refreshed.
    LeaseAcquired,
    /// Another replica held the lease; this one waited for its successor tokens.
    LeaseWaited,
    /// A request arrived with a spent refresh token and got the successor another replica made.
    SuccessorUsed,
    /// A checkout key's answer (or run) was found in Redis, made by this or another replica.
    IdempotencyShared,
    /// A purge version in L2 was below what this replica had seen (a failover lost the purge's
    /// write) and was set back up before any entry under it was used.
    VersionRestored,
}

impl RedisEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::L2Hit => "l2_hit",
            Self::L2Stale => "l2_stale",
            Self::L2Miss => "l2_miss",
            Self::FillLockAcquired => "fill_lock_acquired",
            Self::FillLockWaited => "fill_lock_waited",
            Self::FillLockGaveUp => "fill_lock_gave_up",
            Self::PurgeSent => "purge_sent",
            Self::PurgeReceived => "purge_received",
            Self::PurgeResubscribed => "purge_resubscribed",
            Self::LeaseAcquired => "lease_acquired",
            Self::LeaseWaited => "lease_waited",
            Self::SuccessorUsed => "successor_used",
            Self::IdempotencyShared => "idempotency_shared",
            Self::VersionRestored => "version_restored",
        }
    }
}

impl EncodeLabelValue for RedisEvent {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        encoder.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BuildLabels {
    version: &'static str,
    commit: &'static str,
}

/// The configuration in force's fingerprint: one series per process at a time.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ConfigLabels {
    version: String,
    hash: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RumLabels {
    /// A template of the app's route table, or `unmatched`: bounded.
    route: &'static str,
}

/// A Web Vital a browser reports to `POST /api/rum`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WebVital {
    /// Largest Contentful Paint, seconds.
    Lcp,
    /// Interaction to Next Paint, seconds.
    Inp,
    /// Cumulative Layout Shift, unitless.
    Cls,
}

/// The commit the binary was built from: `BFF_GIT_COMMIT` at build time (the Dockerfile's build
/// argument), else `unknown`. A label of `bff_build_info`, bounded by construction.
pub const BUILD_COMMIT: &str = match option_env!("BFF_GIT_COMMIT") {
    Some(commit) if !commit.is_empty() => commit,
    _ => "unknown",
};

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

fn lcp_histogram() -> Histogram {
    // Good below 2.5 s, poor above 4 s (web.dev's thresholds), with room either side.
    Histogram::new([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.5, 10.0, 20.0])
}

fn inp_histogram() -> Histogram {
    // Good below 200 ms, poor above 500 ms.
    Histogram::new([0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0, 5.0])
}

fn cls_histogram() -> Histogram {
    // Good below 0.1, poor above 0.25.
    Histogram::new([0.01, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0, 2.0])
}

fn histogram() -> Histogram {
    Histogram::new(BUCKETS)
}

/// Redis commands take well under a millisecond on a LAN, and up to the command timeout
/// (100 ms) when something is wrong.
fn redis_histogram() -> Histogram {
    Histogram::new([
        0.000_25, 0.000_5, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
    ])
}

/// One registry per app instance, so tests can read the metrics of the app they started.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    server_duration: HistogramFamily<ServerLabels>,
    client_duration: HistogramFamily<ClientLabels>,
    cache_lookups: Family<CacheLookupLabels, Counter>,
    cache_evictions: Family<CauseLabels, Counter>,
    cache_misses: Family<CacheMissLabels, Counter>,
    cache_fetch_duration: HistogramFamily<FetchLabels>,
    cache_entries: Gauge,
    cache_bytes: Gauge,
    session_events: Family<EventLabels, Counter>,
    redis_errors: Family<OperationLabels, Counter>,
    redis_events: Family<RedisEventLabels, Counter>,
    redis_connected: Family<TierLabels, Gauge>,
    redis_reconnects: Family<TierLabels, Counter>,
    redis_unacknowledged: Family<OperationLabels, Counter>,
    redis_failovers: Family<TierLabels, Counter>,
    redis_duration: HistogramFamily<OperationLabels>,
    breaker_state: Family<BreakerStateLabels, Gauge>,
    breaker_transitions: Family<TransitionLabels, Counter>,
    active_requests: Gauge,
    load_shed: Counter,
    idempotent_replays: Counter,
    shared_tier_rejected: Family<KindLabels, Counter>,
    web_vitals_lcp: HistogramFamily<RumLabels>,
    web_vitals_inp: HistogramFamily<RumLabels>,
    web_vitals_cls: HistogramFamily<RumLabels>,
    rate_limited: Family<LimitLabels, Counter>,
    csp_violations: Family<DirectiveLabels, Counter>,
    contract_violations: Family<PageLabels, Counter>,
    ssr_renders: Family<RenderLabels, Counter>,
    ssr_render_duration: Histogram,
    ssr_fallbacks: Family<FallbackLabels, Counter>,
    ssr_engine_loads: Family<RenderLabels, Counter>,
    ssr_refused_reads: Family<TemplateLabels, Counter>,
    config_info: Family<ConfigLabels, Gauge>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let server_duration = HistogramFamily::<ServerLabels>::new_with_constructor(histogram);
        let client_duration = HistogramFamily::<ClientLabels>::new_with_constructor(histogram);
        registry.register_with_unit(
            "http_server_request_duration",
            "Duration of HTTP server requests (http.server.request.duration)",
            Unit::Seconds,
            server_duration.clone(),
        );
        registry.register_with_unit(
            "http_client_request_duration",
            "Duration of requests to upstreams (http.client.request.duration)",
            Unit::Seconds,
            client_duration.clone(),
        );
        let cache_lookups = Family::<CacheLookupLabels, Counter>::default();
        registry.register(
            "bff_cache_lookups",
            "Edge cache lookups by route and state (hit, miss, stale, stale-if-error, coalesced)",
            cache_lookups.clone(),
        );
        let cache_evictions = Family::<CauseLabels, Counter>::default();
        registry.register(
            "bff_cache_evictions",
            "Entries leaving the edge cache, by cause (size, expired, purged)",
            cache_evictions.clone(),
        );
        let cache_misses = Family::<CacheMissLabels, Counter>::default();
        registry.register(
            "bff_cache_misses",
            "Edge cache misses (lookups that went forward: miss and coalesced) by route and reason: cold, expired, evicted, purged, too_large, not_cacheable, bypassed, outdated_in_l2",
            cache_misses.clone(),
        );
        let cache_fetch_duration = HistogramFamily::<FetchLabels>::new_with_constructor(histogram);
        registry.register_with_unit(
            "bff_cache_fetch_duration",
            "Duration of the edge cache's upstream fetches",
            Unit::Seconds,
            cache_fetch_duration.clone(),
        );
        let cache_entries = Gauge::default();
        registry.register(
            "bff_cache_entries",
            "Entries in the edge cache",
            cache_entries.clone(),
        );
        let cache_bytes = Gauge::default();
        registry.register_with_unit(
            "bff_cache_size",
            "Weighted size of the edge cache",
            Unit::Bytes,
            cache_bytes.clone(),
        );
        let session_events = Family::<EventLabels, Counter>::default();
        registry.register(
            "bff_session_events",
            "Session events: refresh_ok, refresh_failed, merge_ok, merge_failed, merge_retried, csrf_rejected, rate_limited, cookie_rejected",
            session_events.clone(),
        );
        // The events `BffSessionRevocationsUnchecked` watches exist from the start, at 0: an
        // alert on a series that has never moved has nothing to evaluate until it does.
        for event in [
            SessionEvent::RevocationUnchecked,
            SessionEvent::RevocationLocalOnly,
        ] {
            drop(session_events.get_or_create(&EventLabels { event }));
        }
        let redis_errors = Family::<OperationLabels, Counter>::default();
        registry.register(
            "bff_redis_errors",
            "Redis commands that failed or timed out, by operation; the feature fell back to its in-process behaviour",
            redis_errors.clone(),
        );
        let redis_events = Family::<RedisEventLabels, Counter>::default();
        registry.register(
            "bff_redis_events",
            "What the replicas' shared tier did: L2 hits, stale and misses, fill-lock waits, purge messages, refresh leases, shared idempotency answers",
            redis_events.clone(),
        );
        let redis_connected = Family::<TierLabels, Gauge>::default();
        registry.register(
            "bff_redis_connected",
            "Whether this replica reaches the Redis of each tier (cache, coordination): 1 connected, 0 serving on its own",
            redis_connected.clone(),
        );
        let redis_reconnects = Family::<TierLabels, Counter>::default();
        registry.register(
            "bff_redis_reconnects",
            "Times this replica reached a tier's Redis again after losing it",
            redis_reconnects.clone(),
        );
        let redis_unacknowledged = Family::<OperationLabels, Counter>::default();
        registry.register(
            "bff_redis_unacknowledged_writes",
            "Writes a shopper would miss (purges, idempotency, revocations, the rollout close) that no Redis replica acknowledged within redis.replica_ack_timeout, by operation",
            redis_unacknowledged.clone(),
        );
        let redis_duration =
            HistogramFamily::<OperationLabels>::new_with_constructor(redis_histogram);
        registry.register_with_unit(
            "bff_redis_command_duration",
            "Duration of the BFF's Redis commands by operation, as the BFF waits for them, up to redis.command_timeout (a write's wait for a replica acknowledgement, WAIT, is not included)",
            Unit::Seconds,
            redis_duration.clone(),
        );
        let redis_failovers = Family::<TierLabels, Counter>::default();
        registry.register(
            "bff_redis_failovers",
            "Times the sentinels named a new primary for a tier and this replica moved its connections there",
            redis_failovers.clone(),
        );
        let breaker_state = Family::<BreakerStateLabels, Gauge>::default();
        registry.register(
            "bff_upstream_breaker_state",
            "Each upstream's circuit breaker, one series per state (closed; open: calls fail at once; half_open: one probe in flight), 1 for the current state and 0 for the others",
            breaker_state.clone(),
        );
        let breaker_transitions = Family::<TransitionLabels, Counter>::default();
        registry.register(
            "bff_upstream_breaker_transitions",
            "Circuit breaker transitions by upstream and the state entered (open, half_open, closed)",
            breaker_transitions.clone(),
        );
        let build_info = Family::<BuildLabels, Gauge>::default();
        build_info
            .get_or_create(&BuildLabels {
                version: env!("CARGO_PKG_VERSION"),
                commit: BUILD_COMMIT,
            })
            .set(1);
        registry.register(
            "bff_build_info",
            "The running build: 1, labelled with its version and commit",
            build_info,
        );
        let active_requests = Gauge::default();
        registry.register(
            "http_server_active_requests",
            "Requests in flight on the public listener, hit-path answers included (http.server.active_requests)",
            active_requests.clone(),
        );
        let load_shed = Counter::default();
        registry.register(
            "bff_load_shed",
            "Requests answered 503 because the concurrency limit was full (load shedding)",
            load_shed.clone(),
        );
        let idempotent_replays = Counter::default();
        registry.register(
            "bff_idempotent_replays",
            "Checkout answers replayed for a repeated Idempotency-Key",
            idempotent_replays.clone(),
        );
        let shared_tier_rejected = Family::<KindLabels, Counter>::default();
        registry.register(
            "bff_shared_tier_rejected",
            "Values read from Redis whose MAC did not hold (entry, document, idempotency, rollout): treated as absent",
            shared_tier_rejected.clone(),
        );
        let config_info = Family::<ConfigLabels, Gauge>::default();
        registry.register(
            "bff_config_info",
            "The configuration in force: 1, labelled with its fingerprint (short version and SHA-256); replicas that disagree run different configurations",
            config_info.clone(),
        );
        registry.register_collector(Box::new(crate::observe::process_metrics::ProcessCollector));
        let web_vitals_lcp = HistogramFamily::<RumLabels>::new_with_constructor(lcp_histogram);
        registry.register_with_unit(
            "bff_web_vitals_lcp",
            "Largest Contentful Paint reported by browsers, by route template",
            Unit::Seconds,
            web_vitals_lcp.clone(),
        );
        let web_vitals_inp = HistogramFamily::<RumLabels>::new_with_constructor(inp_histogram);
        registry.register_with_unit(
            "bff_web_vitals_inp",
            "Interaction to Next Paint reported by browsers, by route template",
            Unit::Seconds,
            web_vitals_inp.clone(),
        );
        let web_vitals_cls = HistogramFamily::<RumLabels>::new_with_constructor(cls_histogram);
        registry.register(
            "bff_web_vitals_cls",
            "Cumulative Layout Shift reported by browsers, by route template",
            web_vitals_cls.clone(),
        );
        let rate_limited = Family::<LimitLabels, Counter>::default();
        registry.register(
            "bff_rate_limited",
            "Requests refused with 429 by a rate limit: auth, search, dealer_registration, image_request, not_found and csp_report (per client IP), sign_in_account (sign-in failures per account); traceparent counts sampled flags not honoured",
            rate_limited.clone(),
        );
        let csp_violations = Family::<DirectiveLabels, Counter>::default();
        registry.register(
            "bff_csp_violations",
            "Content-Security-Policy violations browsers reported to /api/csp-reports, by directive (CSP level 3 names, else other)",
            csp_violations.clone(),
        );
        let contract_violations = Family::<PageLabels, Counter>::default();
        registry.register(
            "bff_upstream_contract_violations",
            "Content pages the content service sent in a shape the API does not document (served as sent), by page",
            contract_violations.clone(),
        );
        let ssr_renders = Family::<RenderLabels, Counter>::default();
        registry.register(
            "bff_ssr_renders",
            "Documents rendered by the server renderer at cache-fill time, by outcome (ok; needs: the render asked for API reads first, which are read in process before it renders again; or why the shell with inlined data was served instead: failed, timeout, busy, fault, backoff)",
            ssr_renders.clone(),
        );
        let ssr_render_duration = histogram();
        registry.register(
            "bff_ssr_render_duration_seconds",
            "Time one server render took on its render thread",
            ssr_render_duration.clone(),
        );
        let ssr_fallbacks = Family::<FallbackLabels, Counter>::default();
        registry.register(
            "bff_ssr_fallbacks",
            "Document misses answered with the shell and the page's data, without a first screen, by reason: render_failed (this fill's render failed), failed_recently (the document's last render failed within ssr.failed_render_ttl), over_budget (the client is past rate_limit.renders_per_minute), fill_lost, read_refused (the render read an API route no document may read), read_failed (an in-process API read did not answer in time)",
            ssr_fallbacks.clone(),
        );
        let ssr_engine_loads = Family::<RenderLabels, Counter>::default();
        registry.register(
            "bff_ssr_engine_loads",
            "Server bundles loaded into a new render engine (at start, and after a render that stopped its engine), by outcome (ok, failed)",
            ssr_engine_loads.clone(),
        );
        let ssr_refused_reads = Family::<TemplateLabels, Counter>::default();
        registry.register(
            "bff_ssr_refused_reads",
            "API reads a server render asked for that no document may make (not a GET of a public, cacheable route), by route template (unmatched: no API route): each fails its document's render",
            ssr_refused_reads.clone(),
        );
        Self {
            ssr_refused_reads,
            ssr_renders,
            ssr_render_duration,
            ssr_fallbacks,
            ssr_engine_loads,
            config_info,
            breaker_state,
            breaker_transitions,
            active_requests,
            load_shed,
            idempotent_replays,
            shared_tier_rejected,
            web_vitals_lcp,
            web_vitals_inp,
            web_vitals_cls,
            session_events,
            redis_errors,
            redis_events,
            redis_connected,
            redis_reconnects,
            redis_unacknowledged,
            redis_failovers,
            redis_duration,
            rate_limited,
            csp_violations,
            contract_violations,
            registry,
            server_duration,
            client_duration,
            cache_lookups,
            cache_evictions,
            cache_misses,
            cache_fetch_duration,
            cache_entries,
            cache_bytes,
        }
    }

    /// The request-duration histogram of one route, method and status, resolved once so that an
    /// observation allocates nothing (the hit path's routes are known in advance).
    pub fn server_histogram(&self, route: &str, method: &str, status: u16) -> Histogram {
        self.server_duration
            .get_or_create(&ServerLabels {
                http_route: route.to_owned(),
                http_request_method: method.to_owned(),
                http_response_status_code: status,
            })
            .clone()
    }

    /// One server render, by outcome (`ok`, `failed`, `timeout`, `busy`, `fault`).
    pub fn count_render(&self, outcome: &'static str, elapsed: Duration) {
        self.ssr_renders
            .get_or_create(&RenderLabels { outcome })
            .inc();
        if outcome == "ok" {
            self.ssr_render_duration.observe(elapsed.as_secs_f64());
        }
    }

    /// One document miss answered with the shell and its data instead of a render, by reason
    /// (`render_failed`, `failed_recently`, `over_budget`, `fill_lost`).
    pub fn count_render_fallback(&self, reason: &'static str) {
        self.ssr_fallbacks
            .get_or_create(&FallbackLabels { reason })
            .inc();
    }

    /// One API read a server render asked for and was refused, by route template.
    pub fn count_refused_read(&self, template: &str) {
        self.ssr_refused_reads
            .get_or_create(&TemplateLabels {
                http_route: template.to_owned(),
            })
            .inc();
    }

    /// One load of the server bundle into a new engine, by outcome (`ok`, `failed`).
    pub fn count_engine_load(&self, outcome: &'static str) {
        self.ssr_engine_loads
            .get_or_create(&RenderLabels { outcome })
            .inc();
    }

    pub fn observe_server(&self, route: &str, method: &str, status: u16, elapsed: Duration) {
        self.server_duration
            .get_or_create(&ServerLabels {
                http_route: route.to_owned(),
                http_request_method: method.to_owned(),
                http_response_status_code: status,
            })
            .observe(elapsed.as_secs_f64());
    }

    pub fn observe_upstream(&self, call: ClientCall<'_>, elapsed: Duration) {
        self.client_duration
            .get_or_create(&ClientLabels {
                upstream: call.upstream,
                http_request_method: call.method.to_owned(),
                url_template: call.url_template.to_owned(),
                server_address: call.server_address.to_owned(),
                server_port: call.server_port,
                http_response_status_code: call.status,
                error_type: call.error_type.map(str::to_owned),
            })
            .observe(elapsed.as_secs_f64());
    }

    /// The counter of lookups on `route` in `state`, resolved once so that counting is one
    /// atomic add.
    pub fn cache_lookup_counter(&self, route: &str, state: &str) -> Counter {
        self.cache_lookups
            .get_or_create(&CacheLookupLabels {
                route: route.to_owned(),
                state: state.to_owned(),
            })
            .clone()
    }

    /// The counter of misses on `route` for `reason`, resolved once so that counting is one
    /// atomic add.
    pub fn cache_miss_counter(&self, route: &str, reason: &str) -> Counter {
        self.cache_misses
            .get_or_create(&CacheMissLabels {
                route: route.to_owned(),
                reason: reason.to_owned(),
            })
            .clone()
    }

    pub fn count_cache_eviction(&self, cause: &str) {
        self.cache_evictions
            .get_or_create(&CauseLabels {
                cause: cause.to_owned(),
            })
            .inc();
    }

    pub fn observe_cache_fetch(&self, route: &str, outcome: &str, elapsed: Duration) {
        self.cache_fetch_duration
            .get_or_create(&FetchLabels {
                route: route.to_owned(),
                outcome: outcome.to_owned(),
            })
            .observe(elapsed.as_secs_f64());
    }

    pub fn count_session_event(&self, event: SessionEvent) {
        self.session_events
            .get_or_create(&EventLabels { event })
            .inc();
    }

    /// A request refused by the rate limit named `limit`.
    pub fn count_csp_violations(&self, directive: &'static str, count: u64) {
        self.csp_violations
            .get_or_create(&DirectiveLabels { directive })
            .inc_by(count);
    }

    /// Starts the contract-violation count of each page at 0. A series that first appears at 1
    /// has no earlier sample, so `increase()` (and the alert on it) would miss the first break.
    pub fn declare_contract_pages(&self, pages: &[&str]) {
        for page in pages {
            self.contract_violations
                .get_or_create(&PageLabels {
                    page: (*page).to_owned(),
                })
                .inc_by(0);
        }
    }

    /// A content page `page` that did not read as its documented shape.
    pub fn count_contract_violation(&self, page: &str) {
        self.contract_violations
            .get_or_create(&PageLabels {
                page: page.to_owned(),
            })
            .inc();
    }

    pub fn count_rate_limited(&self, limit: &'static str) {
        self.rate_limited
            .get_or_create(&LimitLabels { limit })
            .inc();
    }

    pub fn count_redis_error(&self, operation: &'static str) {
        self.redis_errors
            .get_or_create(&OperationLabels { operation })
            .inc();
    }

    /// A tier this replica uses: not connected yet, and its failover and reconnect counters
    /// exported at 0 from the start, so the first event is an increase that `rate()` and
    /// `increase()` see (a counter born at 1 has no increase), and so the dashboard and the
    /// alerts have a series to read on a replica that has not had one.
    pub fn start_redis_tier(&self, tier: &'static str) {
        self.set_redis_connected(tier, false);
        // get_or_create makes the series; its guard is dropped at once.
        drop(self.redis_failovers.get_or_create(&TierLabels { tier }));
        drop(self.redis_reconnects.get_or_create(&TierLabels { tier }));
    }

    /// Whether this replica reaches `tier`'s Redis now.
    pub fn set_redis_connected(&self, tier: &'static str, connected: bool) {
        self.redis_connected
            .get_or_create(&TierLabels { tier })
            .set(i64::from(connected));
    }

    pub fn count_unacknowledged_write(&self, operation: &'static str) {
        self.redis_unacknowledged
            .get_or_create(&OperationLabels { operation })
            .inc();
    }

    pub fn observe_redis_command(&self, operation: &'static str, elapsed: Duration) {
        self.redis_duration
            .get_or_create(&OperationLabels { operation })
            .observe(elapsed.as_secs_f64());
    }

    pub fn count_redis_failover(&self, tier: &'static str) {
        self.redis_failovers
            .get_or_create(&TierLabels { tier })
            .inc();
    }

    pub fn count_redis_reconnect(&self, tier: &'static str) {
        self.redis_reconnects
            .get_or_create(&TierLabels { tier })
            .inc();
    }

    pub fn count_redis_event(&self, event: RedisEvent) {
        self.redis_events
            .get_or_create(&RedisEventLabels { event })
            .inc();
    }

    /// The breaker of `upstream` is now in `current`, one of `states` (every state it has): its
    /// series is set to 1, the others to 0, so each state is a series of its own that a query
    /// can select (`state="open"`) rather than a code to decode.
    pub fn set_breaker_state(
        &self,
        upstream: &'static str,
        current: &'static str,
        states: &[&'static str],
    ) {
        for &state in states {
            self.breaker_state
                .get_or_create(&BreakerStateLabels { upstream, state })
                .set(i64::from(state == current));
        }
    }

    pub fn count_breaker_transition(&self, upstream: &'static str, to: &'static str) {
        self.breaker_transitions
            .get_or_create(&TransitionLabels { upstream, to })
            .inc();
    }

    /// The in-flight gauge of the public listener, for the service that answers it.
    pub fn active_requests(&self) -> Gauge {
        self.active_requests.clone()
    }

    pub fn count_load_shed(&self) {
        self.load_shed.inc();
    }

    pub fn count_idempotent_replay(&self) {
        self.idempotent_replays.inc();
    }

    /// A value of `kind` read from Redis whose MAC did not hold.
    pub fn count_shared_tier_rejected(&self, kind: &'static str) {
        self.shared_tier_rejected
            .get_or_create(&KindLabels { kind })
            .inc();
    }

    /// `kind`'s rejection series, exported at 0 from the start (its first rejection is then an
    /// increase that `increase()` sees).
    pub fn declare_shared_tier_kind(&self, kind: &'static str) {
        drop(
            self.shared_tier_rejected
                .get_or_create(&KindLabels { kind }),
        );
    }

    /// One Web Vital `value` (seconds, or the unitless CLS) on `route`, a template of the app's
    /// route table (the caller maps anything else to [`UNMATCHED_ROUTE`]).
    pub fn observe_web_vital(&self, vital: WebVital, route: &'static str, value: f64) {
        let family = match vital {
            WebVital::Lcp => &self.web_vitals_lcp,
            WebVital::Inp => &self.web_vitals_inp,
            WebVital::Cls => &self.web_vitals_cls,
        };
        family.get_or_create(&RumLabels { route }).observe(value);
    }

    /// Exports the configuration in force, by its fingerprint's `(version, hash)`, replacing
    /// the series of any other: a scrape sees one series per process, so `count by (hash)`
    /// counts configurations, not reloads. Callers serialise it (see
    /// [`crate::config::running::RunningConfig::reload`]).
    pub fn set_config_info(&self, version: &str, hash: &str) {
        self.config_info.clear();
        self.config_info
            .get_or_create(&ConfigLabels {
                version: version.to_owned(),
                hash: hash.to_owned(),
            })
            .set(1);
    }

    /// Sets the cache size gauges (read at scrape time).
    pub fn set_cache_size(&self, entries: u64, bytes: u64) {
        self.cache_entries
            .set(i64::try_from(entries).unwrap_or(i64::MAX));
        self.cache_bytes
            .set(i64::try_from(bytes).unwrap_or(i64::MAX));
    }

    /// The OpenMetrics text exposition.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if encode(&mut out, &self.registry).is_err() {
            tracing::error!("metrics could not be encoded");
        }
        out
    }
}

/// Middleware: times every request under its route template.
pub async fn track(State(metrics): State<Arc<Metrics>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let matched = request
        .extensions()
        .get::<MatchedPath>()
        .map(|path| path.as_str().to_owned());
    let method = request.method().as_str().to_owned();
    let response = next.run(request).await;
    let route = matched.unwrap_or_else(|| {
        response
            .extensions()
            .get::<AnsweredRoute>()
            .map_or(UNMATCHED_ROUTE, |answered| answered.0)
            .to_owned()
    });
    metrics.observe_server(
        &route,
        &method,
        response.status().as_u16(),
        started.elapsed(),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_route_labelled_histograms() {
        let metrics = Metrics::new();
        metrics.observe_server("/api/pages/{name}", "GET", 200, Duration::from_millis(3));
        let text = metrics.render();
        assert!(
            text.contains("# TYPE http_server_request_duration_seconds histogram"),
            "{text}"
        );
        assert!(
            text.contains(r#"http_server_request_duration_seconds_count{http_route="/api/pages/{name}",http_request_method="GET",http_response_status_code="200"} 1"#),
            "{text}"
        );
    }
}
