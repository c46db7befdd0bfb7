//! The operators' side of the BFF: named, scoped admin tokens ([`tokens`], [`access`]), the
//! audit log of admin actions ([`audit`]) and the `bff admin` command line ([`cli`]), which
//! calls the admin API over HTTP. The admin routes themselves are in
//! [`crate::routes::admin`].

pub mod access;
pub mod audit;
pub mod cli;
pub mod identity;
pub mod scope;
pub mod tokens;
