//! The commerce service (.NET-shaped): auth, users, carts, checkout, orders, newsletter, forms.

use std::sync::Arc;

use axum::Router;
use rusqlite::Transaction;

use crate::SandboxState;
use crate::error::SandboxError;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
}

/// Seeds the demo accounts, promo codes and shipping methods.
pub fn seed(_tx: &Transaction<'_>) -> Result<(), SandboxError> {
    Ok(())
}
