//! HTTP routes, one module per area.

pub mod admin;
pub mod content;
pub mod health;
pub mod public_config;

use axum::Router;
use axum::routing::get;

use crate::error::ApiError;
use crate::state::SharedState;

/// Everything under `/api`.
pub fn api() -> Router<SharedState> {
    Router::new()
        .route("/config", get(public_config::get))
        .route("/pages/{name}", get(content::page))
        .route("/products/{title}", get(content::product))
        .fallback(unknown_api_path)
}

async fn unknown_api_path() -> ApiError {
    ApiError::NotFound("No API endpoint at this path.".to_owned())
}
