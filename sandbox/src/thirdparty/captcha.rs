//! Captcha verification, as a server verifies reCAPTCHA responses.

use rusqlite::{Connection, OptionalExtension, params};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::error::SandboxError;

/// Always accepted, for automated clients that cannot click the widget.
pub const FIXED_TOKEN: &str = "sandbox-captcha-ok";

/// The public site key the widget accepts (the storefront's runtime config carries it).
pub const SITE_KEY: &str = "sandbox-site-key";

/// The secret a server sends to `siteverify`.
pub const SECRET_KEY: &str = "sandbox-secret-key";

/// How long a widget token stays valid, as with reCAPTCHA (two minutes).
pub const TOKEN_TTL_SECONDS: i64 = 120;

/// What a token is worth when it is presented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenCheck {
    /// Valid, and now spent (unless it is the fixed token). Carries when it was issued.
    Valid { issued_at: String },
    /// Never issued (or empty).
    Unknown,
    /// Issued, but already verified once or older than [`TOKEN_TTL_SECONDS`].
    SpentOrExpired,
}

/// Records a token the widget handed out.
pub fn issue(conn: &Connection, token: &str, now: &str) -> Result<(), SandboxError> {
    conn.execute(
        "INSERT INTO captcha_tokens (token, created_at) VALUES (?1, ?2)",
        params![token, now],
    )?;
    Ok(())
}

/// Checks `token` and spends it when valid, as reCAPTCHA responses are single-use.
pub fn check(conn: &Connection, token: &str) -> Result<TokenCheck, SandboxError> {
    if token == FIXED_TOKEN {
        return Ok(TokenCheck::Valid {
            issued_at: crate::clock::now_rfc3339(),
        });
    }
    if token.is_empty() {
        return Ok(TokenCheck::Unknown);
    }
    let Some(issued_at) = conn
        .query_row(
            "SELECT created_at FROM captcha_tokens WHERE token = ?1",
            [token],
            |row| row.get::<_, String>(0),
        )
        .optional()?
    else {
        return Ok(TokenCheck::Unknown);
    };
    if is_expired(&issued_at, OffsetDateTime::now_utc()) {
        return Ok(TokenCheck::SpentOrExpired);
    }
    let spent = conn.execute(
        "UPDATE captcha_tokens SET used = 1 WHERE token = ?1 AND used = 0",
        [token],
    )?;
    Ok(if spent == 1 {
        TokenCheck::Valid { issued_at }
    } else {
        TokenCheck::SpentOrExpired
    })
}

/// Whether `token` is the fixed token or an unused widget token younger than two minutes (which
/// it then spends). Empty and unknown tokens fail.
pub fn verify(conn: &Connection, token: &str) -> Result<bool, SandboxError> {
    Ok(matches!(check(conn, token)?, TokenCheck::Valid { .. }))
}

/// `verify`, as the error the commerce API answers with.
pub fn require(conn: &Connection, token: Option<&str>) -> Result<(), SandboxError> {
    if verify(conn, token.unwrap_or_default())? {
        Ok(())
    } else {
        Err(SandboxError::field(
            "captcha",
            "Captcha verification failed",
        ))
    }
}

/// A timestamp that does not parse is treated as fresh: the issue time is informational for
/// tokens recorded by hand, and refusing them would be a surprise.
fn is_expired(issued_at: &str, now: OffsetDateTime) -> bool {
    OffsetDateTime::parse(issued_at, &Rfc3339)
        .is_ok_and(|issued| (now - issued).whole_seconds() > TOKEN_TTL_SECONDS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::now_rfc3339;
    use crate::db::Db;

    #[test]
    fn widget_tokens_work_once_and_unknown_ones_never() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            issue(conn, "abc", &now_rfc3339())?;
            assert!(verify(conn, "abc")?);
            assert!(!verify(conn, "abc")?);
            assert!(!verify(conn, "nope")?);
            assert!(!verify(conn, "")?);
            assert!(verify(conn, FIXED_TOKEN)?);
            assert!(verify(conn, FIXED_TOKEN)?);
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn tokens_expire_after_two_minutes() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            issue(conn, "old", "2020-01-01T00:00:00Z")?;
            assert_eq!(check(conn, "old")?, TokenCheck::SpentOrExpired);
            issue(conn, "spent", &now_rfc3339())?;
            assert!(matches!(check(conn, "spent")?, TokenCheck::Valid { .. }));
            assert_eq!(check(conn, "spent")?, TokenCheck::SpentOrExpired);
            assert_eq!(check(conn, "never")?, TokenCheck::Unknown);
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn expiry_boundary() {
        let issued = "2026-01-01T00:00:00Z";
        let at = |seconds| {
            OffsetDateTime::parse(issued, &Rfc3339).unwrap() + time::Duration::seconds(seconds)
        };
        assert!(!is_expired(issued, at(TOKEN_TTL_SECONDS)));
        assert!(is_expired(issued, at(TOKEN_TTL_SECONDS + 1)));
        assert!(!is_expired("now", at(10_000)));
    }
}
