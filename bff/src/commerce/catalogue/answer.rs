//! The catalogue's answers: a product page, a collection and search results, each the content
//! joined with live prices. These types are built for every answer and are the OpenAPI schemas.
//!
//! The BFF's own keys are typed here: the sku figures (`price`, `finalPrice`,
//! `discountPercentage`, `inStock`), `noVariants` and `displayedSku`, plus the fields the
//! composition reads (titles, sku codes, variants). Every other field is the content service's,
//! relayed from its `rest` map (see [`super::content`]); those are documented by the
//! `*Fields` schemas in [`super::fields`], which have no runtime type of their own.

use bytes::Bytes;
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::content::SkuVariant;
use super::fields::{CollectionFields, ProductCardFields, ProductPageFields, SkuFields};
use super::pricing::amount;
use crate::cache::{CachedAnswer, EdgeCache, Epochs, Lookup};

/// A sellable variant of a product, with its live figures.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductSku {
    /// The sku code: `TF-SLR-65CM-24-BLK`.
    pub sku: String,
    /// The live price (the content's listed price when the price map does not know the sku).
    #[serde(serialize_with = "amount")]
    pub price: f64,
    /// What the shopper pays: the best discounted price if any, else `price`. 0 or less reads
    /// 'Coming Soon'.
    #[serde(serialize_with = "amount")]
    pub final_price: f64,
    /// Above 0 only when `finalPrice` is below `price`: '(N% off)'.
    #[serde(serialize_with = "amount")]
    pub discount_percentage: f64,
    /// Whether the commerce service sells it now; a sku it does not know is not in stock.
    pub in_stock: bool,
    /// One per option select, in the selects' order.
    pub variants: Vec<SkuVariant>,
    /// The content service's other fields of the sku, relayed.
    #[serde(flatten)]
    #[schema(value_type = SkuFields)]
    pub content: Map<String, Value>,
}

/// A product as collections, search results and related products show it, priced, showing its
/// cheapest sku. Field names follow the content service's collection endpoint (`filterOptions`,
/// `compatibility`), not the product page's.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductCard {
    pub title: String,
    pub skus: Vec<ProductSku>,
    /// Exactly one sku: no option selects.
    pub no_variants: bool,
    /// The sku shown before the shopper picks options: the one with the lowest final price
    /// (the first of equals); null for a product without skus.
    #[schema(required)]
    pub displayed_sku: Option<String>,
    /// The content service's other fields of the product, relayed.
    #[serde(flatten)]
    #[schema(value_type = ProductCardFields)]
    pub content: Map<String, Value>,
}

/// `GET /api/products/{title}`: the product content with every sku priced, the first sku
/// displayed, and its related products as priced cards.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductPage {
    pub title: String,
    pub skus: Vec<ProductSku>,
    /// Exactly one sku: no option selects.
    pub no_variants: bool,
    /// The sku shown before the shopper picks options: the first; null for a product without
    /// skus.
    #[schema(required)]
    pub displayed_sku: Option<String>,
    pub related_products: Vec<ProductCard>,
    /// The content service's other fields of the product, relayed.
    #[serde(flatten)]
    #[schema(value_type = ProductPageFields)]
    pub content: Map<String, Value>,
}

/// `GET /api/collections/{title}`: the product group with its products as priced cards.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Collection {
    /// In the collection's order.
    pub products: Vec<ProductCard>,
    /// The content service's other fields of the group, relayed.
    #[serde(flatten)]
    #[schema(value_type = CollectionFields)]
    pub content: Map<String, Value>,
}

/// `GET /api/search`: the matching products as priced cards, by title ignoring case. A search
/// that could not run is a 503 `search_unavailable`, not an empty list.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SearchResults {
    /// The query as searched: trimmed and lower-cased.
    pub query: String,
    pub results: Vec<ProductCard>,
}

/// A catalogue answer, ready to be sent as a [`CachedAnswer`].
#[derive(Debug)]
pub enum Answer {
    /// A cache entry as it is: an unknown title's remembered 404.
    Cached(Lookup),
    /// A JSON body composed from cache entries (the content and the price map). With the
    /// cache's epochs read before the parts were looked up, it is remembered for the hit path
    /// when every part is fresh.
    Composed {
        parts: Vec<Lookup>,
        body: Bytes,
        epochs: Option<Epochs>,
    },
}

impl Answer {
    /// The answer as `cache` sends it (and remembers it, when the epochs were read).
    pub fn cached<'a>(&'a self, cache: &'a EdgeCache) -> CachedAnswer<'a> {
        match self {
            Self::Cached(lookup) => CachedAnswer::entry(lookup),
            Self::Composed {
                parts,
                body,
                epochs,
            } => {
                let answer = CachedAnswer::json(parts, body.clone());
                match epochs {
                    Some(epochs) => answer.remember(cache, *epochs),
                    None => answer,
                }
            }
        }
    }
}
