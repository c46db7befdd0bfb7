//! The admin listener: metrics and probes, away from the public port.

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::health;
use crate::state::SharedState;

pub fn router() -> Router<SharedState> {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(health::live))
        .route("/readyz", get(health::ready))
}

async fn metrics(State(state): State<SharedState>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
        )],
        state.metrics.render(),
    )
        .into_response()
}
