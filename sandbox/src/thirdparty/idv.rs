//! The identity-verification double ("VeriPass", for the LE/MIL program), shaped like an OAuth
//! authorization-code flow:
//!
//! 1. The commerce API calls [`start`] for a user and the storefront page to come back to; the
//!    browser is sent to the returned authorization URL (`/3p/idv/authorize?state=...`).
//! 2. The person approves or rejects there; the page redirects (303) to the stored
//!    `redirect_uri` with `code` and `state`.
//! 3. The commerce API calls [`exchange`] with both and learns whether the user was verified.
//!
//! The redirect target is fixed at [`start`] and never read from the browser, so the page cannot
//! be used as an open redirect. Codes are single-use and short-lived.

use std::sync::Arc;

use axum::Form;
use axum::extract::{Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Deserialize;

use super::html::{self, escape};
use crate::SandboxState;
use crate::clock::{now_rfc3339, now_unix};
use crate::error::SandboxError;

/// The fictional verification service's name, shown on its page.
pub const SERVICE_NAME: &str = "VeriPass";

/// How long the person has to answer the authorization page.
const SESSION_TTL_SECONDS: i64 = 30 * 60;
/// How long a code may wait before it is exchanged, as OAuth servers allow (ten minutes).
const CODE_TTL_SECONDS: i64 = 10 * 60;

/// What an exchanged code says about the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdvOutcome {
    pub user_id: i64,
    /// True when the person approved, false when they rejected.
    pub verified: bool,
}

/// Opens a verification request for `user_id` that returns to `redirect_uri` (absolute http or
/// https, no fragment) and answers the URL the browser must visit, on `public_url` (the
/// sandbox's origin as browsers reach it).
pub fn start(
    conn: &Connection,
    user_id: i64,
    redirect_uri: &str,
    public_url: &str,
) -> Result<String, SandboxError> {
    if !is_valid_redirect_uri(redirect_uri) {
        return Err(SandboxError::field(
            "redirectUri",
            "redirect_uri must be an absolute http(s) URL without a fragment",
        ));
    }
    let state = random_handle();
    let now = now_unix();
    conn.execute(
        "INSERT INTO idv_sessions (state, user_id, redirect_uri, created_at, expires_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            state,
            user_id,
            redirect_uri,
            now_rfc3339(),
            now + SESSION_TTL_SECONDS
        ],
    )?;
    Ok(format!(
        "{}/3p/idv/authorize?state={state}",
        public_url.trim_end_matches('/')
    ))
}

/// Spends `code` (which must have been issued for `state`, within ten minutes) and answers who
/// it was for and whether they were verified. A wrong, expired or reused code is a bad request.
pub fn exchange(conn: &Connection, code: &str, state: &str) -> Result<IdvOutcome, SandboxError> {
    let outcome = conn
        .query_row(
            "UPDATE idv_sessions SET exchanged_at = ?1 \
             WHERE state = ?2 AND code = ?3 AND exchanged_at IS NULL AND code_expires_at >= ?4 \
             RETURNING user_id, decision",
            params![now_rfc3339(), state, code, now_unix()],
            |row| {
                Ok(IdvOutcome {
                    user_id: row.get(0)?,
                    verified: row.get::<_, Option<String>>(1)?.as_deref() == Some(APPROVED),
                })
            },
        )
        .optional()?;
    outcome.ok_or_else(|| {
        SandboxError::BadRequest("Invalid, expired or already used verification code".to_owned())
    })
}

const APPROVED: &str = "approved";
const REJECTED: &str = "rejected";

