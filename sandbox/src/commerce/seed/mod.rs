//! Demo data of the commerce side, written once at first start (and after `--reset`).

mod accounts;
mod shop;

use rusqlite::Transaction;

use crate::error::SandboxError;

/// Seeds the demo accounts (accounts.rs), and the shipping methods, tax rates and promo codes
/// (shop.rs).
pub fn seed(tx: &Transaction<'_>) -> Result<(), SandboxError> {
    accounts::seed(tx)?;
    shop::seed(tx)
}
