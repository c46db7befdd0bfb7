//! Clients for the two upstreams (commerce and content): one reqwest client builder, connect and
//! total timeouts, a per-upstream concurrency limit, request-id and trace propagation, and
//! server-side credential injection.

mod path;

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use bytes::Bytes;
use secrecy::{ExposeSecret, SecretString};
use tokio::sync::Semaphore;
use tracing::Instrument;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use url::Url;

pub use path::{PathError, UpstreamPath};

use crate::config::UpstreamConfig;
use crate::metrics::Metrics;
use crate::request_id::{RequestId, X_REQUEST_ID};

/// Why an upstream call did not produce a usable answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum UpstreamError {
    #[error("{upstream}: {path} not found")]
    NotFound {
        upstream: &'static str,
        path: String,
    },
    #[error("{upstream}: answered {status}")]
    Status {
        upstream: &'static str,
        status: StatusCode,
        message: Option<String>,
    },
    #[error("{upstream}: unreachable ({reason})")]
    Unreachable {
        upstream: &'static str,
        reason: String,
    },
    #[error("{upstream}: timed out")]
    Timeout { upstream: &'static str },
    #[error("{upstream}: too many requests in flight")]
    Overloaded { upstream: &'static str },
    #[error("{upstream}: unreadable answer ({reason})")]
    Decode {
        upstream: &'static str,
        reason: String,
    },
    #[error("invalid path: {0}")]
    InvalidPath(#[from] PathError),
}

impl UpstreamError {
    pub fn status(&self) -> StatusCode {
        match self {
            Self::NotFound { .. } | Self::InvalidPath(_) => StatusCode::NOT_FOUND,
            Self::Status { status, .. } if status.is_client_error() => *status,
            Self::Timeout { .. } => StatusCode::GATEWAY_TIMEOUT,
            Self::Overloaded { .. } => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::BAD_GATEWAY,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound { .. } | Self::InvalidPath(_) => "not_found",
            Self::Status { status, .. } if status.is_client_error() => "upstream_rejected",
            Self::Timeout { .. } => "upstream_timeout",
            Self::Overloaded { .. } => "overloaded",
            _ => "upstream_unavailable",
        }
    }

    /// What a shopper may be told: the upstream's own message for its 4xx answers, a generic
    /// sentence otherwise (never hostnames or transport errors).
    pub fn public_detail(&self) -> String {
        match self {
            Self::NotFound { .. } | Self::InvalidPath(_) => "Not found.".to_owned(),
            Self::Status {
                status,
                message: Some(message),
                ..
            } if status.is_client_error() => message.clone(),
            Self::Timeout { .. } => "The service took too long to answer.".to_owned(),
            Self::Overloaded { .. } => "The service is busy; please retry shortly.".to_owned(),
            _ => "The service is unavailable; please retry shortly.".to_owned(),
        }
    }
}

/// A successful upstream answer.
#[derive(Debug, Clone)]
pub struct UpstreamResponse {
    pub status: StatusCode,
    pub body: Bytes,
}

/// One upstream service.
#[derive(Debug, Clone)]
pub struct Upstream {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    name: &'static str,
    base: Url,
    health_path: String,
    client: reqwest::Client,
    /// Bounds requests in flight; a semaphore (not a tower layer) because the limit belongs to
    /// the upstream, shared by every handler that calls it.
    permits: Semaphore,
    queue_timeout: Duration,
    credential: Option<SecretString>,
    metrics: Arc<Metrics>,
}

/// The single HTTP client builder for every upstream.
pub fn http_client(config: &UpstreamConfig) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_millis(config.connect_timeout_ms))
        .timeout(Duration::from_millis(config.timeout_ms))
        .pool_idle_timeout(Duration::from_secs(60))
        // Upstream redirects would let an upstream steer the BFF (and its credentials) elsewhere.
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("bff/", env!("CARGO_PKG_VERSION")))
        .build()
}

