//! The storefront's backend-for-frontend: one origin serving the React app and a curated JSON
//! API in front of the commerce and content services.

pub mod admin;
pub mod cache;
pub mod commerce;
pub mod config;
pub mod content;
pub mod coordination;
pub mod edge;
pub mod http;
pub mod idempotency;
pub mod observe;
pub mod routes;
pub mod seo;
pub mod session;
pub mod ssr;
pub mod upstream;

use std::time::Duration;

use axum::error_handling::HandleErrorLayer;
use axum::extract::{MatchedPath, Request};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{BoxError, Router, middleware};
use tower::ServiceBuilder;
use tower::limit::GlobalConcurrencyLimitLayer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{DefaultPredicate, Predicate};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;

use crate::content::tiles;
pub use crate::edge::state::{AppState, SharedState};
pub use crate::edge::storefront::Storefront;
use crate::edge::web_assets;
use crate::http::error::ApiError;
use crate::http::request_id::RequestId;
use crate::http::{error, rate_limit, request_body, request_id, security, server_timing};
use crate::observe::{metrics, telemetry};

/// The routers the edge serves: this crate's two.
pub const ROUTERS: edge::server::Routers = edge::server::Routers {
    public: app,
    admin: admin_app,
};

/// Binds the listeners and serves [`ROUTERS`] (see [`edge::server::start`]).
pub async fn start(
    config: config::Config,
    secrets: config::Secrets,
    config_path: Option<std::path::PathBuf>,
) -> Result<edge::server::Running, edge::server::StartError> {
    edge::server::start(config, secrets, config_path, ROUTERS).await
}

/// The public storefront of `state`: its hit path in front of [`app`].
pub fn storefront(state: SharedState) -> Storefront {
    Storefront::new(state.clone(), app(state))
}

/// The public router: storefront, `/api`, health.
///
/// The load shedding, the concurrency limit and the request timeout sit around the routes that
/// do slow work (`/api`, map tiles), never in front of the probes or the web app's files, so a
/// burst of slow requests cannot make `/healthz` or the storefront's assets answer 503. (Fresh
/// cache hits never reach this router at all: see [`crate::edge::hit_path`].) A request's body is
/// read before it takes a slot, under its own deadline ([`request_body`]).
pub fn app(state: SharedState) -> Router {
    let config = &state.config.server;
    let limited = ServiceBuilder::new()
        // A body declared larger than its route takes is refused unread; an upload is on disk,
        // with a form place, before it takes a slot.
        .layer(middleware::from_fn_with_state(
            std::sync::Arc::new(crate::commerce::forms::upload_gate::UploadGate::new(
                &state.config,
                state.metrics.clone(),
                state.redis.clone(),
                state.csrf.clone(),
            )),
            crate::commerce::forms::upload_gate::gate,
        ))
        // The body is here before a slot is taken: a client trickling it holds none.
        .layer(middleware::from_fn_with_state(
            request_body::BodyReading::new(config),
            request_body::read_first,
        ))
        .layer(HandleErrorLayer::new({
            let metrics = state.metrics.clone();
            move |error: BoxError| {
                let metrics = metrics.clone();
                async move { infrastructure_error(&metrics, error) }
            }
        }))
        .load_shed()
        .layer(GlobalConcurrencyLimitLayer::new(
            config.max_concurrent_requests,
        ))
        .timeout(config.request_timeout);
    let layers = ServiceBuilder::new()
        .layer(middleware::from_fn(request_id::assign))
        .layer(middleware::from_fn_with_state(
            state.security.clone(),
            security::apply,
        ))
        .layer(trace_layer())
        .layer(middleware::from_fn(server_timing::annotate))
        .layer(middleware::from_fn(error::log_errors))
        .layer(middleware::from_fn_with_state(
            state.metrics.clone(),
            metrics::track,
        ))
        .layer(middleware::from_fn_with_state(
            state.sessions.clone(),
            session::handle::layer,
        ))
        .layer(CatchPanicLayer::custom(panic_response))
        // A limit every body extractor honours; the upload routes set a larger one of their own
        // (the innermost limit wins), which a hard outer limit would not allow.
        .layer(axum::extract::DefaultBodyLimit::max(config.max_body_bytes))
        .layer(CompressionLayer::new().compress_when(DefaultPredicate::new().and(not_stored)));
    let slow_work = Router::new()
        .route(tiles::ROUTE, get(routes::tiles::tile))
        .route("/robots.txt", get(seo::robots))
        .route("/sitemap.xml", get(seo::sitemap))
        .nest("/api", routes::api(&state))
        .layer(limited);
    Router::new()
        .route("/healthz", get(routes::health::live))
        .route("/readyz", get(routes::health::ready))
        .merge(slow_work)
        // The app's HTML documents are built from the edge cache (their heads); a miss there
        // calls upstreams, which carry their own concurrency limits and timeouts.
        .merge(web_assets::router(
            &state.web,
            get(seo::document)
                .with_state(state.clone())
                .layer(middleware::from_fn_with_state(
                    state.not_found_limit.clone(),
                    rate_limit::not_found::layer,
                )),
        ))
        .layer(layers)
        // the document handler's in-process reader of the API (held by the router, not the
        // state: the state holds no router)
        .layer(axum::Extension(routes::in_process_reads(&state)))
        .with_state(state)
}

