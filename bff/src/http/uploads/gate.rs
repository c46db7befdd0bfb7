//! In front of the concurrency limit, for every route that does slow work: a body declared
//! larger than its route takes is refused (413) before a byte of it is read; an upload is
//! rate limited (dealer registrations), spooled to disk ([`super::spool`]) and given one of
//! `uploads.max_concurrent_forms` before it goes on to take a slot, so uploads arriving slowly
//! or in numbers hold neither slots nor memory.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{MatchedPath, Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::Semaphore;

use super::spool::{RETRY_AFTER_SECONDS, Spool};
use crate::commerce::forms::MULTIPART_MAX_BODY_BYTES;
use crate::config::Config;
use crate::coordination::replicas::Redis;
use crate::http::error::ApiError;
use crate::http::rate_limit::ClientRateLimit;
use crate::http::request_body::BodyReading;
use crate::observe::metrics::Metrics;

/// The multipart upload routes (their body limit is [`MULTIPART_MAX_BODY_BYTES`]).
pub const UPLOAD_ROUTES: [&str; 2] = ["/api/dealer-registrations", "/api/pro-deal"];

/// The route whose anonymous uploads are rate limited before they are read.
const DEALER_REGISTRATIONS: &str = "/api/dealer-registrations";

/// What the gate needs, built once.
#[derive(Debug, Clone)]
pub struct UploadGate {
    max_body_bytes: usize,
    reading: BodyReading,
    spool: Spool,
    forms: Arc<Semaphore>,
    form_wait: Duration,
    dealer_registrations: Arc<ClientRateLimit>,
}

impl UploadGate {
    pub fn new(config: &Config, metrics: Arc<Metrics>, redis: Option<Redis>) -> Self {
        Self {
            max_body_bytes: config.server.max_body_bytes,
            reading: BodyReading::new(&config.server),
            spool: Spool::new(&config.uploads),
            forms: Arc::new(Semaphore::new(config.uploads.max_concurrent_forms.max(1))),
            form_wait: config.uploads.form_wait,
            dealer_registrations: Arc::new(ClientRateLimit::dealer_registrations(
                &config.rate_limit,
                metrics,
                redis,
            )),
        }
    }
}

/// The declared `Content-Length`, when there is a valid one.
fn declared_length(request: &Request) -> Option<u64> {
    request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok())
}

/// The gate itself (see the module's documentation).
pub async fn gate(State(gate): State<Arc<UploadGate>>, request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map(|path| path.as_str().to_owned());
    let upload = route
        .as_deref()
        .is_some_and(|route| UPLOAD_ROUTES.contains(&route));
    let limit = if upload {
        MULTIPART_MAX_BODY_BYTES
    } else {
        gate.max_body_bytes
    };
    let declared = declared_length(&request);
    if declared.is_some_and(|length| length > limit as u64) {
        return ApiError::PayloadTooLarge(format!(
            "The request body may be at most {limit} bytes."
        ))
        .into_response();
    }
    if !upload {
        return next.run(request).await;
    }
    let ip = gate.dealer_registrations.client_of(&request);
    if route.as_deref() == Some(DEALER_REGISTRATIONS)
        && let Err(retry_after_seconds) = gate.dealer_registrations.count(ip).await
    {
        return ApiError::TooManyRequests {
            retry_after_seconds,
        }
        .into_response();
    }
    let (parts, body) = request.into_parts();
    // Small declared bodies are read into memory by `read_first`, as on every route.
    let small = declared.is_some_and(|length| length <= gate.max_body_bytes as u64);
    let body = if small {
        body
    } else {
        match gate
            .spool
            .take(ip, declared, gate.reading.deadline(body))
            .await
        {
            Ok(body) => body,
            Err(problem) => return problem.into_response(),
        }
    };
    let Ok(Ok(_permit)) = tokio::time::timeout(gate.form_wait, gate.forms.acquire()).await else {
        return ApiError::Overloaded {
            retry_after_seconds: RETRY_AFTER_SECONDS,
        }
        .into_response();
    };
    next.run(Request::from_parts(parts, body)).await
}
