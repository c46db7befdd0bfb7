//! Whether the demo data has been seeded into this database.

use rusqlite::{Connection, OptionalExtension};

use crate::error::SandboxError;

const KEY: &str = "seeded_at";

pub fn is_seeded(conn: &Connection) -> Result<bool, SandboxError> {
    Ok(conn
        .query_row("SELECT 1 FROM settings WHERE key = ?1", [KEY], |_| Ok(()))
        .optional()?
        .is_some())
}

pub fn mark_seeded(conn: &Connection, at: &str) -> Result<(), SandboxError> {
    conn.execute(
        "INSERT OR REPLACE INTO settings (key, value) VALUES (?1, ?2)",
        [KEY, at],
    )?;
    Ok(())
}
