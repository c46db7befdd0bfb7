//! Liveness and readiness.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::edge::state::SharedState;
use crate::http::request_id::RequestId;

/// `/healthz`: the process is up and serving.
pub async fn live() -> &'static str {
    "ok"
}

/// `/readyz`: both upstreams reachable (verdict reused for `readiness.cache`), and not
/// stopping (from SIGTERM on, through `server.shutdown_delay` and the drain); Redis's state
/// is reported beside them.
pub async fn ready(State(state): State<SharedState>, request_id: RequestId) -> Response {
    if state.stopping.is_cancelled() || state.shutdown.is_cancelled() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down").into_response();
    }
    let ttl = state.config.readiness.cache;
    let report = state
        .readiness
        .check(
            &state.commerce,
            &state.content,
            state.redis.as_ref(),
            ttl,
            &request_id,
        )
        .await;
    let status = if report.ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, Json(report)).into_response()
}
