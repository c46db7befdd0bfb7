//! The commerce service (.NET-shaped): auth, users, carts, checkout, orders, newsletter, forms.

mod auth;
mod cart;
mod checkout;
mod forms;
mod military;
mod newsletter;
mod orders;
pub mod passwords;
pub mod seed;
mod shop;
pub mod tokens;
mod users;

use std::sync::Arc;

use axum::Router;

use crate::SandboxState;

pub use seed::seed;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
        .merge(auth::routes())
        .merge(users::routes())
        .merge(newsletter::routes())
        .merge(forms::routes())
        .merge(military::routes())
        .merge(cart::routes())
        .merge(checkout::routes())
        .merge(orders::routes())
}
