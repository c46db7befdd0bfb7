//! The edge cache for content pages, products, collections, search results and the price map.

pub mod answer;
pub mod entry;
mod failure;
pub mod hit_ratio;
pub mod http;
pub mod key;
mod l2;
mod lookup;
pub mod policy;
mod recompress;
pub mod rendered;
pub mod status;
pub mod store;
pub mod tag;
mod versions;

pub use answer::CachedAnswer;
pub use entry::Fetched;
pub use failure::FetchFailure;
pub use key::normalise;
pub use lookup::Lookup;
pub use policy::{CacheConfig, CachePolicy, RouteKind};
pub use recompress::ShareAgain;
pub use rendered::{Epochs, Rendered};
pub use status::CacheState;
pub use store::EdgeCache;
pub use tag::CacheTag;