/// 128 random bits as hex: URL-safe, unguessable.
fn random_handle() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// Absolute `http`/`https` with a host, no fragment (OAuth forbids one), no whitespace or
/// control characters (which would let a value break out of the Location header or the page).
fn is_valid_redirect_uri(uri: &str) -> bool {
    let lower = uri.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
    else {
        return false;
    };
    let authority = rest.split(['/', '?']).next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    !host.is_empty()
        && !host.starts_with(':')
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
        && !uri.contains('#')
        && !uri.contains('\\')
        && !uri.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// The host (and port) part of an absolute URL, to tell the person where they will return.
fn host_of(uri: &str) -> &str {
    uri.split_once("://")
        .map(|(_, rest)| rest)
        .and_then(|rest| rest.split(['/', '?']).next())
        .map(|authority| authority.rsplit('@').next().unwrap_or(authority))
        .unwrap_or(uri)
}

/// `redirect_uri` with `code` and `state` added to its query.
fn redirect_with(redirect_uri: &str, code: &str, state: &str) -> String {
    let separator = if redirect_uri.contains('?') { '&' } else { '?' };
    format!("{redirect_uri}{separator}code={code}&state={state}")
}

/// A request that is still waiting for the person's answer.
struct PendingSession {
    redirect_uri: String,
}

/// Why a request cannot be answered.
enum Unavailable {
    NotFound,
    Answered,
    Expired,
    Failed(SandboxError),
}

impl From<rusqlite::Error> for Unavailable {
    fn from(err: rusqlite::Error) -> Self {
        Self::Failed(err.into())
    }
}

impl Unavailable {
    /// The page that explains it to the person.
    fn page(&self) -> Response {
        match self {
            Self::NotFound => html::error_page(
                StatusCode::NOT_FOUND,
                "Verification request not found",
                "This verification link is not valid. Start the verification again from the store.",
            ),
            Self::Answered => html::error_page(
                StatusCode::CONFLICT,
                "Verification request already answered",
                "This verification request has already been answered. Start again from the store if you need to.",
            ),
            Self::Expired => html::error_page(
                StatusCode::GONE,
                "Verification request expired",
                "This verification request has expired. Start the verification again from the store.",
            ),
            Self::Failed(err) => {
                tracing::error!(error = %err, "identity verification page failed");
                html::error_page(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Something went wrong",
                    "The verification service could not load this request. Please try again.",
                )
            }
        }
    }
}

/// The session for `state`, if it is still waiting for the person's answer.
fn pending_session(conn: &Connection, state: &str) -> Result<PendingSession, Unavailable> {
    let row = conn
        .query_row(
            "SELECT redirect_uri, expires_at, decision FROM idv_sessions WHERE state = ?1",
            [state],
            |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, Option<String>>(2)?,
                ))
            },
        )
        .optional()?;
    match row {
        None => Err(Unavailable::NotFound),
        Some((_, _, Some(_))) => Err(Unavailable::Answered),
        Some((_, expires_at, None)) if expires_at < now_unix() => Err(Unavailable::Expired),
        Some((redirect_uri, _, None)) => Ok(PendingSession { redirect_uri }),
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct AuthorizeQuery {
    state: String,
}

/// `GET /3p/idv/authorize?state=...`: the page where the person approves or rejects.
pub async fn authorize_page(
    State(app): State<Arc<SandboxState>>,
    Query(query): Query<AuthorizeQuery>,
) -> Response {
    let session = match app
        .db
        .call(|conn| Ok(pending_session(conn, &query.state)))
        .unwrap_or_else(|err| Err(Unavailable::Failed(err)))
    {
        Ok(session) => session,
        Err(unavailable) => return unavailable.page(),
    };
    let body = format!(
        r#"<h1>{service}</h1>
<div class="card">
<h2>Verify your law-enforcement or military status</h2>
<p><strong>{site}</strong> asks {service} to confirm that you are eligible for its LE/MIL program.</p>
<p class="muted">This is a sandbox stand-in for the real service: no documents are needed. Choose the outcome you want to test.</p>
<form method="post" action="authorize">
<input type="hidden" name="state" value="{state}">
<div class="actions">
<button type="submit" class="primary" name="decision" value="approve">Approve</button>
<button type="submit" class="secondary" name="decision" value="reject">Reject</button>
</div>
</form>
<p class="muted">Either way you will return to {site}.</p>
</div>"#,
        service = escape(SERVICE_NAME),
        site = escape(host_of(&session.redirect_uri)),
        state = escape(&query.state),
    );
    html::response(
        StatusCode::OK,
        html::page(&format!("{SERVICE_NAME}: verify your status"), &body),
    )
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Decision {
    state: String,
    decision: String,
}

/// `POST /3p/idv/authorize` (form `state`, `decision=approve|reject`): records the answer and
/// sends the browser back to the stored redirect URI with `code` and `state`.
pub async fn decide(State(app): State<Arc<SandboxState>>, Form(form): Form<Decision>) -> Response {
    let decision = match form.decision.as_str() {
        "approve" => APPROVED,
        "reject" => REJECTED,
        _ => {
            return html::error_page(
                StatusCode::BAD_REQUEST,
                "Choose an answer",
                "Choose Approve or Reject.",
            );
        }
    };
    let code = random_handle();
    let answered = app
        .db
        .transaction(|tx| {
            let session = match pending_session(tx, &form.state) {
                Ok(session) => session,
                Err(unavailable) => return Ok(Err(unavailable)),
            };
            tx.execute(
                "UPDATE idv_sessions SET decision = ?1, code = ?2, code_expires_at = ?3 WHERE state = ?4",
                params![decision, code, now_unix() + CODE_TTL_SECONDS, form.state],
            )?;
            Ok(Ok(session))
        })
        .unwrap_or_else(|err| Err(Unavailable::Failed(err)));
    let session = match answered {
        Ok(session) => session,
        Err(unavailable) => return unavailable.page(),
    };
    let location = redirect_with(&session.redirect_uri, &code, &form.state);
    match HeaderValue::from_str(&location) {
        Ok(location) => (
            StatusCode::SEE_OTHER,
            [
                (header::LOCATION, location),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            ],
        )
            .into_response(),
        Err(_) => Unavailable::Failed(SandboxError::Internal(
            "stored redirect_uri is not a valid header value".to_owned(),
        ))
        .page(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    #[test]
    fn redirect_uris_must_be_absolute_http() {
        for good in [
            "http://localhost:8080/account/le-mil",
            "https://shop.example/verify?from=account",
            "HTTPS://shop.example",
        ] {
            assert!(is_valid_redirect_uri(good), "{good}");
        }
        for bad in [
            "/account/le-mil",
            "//evil.example/",
            "javascript:alert(1)",
            "ftp://shop.example/",
            "https://",
            "https:///path",
            "https://shop.example/#frag",
            "https://shop.example/\r\nSet-Cookie: x=1",
            "https://shop.example/a b",
            "https:\\\\evil.example",
            "https://a<b>.example/cb",
            "",
        ] {
            assert!(!is_valid_redirect_uri(bad), "{bad:?}");
        }
    }

    #[test]
    fn redirect_keeps_an_existing_query() {
        assert_eq!(
            redirect_with("https://a.example/cb", "c1", "s1"),
            "https://a.example/cb?code=c1&state=s1"
        );
        assert_eq!(
            redirect_with("https://a.example/cb?x=1", "c1", "s1"),
            "https://a.example/cb?x=1&code=c1&state=s1"
        );
        assert_eq!(
            host_of("https://user@a.example:8443/cb?x"),
            "a.example:8443"
        );
    }

    fn decide_in(conn: &Connection, state: &str, decision: &str, code: &str) {
        conn.execute(
            "UPDATE idv_sessions SET decision = ?1, code = ?2, code_expires_at = ?3 WHERE state = ?4",
            params![decision, code, now_unix() + CODE_TTL_SECONDS, state],
        )
        .unwrap();
    }

    fn state_of(url: &str) -> String {
        url.split_once("state=").unwrap().1.to_owned()
    }

    #[test]
    fn codes_exchange_once_for_their_own_state() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            let url = start(conn, 7, "https://shop.example/cb", "http://sandbox.test/")?;
            assert!(url.starts_with("http://sandbox.test/3p/idv/authorize?state="));
            let state = state_of(&url);
            let other = state_of(&start(conn, 8, "https://shop.example/cb", "http://s")?);
            assert!(exchange(conn, "code", &state).is_err(), "no decision yet");
            decide_in(conn, &state, APPROVED, "code");
            assert!(matches!(
                exchange(conn, "code", &other),
                Err(SandboxError::BadRequest(_))
            ));
            assert_eq!(
                exchange(conn, "code", &state)?,
                IdvOutcome {
                    user_id: 7,
                    verified: true
                }
            );
            assert!(matches!(
                exchange(conn, "code", &state),
                Err(SandboxError::BadRequest(_))
            ));
            decide_in(conn, &other, REJECTED, "code2");
            assert!(!exchange(conn, "code2", &other)?.verified);
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn expired_codes_are_refused() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            let state = state_of(&start(conn, 1, "https://shop.example/cb", "http://s")?);
            conn.execute(
                "UPDATE idv_sessions SET decision = 'approved', code = 'c', code_expires_at = 0",
                [],
            )?;
            assert!(exchange(conn, "c", &state).is_err());
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn start_refuses_a_relative_redirect() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            assert!(matches!(
                start(conn, 1, "/account", "http://s"),
                Err(SandboxError::Validation { .. })
            ));
            Ok(())
        })
        .unwrap();
    }
}
