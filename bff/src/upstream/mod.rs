//! Clients for the two upstreams (commerce and content): one reqwest client builder, connect and
//! total timeouts, a per-upstream concurrency limit, request-id and trace propagation, and
//! server-side credential injection.

mod contract;
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

pub use contract::{decode, decode_value};
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
        /// The upstream's own message, for the shopper ("Product TF-X not found").
        message: Option<String>,
    },
    #[error("{upstream}: answered {status}")]
    Status {
        upstream: &'static str,
        status: StatusCode,
        message: Option<String>,
        /// Per-field messages of a validation failure.
        errors: Option<std::collections::BTreeMap<String, String>>,
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
    /// The answer lacks a field the API's type requires, or has it with another type.
    #[error("{upstream}: answer breaks the contract at `{field}` ({reason})")]
    Contract {
        upstream: &'static str,
        field: String,
        reason: String,
    },
    /// A request body could not be encoded (a bug: the API's types always serialise).
    #[error("{upstream}: request body not encodable ({reason})")]
    Encode {
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
            // A validation failure upstream is this API's 422, with its per-field messages.
            Self::Status {
                status,
                errors: Some(_),
                ..
            } if *status == StatusCode::BAD_REQUEST => StatusCode::UNPROCESSABLE_ENTITY,
            Self::Status { status, .. } if is_relayed(*status) => *status,
            Self::Timeout { .. } => StatusCode::GATEWAY_TIMEOUT,
            Self::Overloaded { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Self::Encode { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_GATEWAY,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound { .. } | Self::InvalidPath(_) => "not_found",
            Self::Status {
                status,
                errors: Some(_),
                ..
            } if *status == StatusCode::BAD_REQUEST
                || *status == StatusCode::UNPROCESSABLE_ENTITY =>
            {
                "validation_failed"
            }
            Self::Status { status, .. } => match *status {
                StatusCode::BAD_REQUEST => "bad_request",
                StatusCode::UNAUTHORIZED => "unauthorized",
                StatusCode::FORBIDDEN => "forbidden",
                StatusCode::CONFLICT => "conflict",
                StatusCode::UNPROCESSABLE_ENTITY => "unprocessable",
                StatusCode::TOO_MANY_REQUESTS => "rate_limited",
                _ => "upstream_unavailable",
            },
            Self::Timeout { .. } => "upstream_timeout",
            Self::Overloaded { .. } => "overloaded",
            Self::Contract { .. } => "upstream_contract",
            Self::Encode { .. } => "internal",
            _ => "upstream_unavailable",
        }
    }

    /// What a shopper may be told: the upstream's own message for its 4xx answers, a generic
    /// sentence otherwise (never hostnames or transport errors).
    pub fn public_detail(&self) -> String {
        match self {
            Self::NotFound {
                message: Some(message),
                ..
            } => message.clone(),
            Self::NotFound { .. } | Self::InvalidPath(_) => "Not found.".to_owned(),
            Self::Status {
                status,
                message: Some(message),
                ..
            } if is_relayed(*status) => message.clone(),
            Self::Timeout { .. } => "The service took too long to answer.".to_owned(),
            Self::Overloaded { .. } => "The service is busy; please retry shortly.".to_owned(),
            Self::Encode { .. } => "Something went wrong on our side.".to_owned(),
            _ => "The service is unavailable; please retry shortly.".to_owned(),
        }
    }
}

/// The upstream client errors that mean the same for this API's client and so pass through as
/// they are (the OpenAPI document lists them per operation). Any other 4xx (405, 410, 418, ...)
/// says the BFF called the upstream wrongly: a 502 like any other unusable answer.
fn is_relayed(status: StatusCode) -> bool {
    matches!(
        status,
        StatusCode::BAD_REQUEST
            | StatusCode::UNAUTHORIZED
            | StatusCode::FORBIDDEN
            | StatusCode::NOT_FOUND
            | StatusCode::CONFLICT
            | StatusCode::UNPROCESSABLE_ENTITY
            | StatusCode::TOO_MANY_REQUESTS
    )
}

/// One request to an upstream, beyond a plain GET: method, query, JSON body, and the caller's
/// identity (a user's bearer token or a guest id), injected server-side.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    pub method: reqwest::Method,
    pub path: &'a UpstreamPath,
    pub query: Vec<(&'a str, String)>,
    /// The JSON body, encoded when the call is built.
    pub body: Option<Result<Bytes, String>>,
    pub bearer: Option<&'a str>,
    pub guest_id: Option<&'a str>,
}

impl<'a> Call<'a> {
    pub fn new(method: reqwest::Method, path: &'a UpstreamPath) -> Self {
        Self {
            method,
            path,
            query: Vec::new(),
            body: None,
            bearer: None,
            guest_id: None,
        }
    }

    pub fn get(path: &'a UpstreamPath) -> Self {
        Self::new(reqwest::Method::GET, path)
    }

    pub fn post<T: serde::Serialize + ?Sized>(path: &'a UpstreamPath, body: &T) -> Self {
        Self::new(reqwest::Method::POST, path).json(body)
    }

    /// Sends `body` as JSON. An encoding failure (impossible for the API's own types) fails
    /// the call, never sends `null`.
    pub fn json<T: serde::Serialize + ?Sized>(mut self, body: &T) -> Self {
        self.body = Some(
            serde_json::to_vec(body)
                .map(Bytes::from)
                .map_err(|err| err.to_string()),
        );
        self
    }

    pub fn bearer(mut self, token: Option<&'a str>) -> Self {
        self.bearer = token;
        self
    }

    pub fn guest(mut self, guest_id: Option<&'a str>) -> Self {
        self.guest_id = guest_id;
        self
    }

    pub fn query(mut self, name: &'a str, value: impl Into<String>) -> Self {
        self.query.push((name, value.into()));
        self
    }
}

/// A successful upstream answer.
#[derive(Debug, Clone)]
pub struct UpstreamResponse {
    pub status: StatusCode,
    pub body: Bytes,
    pub content_type: Option<HeaderValue>,
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
        self.send(&Call::get(path), path.as_str(), request_id)
            .instrument(span)
            .await
    }

    /// Any call; a non-2xx answer is an error.
    pub async fn call(
        &self,
        call: Call<'_>,
        request_id: &RequestId,
    ) -> Result<UpstreamResponse, UpstreamError> {
        let span = tracing::info_span!(
            "upstream",
            upstream = self.inner.name,
            http.request.method = %call.method,
            url.path = %call.path,
            http.response.status_code = tracing::field::Empty,
        );
        self.send(&call, call.path.as_str(), request_id)
            .instrument(span)
            .await
    }

    /// `call`, decoding a JSON answer.
    pub async fn call_json(
        &self,
        call: Call<'_>,
        request_id: &RequestId,
    ) -> Result<serde_json::Value, UpstreamError> {
        let upstream = self.inner.name;
        let response = self.call(call, request_id).await?;
        if response.body.is_empty() {
            return Ok(serde_json::Value::Null);
        }
        serde_json::from_slice(&response.body).map_err(|err| UpstreamError::Decode {
            upstream,
            reason: err.to_string(),
        })
    }

    /// `call`, reading the JSON answer into `T` (see [`decode`]: unknown fields tolerated, a
    /// missing or mistyped required field is an `upstream_contract` error).
    pub async fn call_as<T: serde::de::DeserializeOwned>(
        &self,
        call: Call<'_>,
        request_id: &RequestId,
    ) -> Result<T, UpstreamError> {
        let response = self.call(call, request_id).await?;
        decode(self.inner.name, &response.body)
    }

    /// Whether the upstream answers at all (any status below 500), for readiness.
    pub async fn probe(&self, request_id: &RequestId) -> bool {
        let health = UpstreamPath::fixed("health");
        let path = self.inner.health_path.clone();
        match self.send(&Call::get(&health), &path, request_id).await {
            Ok(_) => true,
            Err(UpstreamError::NotFound { .. }) => true,
            Err(UpstreamError::Status { status, .. }) => !status.is_server_error(),
            Err(_) => false,
        }
    }

    async fn send(
        &self,
        call: &Call<'_>,
        path: &str,
        request_id: &RequestId,
    ) -> Result<UpstreamResponse, UpstreamError> {
        let url = self
            .inner
            .base
            .join(path)
            .map_err(|err| UpstreamError::Decode {
                upstream: self.inner.name,
                reason: err.to_string(),
            })?;
        self.send_to(url, call, path, HeaderMap::new(), request_id)
            .await
    }

    /// GET a full `url` built by the caller (a provider's URL template), with `headers` added
    /// last; `label` names the request in errors and traces instead of the URL, which may carry
    /// a key. Same limit, timeouts, metrics and trace propagation as every other call.
    pub async fn get_url(
        &self,
        url: Url,
        label: &str,
        headers: HeaderMap,
        request_id: &RequestId,
    ) -> Result<UpstreamResponse, UpstreamError> {
        let path = UpstreamPath::fixed("");
        let span = tracing::info_span!(
            "upstream",
            upstream = self.inner.name,
            http.request.method = "GET",
            url.path = label,
            http.response.status_code = tracing::field::Empty,
        );
        self.send_to(url, &Call::get(&path), label, headers, request_id)
            .instrument(span)
            .await
    }

    async fn send_to(
        &self,
        url: Url,
        call: &Call<'_>,
        path: &str,
        extra_headers: HeaderMap,
        request_id: &RequestId,
    ) -> Result<UpstreamResponse, UpstreamError> {
        let method = call.method.clone();
        let upstream = self.inner.name;
        let _permit = tokio::time::timeout(self.inner.queue_timeout, self.inner.permits.acquire())
            .await
            .map_err(|_| UpstreamError::Overloaded { upstream })?
            .map_err(|_| UpstreamError::Overloaded { upstream })?;

        let mut headers = HeaderMap::new();
        headers.insert(X_REQUEST_ID.clone(), request_id.header_value().clone());
        headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
        // The caller's own token wins over the service credential.
        let bearer = call.bearer.or_else(|| {
            self.inner
                .credential
                .as_ref()
                .map(ExposeSecret::expose_secret)
        });
        if let Some(token) = bearer
            && let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {token}"))
        {
            value.set_sensitive(true);
            headers.insert(header::AUTHORIZATION, value);
        }
        if let Some(guest_id) = call.guest_id
            && let Ok(mut value) = HeaderValue::from_str(guest_id)
        {
            value.set_sensitive(true);
            headers.insert("x-guest-id", value);
        }
        headers.extend(extra_headers);
        let context = tracing::Span::current().context();
        opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.inject_context(
                &context,
                &mut opentelemetry_http::HeaderInjector(&mut headers),
            );
        });

        let started = Instant::now();
        let mut request = self
            .inner
            .client
            .request(method.clone(), url)
            .headers(headers);
        if !call.query.is_empty() {
            request = request.query(&call.query);
        }
        match &call.body {
            Some(Ok(body)) => {
                request = request
                    .header(header::CONTENT_TYPE, "application/json")
                    .body(body.clone());
            }
            Some(Err(reason)) => {
                return Err(UpstreamError::Encode {
                    upstream,
                    reason: reason.clone(),
                });
            }
            None => {}
        }
        let result = request.send().await;
        let outcome = match result {
            Ok(response) => {
                let status = response.status();
                let content_type = response.headers().get(header::CONTENT_TYPE).cloned();
                match response.bytes().await {
                    Ok(body) => Ok((status, body, content_type)),
                    Err(err) => Err(transport_error(upstream, &err)),
                }
            }
            Err(err) => Err(transport_error(upstream, &err)),
        };
        let status_label = match &outcome {
            Ok((status, _, _)) => status.as_str().to_owned(),
            Err(UpstreamError::Timeout { .. }) => "timeout".to_owned(),
            Err(_) => "error".to_owned(),
        };
        self.inner.metrics.observe_upstream(
            upstream,
            method.as_str(),
            &status_label,
            started.elapsed(),
        );
        let (status, body, content_type) = outcome?;
        tracing::Span::current().record("http.response.status_code", status.as_u16());
        if status.is_success() {
            Ok(UpstreamResponse {
                status,
                body,
                content_type,
            })
        } else {
            Err(failure(upstream, path, status, &body))
        }
    }
}

