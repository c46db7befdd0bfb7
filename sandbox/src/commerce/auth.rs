//! Sign-in, registration, sign-out, token refresh, and the e-mailed flows (registration
//! verification, password reset), as an ASP.NET Identity-backed API answers them.
//! `POST /Auth/guest` lives with the guest carts (cart.rs).

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::forms::{JsonBody, PASSWORDS_DIFFER, Rules, message};
use super::newsletter;
use super::tokens::{self, AuthResponse, AuthUser};
use crate::SandboxState;
use crate::clock::{now_rfc3339, now_unix};
use crate::error::SandboxError;
use crate::thirdparty::{captcha, outbox};

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
        .route("/Auth/login", post(login))
        .route("/Auth/register", post(register))
        .route("/Auth/refresh-token", post(refresh_token))
        .route("/Auth/logout", post(logout))
        .route("/Auth/forgot-password", post(forgot_password))
        .route("/Auth/reset-password", post(reset_password))
        .route("/Auth/change-password", post(change_password))
        .route("/Auth/resend-verification", post(resend_verification))
        .route("/Auth/verify-registration", post(verify_registration))
}

// ---------------------------------------------------------------------------------------------
// One-time e-mailed tokens.

/// What an e-mailed token is for, matching `user_tokens.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EmailToken {
    VerifyEmail,
    PasswordReset,
}

impl EmailToken {
    fn kind(self) -> &'static str {
        match self {
            Self::VerifyEmail => "verify-email",
            Self::PasswordReset => "password-reset",
        }
    }

    /// A verification link stays usable for a week; a reset link for an hour, as identity
    /// providers keep reset windows short.
    fn ttl_seconds(self) -> i64 {
        match self {
            Self::VerifyEmail => 7 * 24 * 3600,
            Self::PasswordReset => 3600,
        }
    }
}

/// Only a hash of an e-mailed token is stored, so the database alone opens no account.
fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Issues a token of `purpose` for `user_id`; earlier unused tokens of that purpose stop
/// working, so only the newest link in the inbox is live.
fn issue_email_token(
    conn: &Connection,
    user_id: i64,
    purpose: EmailToken,
) -> Result<String, SandboxError> {
    conn.execute(
        "UPDATE user_tokens SET used = 1 WHERE user_id = ?1 AND kind = ?2 AND used = 0",
        params![user_id, purpose.kind()],
    )?;
    let token = tokens::random_token(32);
    conn.execute(
        "INSERT INTO user_tokens (token, user_id, kind, expires_at) VALUES (?1, ?2, ?3, ?4)",
        params![
            token_hash(&token),
            user_id,
            purpose.kind(),
            now_unix() + purpose.ttl_seconds()
        ],
    )?;
    Ok(token)
}

/// Spends an unused, unexpired token of `purpose`, answering whose it was.
fn spend_email_token(
    conn: &Connection,
    token: &str,
    purpose: EmailToken,
) -> Result<Option<i64>, SandboxError> {
    Ok(conn
        .query_row(
            "UPDATE user_tokens SET used = 1 \
             WHERE token = ?1 AND kind = ?2 AND used = 0 AND expires_at > ?3 RETURNING user_id",
            params![token_hash(token), purpose.kind(), now_unix()],
            |row| row.get(0),
        )
        .optional()?)
}

/// The storefront URL with a URL-safe (hex) token appended.
fn link(storefront_url: &str, path_and_query: &str, token: &str) -> String {
    format!("{storefront_url}{path_and_query}{token}")
}

/// Sends the registration verification e-mail with a fresh link.
fn send_verification(
    conn: &Connection,
    storefront_url: &str,
    user_id: i64,
    email: &str,
    first_name: &str,
) -> Result<(), SandboxError> {
    let token = issue_email_token(conn, user_id, EmailToken::VerifyEmail)?;
    let url = link(storefront_url, "/verify-email?token=", &token);
    outbox::send(
        conn,
        &outbox::Email {
            recipient: email.to_owned(),
            kind: "verification".to_owned(),
            subject: "Verify your email address".to_owned(),
            body: format!(
                "Hi {first_name},\n\nPlease confirm your email address by opening this link:\n{url}\n\nThe link is valid for 7 days."
            ),
            link: Some(url),
        },
        &now_rfc3339(),
    )
}

