//! Live overrides of the cache policies, kept where every replica reads them: the store (Redis,
//! else the process, changed by compare-and-set) and this replica's reading of its version,
//! handed to the running parts. What an override may set and its versions are configuration
//! (`crate::config::overrides`).
//!
//! - [`store`]: where they are kept, changed by compare-and-set.
//! - [`live`]: this replica reading its version and handing it to the running parts.

pub mod live;
pub mod store;
