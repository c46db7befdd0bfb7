//! Catalogue composition: product content and live prices, joined in the BFF so each screen
//! (product page, collection, search results) needs one browser request.
//!
//! Pure logic only (the price rule, the displayed sku, `noVariants`, the title sort, the search
//! query's rules) plus the HTTP answer for a composed body; the routes in
//! `routes::catalogue` fetch the parts through the edge cache.

pub mod answer;
pub mod compose;
pub mod pricing;
pub mod query;

pub use compose::DisplayedSku;
pub use pricing::{LivePrice, PriceMap, SkuPricing};
