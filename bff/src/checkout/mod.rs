//! Checkout: the billing, shipping and dealer forms with the spec's rules, the upstream payloads
//! built from them, and single-flight idempotency for placing orders.

pub mod form;
pub mod idempotency;
pub mod settled;
pub mod shared_keys;
pub mod states;
