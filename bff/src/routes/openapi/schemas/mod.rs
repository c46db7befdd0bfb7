//! Schemas with no runtime type of their own, for the OpenAPI document.
pub mod dealers;
