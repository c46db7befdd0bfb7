//! Clients for the upstreams (commerce, content, the map tiles): each a tower stack (see
//! [`stack`]) behind a small facade that builds requests from [`Call`]s and reads answers into
//! the API's types.

pub mod breaker;
mod contract;
mod error;
mod exchange;
mod path;
pub mod stack;
pub mod transport;

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, Method};
use bytes::Bytes;
use secrecy::SecretString;
use tower::ServiceExt;
use url::Url;

pub use breaker::{BreakerSettings, BreakerSnapshot, BreakerState};
pub use contract::{decode, decode_value};
pub use error::UpstreamError;
pub use exchange::{Body, Stack, UpstreamRequest, UpstreamResponse};
pub use path::{PathError, UpstreamPath};
pub use transport::{Transport, http_client};

use crate::config::UpstreamConfig;
use crate::observe::metrics::Metrics;
use crate::observe::request_id::RequestId;

/// One request to an upstream, beyond a plain GET: method, query, JSON body, and the caller's
/// identity (a user's bearer token or a guest id), injected server-side.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    pub method: Method,
    pub path: &'a UpstreamPath,
    pub query: Vec<(&'a str, String)>,
    pub body: CallBody,
    pub bearer: Option<&'a str>,
    pub guest_id: Option<&'a str>,
}

impl<'a> Call<'a> {
    pub fn new(method: Method, path: &'a UpstreamPath) -> Self {
        Self {
            method,
            path,
            query: Vec::new(),
            body: CallBody::Empty,
            bearer: None,
            guest_id: None,
        }
    }

    pub fn get(path: &'a UpstreamPath) -> Self {
        Self::new(Method::GET, path)
    }

    pub fn post<T: serde::Serialize + ?Sized>(path: &'a UpstreamPath, body: &T) -> Self {
        Self::new(Method::POST, path).json(body)
    }

    /// Sends `body` as JSON. An encoding failure (impossible for the API's own types) fails
    /// the call, never sends `null`.
    pub fn json<T: serde::Serialize + ?Sized>(mut self, body: &T) -> Self {
        self.body = CallBody::Json(
            serde_json::to_vec(body)
                .map(Bytes::from)
                .map_err(|err| err.to_string()),
        );
        self
    }

    /// Sends a ready-made `multipart/form-data` body (`content_type` carries its boundary).
    pub fn multipart(mut self, content_type: HeaderValue, bytes: Bytes) -> Self {
        self.body = CallBody::Multipart {
            content_type,
            bytes,
        };
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

/// A call's body: JSON encoded when the call is built (an encoding failure fails the call,
/// never sends `null`), or a ready-made multipart body.
#[derive(Debug, Clone)]
pub enum CallBody {
    Empty,
    Json(Result<Bytes, String>),
    Multipart {
        content_type: HeaderValue,
        bytes: Bytes,
    },
}

/// One upstream service.
#[derive(Clone)]
pub struct Upstream {
    inner: Arc<Inner>,
}

struct Inner {
    name: &'static str,
    base: Url,
    health_path: String,
    stack: Stack,
    /// Also a layer of `stack`; kept here for its state (`/admin/upstreams`).
    breaker: Arc<breaker::Breaker>,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("name", &self.inner.name)
            .field("base", &self.inner.base.as_str())
            .finish_non_exhaustive()
    }
}

impl Upstream {
    /// The upstream at `base`, over reqwest.
    pub fn new(
        name: &'static str,
        config: &UpstreamConfig,
        base: Url,
        credential: Option<SecretString>,
        metrics: Arc<Metrics>,
    ) -> reqwest::Result<Self> {
        let transport = transport::reqwest_transport(name, http_client(config)?);
        Ok(Self::with_transport(
            name, config, base, credential, metrics, transport,
        ))
    }

    /// The upstream at `base`, over any transport (an in-process router in tests).
    pub fn with_transport(
        name: &'static str,
        config: &UpstreamConfig,
        base: Url,
        credential: Option<SecretString>,
        metrics: Arc<Metrics>,
        transport: Transport,
    ) -> Self {
        let mut base = base;
        if !base.path().ends_with('/') {
            let with_slash = format!("{}/", base.path());
            base.set_path(&with_slash);
        }
        let breaker = Arc::new(breaker::Breaker::new(
            name,
            BreakerSettings {
                failure_threshold: config.breaker_failure_threshold,
                cool_off: config.breaker_cool_off,
            },
            metrics.clone(),
        ));
        let settings = stack::Settings {
            name,
            max_concurrency: config.max_concurrency,
            queue_timeout: config.queue_timeout,
            timeout: config.timeout,
            credential,
            metrics,
            breaker: breaker.clone(),
        };
        Self {
            inner: Arc::new(Inner {
                name,
                base,
                health_path: config.health_path.trim_start_matches('/').to_owned(),
                stack: stack::build(settings, transport),
                breaker,
            }),
        }
    }

