//! The edge cache for content pages, products, collections, search results and the price map.

pub mod entry;
pub mod http;
pub mod key;
mod l2;
pub mod policy;
pub mod rendered;
pub mod status;
pub mod store;
pub mod tag;

pub use entry::Fetched;
pub use http::CachedAnswer;
pub use key::normalise;
pub use policy::{CacheConfig, CachePolicy, RouteKind};
pub use rendered::{Epochs, Rendered};
pub use status::CacheState;
pub use store::{EdgeCache, FetchFailure, Lookup};
pub use tag::CacheTag;
