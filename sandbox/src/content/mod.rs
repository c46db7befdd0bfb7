//! The content service (Strapi-shaped): pages, products, product groups, search, and the price
//! map the commerce side publishes at `GET /Products`.

pub mod catalogue;
mod pages;
mod products;
pub mod skus;
mod strapi;

use std::sync::Arc;

use axum::Router;
use rusqlite::Transaction;

use crate::SandboxState;
use crate::error::SandboxError;

pub use strapi::{fill_media, with_media};

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
        .merge(pages::routes())
        .merge(products::routes())
}

/// Seeds the sellable catalogue (skus, prices, stock) from the fixtures.
pub fn seed(tx: &Transaction<'_>) -> Result<(), SandboxError> {
    for product in catalogue::catalogue()?.products() {
        for sku in &product.skus {
            skus::insert(tx, sku)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    #[test]
    fn seeding_writes_every_sku() {
        let db = Db::in_memory().unwrap();
        db.transaction(seed).unwrap();
        let rows = db.call(|conn| skus::all(conn)).unwrap();
        let expected: usize = catalogue::catalogue()
            .unwrap()
            .products()
            .iter()
            .map(|p| p.skus.len())
            .sum();
        assert_eq!(rows.len(), expected);
        let vanguard = rows.iter().find(|s| s.code.starts_with("TF-V15-")).unwrap();
        assert_eq!(vanguard.restricted_states, ["CA", "NY", "MA"]);
        assert!(rows.iter().any(|s| s.price_cents == 0));
        assert!(rows.iter().any(|s| s.stock == 0));
        assert!(rows.iter().any(|s| s.receiver_item));
        assert!(rows.iter().any(|s| !s.restricted_zips.is_empty()));
    }
}