/// The admin router: metrics and probes, the `/admin` API and the console's files, each
/// request within `admin.request_timeout`.
pub fn admin_app(state: SharedState) -> Router {
    let metrics = state.metrics.clone();
    routes::admin::router(&state)
        .merge(routes::admin_console::router(&state.config.web.console_dir))
        .route("/healthz", get(routes::health::live))
        .route("/readyz", get(routes::health::ready))
        .layer(
            ServiceBuilder::new()
                .layer(middleware::from_fn(request_id::assign))
                .layer(trace_layer())
                .layer(middleware::from_fn(error::log_errors))
                .layer(HandleErrorLayer::new(move |error: BoxError| {
                    let metrics = metrics.clone();
                    async move { infrastructure_error(&metrics, error) }
                }))
                .timeout(state.config.admin.request_timeout),
        )
        .with_state(state)
}

type MakeSpan = fn(&Request) -> tracing::Span;

fn trace_layer() -> TraceLayer<
    tower_http::classify::SharedClassifier<tower_http::classify::ServerErrorsAsFailures>,
    MakeSpan,
    tower_http::trace::DefaultOnRequest,
    RecordStatus,
    tower_http::trace::DefaultOnBodyChunk,
    tower_http::trace::DefaultOnEos,
    LogStreamFailures,
> {
    TraceLayer::new_for_http()
        .make_span_with(request_span as MakeSpan)
        .on_response(RecordStatus(DefaultOnResponse::new().level(Level::INFO)))
        .on_failure(LogStreamFailures)
}

/// The server span: route template (never the raw path with its ids), request id; a child of
/// the caller's span when the request carries a W3C `traceparent` (the browser's, or a proxy's).
fn request_span(request: &Request) -> tracing::Span {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or(metrics::UNMATCHED_ROUTE, MatchedPath::as_str);
    let request_id = request
        .extensions()
        .get::<RequestId>()
        .map(RequestId::as_str)
        .unwrap_or_default();
    let span = tracing::info_span!(
        "request",
        otel.kind = "server",
        otel.name = %format!("{} {route}", request.method()),
        otel.status_code = tracing::field::Empty,
        http.request.method = %request.method(),
        http.route = route,
        http.response.status_code = tracing::field::Empty,
        request_id = request_id,
    );
    telemetry::join_caller_trace(&span, request.headers());
    span
}

/// Records the status on the server span (a 5xx sets the span's status to error), then logs the
/// access line as tower-http does.
#[derive(Clone)]
struct RecordStatus(DefaultOnResponse);

impl<B> tower_http::trace::OnResponse<B> for RecordStatus {
    fn on_response(
        self,
        response: &axum::http::Response<B>,
        latency: Duration,
        span: &tracing::Span,
    ) {
        let status = response.status();
        span.record("http.response.status_code", status.as_u16());
        if status.is_server_error() {
            span.record("otel.status_code", "error");
        }
        self.0.on_response(response, latency, span);
    }
}

/// A 5xx answer is logged once, by `error::log_errors` (with its cause) and in the access line
/// (with its status); tower-http's default would log it a third time. What neither sees is a
/// failure while the body streams, which is logged here.
#[derive(Clone, Copy)]
struct LogStreamFailures;

impl tower_http::trace::OnFailure<tower_http::classify::ServerErrorsFailureClass>
    for LogStreamFailures
{
    fn on_failure(
        &mut self,
        failure: tower_http::classify::ServerErrorsFailureClass,
        latency: Duration,
        _span: &tracing::Span,
    ) {
        if let tower_http::classify::ServerErrorsFailureClass::Error(error) = failure {
            tracing::error!(
                error,
                latency_ms = u64::try_from(latency.as_millis()).unwrap_or(u64::MAX),
                "response failed"
            );
        }
    }
}

/// Compression on the fly only for answers the cache did not choose among its stored variants:
/// a stored body is sent as stored (too small to be worth it, or the variant the client
/// accepts), never compressed again per request.
fn not_stored(
    _: axum::http::StatusCode,
    _: axum::http::Version,
    _: &axum::http::HeaderMap,
    extensions: &axum::http::Extensions,
) -> bool {
    extensions.get::<cache::http::StoredEncoding>().is_none()
}

/// Maps tower's infrastructure errors to answers in one place.
fn infrastructure_error(metrics: &metrics::Metrics, error: BoxError) -> ApiError {
    if error.is::<tower::timeout::error::Elapsed>() {
        ApiError::Timeout
    } else if error.is::<tower::load_shed::error::Overloaded>() {
        metrics.count_load_shed();
        ApiError::Overloaded {
            retry_after_seconds: 1,
        }
    } else {
        ApiError::Internal(error.to_string())
    }
}

fn panic_response(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let message = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("panic");
    ApiError::Internal(format!("handler panicked: {message}")).into_response()
}
