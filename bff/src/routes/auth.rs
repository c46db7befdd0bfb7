//! The session endpoints: who is signed in, and sign-in, registration, sign-out and the password
//! and verification flows (the auth service does the work). Tokens stay in the BFF; the browser
//! only ever gets its sealed cookie.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;

use crate::commerce::auth::{
    self, ChangePassword, ForgotPassword, Login, Register, ResetPassword, SessionView,
    VerifyRegistration,
};
use crate::commerce::{MessageAnswer, Shopper};
use crate::http::error::ApiError;
use crate::http::rate_limit::account::SignInFailures;
use crate::http::validation::Validated;
use crate::routes::openapi::problems;

/// The visitor's session: signed in or not, and who.
///
/// Renews the access token first when it is inside its refresh margin, so `expiresAt` is real.
#[utoipa::path(get, operation_id = "getSession", path = "/session", tag = "session",
    responses(
        (status = 200, description = "The session as the browser may know it (never a token).", body = SessionView),
        (status = 401, response = problems::Unauthorized),
    )
)]
pub async fn session(shopper: Shopper) -> Result<Json<SessionView>, ApiError> {
    auth::session(&shopper).await.map(Json)
}

/// Sign in with e-mail and password.
///
/// Sets the session cookie; a guest cart is merged into the user's cart. Limited per client IP,
/// and per account: past `rate_limit.sign_in_failures_per_client` wrong passwords for an
/// account in the window, that client's sign-ins to that account answer 429 until the window
/// ends (other clients still sign in); past `sign_in_failures_per_account`, from any number of
/// clients, every sign-in to it does.
#[utoipa::path(post, operation_id = "login", path = "/auth/login", tag = "session", request_body = Login,
    responses(
        (status = 200, description = "Signed in.", body = SessionView),
        (status = 401, response = problems::Unauthorized),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
    )
)]
pub async fn login(
    State(failures): State<SignInFailures>,
    shopper: Shopper,
    Validated(form): Validated<Login>,
) -> Result<Json<SessionView>, ApiError> {
    // The check and the count in one step: parallel guesses cannot all pass the check first.
    let attempt = failures
        .attempt(form.email(), shopper.client())
        .await
        .map_err(|retry_after_seconds| ApiError::TooManyRequests {
            retry_after_seconds,
        })?;
    let signed_in = auth::login(&shopper, &form).await;
    let wrong_password =
        matches!(&signed_in, Err(refused) if refused.status() == StatusCode::UNAUTHORIZED);
    if !wrong_password {
        attempt.not_a_failure().await;
    }
    signed_in.map(Json)
}

/// Create an account and sign in.
#[utoipa::path(post, operation_id = "register", path = "/auth/register", tag = "session", request_body = Register,
    responses(
        (status = 201, description = "Registered and signed in.", body = SessionView),
        (status = 400, response = problems::BadRequest),
        (status = 409, response = problems::Conflict),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
    )
)]
pub async fn register(
    shopper: Shopper,
    Validated(form): Validated<Register>,
) -> Result<(StatusCode, Json<SessionView>), ApiError> {
    let view = auth::register(&shopper, &form).await?;
    Ok((StatusCode::CREATED, Json(view)))
}

/// Sign out: the session is revoked on every replica and its cookie cleared, so a copy of the
/// cookie replayed afterwards is signed out too; the upstream's tokens are revoked. When the
/// upstream does not confirm that, 502 (the session is still revoked and the cookie cleared).
#[utoipa::path(post, operation_id = "logout", path = "/auth/logout", tag = "session",
    responses(
        (status = 204, description = "Signed out."),
        (status = 502, response = problems::UpstreamFailed),
    )
)]
pub async fn logout(shopper: Shopper) -> Result<StatusCode, ApiError> {
    auth::logout(&shopper).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Ask for a password-reset e-mail.
#[utoipa::path(post, operation_id = "forgotPassword", path = "/auth/forgot-password", tag = "session", request_body = ForgotPassword,
    responses(
        (status = 200, description = "The e-mail is on its way (also for unknown addresses).", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
    )
)]
pub async fn forgot_password(
    shopper: Shopper,
    Validated(form): Validated<ForgotPassword>,
) -> Result<Json<MessageAnswer>, ApiError> {
    auth::forgot_password(&shopper, &form).await.map(Json)
}

/// Set a new password with the token from the reset e-mail.
#[utoipa::path(post, operation_id = "resetPassword", path = "/auth/reset-password", tag = "session", request_body = ResetPassword,
    responses(
        (status = 200, description = "The password is changed.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
    )
)]
pub async fn reset_password(
    shopper: Shopper,
    Validated(form): Validated<ResetPassword>,
) -> Result<Json<MessageAnswer>, ApiError> {
    auth::reset_password(&shopper, &form).await.map(Json)
}

/// Confirm an account with the token from the verification e-mail.
#[utoipa::path(post, operation_id = "verifyRegistration", path = "/auth/verify-registration", tag = "session", request_body = VerifyRegistration,
    responses(
        (status = 200, description = "The account is verified.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
    )
)]
pub async fn verify_registration(
    shopper: Shopper,
    Validated(form): Validated<VerifyRegistration>,
) -> Result<Json<MessageAnswer>, ApiError> {
    auth::verify_registration(&shopper, &form).await.map(Json)
}

/// Change the signed-in user's password.
#[utoipa::path(post, operation_id = "changePassword", path = "/auth/change-password", tag = "session", request_body = ChangePassword,
    responses(
        (status = 200, description = "The password is changed.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
    )
)]
pub async fn change_password(
    shopper: Shopper,
    Validated(form): Validated<ChangePassword>,
) -> Result<Json<MessageAnswer>, ApiError> {
    auth::change_password(&shopper, &form).await.map(Json)
}

/// Send the signed-in user's verification e-mail again.
#[utoipa::path(post, operation_id = "resendVerification", path = "/auth/resend-verification", tag = "session",
    responses(
        (status = 200, description = "The e-mail is on its way.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
    )
)]
pub async fn resend_verification(shopper: Shopper) -> Result<Json<MessageAnswer>, ApiError> {
    auth::resend_verification(&shopper).await.map(Json)
}
