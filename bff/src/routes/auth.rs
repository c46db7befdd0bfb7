//! The session endpoints: who is signed in, and sign-in, registration, sign-out and the password
//! and verification flows. Tokens stay in the BFF; the browser only ever gets its sealed cookie.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use validator::Validate;

use crate::commerce::MessageAnswer;
use crate::commerce::Shopper;
use crate::error::ApiError;
use crate::openapi::problems;
use crate::request_id::RequestId;
use crate::session::tokens::AuthResponse;
use crate::session::{Session, SessionHandle};
use crate::state::SharedState;
use crate::upstream::{Call, UpstreamError, UpstreamPath};
use crate::validation::Validated;
use crate::validation::rules::new_password;

/// What the browser may know about its session: never a token.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub signed_in: bool,
    /// Whether a guest cart exists for this visitor.
    pub guest: bool,
    #[schema(required = true)]
    pub user: Option<UserView>,
    /// When the current access token expires (Unix milliseconds); it is renewed automatically.
    #[schema(required = true)]
    pub expires_at: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserView {
    pub first_name: String,
    pub last_name: String,
    pub email: String,
}

impl SessionView {
    pub fn of(session: &Session) -> Self {
        Self {
            signed_in: session.user().is_some(),
            guest: session.guest_id().is_some(),
            user: session.user().map(|user| UserView {
                first_name: user.first_name.clone(),
                last_name: user.last_name.clone(),
                email: user.email.clone(),
            }),
            expires_at: session.user().map(|user| user.expires_at * 1000),
        }
    }
}

/// The visitor's session: signed in or not, and who.
///
/// Renews the access token first when it is inside its refresh margin, so `expiresAt` is real.
#[utoipa::path(get, operation_id = "getSession", path = "/session", tag = "session",
    responses(
        (status = 200, description = "The session as the browser may know it (never a token).", body = SessionView),
        (status = 401, response = problems::Unauthorized),
    )
)]
pub async fn session(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
) -> Result<Json<SessionView>, ApiError> {
    // Renews a token inside its margin, so the expiry shown is the real one.
    Shopper::of(&state, &session, &request_id).user().await?;
    Ok(Json(SessionView::of(&session.get())))
}

#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Login {
    #[serde(default)]
    #[schema(required = true, min_length = 1, format = Email)]
    #[validate(
        length(min = 1, message = "Email is required"),
        email(message = "Email must be a valid email address")
    )]
    email: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Password is required"))]
    password: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Captcha is required"))]
    captcha: String,
}

#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Register {
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "First name is required"))]
    first_name: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Last name is required"))]
    last_name: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1, format = Email)]
    #[validate(
        length(min = 1, message = "Email is required"),
        email(message = "Email must be a valid email address")
    )]
    email: String,
    #[serde(default)]
    #[schema(required = true, min_length = 8)]
    #[validate(custom(function = "new_password"))]
    password: String,
    #[serde(default)]
    #[schema(required = true)]
    #[validate(must_match(other = "password", message = "Passwords do not match"))]
    confirm_password: String,
    #[serde(default)]
    newsletter: bool,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Captcha is required"))]
    captcha: String,
}

#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ForgotPassword {
    #[serde(default)]
    #[schema(required = true, min_length = 1, format = Email)]
    #[validate(
        length(min = 1, message = "Email is required"),
        email(message = "Email must be a valid email address")
    )]
    email: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Captcha is required"))]
    captcha: String,
}

#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResetPassword {
    #[serde(default)]
    #[schema(required = true, min_length = 8)]
    #[validate(custom(function = "new_password"))]
    password: String,
    #[serde(default)]
    #[schema(required = true)]
    #[validate(must_match(other = "password", message = "Passwords do not match"))]
    confirm_password: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Token is required"))]
    token: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Captcha is required"))]
    captcha: String,
}

#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangePassword {
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Current password is required"))]
    current_password: String,
    #[serde(default)]
    #[schema(required = true, min_length = 8)]
    #[validate(custom(function = "new_password"))]
    new_password: String,
    #[serde(default)]
    #[schema(required = true)]
    #[validate(must_match(other = "new_password", message = "Passwords do not match"))]
    confirm_password: String,
}

