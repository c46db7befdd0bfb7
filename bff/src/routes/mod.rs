//! HTTP routes, one module per area.

pub mod account;
pub mod admin;
mod admin_cache_explain;
pub mod admin_console;
mod admin_overrides;
pub mod auth;
pub mod cart;
pub mod catalogue;
pub mod checkout;
pub mod content;
pub mod csp_reports;
pub mod dealers;
pub mod forms;
pub mod health;
pub mod openapi;
pub mod orders;
pub mod public_config;
pub mod rum;
pub mod tiles;

use axum::{Router, middleware};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

use crate::edge::state::SharedState;
use crate::http::error::ApiError;

/// Everything under `/api`, with `GET /api/openapi.json` describing the rest.
pub fn api(state: &SharedState) -> Router<SharedState> {
    let (router, operations) = api_operations(state).split_for_parts();
    let doc = openapi::document(operations);
    router.route("/openapi.json", openapi::route(&doc))
}

/// The documented endpoints. Register handlers only through `routes!` (never `.route`), so
/// every endpoint is in the document.
fn api_operations(state: &SharedState) -> OpenApiRouter<SharedState> {
    // Sign-in, registration, the password endpoints (change-password answers whether the
    // current password is right) and verification are limited per client IP.
    let auth_limited = OpenApiRouter::new()
        .routes(routes!(auth::login))
        .routes(routes!(auth::register))
        .routes(routes!(auth::forgot_password))
        .routes(routes!(auth::reset_password))
        .routes(routes!(auth::change_password))
        .routes(routes!(auth::verify_registration))
        .route_layer(middleware::from_fn_with_state(
            state.auth_rate_limit.clone(),
            crate::http::rate_limit::layer,
        ));
    // Search is anonymous and every new term is an upstream call and a cache entry.
    let search_limited = catalogue::search_routes().route_layer(middleware::from_fn_with_state(
        state.search_rate_limit.clone(),
        crate::http::rate_limit::layer,
    ));
    OpenApiRouter::new()
        .merge(auth_limited)
        .merge(search_limited)
        // Made-up titles: each 404 counts against the client's budget.
        .merge(
            catalogue::routes().route_layer(middleware::from_fn_with_state(
                state.not_found_limit.clone(),
                crate::http::rate_limit::not_found::layer,
            )),
        )
        .merge(dealers::routes())
        .routes(routes!(auth::session))
        .routes(routes!(auth::logout))
        .routes(routes!(auth::resend_verification))
        .routes(routes!(cart::get))
        .routes(routes!(cart::add_item))
        .routes(routes!(cart::update_item, cart::remove_item))
        .routes(routes!(cart::compute))
        .routes(routes!(cart::apply_promo_code))
        .routes(routes!(cart::shipping_methods))
        .routes(checkout::route(state))
        .routes(routes!(orders::get))
        .routes(routes!(account::get, account::update))
        .routes(routes!(account::create_address))
        .routes(routes!(account::update_address, account::delete_address))
        .routes(routes!(account::newsletter_status))
        .routes(routes!(account::newsletter_subscribe))
        .routes(routes!(account::newsletter_unsubscribe))
        .routes(routes!(account::newsletter_verify))
        .routes(routes!(account::military_session))
        .routes(routes!(account::military_callback))
        .merge(forms::routes(state))
        .routes(routes!(public_config::get))
        .routes(routes!(content::page))
        .fallback(unknown_api_path)
        .layer(middleware::from_fn_with_state(
            state.csrf.clone(),
            crate::session::csrf::layer,
        ))
        // Browsers send it with `sendBeacon`, which cannot set `X-CSRF`: it checks the origin
        // itself (see `rum`); limited per client.
        .routes(routes!(rum::report).layer(middleware::from_fn_with_state(
            std::sync::Arc::new(crate::http::rate_limit::ClientRateLimit::rum_reports(
                &state.config.rate_limit,
                state.metrics.clone(),
                state.redis.clone(),
            )),
            crate::http::rate_limit::layer,
        )))
        // Browsers send CSP reports on their own, without `X-CSRF`; limited per client.
        .routes(
            routes!(csp_reports::report).layer(middleware::from_fn_with_state(
                std::sync::Arc::new(crate::http::rate_limit::ClientRateLimit::csp_reports(
                    &state.config.rate_limit,
                    state.metrics.clone(),
                    state.redis.clone(),
                )),
                crate::http::rate_limit::layer,
            )),
        )
}

/// The public, cacheable reads: what a server render may read in process (see
/// [`crate::ssr::ApiReads`]). Nothing here may answer from a session, a cookie or a header: a
/// server-rendered document is shared by every shopper. Only the templates count (the reads go
/// through [`api_operations`], with the limits a browser's reads have), so this names the same
/// route groups `api_operations` registers, apart so the OpenAPI document keeps its order.
fn readable_operations() -> OpenApiRouter<SharedState> {
    OpenApiRouter::new()
        .merge(catalogue::search_routes())
        .merge(catalogue::routes())
        .merge(dealers::routes())
        .routes(routes!(public_config::get))
        .routes(routes!(content::page))
}

/// The server render's in-process reader of the API: the API router itself, reading only the
/// templates of `readable_operations` (each `/api/…`), within `server.request_timeout`.
pub fn in_process_reads(state: &SharedState) -> crate::ssr::ApiReads {
    let templates = |doc: &utoipa::openapi::OpenApi| -> Vec<String> {
        doc.paths
            .paths
            .keys()
            .map(|path| format!("/api{path}"))
            .collect()
    };
    let (router, operations) = api_operations(state).split_for_parts();
    let known = templates(&operations);
    // only what the API serves: the allowlist can narrow what is read, never widen it
    let readable = templates(&readable_operations().into_openapi())
        .into_iter()
        .filter(|template| known.contains(template))
        .collect();
    let router = axum::Router::new()
        .nest("/api", router)
        .with_state(state.clone());
    crate::ssr::ApiReads::new(router, known, readable, state.config.server.request_timeout)
}

async fn unknown_api_path() -> ApiError {
    ApiError::NotFound("No API endpoint at this path.".to_owned())
}
