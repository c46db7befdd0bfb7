//! The auth service: sign-in, registration, sign-out, the password and verification flows, and
//! the session as the browser may know it. Tokens stay here and in the sealed cookie; the
//! browser never gets one.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::Validate;

use super::message::{Confirmation, confirmed};
use super::{MessageAnswer, Shopper, account, cart};
use crate::http::error::ApiError;
use crate::http::validation::rules::new_password;
use crate::observe::metrics::SessionEvent;
use crate::session::tokens::{AuthResponse, now_ms};
use crate::session::{Session, UserTokens};
use crate::upstream::{Call, UpstreamError, UpstreamPath};

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

#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Login {
    #[serde(default)]
    #[schema(required = true, min_length = 1, format = Email)]
    #[validate(custom(function = "crate::http::validation::rules::required_email"))]
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

impl Login {
    /// The e-mail signed in with, as typed (the per-account failure count normalises it).
    pub fn email(&self) -> &str {
        &self.email
    }
}

// The sign-up form. The upstream gets it without `confirmPassword` (see `NewAccount`).
#[derive(Debug, Deserialize, Validate, ToSchema)]
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
    #[validate(custom(function = "crate::http::validation::rules::required_email"))]
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

/// The upstream's registration payload: the form without the confirmation checked here.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct NewAccount<'a> {
    first_name: &'a str,
    last_name: &'a str,
    email: &'a str,
    password: &'a str,
    newsletter: bool,
    captcha: &'a str,
}

impl<'a> From<&'a Register> for NewAccount<'a> {
    fn from(form: &'a Register) -> Self {
        Self {
            first_name: &form.first_name,
            last_name: &form.last_name,
            email: &form.email,
            password: &form.password,
            newsletter: form.newsletter,
            captcha: &form.captcha,
        }
    }
}

#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ForgotPassword {
    #[serde(default)]
    #[schema(required = true, min_length = 1, format = Email)]
    #[validate(custom(function = "crate::http::validation::rules::required_email"))]
    email: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Captcha is required"))]
    captcha: String,
}

// The reset form. The upstream gets it without `confirmPassword` (see `NewPassword`).
#[derive(Debug, Deserialize, Validate, ToSchema)]
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

/// The upstream's reset payload: the form without the confirmation checked here.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct NewPassword<'a> {
    password: &'a str,
    token: &'a str,
    captcha: &'a str,
}

impl<'a> From<&'a ResetPassword> for NewPassword<'a> {
    fn from(form: &'a ResetPassword) -> Self {
        Self {
            password: &form.password,
            token: &form.token,
            captcha: &form.captcha,
        }
    }
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

/// The body of the upstream calls that take none: `{}`.
#[derive(Debug, Serialize)]
struct NoFields {}

/// The session as the browser may know it; a token inside its refresh margin is renewed first,
/// so the expiry shown is the real one, and a session the upstream has not accepted for
/// `session.verify_after` is confirmed first (see `confirm`).
pub async fn session(shopper: &Shopper) -> Result<SessionView, ApiError> {
    if let Some(user) = shopper.user().await?
        && shopper.confirmation_due(&user)
    {
        confirm(shopper, &user).await?;
    }
    Ok(SessionView::of(&shopper.session().get()))
}

/// Asks the upstream whether `user`'s session is still alive, with one profile read.
///
/// Sign-out (here or on another device, a password reset) revokes the tokens upstream, but a
/// copy of the cookie still holds them: data routes then answer 401, yet the session view,
/// read from the cookie alone, would show the name and e-mail until the access token expires.
/// So the view is confirmed every `verify_after`, and the time is kept in the cookie
/// (resealed: one `Set-Cookie` per session per period, no server-side state, the same on every
/// replica).
///
/// - Accepted: the name and e-mail are taken from the profile (they may have changed).
/// - Refused (401/403): the session ends (`session_expired`, the cookie cleared). No refresh is
///   tried: a revoked session's refresh token is spent, and spending it again counts upstream
///   as token theft, which revokes the user's other, live sessions too.
/// - Not answered: the cookie's view is shown, unconfirmed, and the next read asks again; an
///   outage of the upstream does not sign anybody out.
async fn confirm(shopper: &Shopper, user: &UserTokens) -> Result<(), ApiError> {
    match account::identity(shopper, &user.access_token).await {
        Ok(identity) => {
            shopper
                .metrics()
                .count_session_event(SessionEvent::VerifyOk);
            let confirmed = UserTokens {
                first_name: identity.first_name,
                last_name: identity.last_name,
                email: identity.email,
                confirmed_at_ms: now_ms(),
                ..user.clone()
            };
            shopper
                .session()
                .update(|session| session.with_tokens(confirmed));
            Ok(())
        }
        Err(ApiError::Upstream(UpstreamError::Status { status, .. }))
            if status == reqwest::StatusCode::UNAUTHORIZED
                || status == reqwest::StatusCode::FORBIDDEN =>
        {
            shopper
                .metrics()
                .count_session_event(SessionEvent::VerifyRevoked);
            shopper.session().clear();
            Err(ApiError::SessionExpired)
        }
        Err(err) => {
            shopper
                .metrics()
                .count_session_event(SessionEvent::VerifyUnavailable);
            tracing::warn!(error = %err, "session could not be confirmed; shown unconfirmed");
            Ok(())
        }
    }
}

