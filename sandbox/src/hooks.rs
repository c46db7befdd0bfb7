//! Test hooks: request counters, a log of recent requests (with the request ids they carried) and
//! runtime fault injection, so BFF tests can count upstream calls and make the upstream misbehave.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::SandboxState;

/// How many recent requests `/sandbox/requests` remembers.
const REQUEST_LOG_LEN: usize = 256;

/// A fault injected on every request whose route template or path equals `route`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fault {
    pub route: String,
    /// Added before the request is handled.
    #[serde(default)]
    pub latency_ms: u64,
    /// The status answered instead of the real response, with probability `error_rate`.
    #[serde(default)]
    pub error_status: Option<u16>,
    #[serde(default = "always")]
    pub error_rate: f64,
    /// A `Cache-Control` header put on the real answer (an upstream that says `no-store`).
    #[serde(default)]
    pub cache_control: Option<String>,
}

fn always() -> f64 {
    1.0
}

/// One request as the sandbox saw it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    pub route: String,
    pub request_id: Option<String>,
    pub authorization: Option<String>,
    /// Any cookie the caller sent (the BFF must never forward the browser's).
    pub cookie: Option<String>,
    /// When the request arrived, before any injected latency (milliseconds since the Unix
    /// epoch), and when its answer was ready (`None` while it is still being handled): tests
    /// read which calls overlapped.
    pub received_at_ms: u64,
    pub answered_at_ms: Option<u64>,
    /// Numbers the requests in arrival order.
    pub seq: u64,
    /// The W3C trace context the caller propagated, so tests can follow a trace upstream.
    pub traceparent: Option<String>,
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// A std `Mutex` (not tokio's): every critical section is a few map operations, never held across
/// an await, and the middleware is on every request.
#[derive(Debug, Default)]
pub struct Hooks {
    inner: Mutex<HooksInner>,
}

#[derive(Debug, Default)]
struct HooksInner {
    counts: BTreeMap<String, u64>,
    recent: VecDeque<RecordedRequest>,
    faults: Vec<Fault>,
    /// The next request's `seq`.
    next_seq: u64,
}

impl Hooks {
    fn lock(&self) -> MutexGuard<'_, HooksInner> {
        // A panic while holding this lock cannot leave the counters inconsistent in a way that
        // matters to tests, so a poisoned lock is simply taken over.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Hooks {
    /// Counts and logs `request`; returns its `seq` and the fault configured for its route, if
    /// any.
    fn record(&self, request: &Request, path: &str) -> (u64, Option<Fault>) {
        let route = request
            .extensions()
            .get::<MatchedPath>()
            .map_or_else(|| path.to_owned(), |matched| matched.as_str().to_owned());
        let header = |name: &str| {
            request
                .headers()
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        };
        let recorded = RecordedRequest {
            method: request.method().to_string(),
            path: request.uri().to_string(),
            route: route.clone(),
            request_id: header("x-request-id"),
            authorization: header("authorization"),
            cookie: header("cookie"),
            received_at_ms: now_ms(),
            answered_at_ms: None,
            seq: 0,
            traceparent: header("traceparent"),
        };
        let mut hooks = self.lock();
        let seq = hooks.next_seq;
        hooks.next_seq += 1;
        *hooks.counts.entry(route.clone()).or_default() += 1;
        if hooks.recent.len() == REQUEST_LOG_LEN {
            hooks.recent.pop_front();
        }
        hooks.recent.push_back(RecordedRequest { seq, ..recorded });
        let fault = hooks
            .faults
            .iter()
            .find(|fault| fault.route == route || fault.route == path)
            .cloned();
        (seq, fault)
    }

    /// Notes when the answer to request `seq` was ready (if it is still in the log).
    fn answered(&self, seq: u64) {
        let now = now_ms();
        let mut hooks = self.lock();
        if let Some(recorded) = hooks.recent.iter_mut().rev().find(|r| r.seq == seq) {
            recorded.answered_at_ms = Some(now);
        }
    }
}

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
        .route("/sandbox/stats", get(stats).delete(reset_stats))
        .route("/sandbox/requests", get(recent_requests))
        .route("/sandbox/faults", post(set_fault).delete(clear_faults))
}

/// Records the request, then applies any fault configured for its route.
pub async fn record_and_inject(
    State(state): State<Arc<SandboxState>>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    if path.starts_with("/sandbox/") {
        return next.run(request).await;
    }
    let (seq, fault) = state.hooks.record(&request, &path);
    let response = match fault {
        Some(fault) => {
            if fault.latency_ms > 0 {
                tokio::time::sleep(Duration::from_millis(fault.latency_ms)).await;
            }
            match fault.error_status {
                Some(status) if fastrand::f64() < fault.error_rate => {
                    let status =
                        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                    (status, Json(json!({"message": "injected fault"}))).into_response()
                }
                _ => with_cache_control(next.run(request).await, fault.cache_control.as_deref()),
            }
        }
        None => next.run(request).await,
    };
    state.hooks.answered(seq);
    response
}

/// `response` with `Cache-Control: value`, when a fault names one (a value that is no header
/// value leaves it as it was).
fn with_cache_control(mut response: Response, value: Option<&str>) -> Response {
    if let Some(value) = value.and_then(|value| axum::http::HeaderValue::from_str(value).ok()) {
        response
            .headers_mut()
            .insert(axum::http::header::CACHE_CONTROL, value);
    }
    response
}

async fn stats(State(state): State<Arc<SandboxState>>) -> Json<serde_json::Value> {
    let hooks = state.hooks.lock();
    let total: u64 = hooks.counts.values().sum();
    Json(json!({"total": total, "routes": hooks.counts}))
}

async fn reset_stats(State(state): State<Arc<SandboxState>>) -> StatusCode {
    let mut hooks = state.hooks.lock();
    hooks.counts.clear();
    hooks.recent.clear();
    StatusCode::NO_CONTENT
}

async fn recent_requests(State(state): State<Arc<SandboxState>>) -> Json<Vec<RecordedRequest>> {
    Json(state.hooks.lock().recent.iter().cloned().collect())
}

async fn set_fault(State(state): State<Arc<SandboxState>>, Json(fault): Json<Fault>) -> StatusCode {
    let mut hooks = state.hooks.lock();
    hooks
        .faults
        .retain(|existing| existing.route != fault.route);
    hooks.faults.push(fault);
    StatusCode::NO_CONTENT
}

async fn clear_faults(State(state): State<Arc<SandboxState>>) -> StatusCode {
    state.hooks.lock().faults.clear();
    StatusCode::NO_CONTENT
}
