//! An upstream client as a tower stack: `Service<UpstreamRequest>` with one layer per concern,
//! outermost first:
//!
//! 1. **errors**: a non-2xx answer becomes the [`UpstreamError`] it means;
//! 2. **breaker**: the upstream's circuit breaker ([`super::breaker`]): while it is open a call
//!    fails at once, before it takes a permit or a span; it sees answers before `errors` turns
//!    them into errors, so it tells a 5xx (a failure) from a 4xx (an answer);
//! 3. **trace**: the `upstream` span (OpenTelemetry HTTP client attributes, the status);
//! 4. **limit**: the upstream's concurrency limit, with a bounded wait for a permit;
//! 5. **metrics**: `http_client_request_duration_seconds` labelled with the span's attributes
//!    (`upstream`, `http_request_method`, `url_template`, `server_address`, `server_port`,
//!    `http_response_status_code`, `error_type`), and the request's upstream time (its
//!    `Server-Timing`);
//! 6. **encode**: the HTTP request (request id, credentials, body, `traceparent`), the total
//!    timeout, and the answer read whole;
//! 7. the [`Transport`] (reqwest, or an in-process router in tests).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, HeaderValue, header};
use bytes::Bytes;
use secrecy::{ExposeSecret, SecretString};
use tokio::sync::Semaphore;
use tower::util::BoxCloneSyncService;
use tower::{ServiceBuilder, ServiceExt};
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::UpstreamError;
use super::breaker::{self, Breaker};
use super::error::failure;
use super::exchange::{Body, Stack, UpstreamRequest, UpstreamResponse, forbids_shared_storage};
use super::transport::Transport;
use crate::observe::metrics::{ClientCall, Metrics};
use crate::observe::request_id::X_REQUEST_ID;

/// What the layers need to know about their upstream.
pub struct Settings {
    pub name: &'static str,
    pub max_concurrency: usize,
    pub queue_timeout: Duration,
    pub timeout: Duration,
    pub credential: Option<SecretString>,
    pub metrics: Arc<Metrics>,
    /// Shared with the [`super::Upstream`] that shows its state.
    pub breaker: Arc<Breaker>,
}

/// The whole stack over `transport`.
pub fn build(settings: Settings, transport: Transport) -> Stack {
    let name = settings.name;
    let permits = Arc::new(Semaphore::new(settings.max_concurrency));
    let credential = settings.credential.map(Arc::new);
    let breaker = settings.breaker;
    let service = ServiceBuilder::new()
        .layer_fn(move |inner| errors(name, inner))
        .layer_fn(move |inner| breaker::layer(breaker.clone(), inner))
        .layer_fn(move |inner| trace(name, inner))
        .layer_fn(move |inner| limit(name, permits.clone(), settings.queue_timeout, inner))
        .layer_fn(move |inner| metrics(name, settings.metrics.clone(), inner))
        .service(encode(name, credential, settings.timeout, transport));
    BoxCloneSyncService::new(service)
}

fn errors(name: &'static str, inner: Stack) -> Stack {
    BoxCloneSyncService::new(tower::service_fn(move |request: UpstreamRequest| {
        let inner = inner.clone();
        async move {
            let label = request.label.clone();
            let response = inner.oneshot(request).await?;
            if response.status.is_success() {
                Ok(response)
            } else {
                Err(failure(name, &label, response.status, &response.body))
            }
        }
    }))
}

fn trace(name: &'static str, inner: Stack) -> Stack {
    BoxCloneSyncService::new(tower::service_fn(move |request: UpstreamRequest| {
        let span = tracing::info_span!(
            "upstream",
            otel.kind = "client",
            otel.name = %format!("{} {}", request.method, request.label),
            otel.status_code = tracing::field::Empty,
            upstream = name,
            http.request.method = %request.method,
            url.template = %request.label,
            server.address = request.url.host_str().unwrap_or_default(),
            server.port = request.url.port_or_known_default().unwrap_or_default(),
            http.response.status_code = tracing::field::Empty,
            error.type = tracing::field::Empty,
        );
        let inner = inner.clone();
        async move {
            let result = inner.oneshot(request).await;
            let span = tracing::Span::current();
            if let Ok(response) = &result {
                span.record("http.response.status_code", response.status.as_u16());
            }
            if let Some(error_type) = error_type(&result) {
                span.record("otel.status_code", "error");
                span.record("error.type", error_type);
            }
            result
        }
        .instrument(span)
    }))
}

