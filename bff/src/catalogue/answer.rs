//! The HTTP answer for a body composed from several cache entries (content + price map).
//!
//! Transitional: the one builder of cached answers is
//! [`crate::cache::http::respond_composed`] (the same headers as a single cached answer, derived
//! from all the parts); callers use it through this name until they call it directly.

pub use crate::cache::http::respond_composed as respond;
