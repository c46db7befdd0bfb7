//! Schemas of answers the BFF relays or composes from upstream JSON, for the OpenAPI document.
pub mod catalogue;
pub mod dealers;
