//! SQLite storage: one file in the data dir, schema migrations, seeding on first start.

mod seed_marker;

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

use crate::error::SandboxError;

pub use seed_marker::{is_seeded, mark_seeded};

/// The database file inside the data dir.
pub const DB_FILE: &str = "sandbox.db";

/// Every migration, in order. Each area owns its schema file; until the first release a file may
/// be edited in place, afterwards changes are new migrations appended here.
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../content/schema.sql")),
        M::up(include_str!("../commerce/schema.sql")),
        M::up(include_str!("../thirdparty/schema.sql")),
        M::up(include_str!("schema.sql")),
    ])
}

/// The sandbox's database. A std `Mutex` around one connection: SQLite serialises writers anyway,
/// every statement here takes microseconds, and a single connection keeps transactions simple.
/// Handlers call [`Db::call`] and never hold the lock across an await.
#[derive(Debug)]
pub struct Db {
    conn: Mutex<Connection>,
}

impl Db {
    /// Opens (creating if needed) and migrates the database under `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Self, SandboxError> {
        let mut conn = Connection::open(data_dir.join(DB_FILE))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.pragma_update(None, "busy_timeout", 5000)?;
        migrations()
            .to_latest(&mut conn)
            .map_err(|err| SandboxError::Internal(format!("migration failed: {err}")))?;
        Ok(Self {
            conn: Mutex::new(conn),
        })
    }

    /// An in-memory database, for unit tests.
    pub fn in_memory() -> Result<Self, SandboxError> {
        let mut conn = Connection::open_in_memory()?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        migrations()
            .to_latest(&mut conn)
            .map_err(|err| SandboxError::Internal(format!("migration failed: {err}")))?;
        Ok(Self {
            conn: Mutex::new(conn),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic mid-statement leaves SQLite consistent (the transaction rolls back), so a
        // poisoned lock is taken over.
        self.conn
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `work` with the connection.
    pub fn call<T>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, SandboxError>,
    ) -> Result<T, SandboxError> {
        work(&mut self.lock())
    }

    /// Runs `work` in one transaction: committed when it returns `Ok`, rolled back otherwise.
    pub fn transaction<T>(
        &self,
        work: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<T, SandboxError>,
    ) -> Result<T, SandboxError> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let value = work(&tx)?;
        tx.commit()?;
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid() {
        assert!(migrations().validate().is_ok());
    }
}
