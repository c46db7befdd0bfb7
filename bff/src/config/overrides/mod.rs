//! Live overrides of the cache policies (`[cache.<route>]`'s ttl, stale windows, negative ttl
//! and entry size): a layer over the file and the environment (precedence default < file <
//! environment < override), changed through the admin API without a deploy, versioned, with a
//! canary, rollback, expiry and an export as a TOML patch. Kept in the coordination tier so
//! every replica (a restarted one included) runs them; without Redis, in the process.
//!
//! - [`layer`]: the keys and values an override may set, diffs, drift and the TOML patch.
//! - [`versions`]: the versions and their transitions (set, promote, rollback, expire).
//!
//! Where they are kept (Redis, else the process) and how a replica reads its version are the
//! operators' side's: `crate::admin::overrides`.

pub mod layer;
pub mod versions;