/// Signs in with e-mail and password.
pub async fn login(shopper: &Shopper, form: &Login) -> Result<SessionView, ApiError> {
    let path = UpstreamPath::fixed("Auth/login");
    let auth: AuthResponse = shopper.call_as(Call::post(&path, form)).await?;
    sign_in(shopper, auth).await
}

/// Creates the account and signs in.
pub async fn register(shopper: &Shopper, form: &Register) -> Result<SessionView, ApiError> {
    let path = UpstreamPath::fixed("Auth/register");
    let auth: AuthResponse = shopper
        .call_as(Call::post(&path, &NewAccount::from(form)))
        .await?;
    sign_in(shopper, auth).await
}

/// Stores the new tokens in the session (a guest's token becomes a pending merge), with the
/// user's name and e-mail from the profile, then merges the guest cart.
async fn sign_in(shopper: &Shopper, auth: AuthResponse) -> Result<SessionView, ApiError> {
    let mut user = auth.into_tokens(None);
    let identity = account::identity(shopper, &user.access_token).await?;
    user.first_name = identity.first_name;
    user.last_name = identity.last_name;
    user.email = identity.email;
    // A new session (a new id): no id the visitor held before names the signed-in one.
    let current = shopper.session().get();
    shopper.session().begin(current.signed_in(user));
    cart::merge_pending(shopper).await;
    Ok(SessionView::of(&shopper.session().get()))
}

/// Signs out: the session is revoked (on every replica with Redis, on this one without) and its
/// cookie cleared, whatever the upstream says. A failed upstream logout is answered 502: the
/// upstream's tokens stay valid until they expire, which the shopper should know, but no copy
/// of the cookie opens as signed in any more.
pub async fn logout(shopper: &Shopper) -> Result<(), ApiError> {
    let session = shopper.session();
    let user = session.get().user().cloned();
    let mut upstream_confirmed = true;
    if let Some(user) = &user {
        let path = UpstreamPath::fixed("Auth/logout");
        let call = Call::post(&path, &NoFields {}).bearer(Some(&user.access_token));
        if let Err(err) = shopper.upstream().call(call, shopper.request_id()).await {
            tracing::warn!(error = %err, "upstream logout failed");
            upstream_confirmed = false;
        }
        if let Some(identity) = session.identity() {
            shopper.revocations().revoke(&identity).await;
        }
    }
    session.clear();
    if upstream_confirmed {
        Ok(())
    } else {
        Err(ApiError::BadGateway {
            code: "logout_failed",
            detail: "Signed out here, but the sign-in service did not confirm the sign-out."
                .to_owned(),
        })
    }
}

/// A call as the signed-in user (401 otherwise) answered by a confirmation.
async fn confirmed_as_user(shopper: &Shopper, call: Call<'_>) -> Result<MessageAnswer, ApiError> {
    let user = shopper.signed_in().await?;
    Ok(Confirmation::relayed(shopper.as_user(user, call).await?))
}

/// Asks for a password-reset e-mail (the same answer for unknown addresses).
pub async fn forgot_password(
    shopper: &Shopper,
    form: &ForgotPassword,
) -> Result<MessageAnswer, ApiError> {
    let path = UpstreamPath::fixed("Auth/forgot-password");
    confirmed(shopper, Call::post(&path, form)).await
}

/// Sets a new password with the e-mailed token.
pub async fn reset_password(
    shopper: &Shopper,
    form: &ResetPassword,
) -> Result<MessageAnswer, ApiError> {
    let path = UpstreamPath::fixed("Auth/reset-password");
    confirmed(shopper, Call::post(&path, &NewPassword::from(form))).await
}

