//! The public and account forms: stock alerts, image requests, dealer registration and Pro Deal
//! applications. The forms, their rules and the upstream calls are
//! [`crate::commerce::forms`]'s; the two upload routes take bodies up to
//! [`MULTIPART_MAX_BODY_BYTES`].

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::{Json, middleware};
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

use crate::commerce::forms::{
    self, DEALER_DOCUMENTS, DealerRegistrationForm, ImageRequest, MULTIPART_MAX_BODY_BYTES,
    PRO_DEAL_DOCUMENTS, ProDealForm, StockAlert, upload_rules,
};
use crate::commerce::{MessageAnswer, Shopper};
use crate::edge::state::SharedState;
use crate::http::error::ApiError;
use crate::http::rate_limit::ClientRateLimit;
use crate::http::validation::Validated;
use crate::routes::openapi::problems;

/// The forms' routes; image requests are limited per client IP (dealer registrations are too,
/// and Pro Deal applications per client and per account, before their upload is read: see
/// [`crate::commerce::forms::upload_gate`]).
pub fn routes(state: &SharedState) -> OpenApiRouter<SharedState> {
    let uploads = || DefaultBodyLimit::max(MULTIPART_MAX_BODY_BYTES);
    let image_requests = Arc::new(ClientRateLimit::image_requests(
        &state.config.rate_limit,
        state.metrics.clone(),
        state.redis.clone(),
    ));
    OpenApiRouter::new()
        .routes(routes!(stock_alert))
        .routes(routes!(image_request).layer(middleware::from_fn_with_state(
            image_requests,
            crate::http::rate_limit::layer,
        )))
        .routes(routes!(dealer_registration).layer(uploads()))
        .routes(routes!(pro_deal).layer(uploads()))
}

/// Subscribe to a back-in-stock alert
///
/// Records an alert for the product's sku and options; the same alert sent twice is recorded
/// once. 422 when the body is not JSON of this shape, a field breaks a rule or the captcha is
/// refused (`errors` names the fields); 404 when no product has the sku; 400 when the body
/// cannot be read.
#[utoipa::path(
    post,
    operation_id = "createStockAlert",
    path = "/stock-alerts",
    tag = "forms",
    request_body = StockAlert,
    responses(
        (status = 200, description = "The alert is recorded; `message` confirms it for display.",
            body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    ),
)]
pub async fn stock_alert(
    shopper: Shopper,
    Validated(alert): Validated<StockAlert>,
) -> Result<Json<MessageAnswer>, ApiError> {
    Ok(Json(forms::subscribe_stock_alert(&shopper, &alert).await?))
}

/// Request product images
///
/// Sends a media library image request to the team. 422 when the body is not JSON of this
/// shape, a field breaks a rule or the captcha is refused (`errors` names the fields); 400 when
/// the body cannot be read; 429 past `rate_limit.image_requests_per_minute` for the client.
#[utoipa::path(
    post,
    operation_id = "requestImages",
    path = "/image-requests",
    tag = "forms",
    request_body = ImageRequest,
    responses(
        (status = 200, description = "The request is received; `message` confirms it for display.",
            body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
    ),
)]
pub async fn image_request(
    shopper: Shopper,
    Validated(request): Validated<ImageRequest>,
) -> Result<Json<MessageAnswer>, ApiError> {
    Ok(Json(forms::request_images(&shopper, &request).await?))
}

/// Register as a dealer
///
/// The dealer registration form with its FFL and SOT documents, sent on as one multipart body
/// once every part is valid. 422 when a field breaks a rule or the captcha is refused (`errors`
/// has a message per part, e.g. `Required`); 400, 413 and 415 as described for the body; 429
/// past `rate_limit.dealer_registrations_per_minute` for the client (before the body is read)
/// or past its bytes in flight; 503 with `Retry-After` while the upload spool is full.
#[utoipa::path(
    post,
    operation_id = "registerDealer",
    path = "/dealer-registrations",
    tag = "forms",
    request_body(
        content = DealerRegistrationForm,
        content_type = "multipart/form-data",
        description = upload_rules(&DEALER_DOCUMENTS),
        encoding(
            ("fflDocument" = (content_type = DEALER_DOCUMENTS.content_types())),
            ("sotDocument" = (content_type = DEALER_DOCUMENTS.content_types())),
        ),
    ),
    responses(
        (status = 200, description = "The registration is received; `message` confirms it for \
            display.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 413, response = problems::PayloadTooLarge),
        (status = 415, response = problems::UnsupportedMediaType),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
        (status = 503, response = problems::Overloaded),
    ),
)]
pub async fn dealer_registration(
    shopper: Shopper,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<MessageAnswer>, ApiError> {
    let form = DealerRegistrationForm::read(multipart).await?;
    Ok(Json(forms::register_dealer(&shopper, form).await?))
}

/// Apply for the Pro Deal
///
/// Signed in: one or more `supportingDocuments`; the application is made for the account's
/// e-mail address and sets its Pro Deal status to pending. 401 without a signed-in session
/// (checked before the body is read); 409 once the account's application is approved; 422
/// without a document or when the account has no e-mail address; 400, 413 and 415 as
/// described for the body; 429 past `rate_limit.pro_deal_per_client_per_minute` for the client
/// or `pro_deal_per_account_per_minute` for the account (both before the body is read), or past
/// the client's upload bytes in flight; 503 with `Retry-After` while the upload spool is full.
#[utoipa::path(
    post,
    operation_id = "applyForProDeal",
    path = "/pro-deal",
    tag = "forms",
    request_body(
        content = ProDealForm,
        content_type = "multipart/form-data",
        description = upload_rules(&PRO_DEAL_DOCUMENTS),
        encoding(
            ("supportingDocuments" = (content_type = PRO_DEAL_DOCUMENTS.content_types())),
        ),
    ),
    responses(
        (status = 200, description = "The application is submitted and pending verification; \
            `message` confirms it for display.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 409, response = problems::Conflict),
        (status = 413, response = problems::PayloadTooLarge),
        (status = 415, response = problems::UnsupportedMediaType),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
        (status = 503, response = problems::Overloaded),
    ),
)]
pub async fn pro_deal(
    shopper: Shopper,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<MessageAnswer>, ApiError> {
    // Signed in first: an anonymous upload is refused before its body is read.
    let user = shopper.signed_in().await?;
    let form = ProDealForm::read(&user, multipart).await?;
    Ok(Json(forms::apply_for_pro_deal(&shopper, user, form).await?))
}
