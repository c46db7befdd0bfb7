//! The edge cache for content pages, products, collections, search results and the price map.

pub mod answer;
pub mod entry;
pub mod entry_state;
pub mod explain;
pub mod explain_fanout;
pub mod explain_purges;
mod failure;
pub mod fleet;
pub mod hit_counter;
pub mod hit_fold;
pub mod hit_ratio;
pub mod http;
pub mod key;
mod l2;
mod local_versions;
mod lookup;
pub mod miss_reason;
pub mod purge_fanout;
pub mod purge_receipt;
pub mod recent_purges;
mod recompress;
pub mod redact;
pub mod rendered;
mod soft_purge;
pub mod status;
pub mod store;
pub mod tag;
pub mod tombstones;
pub mod top_lists;
mod versions;

/// The routes' policies are configuration (`[cache.<route>]`); the cache reads them by this name.
pub use crate::config::cache as policy;
pub use crate::config::{CacheConfig, CachePolicy, RouteKind};
pub use answer::{AnswerParts, CachedAnswer};
pub use entry::Fetched;
pub use entry_state::EntryState;
pub use failure::FetchFailure;
pub use key::normalise;
pub use lookup::Lookup;
pub use miss_reason::MissReason;
pub use recompress::ShareAgain;
pub use rendered::{Epochs, Rendered};
pub use status::CacheState;
pub use store::EdgeCache;
pub use tag::CacheTag;
pub use top_lists::TopLists;
