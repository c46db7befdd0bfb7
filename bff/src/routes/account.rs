//! The account area (profile and address book), the newsletter and LE/MIL verification; the
//! account service does the work. Account calls use the signed-in user's bearer token; a
//! visitor who is not signed in gets a 401 problem.

use axum::Json;
use axum::http::StatusCode;

use crate::commerce::account::{
    self, Address, MilitaryCallback, MilitaryOutcome, MilitarySession, NewsletterStatus, Profile,
    ProfileUpdate, StoredAddress, Subscribe,
};
use crate::commerce::{MessageAnswer, Shopper};
use crate::http::error::ApiError;
use crate::http::extract::Path;
use crate::http::validation::Validated;
use crate::routes::openapi::problems;

/// `GET /api/account`: the profile (addresses, orders, favorites, builds included).
#[utoipa::path(get, operation_id = "getAccount", path = "/account", tag = "account",
    responses(
        (status = 200, description = "The profile.", body = Profile),
        (status = 401, response = problems::Unauthorized),
    )
)]
pub async fn get(shopper: Shopper) -> Result<Json<Profile>, ApiError> {
    account::profile(&shopper).await.map(Json)
}

/// `PUT /api/account`.
#[utoipa::path(put, operation_id = "updateAccount", path = "/account", tag = "account", request_body = ProfileUpdate,
    responses(
        (status = 200, description = "The updated profile.", body = Profile),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn update(
    shopper: Shopper,
    Validated(update): Validated<ProfileUpdate>,
) -> Result<Json<Profile>, ApiError> {
    account::update_profile(&shopper, &update).await.map(Json)
}

/// `POST /api/account/addresses`: 201 with the stored address.
#[utoipa::path(post, operation_id = "createAddress", path = "/account/addresses", tag = "account", request_body = Address,
    responses(
        (status = 201, description = "The stored address.", body = StoredAddress,
            links(
                ("updateAddress" = (operation_id = "updateAddress", parameters(("id" = "$response.body#/id")))),
                ("deleteAddress" = (operation_id = "deleteAddress", parameters(("id" = "$response.body#/id")))),
            )),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn create_address(
    shopper: Shopper,
    Validated(address): Validated<Address>,
) -> Result<(StatusCode, Json<StoredAddress>), ApiError> {
    let stored = account::create_address(&shopper, &address).await?;
    Ok((StatusCode::CREATED, Json(stored)))
}

/// `PUT /api/account/addresses/{id}`: replaces the address.
#[utoipa::path(put, operation_id = "updateAddress", path = "/account/addresses/{id}", tag = "account", request_body = Address,
    params(("id" = String, Path, description = "The address's id (digits).")),
    responses(
        (status = 200, description = "The stored address.", body = StoredAddress),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn update_address(
    Path(id): Path<String>,
    shopper: Shopper,
    Validated(address): Validated<Address>,
) -> Result<Json<StoredAddress>, ApiError> {
    account::update_address(&shopper, &id, &address)
        .await
        .map(Json)
}

/// `DELETE /api/account/addresses/{id}`: 204.
#[utoipa::path(delete, operation_id = "deleteAddress", path = "/account/addresses/{id}", tag = "account",
    params(("id" = String, Path, description = "The address's id (digits).")),
    responses(
        (status = 204, description = "The address is deleted."),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
    )
)]
pub async fn delete_address(
    Path(id): Path<String>,
    shopper: Shopper,
) -> Result<StatusCode, ApiError> {
    account::delete_address(&shopper, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/newsletter/status`: `{email, isSubscribed, isVerified}` of the signed-in user's
/// address; nobody else's can be asked.
#[utoipa::path(get, operation_id = "getNewsletterStatus", path = "/newsletter/status", tag = "newsletter",
    responses(
        (status = 200, description = "The signed-in user's subscription.", body = NewsletterStatus),
        (status = 401, response = problems::Unauthorized),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn newsletter_status(shopper: Shopper) -> Result<Json<NewsletterStatus>, ApiError> {
    account::newsletter::status(&shopper).await.map(Json)
}

/// `POST /api/newsletter/subscribe`: a signed-in user's names fill the absent ones.
#[utoipa::path(post, operation_id = "subscribeNewsletter", path = "/newsletter/subscribe", tag = "newsletter", request_body = Subscribe,
    responses(
        (status = 200, description = "Subscribed; a verification e-mail is on its way.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 409, response = problems::Conflict),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn newsletter_subscribe(
    shopper: Shopper,
    Validated(form): Validated<Subscribe>,
) -> Result<Json<MessageAnswer>, ApiError> {
    account::newsletter::subscribe(&shopper, form)
        .await
        .map(Json)
}

/// `POST /api/newsletter/unsubscribe`: the signed-in user's own address, taken from the
/// session's profile; a body is not read (an address in it is ignored).
#[utoipa::path(post, operation_id = "unsubscribeNewsletter", path = "/newsletter/unsubscribe", tag = "newsletter",
    responses(
        (status = 200, description = "Unsubscribed.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn newsletter_unsubscribe(shopper: Shopper) -> Result<Json<MessageAnswer>, ApiError> {
    account::newsletter::unsubscribe(&shopper).await.map(Json)
}

/// `POST /api/newsletter/verify/{token}`: confirms a subscription from the e-mailed link.
#[utoipa::path(post, operation_id = "verifyNewsletter", path = "/newsletter/verify/{token}", tag = "newsletter",
    params(("token" = String, Path, description = "The token from the verification e-mail.")),
    responses(
        (status = 200, description = "The subscription is verified.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn newsletter_verify(
    Path(token): Path<String>,
    shopper: Shopper,
) -> Result<Json<MessageAnswer>, ApiError> {
    account::newsletter::verify(&shopper, &token)
        .await
        .map(Json)
}

/// `POST /api/military/session`: starts LE/MIL verification; `{authorizationUrl}`.
#[utoipa::path(post, operation_id = "startMilitaryVerification", path = "/military/session", tag = "account",
    responses(
        (status = 200, description = "Where to verify.", body = MilitarySession),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 409, response = problems::Conflict),
    )
)]
pub async fn military_session(shopper: Shopper) -> Result<Json<MilitarySession>, ApiError> {
    account::military::start(&shopper).await.map(Json)
}

/// `POST /api/military/callback` `{code, state}`: completes verification; `{message,
/// militaryStatus}`.
#[utoipa::path(post, operation_id = "completeMilitaryVerification", path = "/military/callback", tag = "account", request_body = MilitaryCallback,
    responses(
        (status = 200, description = "The verification outcome.", body = MilitaryOutcome),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 409, response = problems::Conflict),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn military_callback(
    shopper: Shopper,
    Validated(callback): Validated<MilitaryCallback>,
) -> Result<Json<MilitaryOutcome>, ApiError> {
    account::military::complete(&shopper, callback)
        .await
        .map(Json)
}
