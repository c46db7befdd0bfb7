//! The content service (Strapi-shaped): pages, products, product groups, search, and the price
//! map the commerce side publishes at `GET /Products`.

mod pages;
pub mod skus;

use std::sync::Arc;

use axum::Router;
use rusqlite::Transaction;

use crate::SandboxState;
use crate::error::SandboxError;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new().merge(pages::routes())
}

/// Seeds the sellable catalogue (skus, prices, stock) from the fixtures.
pub fn seed(_tx: &Transaction<'_>) -> Result<(), SandboxError> {
    Ok(())
}
