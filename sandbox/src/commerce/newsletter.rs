//! The newsletter list: subscribe (with a confirmation e-mail), unsubscribe, status, and the
//! confirmation link. A subscription counts from the moment it is made (`isSubscribed`); the
//! confirmation only proves the address (`isVerified`), so a toggled preference shows at once.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::forms::{JsonBody, Rules, is_valid_email, message};
use super::tokens;
use crate::SandboxState;
use crate::clock::now_rfc3339;
use crate::error::SandboxError;
use crate::thirdparty::{captcha, outbox};

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
        .route("/Newsletter/status/{email}", get(status))
        .route("/Newsletter/subscribe", post(subscribe_form))
        .route("/Newsletter/unsubscribe", post(unsubscribe))
        .route("/Newsletter/verify/{token}", get(verify))
}

/// Only a hash of the confirmation token is stored.
fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Subscribes `email` (again, if it had unsubscribed), keeping known names when none are given.
/// An address not yet confirmed gets a confirmation e-mail with a fresh link.
pub(super) fn subscribe(
    conn: &Connection,
    storefront_url: &str,
    email: &str,
    first_name: Option<&str>,
    last_name: Option<&str>,
) -> Result<(), SandboxError> {
    conn.execute(
        "INSERT INTO newsletter_subscriptions (email, first_name, last_name, is_subscribed, updated_at) \
         VALUES (?1, ?2, ?3, 1, ?4) \
         ON CONFLICT (email) DO UPDATE SET is_subscribed = 1, \
             first_name = coalesce(excluded.first_name, first_name), \
             last_name = coalesce(excluded.last_name, last_name), \
             updated_at = excluded.updated_at",
        params![email, first_name, last_name, now_rfc3339()],
    )?;
    let verified: bool = conn.query_row(
        "SELECT is_verified FROM newsletter_subscriptions WHERE email = ?1",
        [email],
        |row| row.get(0),
    )?;
    if verified {
        return Ok(());
    }
    let token = tokens::random_token(32);
    conn.execute(
        "UPDATE newsletter_subscriptions SET verify_token = ?1 WHERE email = ?2",
        params![token_hash(&token), email],
    )?;
    let url = format!("{storefront_url}/Newsletter/verify/{token}");
    let greeting = first_name.map_or_else(|| "Hi,".to_owned(), |name| format!("Hi {name},"));
    outbox::send(
        conn,
        &outbox::Email {
            recipient: email.to_owned(),
            kind: "newsletter-verification".to_owned(),
            subject: "Confirm your newsletter subscription".to_owned(),
            body: format!(
                "{greeting}\n\nThanks for signing up for product launches, events and free SWAG. Please confirm your address:\n{url}"
            ),
            link: Some(url),
        },
        &now_rfc3339(),
    )
}