#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifyRegistration {
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Token is required"))]
    token: String,
}

/// The upstream body of a form whose password confirmation is checked here: the upstream's
/// registration and reset payloads have no `confirmPassword`.
fn without_confirmation<T: Serialize>(form: &T) -> Value {
    let mut body = serde_json::to_value(form).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut body {
        fields.remove("confirmPassword");
    }
    body
}

async fn authenticate(
    state: &SharedState,
    path: &'static str,
    body: &Value,
    request_id: &RequestId,
) -> Result<AuthResponse, ApiError> {
    let path = UpstreamPath::fixed(path);
    let answer = state
        .commerce
        .call_json(Call::post(&path, body), request_id)
        .await?;
    serde_json::from_value(answer).map_err(|err| {
        ApiError::Upstream(UpstreamError::Decode {
            upstream: "commerce",
            reason: err.to_string(),
        })
    })
}

/// Stores the new tokens in the session (the guest token becomes a pending merge), loads the
/// user's name, and merges the guest cart.
async fn sign_in(
    state: &SharedState,
    session: &SessionHandle,
    auth: AuthResponse,
    request_id: &RequestId,
) -> Result<Json<SessionView>, ApiError> {
    let mut user = auth.into_tokens(None);
    let profile_path = UpstreamPath::fixed("User/profile");
    let profile = state
        .commerce
        .call_json(
            Call::get(&profile_path).bearer(Some(&user.access_token)),
            request_id,
        )
        .await?;
    let text = |field: &str| {
        profile
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    user.first_name = text("firstName");
    user.last_name = text("lastName");
    user.email = text("email");
    session.update(|current| current.signed_in(user));
    crate::commerce::cart::merge_pending(&Shopper::of(state, session, request_id)).await;
    Ok(Json(SessionView::of(&session.get())))
}

/// Sign in with e-mail and password.
///
/// Sets the session cookie; a guest cart is merged into the user's cart.
#[utoipa::path(post, operation_id = "login", path = "/auth/login", tag = "session", request_body = Login,
    responses(
        (status = 200, description = "Signed in.", body = SessionView),
        (status = 401, response = problems::Unauthorized),
        (status = 422, response = problems::Invalid),
        (status = 429, response = problems::TooManyRequests),
    )
)]
pub async fn login(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(body): Validated<Login>,
) -> Result<Json<SessionView>, ApiError> {
    let body = serde_json::to_value(&body).unwrap_or(Value::Null);
    let auth = authenticate(&state, "Auth/login", &body, &request_id).await?;
    sign_in(&state, &session, auth, &request_id).await
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
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(body): Validated<Register>,
) -> Result<Response, ApiError> {
    let body = without_confirmation(&body);
    let auth = authenticate(&state, "Auth/register", &body, &request_id).await?;
    let view = sign_in(&state, &session, auth, &request_id).await?;
    Ok((StatusCode::CREATED, view).into_response())
}

/// Sign out: the session cookie is cleared (the upstream tokens are revoked where possible).
#[utoipa::path(post, operation_id = "logout", path = "/auth/logout", tag = "session",
    responses((status = 204, description = "Signed out."))
)]
pub async fn logout(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
) -> StatusCode {
    if let Some(user) = session.get().user().cloned() {
        let path = UpstreamPath::fixed("Auth/logout");
        let empty = json!({});
        if let Err(err) = state
            .commerce
            .call(
                Call::post(&path, &empty).bearer(Some(&user.access_token)),
                &request_id,
            )
            .await
        {
            // The session ends here regardless; the upstream tokens expire on their own.
            tracing::warn!(error = %err, "upstream logout failed");
        }
    }
    session.clear();
    StatusCode::NO_CONTENT
}

