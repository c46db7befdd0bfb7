//! The catalogue service: product pages, collections and search, each the content service's
//! answer joined with live prices from the commerce service, so each screen needs one browser
//! request.
//!
//! - [`Catalogue`] (`service`): the cache lookups of the parts, the upstream paths, and the
//!   composition into one [`Answer`]; the routes in `routes::catalogue` only extract and respond.
//! - `content`: the content service's shapes (the upstream contract, checked at fetch time).
//! - `pricing`: the commerce price map and the specs' price rule.
//! - `compose`: content + prices → the answer types of `answer` (also the OpenAPI schemas).
//! - `fields`: the content service's fields the answers relay, documented (never built).
//! - `query`: the search query's rules.
//!
//! Caching: the parts are cached, not the composition. The content (product, group, search
//! results; camelCased) and the price map are separate cache entries with their own policies
//! (content for minutes, prices for seconds) and tags, and every request composes from the two.
//! A cached composition would live by the content's ttl and serve prices older than the price
//! map's policy allows; composing per request keeps each part's freshness, purges and stale
//! windows exactly as configured, at the cost of one decode and one encode when both parts are
//! hot (two in-memory lookups, no upstream call). The two lookups run concurrently, so a miss
//! or a slow revalidation of both costs one wait, not two in series. Unknown titles answer the
//! content entry's own cached 404, whatever the price map lookup gave.

pub mod answer;
pub mod compose;
pub mod content;
pub mod fields;
pub mod pricing;
pub mod query;
mod service;

pub use answer::Answer;
pub use compose::DisplayedSku;
pub use pricing::{LivePrice, PriceMap, SkuPricing};
pub use query::SearchQuery;
pub use service::PRICE_MAP_KEY;

use crate::content::Content;
use crate::upstream::Upstream;

/// What the catalogue needs: the content service and the edge cache ([`Content`]), and the
/// commerce service for the price map.
#[derive(Debug, Clone)]
pub struct Catalogue {
    pub content: Content,
    pub commerce: Upstream,
}
