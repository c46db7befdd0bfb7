//! The operators' side of the BFF: named, scoped admin tokens ([`tokens`], [`access`]), the
//! audit log of admin actions ([`audit`]) and the `bff admin` command line ([`cli`]), which
//! calls the admin API over HTTP. The admin routes themselves are in
//! [`crate::routes::admin`].

pub mod access;
pub mod audit;
pub mod cli;
pub mod overrides;

/// The tokens file is configuration (a secret, loaded with the others at start-up and on
/// reload): its types live in `crate::config::admin_tokens`, read here by their old names.
pub use crate::config::admin_tokens::{self as tokens, identity, scope};
