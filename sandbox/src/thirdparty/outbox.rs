//! The e-mail outbox: everything the sandbox "sends" is kept, and listed on a page.

use rusqlite::{Connection, params};
use serde::Serialize;

use crate::error::SandboxError;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Email {
    pub recipient: String,
    /// `verification`, `password-reset`, `newsletter-verification` or `order-confirmation`.
    pub kind: String,
    pub subject: String,
    pub body: String,
    /// The absolute action link, if the mail has one.
    pub link: Option<String>,
}

pub fn send(conn: &Connection, email: &Email, now: &str) -> Result<(), SandboxError> {
    conn.execute(
        "INSERT INTO emails (recipient, kind, subject, body, link, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![email.recipient, email.kind, email.subject, email.body, email.link, now],
    )?;
    Ok(())
}

/// Every e-mail sent, newest first.
pub fn all(conn: &Connection) -> Result<Vec<Email>, SandboxError> {
    let mut statement =
        conn.prepare("SELECT recipient, kind, subject, body, link FROM emails ORDER BY id DESC")?;
    let rows = statement.query_map([], |row| {
        Ok(Email {
            recipient: row.get(0)?,
            kind: row.get(1)?,
            subject: row.get(2)?,
            body: row.get(3)?,
            link: row.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