/// Relays a message-answering call (`{message}`) to the commerce API.
async fn relay(
    state: &SharedState,
    path: &'static str,
    body: &Value,
    bearer: Option<&str>,
    request_id: &RequestId,
) -> Result<Json<MessageAnswer>, ApiError> {
    let path = UpstreamPath::fixed(path);
    let answer = state
        .commerce
        .call_json(Call::post(&path, body).bearer(bearer), request_id)
        .await?;
    Ok(MessageAnswer::of(&answer))
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
    State(state): State<SharedState>,
    request_id: RequestId,
    Validated(body): Validated<ForgotPassword>,
) -> Result<Json<MessageAnswer>, ApiError> {
    let body = serde_json::to_value(&body).unwrap_or(Value::Null);
    relay(&state, "Auth/forgot-password", &body, None, &request_id).await
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
    State(state): State<SharedState>,
    request_id: RequestId,
    Validated(body): Validated<ResetPassword>,
) -> Result<Json<MessageAnswer>, ApiError> {
    let body = without_confirmation(&body);
    relay(&state, "Auth/reset-password", &body, None, &request_id).await
}

/// Confirm an account with the token from the verification e-mail.
#[utoipa::path(post, operation_id = "verifyRegistration", path = "/auth/verify-registration", tag = "session", request_body = VerifyRegistration,
    responses(
        (status = 200, description = "The account is verified.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn verify_registration(
    State(state): State<SharedState>,
    request_id: RequestId,
    Validated(body): Validated<VerifyRegistration>,
) -> Result<Json<MessageAnswer>, ApiError> {
    let body = serde_json::to_value(&body).unwrap_or(Value::Null);
    relay(&state, "Auth/verify-registration", &body, None, &request_id).await
}

/// The signed-in user's tokens, or 401 for a visitor who is not signed in.
async fn signed_in(
    state: &SharedState,
    session: &SessionHandle,
    request_id: &RequestId,
) -> Result<crate::session::UserTokens, ApiError> {
    Shopper::of(state, session, request_id)
        .user()
        .await?
        .ok_or_else(|| ApiError::Unauthorized("Please sign in.".to_owned()))
}

/// Change the signed-in user's password.
#[utoipa::path(post, operation_id = "changePassword", path = "/auth/change-password", tag = "session", request_body = ChangePassword,
    responses(
        (status = 200, description = "The password is changed.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 422, response = problems::Invalid),
    )
)]
pub async fn change_password(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    Validated(body): Validated<ChangePassword>,
) -> Result<Json<MessageAnswer>, ApiError> {
    let user = signed_in(&state, &session, &request_id).await?;
    let body = serde_json::to_value(&body).unwrap_or(Value::Null);
    let path = UpstreamPath::fixed("Auth/change-password");
    Shopper::of(&state, &session, &request_id)
        .as_user::<Value>(user, Call::post(&path, &body))
        .await
        .map(|answer| MessageAnswer::of(&answer))
}

/// Send the signed-in user's verification e-mail again.
#[utoipa::path(post, operation_id = "resendVerification", path = "/auth/resend-verification", tag = "session",
    responses(
        (status = 200, description = "The e-mail is on its way.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
    )
)]
pub async fn resend_verification(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
) -> Result<Json<MessageAnswer>, ApiError> {
    let user = signed_in(&state, &session, &request_id).await?;
    let path = UpstreamPath::fixed("Auth/resend-verification");
    let empty = json!({});
    Shopper::of(&state, &session, &request_id)
        .as_user::<Value>(user, Call::post(&path, &empty))
        .await
        .map(|answer| MessageAnswer::of(&answer))
}

#[cfg(test)]
mod tests {
    use super::*;
    use utoipa::PartialSchema;

    #[test]
    fn the_confirmation_is_in_the_contract_but_not_sent_upstream() {
        let form: Register = serde_json::from_value(json!({
            "firstName": "A", "lastName": "B", "email": "a@b.example",
            "password": "Correct-Horse-9", "confirmPassword": "Correct-Horse-9",
            "captcha": "c"
        }))
        .unwrap();
        let body = without_confirmation(&form);
        assert!(body.get("confirmPassword").is_none());
        assert_eq!(body["password"], "Correct-Horse-9");

        let schema = serde_json::to_value(Register::schema()).unwrap();
        assert!(schema["properties"]["confirmPassword"].is_object());
        let required = schema["required"].as_array().unwrap();
        assert!(required.contains(&json!("confirmPassword")));
    }
}
