//! HTTP routes, one module per area.

pub mod account;
pub mod admin;
pub mod auth;
pub mod cart;
pub mod catalogue;
pub mod checkout;
pub mod content;
pub mod dealers;
pub mod forms;
pub mod health;
pub mod message;
pub mod orders;
pub mod public_config;

use axum::routing::{get, post, put};
use axum::{Router, middleware};
use utoipa_axum::router::OpenApiRouter;

use crate::error::ApiError;
use crate::openapi;
use crate::state::SharedState;

/// Everything under `/api`, with `GET /api/openapi.json` describing the rest.
pub fn api(state: &SharedState) -> Router<SharedState> {
    let (router, operations) = api_operations(state).split_for_parts();
    let doc = openapi::document(operations);
    router.route("/openapi.json", openapi::route(&doc))
}

/// The `/api` OpenAPI document (what `GET /api/openapi.json` serves).
pub fn openapi_document(state: &SharedState) -> utoipa::openapi::OpenApi {
    openapi::document(api_operations(state).into_openapi())
}

/// The documented endpoints. Register handlers only through `routes!` (never `.route`), so
/// every endpoint is in the document.
fn api_operations(state: &SharedState) -> OpenApiRouter<SharedState> {
    // Sign-in, registration and the password endpoints are limited per client IP.
    let limited = OpenApiRouter::new()
        .route("/auth/login", post(auth::login))
        .route("/auth/register", post(auth::register))
        .route("/auth/forgot-password", post(auth::forgot_password))
        .route("/auth/reset-password", post(auth::reset_password))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            crate::rate_limit::layer,
        ));
    OpenApiRouter::new()
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
        .route(
            "/cart/items/{id}",
            put(cart::update_item).delete(cart::remove_item),
        )
        .route("/cart/compute", post(cart::compute))
        .route("/cart/promo-code", post(cart::apply_promo_code))
        .route("/cart/shipping-methods", get(cart::shipping_methods))
        .route("/checkout", checkout::route())
        .route("/orders/{id}", get(orders::get))
        .route("/account", get(account::get).put(account::update))
        .route("/account/addresses", post(account::create_address))
        .route(
            "/account/addresses/{id}",
            axum::routing::put(account::update_address).delete(account::delete_address),
        )
        .route("/newsletter/status", get(account::newsletter_status))
        .route("/newsletter/subscribe", post(account::newsletter_subscribe))
        .route(
            "/newsletter/unsubscribe",
            post(account::newsletter_unsubscribe),
        )
        .route(
            "/newsletter/verify/{token}",
            post(account::newsletter_verify),
        )
        .route("/military/session", post(account::military_session))
        .route("/military/callback", post(account::military_callback))
        .route("/stock-alerts", post(forms::stock_alert))
        .route("/image-requests", post(forms::image_request))
        .route(
            "/dealer-registrations",
            post(forms::dealer_registration).layer(axum::extract::DefaultBodyLimit::max(
                forms::MULTIPART_MAX_BODY_BYTES,
            )),
        )
        .route(
            "/pro-deal",
            post(forms::pro_deal).layer(axum::extract::DefaultBodyLimit::max(
                forms::MULTIPART_MAX_BODY_BYTES,
            )),
        )
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