impl Upstream {
    pub fn new(
        name: &'static str,
        config: &UpstreamConfig,
        base: Url,
        credential: Option<SecretString>,
        metrics: Arc<Metrics>,
    ) -> reqwest::Result<Self> {
        let mut base = base;
        if !base.path().ends_with('/') {
            let with_slash = format!("{}/", base.path());
            base.set_path(&with_slash);
        }
        Ok(Self {
            inner: Arc::new(Inner {
                name,
                base,
                health_path: config.health_path.trim_start_matches('/').to_owned(),
                client: http_client(config)?,
                permits: Semaphore::new(config.max_concurrency),
                queue_timeout: Duration::from_millis(config.queue_timeout_ms),
                credential,
                metrics,
            }),
        })
    }

    pub fn name(&self) -> &'static str {
        self.inner.name
    }

    /// GET `path`; a non-2xx answer is an error.
    pub async fn get(
        &self,
        path: &UpstreamPath,
        request_id: &RequestId,
    ) -> Result<UpstreamResponse, UpstreamError> {
        let span = tracing::info_span!(
            "upstream",
            upstream = self.inner.name,
            http.request.method = "GET",
            url.path = %path,
            http.response.status_code = tracing::field::Empty,
        );
        self.send(reqwest::Method::GET, path.as_str(), request_id)
            .instrument(span)
            .await
    }

    /// Whether the upstream answers at all (any status below 500), for readiness.
    pub async fn probe(&self, request_id: &RequestId) -> bool {
        let path = self.inner.health_path.clone();
        match self.send(reqwest::Method::GET, &path, request_id).await {
            Ok(_) => true,
            Err(UpstreamError::NotFound { .. }) => true,
            Err(UpstreamError::Status { status, .. }) => !status.is_server_error(),
            Err(_) => false,
        }
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        request_id: &RequestId,
    ) -> Result<UpstreamResponse, UpstreamError> {
        let upstream = self.inner.name;
        let url = self
            .inner
            .base
            .join(path)
            .map_err(|err| UpstreamError::Decode {
                upstream,
                reason: err.to_string(),
            })?;
        let _permit = tokio::time::timeout(self.inner.queue_timeout, self.inner.permits.acquire())
            .await
            .map_err(|_| UpstreamError::Overloaded { upstream })?
            .map_err(|_| UpstreamError::Overloaded { upstream })?;

        let mut headers = HeaderMap::new();
        headers.insert(X_REQUEST_ID.clone(), request_id.header_value().clone());
        headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        if let Some(token) = &self.inner.credential
            && let Ok(value) = HeaderValue::from_str(&format!("Bearer {}", token.expose_secret()))
        {
            let mut value = value;
            value.set_sensitive(true);
            headers.insert(header::AUTHORIZATION, value);
        }
        let context = tracing::Span::current().context();
        opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.inject_context(
                &context,
                &mut opentelemetry_http::HeaderInjector(&mut headers),
            );
        });

        let started = Instant::now();
        let result = self
            .inner
            .client
            .request(method.clone(), url)
            .headers(headers)
            .send()
            .await;
        let outcome = match result {
            Ok(response) => {
                let status = response.status();
                match response.bytes().await {
                    Ok(body) => Ok((status, body)),
                    Err(err) => Err(transport_error(upstream, &err)),
                }
            }
            Err(err) => Err(transport_error(upstream, &err)),
        };
        let status_label = match &outcome {
            Ok((status, _)) => status.as_str().to_owned(),
            Err(UpstreamError::Timeout { .. }) => "timeout".to_owned(),
            Err(_) => "error".to_owned(),
        };
        self.inner.metrics.observe_upstream(
            upstream,
            method.as_str(),
            &status_label,
            started.elapsed(),
        );
        let (status, body) = outcome?;
        tracing::Span::current().record("http.response.status_code", status.as_u16());
        if status.is_success() {
            Ok(UpstreamResponse { status, body })
        } else if status == StatusCode::NOT_FOUND {
            Err(UpstreamError::NotFound {
                upstream,
                path: path.to_owned(),
            })
        } else {
            Err(UpstreamError::Status {
                upstream,
                status,
                message: message_of(&body),
            })
        }
    }
}

fn transport_error(upstream: &'static str, err: &reqwest::Error) -> UpstreamError {
    if err.is_timeout() {
        UpstreamError::Timeout { upstream }
    } else {
        UpstreamError::Unreachable {
            upstream,
            reason: err.to_string(),
        }
    }
}

/// The `message` of an upstream JSON error body (the commerce API's shape), if any.
fn message_of(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    value
        .get("message")
        .or_else(|| value.pointer("/error/message"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
}
