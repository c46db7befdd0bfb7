//! The commerce service as this API uses it: one typed service per domain (cart, checkout,
//! account, auth, forms, orders), each owning its upstream paths, the guest-or-user choice, the
//! reshaping of answers and its domain errors. Handlers extract a [`Shopper`], call a service
//! and respond.

pub mod account;
pub mod auth;
pub mod cart;
pub mod catalogue;
pub mod checkout;
pub mod forms;
mod message;
pub mod orders;
mod shopper;
#[cfg(test)]
mod testing;

pub use message::MessageAnswer;
pub use shopper::{Gateway, Shopper};
