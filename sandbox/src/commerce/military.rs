//! The LE/MIL discount program: verification through the identity-verification service
//! (VeriPass, an OAuth-style authorization-code flow; the double lives in `thirdparty::idv`).
//!
//! Status: None → (session) Pending → (callback) Verified or Rejected. Pending and Rejected may
//! start again; Verified may not.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use rusqlite::{Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::tokens::AuthUser;
use crate::SandboxState;
use crate::error::SandboxError;
use crate::thirdparty::idv;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
        .route("/military/veripass/session", post(start_session))
        .route("/military/veripass/callback", get(callback))
}

/// Where the verification service sends the browser back: the storefront's LE/MIL page, which
/// posts the `code` and `state` it receives to the callback.
const RETURN_PATH: &str = "/profile/le-mil";

/// What the program needs to know about the user.
struct Applicant {
    military_status: String,
    has_phone: bool,
    address_count: i64,
}

fn applicant(conn: &Connection, user_id: i64) -> Result<Applicant, SandboxError> {
    conn.query_row(
        "SELECT military_status, coalesce(trim(phone_number), '') != '', \
             (SELECT COUNT(*) FROM addresses WHERE user_id = users.id) \
         FROM users WHERE id = ?1",
        [user_id],
        |row| {
            Ok(Applicant {
                military_status: row.get(0)?,
                has_phone: row.get(1)?,
                address_count: row.get(2)?,
            })
        },
    )
    .optional()?
    .ok_or_else(|| SandboxError::Unauthorized("User not found".to_owned()))
}

fn already_verified() -> SandboxError {
    SandboxError::Conflict("Your LE/MIL status is already verified".to_owned())
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionResponse {
    authorization_url: String,
}

/// `POST /military/veripass/session` (signed in): opens a verification request and answers the
/// URL to send the browser to. Needs a phone number and a saved address; sets Pending.
///
/// The body the storefront sends (`email`, `display: 'popup'`, `goto: 'login'`) holds the real
/// service's widget options; the sandbox's service needs none of them, so it is not read.
async fn start_session(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
) -> Result<Json<SessionResponse>, SandboxError> {
    let redirect_uri = format!("{}{RETURN_PATH}", state.storefront_url());
    let authorization_url = state.db.transaction(|tx| {
        let applicant = applicant(tx, user.id)?;
        if applicant.military_status == "Verified" {
            return Err(already_verified());
        }
        if !applicant.has_phone || applicant.address_count == 0 {
            return Err(SandboxError::BadRequest(
                "A phone number and at least one saved address are required to verify your LE/MIL status"
                    .to_owned(),
            ));
        }
        let url = idv::start(tx, user.id, &redirect_uri, state.public_url())?;
        tx.execute(
            "UPDATE users SET military_status = 'Pending' WHERE id = ?1",
            [user.id],
        )?;
        Ok(url)
    })?;
    Ok(Json(SessionResponse { authorization_url }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CallbackResponse {
    message: String,
    /// The status after the exchange: Verified or Rejected.
    military_status: &'static str,
}

/// `GET /military/veripass/callback?code=&state=` (signed in): exchanges the code and records
/// the outcome. A code issued for another account is refused like a bad one.
async fn callback(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    Query(query): Query<CallbackQuery>,
) -> Result<Json<CallbackResponse>, SandboxError> {
    let non_blank = |value: Option<String>| value.filter(|value| !value.trim().is_empty());
    let (Some(code), Some(handle)) = (non_blank(query.code), non_blank(query.state)) else {
        return Err(SandboxError::BadRequest(
            "The verification code and state are required".to_owned(),
        ));
    };
    let military_status = state.db.transaction(|tx| {
        if applicant(tx, user.id)?.military_status == "Verified" {
            return Err(already_verified());
        }
        let outcome = idv::exchange(tx, &code, &handle)?;
        if outcome.user_id != user.id {
            return Err(SandboxError::BadRequest(
                "This verification does not belong to your account".to_owned(),
            ));
        }
        let status = if outcome.verified {
            "Verified"
        } else {
            "Rejected"
        };
        tx.execute(
            "UPDATE users SET military_status = ?2 WHERE id = ?1",
            rusqlite::params![user.id, status],
        )?;
        Ok(status)
    })?;
    let message = if military_status == "Verified" {
        "Your LE/MIL status has been verified"
    } else {
        "Your LE/MIL verification was not approved"
    };
    Ok(Json(CallbackResponse {
        message: message.to_owned(),
        military_status,
    }))
}
