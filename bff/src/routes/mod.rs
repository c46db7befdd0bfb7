//! HTTP routes, one module per area.

pub mod admin;
pub mod auth;
pub mod cart;
pub mod catalogue;
pub mod content;
pub mod dealers;
pub mod health;
pub mod orders;
pub mod public_config;

use axum::routing::{get, post};
use axum::{Router, middleware};

use crate::error::ApiError;
use crate::state::SharedState;

/// Everything under `/api`.
pub fn api(state: &SharedState) -> Router<SharedState> {
    // Sign-in, registration and the password endpoints are limited per client IP.
    let limited = Router::new()
        .route("/auth/login", post(auth::login))
        .route("/auth/register", post(auth::register))
        .route("/auth/forgot-password", post(auth::forgot_password))
        .route("/auth/reset-password", post(auth::reset_password))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            crate::rate_limit::layer,
        ));
    Router::new()
        .merge(limited)
        .merge(catalogue::routes())
        .merge(dealers::routes())
        .route("/session", get(auth::session))
        .route("/auth/logout", post(auth::logout))
        .route("/auth/change-password", post(auth::change_password))
        .route("/auth/resend-verification", post(auth::resend_verification))
        .route("/auth/verify-registration", post(auth::verify_registration))
        .route("/cart", get(cart::get))
        .route("/cart/items", post(cart::add_item))
        .route("/orders/{id}", get(orders::get))
        .route("/config", get(public_config::get))
        .route("/pages/{name}", get(content::page))
        .fallback(unknown_api_path)
        .layer(middleware::from_fn_with_state(
            state.clone(),
            crate::session::csrf::layer,
        ))
}

async fn unknown_api_path() -> ApiError {
    ApiError::NotFound("No API endpoint at this path.".to_owned())
}
