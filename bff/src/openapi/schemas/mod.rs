//! Schemas of answers the BFF relays or composes from upstream JSON, for the OpenAPI document.
pub mod account;
pub mod cart;
pub mod catalogue;
pub mod checkout;
pub mod content;
pub mod dealers;
pub mod public_config;