/// A non-2xx answer as the error it is, with the upstream's message and field errors.
fn failure(upstream: &'static str, path: &str, status: StatusCode, body: &[u8]) -> UpstreamError {
    if status == StatusCode::NOT_FOUND {
        UpstreamError::NotFound {
            upstream,
            path: path.to_owned(),
            message: message_of(body),
        }
    } else {
        UpstreamError::Status {
            upstream,
            status,
            message: message_of(body),
            errors: errors_of(body),
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

/// The per-field `errors` of an upstream validation failure, if any.
fn errors_of(body: &[u8]) -> Option<std::collections::BTreeMap<String, String>> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let errors = value.get("errors")?.as_object()?;
    Some(
        errors
            .iter()
            .filter_map(|(field, message)| Some((field.clone(), message.as_str()?.to_owned())))
            .collect(),
    )
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

impl Upstream {
    /// POST a ready-made `multipart/form-data` body (`content_type` carries its boundary) to
    /// `path`, with the same request id, trace context, bearer and metrics as `call`; a non-2xx
    /// answer is an error. Used by the upload forms, which validate every part before anything
    /// is sent.
    pub async fn post_multipart(
        &self,
        path: &UpstreamPath,
        bearer: Option<&str>,
        content_type: HeaderValue,
        body: Bytes,
        request_id: &RequestId,
    ) -> Result<UpstreamResponse, UpstreamError> {
        let upstream = self.inner.name;
        let span = tracing::info_span!(
            "upstream",
            upstream,
            http.request.method = "POST",
            url.path = %path,
            http.response.status_code = tracing::field::Empty,
        );
        async move {
            let url = self
                .inner
                .base
                .join(path.as_str())
                .map_err(|err| UpstreamError::Decode {
                    upstream,
                    reason: err.to_string(),
                })?;
            let _permit =
                tokio::time::timeout(self.inner.queue_timeout, self.inner.permits.acquire())
                    .await
                    .map_err(|_| UpstreamError::Overloaded { upstream })?
                    .map_err(|_| UpstreamError::Overloaded { upstream })?;
            let mut headers = HeaderMap::new();
            headers.insert(X_REQUEST_ID.clone(), request_id.header_value().clone());
            headers.insert(header::ACCEPT, HeaderValue::from_static("application/json"));
            headers.insert(header::CONTENT_TYPE, content_type);
            let bearer = bearer.or_else(|| {
                self.inner
                    .credential
                    .as_ref()
                    .map(ExposeSecret::expose_secret)
            });
            if let Some(token) = bearer
                && let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {token}"))
            {
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
                .post(url)
                .headers(headers)
                .body(body)
                .send()
                .await;
            let outcome = match result {
                Ok(response) => {
                    let status = response.status();
                    let content_type = response.headers().get(header::CONTENT_TYPE).cloned();
                    match response.bytes().await {
                        Ok(body) => Ok((status, body, content_type)),
                        Err(err) => Err(transport_error(upstream, &err)),
                    }
                }
                Err(err) => Err(transport_error(upstream, &err)),
            };
            let status_label = match &outcome {
                Ok((status, _, _)) => status.as_str().to_owned(),
                Err(UpstreamError::Timeout { .. }) => "timeout".to_owned(),
                Err(_) => "error".to_owned(),
            };
            self.inner
                .metrics
                .observe_upstream(upstream, "POST", &status_label, started.elapsed());
            let (status, body, content_type) = outcome?;
            tracing::Span::current().record("http.response.status_code", status.as_u16());
            if status.is_success() {
                Ok(UpstreamResponse {
                    status,
                    body,
                    content_type,
                })
            } else {
                Err(failure(upstream, path.as_str(), status, &body))
            }
        }
        .instrument(span)
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(status: u16, message: &str) -> UpstreamError {
        UpstreamError::Status {
            upstream: "commerce",
            status: StatusCode::from_u16(status).unwrap(),
            message: Some(message.to_owned()),
            errors: None,
        }
    }

    #[test]
    fn meaningful_client_errors_pass_through_with_their_message() {
        for status in [400, 401, 403, 409, 422, 429] {
            let error = answered(status, "Already subscribed");
            assert_eq!(error.status().as_u16(), status);
            assert_eq!(error.public_detail(), "Already subscribed");
        }
    }

    #[test]
    fn a_not_found_keeps_the_upstreams_message() {
        let body = br#"{"message": "Product TF-X not found"}"#;
        let error = failure(
            "commerce",
            "ProductNotification/subscribe",
            StatusCode::NOT_FOUND,
            body,
        );
        assert_eq!(error.status(), StatusCode::NOT_FOUND);
        assert_eq!(error.public_detail(), "Product TF-X not found");
        let bare = failure("content", "products/x", StatusCode::NOT_FOUND, b"");
        assert_eq!(bare.public_detail(), "Not found.");
    }

    #[test]
    fn other_client_errors_are_a_bad_gateway() {
        for status in [405, 410, 413, 415, 418] {
            let error = answered(status, "teapot internals");
            assert_eq!(error.status(), StatusCode::BAD_GATEWAY, "{status}");
            assert_eq!(error.code(), "upstream_unavailable");
            assert!(!error.public_detail().contains("teapot"));
        }
    }
}