    pub fn name(&self) -> &'static str {
        self.inner.name
    }

    /// The circuit breaker's state now.
    pub fn breaker(&self) -> BreakerSnapshot {
        self.inner.breaker.snapshot()
    }

    /// Sends one request through the stack.
    pub async fn send(&self, request: UpstreamRequest) -> Result<UpstreamResponse, UpstreamError> {
        self.inner.stack.clone().oneshot(request).await
    }

    /// GET `path`; a non-2xx answer is an error.
    pub async fn get(
        &self,
        path: &UpstreamPath,
        request_id: &RequestId,
    ) -> Result<UpstreamResponse, UpstreamError> {
        self.call(Call::get(path), request_id).await
    }

    /// Any call; a non-2xx answer is an error.
    pub async fn call(
        &self,
        call: Call<'_>,
        request_id: &RequestId,
    ) -> Result<UpstreamResponse, UpstreamError> {
        let request = self.request(&call, call.path.as_str(), request_id)?;
        self.send(request).await
    }

    /// `call`, decoding a JSON answer (`Null` for an empty one).
    pub async fn call_json(
        &self,
        call: Call<'_>,
        request_id: &RequestId,
    ) -> Result<serde_json::Value, UpstreamError> {
        self.call_as(call, request_id).await
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
        let request = match self.request(&Call::get(&health), &path, request_id) {
            Ok(request) => request,
            Err(_) => return false,
        };
        match self.send(request).await {
            Ok(_) => true,
            Err(UpstreamError::NotFound { .. }) => true,
            Err(UpstreamError::Status { status, .. }) => !status.is_server_error(),
            Err(_) => false,
        }
    }

    /// GET a full `url` built by the caller (a provider's URL template), with `headers` added
    /// last; `label`, a template written in code, names the request in errors, traces and
    /// metrics instead of the URL, which may carry a key. Same stack as every other call.
    pub async fn get_url(
        &self,
        url: Url,
        label: &'static str,
        headers: HeaderMap,
        request_id: &RequestId,
    ) -> Result<UpstreamResponse, UpstreamError> {
        self.send(UpstreamRequest {
            method: Method::GET,
            url,
            label: label.to_owned(),
            body: Body::Empty,
            bearer: None,
            guest_id: None,
            headers,
            request_id: request_id.clone(),
        })
        .await
    }

    /// POST a ready-made `multipart/form-data` body (`content_type` carries its boundary) to
    /// `path`; a non-2xx answer is an error. Used by the upload forms, which validate every
    /// part before anything is sent.
    pub async fn post_multipart(
        &self,
        path: &UpstreamPath,
        bearer: Option<&str>,
        content_type: HeaderValue,
        body: Bytes,
        request_id: &RequestId,
    ) -> Result<UpstreamResponse, UpstreamError> {
        let call = Call::new(Method::POST, path)
            .bearer(bearer)
            .multipart(content_type, body);
        self.call(call, request_id).await
    }

    /// The request for `call` at `path` (relative to the base).
    fn request(
        &self,
        call: &Call<'_>,
        path: &str,
        request_id: &RequestId,
    ) -> Result<UpstreamRequest, UpstreamError> {
        let upstream = self.inner.name;
        let mut url = self
            .inner
            .base
            .join(path)
            .map_err(|err| UpstreamError::Decode {
                upstream,
                reason: err.to_string(),
            })?;
        if !call.query.is_empty() {
            url.query_pairs_mut().extend_pairs(
                call.query
                    .iter()
                    .map(|(name, value)| (*name, value.as_str())),
            );
        }
        let body = match &call.body {
            CallBody::Empty => Body::Empty,
            CallBody::Json(Ok(bytes)) => Body::Json(bytes.clone()),
            CallBody::Json(Err(reason)) => {
                return Err(UpstreamError::Encode {
                    upstream,
                    reason: reason.clone(),
                });
            }
            CallBody::Multipart {
                content_type,
                bytes,
            } => Body::Multipart {
                content_type: content_type.clone(),
                bytes: bytes.clone(),
            },
        };
        Ok(UpstreamRequest {
            method: call.method.clone(),
            url,
            label: call.path.template().to_owned(),
            body,
            bearer: call.bearer.map(str::to_owned),
            guest_id: call.guest_id.map(str::to_owned),
            headers: HeaderMap::new(),
            request_id: request_id.clone(),
        })
    }
}