// ---------------------------------------------------------------------------------------------
// Sign-in and registration.

/// A user's sign-in record.
struct Credentials {
    id: i64,
    email: String,
    password_hash: String,
}

fn credentials_by_email(
    conn: &Connection,
    email: &str,
) -> Result<Option<Credentials>, SandboxError> {
    Ok(conn
        .query_row(
            "SELECT id, email, password_hash FROM users WHERE email = ?1",
            [email],
            |row| {
                Ok(Credentials {
                    id: row.get(0)?,
                    email: row.get(1)?,
                    password_hash: row.get(2)?,
                })
            },
        )
        .optional()?)
}

fn credentials_by_id(conn: &Connection, id: i64) -> Result<Credentials, SandboxError> {
    conn.query_row(
        "SELECT id, email, password_hash FROM users WHERE id = ?1",
        [id],
        |row| {
            Ok(Credentials {
                id: row.get(0)?,
                email: row.get(1)?,
                password_hash: row.get(2)?,
            })
        },
    )
    .optional()?
    .ok_or_else(|| SandboxError::Unauthorized("User not found".to_owned()))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct LoginRequest {
    email: Option<String>,
    password: Option<String>,
    captcha: Option<String>,
}

/// `POST /Auth/login`
async fn login(
    State(state): State<Arc<SandboxState>>,
    JsonBody(request): JsonBody<LoginRequest>,
) -> Result<Json<AuthResponse>, SandboxError> {
    let mut rules = Rules::default();
    let email = rules.email("email", "Email", request.email.as_deref());
    let password = request.password.filter(|password| !password.is_empty());
    rules.check(password.is_some(), "password", "Password is required");
    let captcha_token = rules.captcha(request.captcha.as_deref());
    rules.finish()?;
    let (Some(email), Some(password)) = (email, password) else {
        return Err(SandboxError::Internal(
            "validated fields missing".to_owned(),
        ));
    };
    let found = state.db.call(|conn| {
        captcha::require(conn, captcha_token)?;
        credentials_by_email(conn, email)
    })?;
    let refused = || SandboxError::Unauthorized("Invalid email or password".to_owned());
    // An unknown e-mail is hashed all the same: its answer takes as long as a wrong password's.
    let stored = found.as_ref().map(|user| user.password_hash.clone());
    let matches = state.passwords.verify(password, stored).await?;
    let Some(user) = found.filter(|_| matches) else {
        return Err(refused());
    };
    let response = state.db.call(|conn| {
        tokens::issue(
            conn,
            &state.keys,
            user.id,
            &user.email,
            state.options.access_token_ttl_seconds,
        )
    })?;
    Ok(Json(response))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct RegisterRequest {
    first_name: Option<String>,
    last_name: Option<String>,
    email: Option<String>,
    password: Option<String>,
    /// Checked only when sent: the storefront compares it before posting.
    confirm_password: Option<String>,
    /// Subscribe the account's e-mail to the newsletter (absent or null: no).
    newsletter: Option<bool>,
    captcha: Option<String>,
}

fn duplicate_email() -> SandboxError {
    SandboxError::Conflict("An account with this email already exists".to_owned())
}

/// `POST /Auth/register`: creates the account (unverified), signs it in (201 with the auth
/// response), e-mails a verification link and, when asked, subscribes it to the newsletter.
async fn register(
    State(state): State<Arc<SandboxState>>,
    JsonBody(request): JsonBody<RegisterRequest>,
) -> Result<(StatusCode, Json<AuthResponse>), SandboxError> {
    let mut rules = Rules::default();
    let first_name = rules.required("firstName", "First name", request.first_name.as_deref());
    let last_name = rules.required("lastName", "Last name", request.last_name.as_deref());
    let email = rules.email("email", "Email", request.email.as_deref());
    let password = rules.new_password("password", "Password", request.password.as_deref());
    if let (Some(password), Some(confirm)) = (password, request.confirm_password.as_deref()) {
        rules.check(password == confirm, "confirmPassword", PASSWORDS_DIFFER);
    }
    let captcha_token = rules.captcha(request.captcha.as_deref());
    rules.finish()?;
    let (Some(first_name), Some(last_name), Some(email), Some(password)) =
        (first_name, last_name, email, password)
    else {
        return Err(SandboxError::Internal(
            "validated fields missing".to_owned(),
        ));
    };
    // Captcha and the duplicate check come before the (slow) hash; the insert re-checks.
    state.db.call(|conn| {
        captcha::require(conn, captcha_token)?;
        match credentials_by_email(conn, email)? {
            Some(_) => Err(duplicate_email()),
            None => Ok(()),
        }
    })?;
    let password_hash = state.passwords.hash(password.to_owned()).await?;
    let response = state.db.transaction(|tx| {
        if credentials_by_email(tx, email)?.is_some() {
            return Err(duplicate_email());
        }
        tx.execute(
            "INSERT INTO users (email, password_hash, first_name, last_name, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![email, password_hash, first_name, last_name, now_rfc3339()],
        )?;
        let user_id = tx.last_insert_rowid();
        send_verification(tx, state.storefront_url(), user_id, email, first_name)?;
        if request.newsletter == Some(true) {
            newsletter::subscribe(
                tx,
                state.storefront_url(),
                email,
                Some(first_name),
                Some(last_name),
            )?;
        }
        tokens::issue(
            tx,
            &state.keys,
            user_id,
            email,
            state.options.access_token_ttl_seconds,
        )
    })?;
    Ok((StatusCode::CREATED, Json(response)))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct RefreshRequest {
    refresh_token: Option<String>,
}

/// `POST /Auth/refresh-token`: spends the refresh token and issues a new pair.
async fn refresh_token(
    State(state): State<Arc<SandboxState>>,
    JsonBody(request): JsonBody<RefreshRequest>,
) -> Result<Json<AuthResponse>, SandboxError> {
    let mut rules = Rules::default();
    let token = rules.required(
        "refreshToken",
        "Refresh token",
        request.refresh_token.as_deref(),
    );
    rules.finish()?;
    let token = token.unwrap_or_default();
    // Not a transaction: a refused reuse revokes the token family, and that write must stick
    // even though the request fails. The connection lock still makes spend-and-issue atomic
    // with respect to other requests.
    let response = state.db.call(|conn| {
        let user_id = tokens::spend_refresh(conn, token)?;
        let user = credentials_by_id(conn, user_id)?;
        tokens::issue(
            conn,
            &state.keys,
            user.id,
            &user.email,
            state.options.access_token_ttl_seconds,
        )
    })?;
    Ok(Json(response))
}

/// `POST /Auth/logout` (signed in, empty body): revokes the access token and every refresh
/// token of the user. 204.
async fn logout(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
) -> Result<StatusCode, SandboxError> {
    state.db.call(|conn| tokens::revoke(conn, &user))?;
    Ok(StatusCode::NO_CONTENT)
}

// ---------------------------------------------------------------------------------------------
// Password flows.

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct ForgotPasswordRequest {
    email: Option<String>,
    captcha: Option<String>,
}

const RESET_SENT: &str =
    "If an account exists for that email, a link to reset the password has been sent.";

/// `POST /Auth/forgot-password`: the same answer whether or not the account exists, so the
/// endpoint does not tell which e-mails are registered.
async fn forgot_password(
    State(state): State<Arc<SandboxState>>,
    JsonBody(request): JsonBody<ForgotPasswordRequest>,
) -> Result<Json<Value>, SandboxError> {
    let mut rules = Rules::default();
    let email = rules.email("email", "Email", request.email.as_deref());
    let captcha_token = rules.captcha(request.captcha.as_deref());
    rules.finish()?;
    let email = email.unwrap_or_default();
    state.db.transaction(|tx| {
        captcha::require(tx, captcha_token)?;
        let Some(user) = credentials_by_email(tx, email)? else {
            return Ok(());
        };
        let token = issue_email_token(tx, user.id, EmailToken::PasswordReset)?;
        let url = link(state.storefront_url(), "/auth/reset-password?token=", &token);
        outbox::send(
            tx,
            &outbox::Email {
                recipient: user.email,
                kind: "password-reset".to_owned(),
                subject: "Reset your password".to_owned(),
                body: format!(
                    "Someone asked to reset the password of your account. If it was you, open this link to choose a new one:\n{url}\n\nThe link is valid for 1 hour. If you did not ask, ignore this e-mail."
                ),
                link: Some(url),
            },
            &now_rfc3339(),
        )
    })?;
    Ok(message(RESET_SENT))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct ResetPasswordRequest {
    password: Option<String>,
    /// Checked only when sent: the storefront compares it before posting.
    confirm_password: Option<String>,
    token: Option<String>,
    captcha: Option<String>,
}

fn bad_reset_token() -> SandboxError {
    SandboxError::BadRequest("Invalid or expired password reset token".to_owned())
}

/// `POST /Auth/reset-password`: sets the password with an e-mailed token (single use, one
/// hour). Every session of the account is signed out.
async fn reset_password(
    State(state): State<Arc<SandboxState>>,
    JsonBody(request): JsonBody<ResetPasswordRequest>,
) -> Result<Json<Value>, SandboxError> {
    let mut rules = Rules::default();
    let password = rules.new_password("password", "Password", request.password.as_deref());
    if let (Some(password), Some(confirm)) = (password, request.confirm_password.as_deref()) {
        rules.check(password == confirm, "confirmPassword", PASSWORDS_DIFFER);
    }
    let token = rules.required("token", "Token", request.token.as_deref());
    let captcha_token = rules.captcha(request.captcha.as_deref());
    rules.finish()?;
    let (Some(password), Some(token)) = (password, token) else {
        return Err(SandboxError::Internal(
            "validated fields missing".to_owned(),
        ));
    };
    let token_is_live = state.db.call(|conn| {
        captcha::require(conn, captcha_token)?;
        Ok(conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM user_tokens \
                 WHERE token = ?1 AND kind = ?2 AND used = 0 AND expires_at > ?3)",
            params![
                token_hash(token),
                EmailToken::PasswordReset.kind(),
                now_unix()
            ],
            |row| row.get::<_, bool>(0),
        )?)
    })?;
    if !token_is_live {
        return Err(bad_reset_token());
    }
    let password_hash = state.passwords.hash(password.to_owned()).await?;
    state.db.transaction(|tx| {
        let user_id =
            spend_email_token(tx, token, EmailToken::PasswordReset)?.ok_or_else(bad_reset_token)?;
        tx.execute(
            "UPDATE users SET password_hash = ?1 WHERE id = ?2",
            params![password_hash, user_id],
        )?;
        tx.execute(
            "UPDATE refresh_tokens SET used = 1 WHERE user_id = ?1",
            [user_id],
        )?;
        Ok(())
    })?;
    Ok(message("Password reset successfully"))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct ChangePasswordRequest {
    current_password: Option<String>,
    new_password: Option<String>,
    confirm_password: Option<String>,
}

/// `POST /Auth/change-password` (signed in). The caller's sessions stay signed in.
async fn change_password(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    JsonBody(request): JsonBody<ChangePasswordRequest>,
) -> Result<Json<Value>, SandboxError> {
    let mut rules = Rules::default();
    let current = request
        .current_password
        .filter(|password| !password.is_empty());
    rules.check(
        current.is_some(),
        "currentPassword",
        "Current password is required",
    );
    let new = rules.new_password(
        "newPassword",
        "New password",
        request.new_password.as_deref(),
    );
    let confirm = request.confirm_password.as_deref().unwrap_or_default();
    rules.check(
        !confirm.is_empty(),
        "confirmPassword",
        "Confirm password is required",
    );
    rules.check(
        new.is_none_or(|new| new == confirm),
        "confirmPassword",
        PASSWORDS_DIFFER,
    );
    rules.finish()?;
    let (Some(current), Some(new)) = (current, new) else {
        return Err(SandboxError::Internal(
            "validated fields missing".to_owned(),
        ));
    };
    let stored = state.db.call(|conn| credentials_by_id(conn, user.id))?;
    if !state
        .passwords
        .verify(current, Some(stored.password_hash))
        .await?
    {
        return Err(SandboxError::field(
            "currentPassword",
            "Current password is incorrect",
        ));
    }
    let password_hash = state.passwords.hash(new.to_owned()).await?;
    state.db.call(|conn| {
        conn.execute(
            "UPDATE users SET password_hash = ?1 WHERE id = ?2",
            params![password_hash, user.id],
        )?;
        Ok(())
    })?;
    Ok(message("Password updated successfully"))
}

// ---------------------------------------------------------------------------------------------
// Registration verification.

/// `POST /Auth/resend-verification` (signed in, empty body): a new verification link; the
/// earlier ones stop working. 400 when the address is already verified.
async fn resend_verification(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
) -> Result<Json<Value>, SandboxError> {
    state.db.transaction(|tx| {
        let (email, first_name, verified): (String, String, bool) = tx
            .query_row(
                "SELECT email, first_name, is_email_verified FROM users WHERE id = ?1",
                [user.id],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )
            .optional()?
            .ok_or_else(|| SandboxError::Unauthorized("User not found".to_owned()))?;
        if verified {
            return Err(SandboxError::BadRequest(
                "Your email address is already verified".to_owned(),
            ));
        }
        send_verification(tx, state.storefront_url(), user.id, &email, &first_name)
    })?;
    Ok(message("A verification link was sent to your email"))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct VerifyRequest {
    token: Option<String>,
}

/// `POST /Auth/verify-registration` {token}: marks the e-mail verified. No sign-in needed (the
/// link may be opened on another device).
async fn verify_registration(
    State(state): State<Arc<SandboxState>>,
    JsonBody(request): JsonBody<VerifyRequest>,
) -> Result<Json<Value>, SandboxError> {
    let token = request
        .token
        .as_deref()
        .map(str::trim)
        .filter(|token| !token.is_empty());
    let Some(token) = token else {
        return Err(SandboxError::field("token", "Token is required"));
    };
    state.db.transaction(|tx| {
        let user_id = spend_email_token(tx, token, EmailToken::VerifyEmail)?.ok_or_else(|| {
            SandboxError::BadRequest("Invalid or expired verification token".to_owned())
        })?;
        tx.execute(
            "UPDATE users SET is_email_verified = 1 WHERE id = ?1",
            [user_id],
        )?;
        Ok(())
    })?;
    Ok(message("Registration verified successfully"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    #[test]
    fn email_tokens_are_single_use_purpose_bound_and_only_the_newest_works() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            conn.execute(
                "INSERT INTO users (email, password_hash, first_name, last_name, created_at) \
                 VALUES ('a@b.example', 'x', 'A', 'B', 'now')",
                [],
            )?;
            let id = conn.last_insert_rowid();
            let old = issue_email_token(conn, id, EmailToken::VerifyEmail)?;
            let new = issue_email_token(conn, id, EmailToken::VerifyEmail)?;
            assert_eq!(
                spend_email_token(conn, &old, EmailToken::VerifyEmail)?,
                None
            );
            assert_eq!(
                spend_email_token(conn, &new, EmailToken::PasswordReset)?,
                None
            );
            assert_eq!(
                spend_email_token(conn, &new, EmailToken::VerifyEmail)?,
                Some(id)
            );
            assert_eq!(
                spend_email_token(conn, &new, EmailToken::VerifyEmail)?,
                None
            );
            let stored: String = conn.query_row(
                "SELECT token FROM user_tokens ORDER BY rowid DESC LIMIT 1",
                [],
                |row| row.get(0),
            )?;
            assert_ne!(stored, new, "only the hash is stored");
            Ok(())
        })
        .unwrap();
    }
}
