//! (to be written)

use rusqlite::Transaction;

use crate::error::SandboxError;

pub fn seed(_tx: &Transaction<'_>) -> Result<(), SandboxError> {
    Ok(())
}
