//! Liveness and readiness.

use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use tokio::sync::Mutex;

use crate::request_id::RequestId;
use crate::state::SharedState;

/// The last readiness verdict. An async mutex on purpose: it is held across the upstream probes,
/// so concurrent probes wait for one check instead of each hitting the upstreams.
#[derive(Debug, Default)]
pub struct Readiness {
    last: Mutex<Option<(Instant, Report)>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    ready: bool,
    commerce: bool,
    content: bool,
}

/// `/healthz`: the process is up and serving.
pub async fn live() -> &'static str {
    "ok"
}

/// `/readyz`: both upstreams reachable (verdict reused for `readiness.cache_ms`), and not
/// shutting down.
pub async fn ready(State(state): State<SharedState>, request_id: RequestId) -> Response {
    if state.shutdown.is_cancelled() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down").into_response();
    }
    let ttl = Duration::from_millis(state.config.readiness.cache_ms);
    let report = {
        let mut last = state.readiness.last.lock().await;
        match last.as_ref() {
            Some((checked, report)) if checked.elapsed() < ttl => report.clone(),
            _ => {
                let (commerce, content) = tokio::join!(
                    state.commerce.probe(&request_id),
                    state.content.probe(&request_id)
                );
                let report = Report {
                    ready: commerce && content,
                    commerce,
                    content,
                };
                *last = Some((Instant::now(), report.clone()));
                report
            }
        }
    };
    let status = if report.ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(report)).into_response()
}