/// Whether `email` is on the list (whatever its confirmation).
pub(super) fn is_subscribed(conn: &Connection, email: &str) -> Result<bool, SandboxError> {
    Ok(conn
        .query_row(
            "SELECT is_subscribed FROM newsletter_subscriptions WHERE email = ?1",
            [email],
            |row| row.get(0),
        )
        .optional()?
        .unwrap_or(false))
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Status {
    email: String,
    is_subscribed: bool,
    /// Whether the address was confirmed through the e-mailed link.
    is_verified: bool,
}

/// `GET /Newsletter/status/{email}`: unknown addresses are simply not subscribed.
async fn status(
    State(state): State<Arc<SandboxState>>,
    Path(email): Path<String>,
) -> Result<Json<Status>, SandboxError> {
    let email = email.trim().to_owned();
    if !is_valid_email(&email) {
        return Err(SandboxError::field(
            "email",
            "Email must be a valid email address",
        ));
    }
    let (is_subscribed, is_verified) = state.db.call(|conn| {
        Ok(conn
            .query_row(
                "SELECT is_subscribed, is_verified FROM newsletter_subscriptions WHERE email = ?1",
                [&email],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?
            .unwrap_or((false, false)))
    })?;
    Ok(Json(Status {
        email,
        is_subscribed,
        is_verified,
    }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct SubscribeRequest {
    email: Option<String>,
    first_name: Option<String>,
    last_name: Option<String>,
    captcha: Option<String>,
}

/// `POST /Newsletter/subscribe`
async fn subscribe_form(
    State(state): State<Arc<SandboxState>>,
    JsonBody(request): JsonBody<SubscribeRequest>,
) -> Result<Json<Value>, SandboxError> {
    let mut rules = Rules::default();
    let email = rules.email("email", "Email", request.email.as_deref());
    let captcha_token = rules.captcha(request.captcha.as_deref());
    rules.finish()?;
    let email = email.unwrap_or_default();
    let first_name = non_blank(request.first_name.as_deref());
    let last_name = non_blank(request.last_name.as_deref());
    state.db.transaction(|tx| {
        captcha::require(tx, captcha_token)?;
        subscribe(tx, state.storefront_url(), email, first_name, last_name)
    })?;
    Ok(message("You have been subscribed to the newsletter"))
}

fn non_blank(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|value| !value.is_empty())
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct UnsubscribeRequest {
    email: Option<String>,
}

/// `POST /Newsletter/unsubscribe`: idempotent, and the same answer for unknown addresses.
async fn unsubscribe(
    State(state): State<Arc<SandboxState>>,
    JsonBody(request): JsonBody<UnsubscribeRequest>,
) -> Result<Json<Value>, SandboxError> {
    let mut rules = Rules::default();
    let email = rules.email("email", "Email", request.email.as_deref());
    rules.finish()?;
    let email = email.unwrap_or_default();
    state.db.call(|conn| {
        conn.execute(
            "UPDATE newsletter_subscriptions SET is_subscribed = 0, updated_at = ?1 WHERE email = ?2",
            params![now_rfc3339(), email],
        )?;
        Ok(())
    })?;
    Ok(message("You have been unsubscribed from the newsletter"))
}

/// `GET /Newsletter/verify/{token}`: confirms the address; the link works once.
async fn verify(
    State(state): State<Arc<SandboxState>>,
    Path(token): Path<String>,
) -> Result<Json<Value>, SandboxError> {
    let confirmed = state.db.call(|conn| {
        Ok(conn.execute(
            "UPDATE newsletter_subscriptions SET is_verified = 1, verify_token = NULL, updated_at = ?1 \
             WHERE verify_token = ?2",
            params![now_rfc3339(), token_hash(token.trim())],
        )?)
    })?;
    if confirmed == 1 {
        Ok(message("Email verified successfully"))
    } else {
        Err(SandboxError::BadRequest(
            "Invalid or expired verification link".to_owned(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    #[test]
    fn resubscribing_keeps_names_and_mails_only_unconfirmed_addresses() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            subscribe(conn, "http://shop", "a@b.example", Some("Ada"), None)?;
            assert!(is_subscribed(conn, "A@B.example")?);
            conn.execute(
                "UPDATE newsletter_subscriptions SET is_subscribed = 0, is_verified = 1",
                [],
            )?;
            assert!(!is_subscribed(conn, "a@b.example")?);
            subscribe(conn, "http://shop", "a@b.example", None, Some("Lovelace"))?;
            let (first, last): (String, String) = conn.query_row(
                "SELECT first_name, last_name FROM newsletter_subscriptions",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?;
            assert_eq!((first.as_str(), last.as_str()), ("Ada", "Lovelace"));
            assert!(is_subscribed(conn, "a@b.example")?);
            assert_eq!(
                outbox::all(conn)?.len(),
                1,
                "a confirmed address is not mailed again"
            );
            assert!(!is_subscribed(conn, "unknown@b.example")?);
            Ok(())
        })
        .unwrap();
    }
}
