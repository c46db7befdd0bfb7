//! The innermost service of an upstream stack: sends one `http::Request<Bytes>` and reads the
//! whole answer. Production uses reqwest; tests can plug any service in (the sandbox's router
//! in-process, say) with [`in_process`].

use std::time::Duration;

use axum::http::{Request, Response};
use bytes::Bytes;
use tower::ServiceExt;
use tower::util::BoxCloneSyncService;

use super::UpstreamError;
use super::error::transport_error;
use crate::config::UpstreamConfig;

/// A type-erased transport: request in, whole answer out.
pub type Transport = BoxCloneSyncService<Request<Bytes>, Response<Bytes>, UpstreamError>;

/// The single HTTP client builder for every upstream.
pub fn http_client(config: &UpstreamConfig) -> reqwest::Result<reqwest::Client> {
    crate::config::tls::install_crypto_provider();
    reqwest::Client::builder()
        .connect_timeout(config.connect_timeout)
        .timeout(config.timeout)
        .pool_idle_timeout(Duration::from_secs(60))
        // Upstream redirects would let an upstream steer the BFF (and its credentials) elsewhere.
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("bff/", env!("CARGO_PKG_VERSION")))
        .build()
}

/// The reqwest transport for the upstream called `name`.
pub fn reqwest_transport(name: &'static str, client: reqwest::Client) -> Transport {
    BoxCloneSyncService::new(tower::service_fn(move |request: Request<Bytes>| {
        let client = client.clone();
        async move {
            let request = reqwest::Request::try_from(request.map(reqwest::Body::from))
                .map_err(|err| transport_error(name, &err))?;
            let response = client
                .execute(request)
                .await
                .map_err(|err| transport_error(name, &err))?;
            let mut answer = Response::builder().status(response.status());
            if let Some(headers) = answer.headers_mut() {
                headers.extend(response.headers().clone());
            }
            let body = response
                .bytes()
                .await
                .map_err(|err| transport_error(name, &err))?;
            answer.body(body).map_err(|err| UpstreamError::Decode {
                upstream: name,
                reason: err.to_string(),
            })
        }
    }))
}

/// Any router as a transport (an axum `Router`, the sandbox's app): requests go to it in
/// process, with no socket.
pub fn in_process<S, B>(name: &'static str, service: S) -> Transport
where
    S: tower::Service<Request<axum::body::Body>, Response = Response<B>>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send + 'static,
    S::Error: std::fmt::Display,
    B: axum::body::HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    BoxCloneSyncService::new(tower::service_fn(move |request: Request<Bytes>| {
        let service = service.clone();
        async move {
            let response = service
                .oneshot(request.map(axum::body::Body::from))
                .await
                .map_err(|err| UpstreamError::Unreachable {
                    upstream: name,
                    reason: err.to_string(),
                })?;
            let (parts, body) = response.into_parts();
            let body = axum::body::to_bytes(axum::body::Body::new(body), usize::MAX)
                .await
                .map_err(|err| UpstreamError::Unreachable {
                    upstream: name,
                    reason: err.to_string(),
                })?;
            Ok(Response::from_parts(parts, body))
        }
    }))
}