/// The call's `error.type` (span attribute and metric label alike): none for a 1xx-3xx answer;
/// the status code for a 4xx or 5xx (for a client every 4xx and 5xx is an error, OTel HTTP
/// semconv); the error's code when no answer came (`upstream_timeout`, `upstream_unavailable`).
fn error_type(result: &Result<UpstreamResponse, UpstreamError>) -> Option<&str> {
    match result {
        Ok(response) if response.status.is_client_error() || response.status.is_server_error() => {
            Some(response.status.as_str())
        }
        Ok(_) => None,
        Err(err) => Some(err.code()),
    }
}

fn limit(
    name: &'static str,
    permits: Arc<Semaphore>,
    queue_timeout: Duration,
    inner: Stack,
) -> Stack {
    BoxCloneSyncService::new(tower::service_fn(move |request: UpstreamRequest| {
        let (inner, permits) = (inner.clone(), permits.clone());
        async move {
            let overloaded = || UpstreamError::Overloaded { upstream: name };
            let _permit = tokio::time::timeout(queue_timeout, permits.acquire_owned())
                .await
                .map_err(|_| overloaded())?
                .map_err(|_| overloaded())?;
            inner.oneshot(request).await
        }
    }))
}

fn metrics(name: &'static str, metrics: Arc<Metrics>, inner: Stack) -> Stack {
    BoxCloneSyncService::new(tower::service_fn(move |request: UpstreamRequest| {
        let (inner, metrics) = (inner.clone(), metrics.clone());
        async move {
            let method = request.method.clone();
            let url_template = request.label.clone();
            let server_address = request.url.host_str().unwrap_or_default().to_owned();
            let server_port = request.url.port_or_known_default().unwrap_or_default();
            let meter = request.request_id.clone();
            let started = Instant::now();
            let result = inner.oneshot(request).await;
            let elapsed = started.elapsed();
            let call = ClientCall {
                upstream: name,
                method: method.as_str(),
                url_template: &url_template,
                server_address: &server_address,
                server_port,
                status: result
                    .as_ref()
                    .ok()
                    .map(|response| response.status.as_u16()),
                error_type: error_type(&result),
            };
            metrics.observe_upstream(call, elapsed);
            meter.add_upstream_time(elapsed);
            result
        }
    }))
}

fn encode(
    name: &'static str,
    credential: Option<Arc<SecretString>>,
    timeout: Duration,
    transport: Transport,
) -> Stack {
    BoxCloneSyncService::new(tower::service_fn(move |request: UpstreamRequest| {
        let transport = transport.clone();
        let credential = credential.clone();
        async move {
            let http = to_http(request, credential.as_deref())?;
            let answer = tokio::time::timeout(timeout, transport.oneshot(http))
                .await
                .map_err(|_| UpstreamError::Timeout { upstream: name })??;
            let content_type = answer.headers().get(header::CONTENT_TYPE).cloned();
            let no_store = forbids_shared_storage(answer.headers());
            let (parts, body) = answer.into_parts();
            Ok(UpstreamResponse {
                status: parts.status,
                body,
                content_type,
                no_store,
            })
        }
    }))
}

fn sensitive(value: &str) -> Option<HeaderValue> {
    let mut value = HeaderValue::from_str(value).ok()?;
    value.set_sensitive(true);
    Some(value)
}

/// The HTTP request: request id, `Accept`, the caller's token (else the service credential),
/// the guest id, the body's type, the extra headers, and the trace context of the current
/// (upstream) span.
fn to_http(
    request: UpstreamRequest,
    credential: Option<&SecretString>,
) -> Result<axum::http::Request<Bytes>, UpstreamError> {
    let mut headers = HeaderMap::new();
    headers.insert(
        X_REQUEST_ID.clone(),
        request.request_id.header_value().clone(),
    );
    headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
    let bearer = request
        .bearer
        .as_deref()
        .or_else(|| credential.map(ExposeSecret::expose_secret));
    if let Some(value) = bearer.and_then(|token| sensitive(&format!("Bearer {token}"))) {
        headers.insert(header::AUTHORIZATION, value);
    }
    if let Some(value) = request.guest_id.as_deref().and_then(sensitive) {
        headers.insert("x-guest-id", value);
    }
    let body = match request.body {
        Body::Empty => Bytes::new(),
        Body::Json(bytes) => {
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            bytes
        }
        Body::Multipart {
            content_type,
            bytes,
        } => {
            headers.insert(header::CONTENT_TYPE, content_type);
            bytes
        }
    };
    headers.extend(request.headers);
    let context = tracing::Span::current().context();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(
            &context,
            &mut opentelemetry_http::HeaderInjector(&mut headers),
        );
    });
    let mut http = axum::http::Request::builder()
        .method(request.method)
        .uri(request.url.as_str())
        .body(body)
        .map_err(|err| UpstreamError::Decode {
            upstream: "upstream",
            reason: err.to_string(),
        })?;
    *http.headers_mut() = headers;
    Ok(http)
}