/// Confirms an account with the e-mailed token.
pub async fn verify_registration(
    shopper: &Shopper,
    form: &VerifyRegistration,
) -> Result<MessageAnswer, ApiError> {
    let path = UpstreamPath::fixed("Auth/verify-registration");
    confirmed(shopper, Call::post(&path, form)).await
}

/// Changes the signed-in user's password.
pub async fn change_password(
    shopper: &Shopper,
    form: &ChangePassword,
) -> Result<MessageAnswer, ApiError> {
    let path = UpstreamPath::fixed("Auth/change-password");
    confirmed_as_user(shopper, Call::post(&path, form)).await
}

/// Sends the signed-in user's verification e-mail again.
pub async fn resend_verification(shopper: &Shopper) -> Result<MessageAnswer, ApiError> {
    let path = UpstreamPath::fixed("Auth/resend-verification");
    confirmed_as_user(shopper, Call::post(&path, &NoFields {})).await
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use utoipa::PartialSchema;

    use super::*;
    use crate::commerce::testing::{recording, shopper_of as shopper, signed_in, upstream};
    use crate::upstream::{UpstreamError, decode};

    fn auth_answer() -> Value {
        json!({"accessToken": "access-1", "refreshToken": "refresh-1", "expiresIn": 900,
            "scope": "shop"})
    }

    fn login_form() -> Login {
        serde_json::from_value(json!({"email": "a@b.example", "password": "p", "captcha": "c"}))
            .unwrap()
    }

    #[test]
    fn the_confirmation_is_in_the_contract_but_not_sent_upstream() {
        let form: Register = serde_json::from_value(json!({
            "firstName": "A", "lastName": "B", "email": "a@b.example",
            "password": "Correct-Horse-9", "confirmPassword": "Correct-Horse-9",
            "captcha": "c"
        }))
        .unwrap();
        let body = serde_json::to_value(NewAccount::from(&form)).unwrap();
        assert!(body.get("confirmPassword").is_none());
        assert_eq!(body["password"], "Correct-Horse-9");
        assert_eq!(body["newsletter"], false);

        let schema = serde_json::to_value(Register::schema()).unwrap();
        assert!(schema["properties"]["confirmPassword"].is_object());
        let required = schema["required"].as_array().unwrap();
        assert!(required.contains(&json!("confirmPassword")));

        let reset: ResetPassword = serde_json::from_value(json!({
            "password": "Correct-Horse-9", "confirmPassword": "Correct-Horse-9",
            "token": "t", "captcha": "c"
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(NewPassword::from(&reset)).unwrap(),
            json!({"password": "Correct-Horse-9", "token": "t", "captcha": "c"})
        );
        let schema = serde_json::to_value(ResetPassword::schema()).unwrap();
        assert!(schema["properties"]["confirmPassword"].is_object());
    }

    #[test]
    fn the_email_rule_words_it_as_the_forms_do() {
        let form: Login =
            serde_json::from_value(json!({"email": "nope", "password": "p", "captcha": "c"}))
                .unwrap();
        let errors = crate::http::validation::field_errors(&form.validate().unwrap_err());
        assert_eq!(errors["email"], "Email must be a valid email address");
        let form: Login = serde_json::from_value(json!({"password": "p", "captcha": "c"})).unwrap();
        let errors = crate::http::validation::field_errors(&form.validate().unwrap_err());
        assert_eq!(errors["email"], "Email is required");
    }

    #[test]
    fn a_confirmation_is_the_message_or_none() {
        let relayed = |body: &[u8]| decode("commerce", body).map(Confirmation::relayed);
        assert_eq!(
            relayed(br#"{"message":"Done","extra":1}"#)
                .unwrap()
                .message
                .as_deref(),
            Some("Done")
        );
        assert_eq!(relayed(b"").unwrap().message, None);
        assert_eq!(relayed(b"{}").unwrap().message, None);
        let err = relayed(br#"{"message":5}"#).unwrap_err();
        assert!(matches!(err, UpstreamError::Contract { ref field, .. } if field == "message"));
    }

    #[tokio::test]
    async fn sign_in_keeps_the_tokens_and_the_profiles_names_and_shows_neither_token() {
        let (upstream, received) = recording(&[
            ("Auth/login", auth_answer()),
            (
                "User/profile",
                json!({"firstName": "Ada", "lastName": "Lee", "email": "a@b.example", "id": 1}),
            ),
        ])
        .await;
        let shopper = shopper(upstream, Session::Anonymous);
        let view = login(&shopper, &login_form()).await.unwrap();
        let shown = serde_json::to_value(&view).unwrap();
        assert_eq!(shown["signedIn"], true);
        assert_eq!(
            shown["user"],
            json!({"firstName": "Ada", "lastName": "Lee", "email": "a@b.example"})
        );
        assert!(!shown.to_string().contains("access-1"));

        let session = shopper.session().get();
        let user = session.user().unwrap();
        assert_eq!(user.access_token, "access-1");
        assert_eq!(user.first_name, "Ada");
        let received = received.lock().unwrap();
        assert_eq!(received[0].path, "/Auth/login");
        assert_eq!(
            received[0].body,
            json!({"email": "a@b.example", "password": "p", "captcha": "c"})
        );
        assert_eq!(received[1].path, "/User/profile");
        assert!(
            received[1]
                .authorization
                .as_deref()
                .unwrap()
                .ends_with("access-1")
        );
    }

    #[tokio::test]
    async fn a_guests_cart_is_merged_at_sign_in() {
        let (upstream, received) = recording(&[
            ("Auth/login", auth_answer()),
            (
                "User/profile",
                json!({"firstName": "A", "lastName": "B", "email": "a@b.example"}),
            ),
            ("Cart/merge", json!({})),
        ])
        .await;
        let shopper = shopper(upstream, Session::guest("gid_1".to_owned()));
        let view = login(&shopper, &login_form()).await.unwrap();
        assert!(view.signed_in && !view.guest);
        assert_eq!(shopper.session().get().pending_merge(), None);
        let received = received.lock().unwrap();
        assert_eq!(received[2].path, "/Cart/merge");
        assert_eq!(received[2].query.as_deref(), Some("guestId=gid_1"));
    }

    #[tokio::test]
    async fn an_auth_answer_without_a_token_is_a_contract_break_and_signs_nobody_in() {
        let mut broken = auth_answer();
        broken.as_object_mut().unwrap().remove("refreshToken");
        let shopper = shopper(
            upstream(&[("Auth/login", broken)]).await,
            Session::Anonymous,
        );
        let err = login(&shopper, &login_form()).await.unwrap_err();
        assert_eq!(err.problem().code, "upstream_contract");
        assert_eq!(err.problem().status, 502);
        assert_eq!(shopper.session().get(), Session::Anonymous);
    }

    #[tokio::test]
    async fn a_profile_without_an_email_at_sign_in_is_a_contract_break() {
        let shopper = shopper(
            upstream(&[
                ("Auth/login", auth_answer()),
                ("User/profile", json!({"firstName": "A", "lastName": "B"})),
            ])
            .await,
            Session::Anonymous,
        );
        let err = login(&shopper, &login_form()).await.unwrap_err();
        assert_eq!(err.problem().code, "upstream_contract");
        assert!(shopper.session().get().user().is_none());
    }

    #[tokio::test]
    async fn logout_revokes_upstream_with_the_users_token_and_ends_the_session() {
        let (upstream, received) = recording(&[("Auth/logout", json!(null))]).await;
        let shopper = shopper(upstream, signed_in());
        let identity = shopper.session().identity().unwrap();
        logout(&shopper).await.unwrap();
        assert_eq!(shopper.session().get(), Session::Anonymous);
        assert!(shopper.revocations().is_revoked(&identity.id).await);
        let received = received.lock().unwrap();
        assert_eq!(received[0].body, json!({}));
        assert!(
            received[0]
                .authorization
                .as_deref()
                .unwrap()
                .ends_with("access")
        );
    }

    #[tokio::test]
    async fn a_failed_upstream_logout_is_a_502_and_the_session_is_still_revoked_and_ended() {
        let shopper = shopper(upstream(&[]).await, signed_in());
        let identity = shopper.session().identity().unwrap();
        let err = logout(&shopper).await.unwrap_err();
        assert_eq!(err.problem().status, 502);
        assert_eq!(err.problem().code, "logout_failed");
        assert_eq!(shopper.session().get(), Session::Anonymous);
        assert!(shopper.revocations().is_revoked(&identity.id).await);
    }

    #[tokio::test]
    async fn the_signed_in_flows_need_a_signed_in_user() {
        let shopper = shopper(upstream(&[]).await, Session::Anonymous);
        let err = resend_verification(&shopper).await.unwrap_err();
        assert!(matches!(err, ApiError::Unauthorized(ref m) if m == "Please sign in."));
    }
}
