//! 404 answers per client: made-up product and collection titles each cost an upstream call
//! (once per title, then the remembered 404), so past `rate_limit.not_found_per_minute` 404s a
//! client is answered 429 on those routes until its window ends. Requests are not counted, only
//! their 404 answers: a crawler or a prefetch following real links never comes near it.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::ClientRateLimit;
use crate::http::error::ApiError;

/// The most clients remembered as over their 404 budget at once.
const MAX_BLOCKED: u64 = 100_000;

/// The 404 count per client, and the clients over it until their window ends.
#[derive(Debug, Clone)]
pub struct NotFoundLimit {
    count: Arc<ClientRateLimit>,
    blocked: moka::sync::Cache<IpAddr, Instant>,
}

impl NotFoundLimit {
    pub fn new(count: ClientRateLimit) -> Self {
        Self {
            count: Arc::new(count),
            blocked: moka::sync::Cache::builder()
                .max_capacity(MAX_BLOCKED)
                .time_to_live(super::WINDOW)
                .build(),
        }
    }

    /// Seconds until `ip` may be answered again; `None` when it is not over its budget.
    fn blocked_for(&self, ip: IpAddr, now: Instant) -> Option<u64> {
        let until = self.blocked.get(&ip)?;
        let left = until.checked_duration_since(now)?;
        Some(left.as_secs() + u64::from(left.subsec_nanos() > 0))
    }
}

/// Answers 429 to a client over its 404 budget; counts each 404 answer.
pub async fn layer(
    State(limit): State<Arc<NotFoundLimit>>,
    request: Request,
    next: Next,
) -> Response {
    let ip = limit.count.client_of(&request);
    if let Some(retry_after_seconds) = limit.blocked_for(ip, Instant::now()) {
        limit.count.metrics.count_rate_limited(limit.count.name);
        return ApiError::TooManyRequests {
            retry_after_seconds,
        }
        .into_response();
    }
    let response = next.run(request).await;
    if response.status() == StatusCode::NOT_FOUND
        && let Err(wait) = limit.count.count(ip).await
    {
        limit
            .blocked
            .insert(ip, Instant::now() + Duration::from_secs(wait));
    }
    response
}
