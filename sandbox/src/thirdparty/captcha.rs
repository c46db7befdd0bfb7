//! Captcha verification, as a server verifies reCAPTCHA responses.

use rusqlite::{Connection, params};

use crate::error::SandboxError;

/// Always accepted, for automated clients that cannot click the widget.
pub const FIXED_TOKEN: &str = "sandbox-captcha-ok";

/// Records a token the widget handed out.
pub fn issue(conn: &Connection, token: &str, now: &str) -> Result<(), SandboxError> {
    conn.execute(
        "INSERT INTO captcha_tokens (token, created_at) VALUES (?1, ?2)",
        params![token, now],
    )?;
    Ok(())
}

/// Whether `token` is the fixed token or an unused widget token (which it then spends, as
/// reCAPTCHA responses are single-use). Empty and unknown tokens fail.
pub fn verify(conn: &Connection, token: &str) -> Result<bool, SandboxError> {
    if token == FIXED_TOKEN {
        return Ok(true);
    }
    if token.is_empty() {
        return Ok(false);
    }
    let spent = conn.execute(
        "UPDATE captcha_tokens SET used = 1 WHERE token = ?1 AND used = 0",
        [token],
    )?;
    Ok(spent == 1)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    #[test]
    fn widget_tokens_work_once_and_unknown_ones_never() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            issue(conn, "abc", "2026-01-01T00:00:00Z")?;
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
}
