//! The catalogue answers: a product page, a collection, search results. Documentation only: the
//! handlers compose upstream JSON (camelCased content) with live prices as `serde_json::Value`
//! (`crate::catalogue::compose`), so these types are never built.
//!
//! The BFF's own keys are the sku figures (`price`, `finalPrice`, `discountPercentage`,
//! `inStock`), `noVariants` and `displayedSku`; everything else is the content service's,
//! passed through. Objects stay open to more keys: the content service may add fields.

use serde::Serialize;
use utoipa::ToSchema;

use super::content::{Breadcrumb, Image, MetaData, RichText};

/// The choice a sku makes for one option select (caliber, barrel length, color…).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkuVariant {
    pub id: i64,
    /// The option's slug: `6-5-creedmoor`.
    pub field_name: String,
    /// The option as shown: `6.5 Creedmoor`.
    pub label: String,
    pub product_variant_type: ProductVariantType,
}

/// One option select of a product; skus list theirs in the same order, the selects cascade.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductVariantType {
    /// The select's slug: `caliber`.
    pub title: String,
    /// The select's label: `Caliber`.
    pub display_title: String,
}

/// A sellable variant of a product, with its live figures.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductSku {
    pub id: i64,
    /// The sku code: `TF-SLR-65CM-24-BLK`.
    pub sku: String,
    /// The live price (the content's listed price when the price map does not know the sku).
    pub price: f64,
    /// What the shopper pays: the best discounted price if any, else `price`. 0 or less reads
    /// 'Coming Soon'.
    pub final_price: f64,
    /// Above 0 only when `finalPrice` is below `price`: '(N% off)'.
    pub discount_percentage: f64,
    /// Whether the commerce service sells it now; a sku it does not know is not in stock.
    pub in_stock: bool,
    /// One per option select, in the selects' order.
    pub variants: Vec<SkuVariant>,
    pub img_url: Image,
    pub image_library: Vec<Image>,
    pub description: String,
    /// Two-letter state codes this sku does not ship to.
    pub restricted_states: Vec<String>,
    /// Zip codes this sku does not ship to.
    pub restricted_zips: Vec<String>,
}

/// A color swatch.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ColorOption {
    /// The color's name.
    pub title: String,
    /// A CSS color: `#1f1f1f`.
    pub value: String,
}

/// A product another one is compatible with.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CompatibilityOption {
    pub id: i64,
    /// The product's title.
    pub label: String,
    /// The product's page, an in-app path.
    pub url: String,
}

/// A group of compatible products: Competition, Optics…
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CompatibilityGroup {
    pub id: i64,
    pub title: String,
    pub options: Vec<CompatibilityOption>,
}

/// A product's value in one of a collection's filter categories.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FilterTag {
    /// A collection filter category's `title`.
    pub filter_category: String,
    /// One of that category's option values.
    pub filter_value: String,
}

/// A product as collections, search results and related products show it, priced, showing its
/// cheapest sku. Field names follow the content service's collection endpoint (`filterOptions`,
/// `compatibility`), not the product page's.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductCard {
    pub id: i64,
    pub document_id: String,
    pub title: String,
    pub subtitle: String,
    /// The product's page, an in-app path: `/product/summit%20lr`.
    pub url: String,
    /// The product page's layout: `product-short-alt`, `product-short` or `product-long`; null:
    /// the default.
    #[schema(required)]
    pub display_type: Option<String>,
    pub img_url: Image,
    pub skus: Vec<ProductSku>,
    pub color_options: Vec<ColorOption>,
    /// The product's filter tags.
    pub filter_options: Vec<FilterTag>,
    /// The product's compatibility groups.
    pub compatibility: Vec<CompatibilityGroup>,
    /// Ships only to a licensed FFL dealer.
    pub ffl_item: bool,
    pub receiver_item: bool,
    /// Exactly one sku: no option selects.
    pub no_variants: bool,
    /// The sku shown before the shopper picks options: the one with the lowest final price
    /// (the first of equals); null for a product without skus.
    #[schema(required)]
    pub displayed_sku: Option<String>,
}

/// A label and a value: `Weight`, `9.4 lb`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TechSpec {
    pub label: String,
    pub value: String,
}

/// A titled list in a product's about section.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AboutDetail {
    pub title: String,
    pub list_items: Vec<String>,
}

/// A labelled link: the about section's 'read more'.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ReadMoreLink {
    pub label: String,
    /// Absolute URL (often a document).
    pub url: String,
}

/// A product's long-form about section.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductAbout {
    pub title: String,
    pub subtitle: String,
    pub summary: String,
    pub img_url: Image,
    pub details: Vec<AboutDetail>,
    pub tech_specs: Vec<TechSpec>,
    /// Patent numbers.
    pub patents: Vec<String>,
    pub disclaimer: String,
    pub read_more: ReadMoreLink,
}

/// An accessory offered beside the product, at its own price.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddOn {
    pub id: i64,
    pub field_name: String,
    pub label: String,
    /// As the content service lists it (not a live price).
    pub add_on_price: f64,
    pub image: Image,
}

/// A question and its answer on a product page.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MoreDetail {
    pub id: i64,
    pub question: String,
    pub answer: RichText,
}

/// A video card.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromoVideoCard {
    pub id: i64,
    pub title: String,
    pub image: Image,
    /// Absolute URL of the video page.
    pub video_url: String,
}

/// A product page's video section.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromoVideos {
    pub title: String,
    /// The highlighted part of the title.
    pub accent_title: String,
    pub cards: Vec<PromoVideoCard>,
}

/// `GET /api/products/{title}`: the product content with every sku priced, the first sku
/// displayed, and its related products as priced cards.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductPage {
    pub id: i64,
    pub document_id: String,
    /// The commerce product id: `TFA-1001`.
    pub product_id: String,
    pub title: String,
    pub subtitle: String,
    /// This page, an in-app path: `/product/summit%20lr`.
    pub url: String,
    /// The layout: `product-short-alt`, `product-short` or `product-long`; null: the default.
    #[schema(required)]
    pub display_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub breadcrumbs: Vec<Breadcrumb>,
    pub img_url: Image,
    pub image_library: Vec<Image>,
    pub description: RichText,
    pub tech_specs: Vec<TechSpec>,
    /// Null: no about section.
    #[schema(required)]
    pub about: Option<ProductAbout>,
    pub add_ons: Vec<AddOn>,
    pub more_details: Vec<MoreDetail>,
    /// Null: no video section.
    #[schema(required)]
    pub promo_videos: Option<PromoVideos>,
    pub color_options: Vec<ColorOption>,
    pub compatibility_options: Vec<CompatibilityGroup>,
    pub filter_tags: Vec<FilterTag>,
    /// Ships only to a licensed FFL dealer.
    pub ffl_item: bool,
    pub receiver_item: bool,
    pub skus: Vec<ProductSku>,
    /// Exactly one sku: no option selects.
    pub no_variants: bool,
    /// The sku shown before the shopper picks options: the first; null for a product without
    /// skus.
    #[schema(required)]
    pub displayed_sku: Option<String>,
    pub related_products: Vec<ProductCard>,
}

/// One option of a collection filter.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FilterOption {
    pub id: i64,
    pub value: String,
    /// For a category that depends on another: the parent option's value it belongs under.
    #[schema(required)]
    pub parent_value: Option<String>,
}

/// A collection's filter: products are matched by their `filterOptions`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FilterCategory {
    pub id: i64,
    pub title: String,
    /// Several options may be picked at once.
    pub multi: bool,
    /// The `title` of an earlier category whose choice narrows this one's options.
    #[schema(required)]
    pub depends_on: Option<String>,
    pub options: Vec<FilterOption>,
}

/// A promotional card among a collection's products.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromoCard {
    pub title: String,
    pub subtitle: String,
    pub image: Image,
    pub url: String,
    pub button_label: String,
}

/// `GET /api/collections/{title}`: the product group with its products as priced cards.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Collection {
    pub id: i64,
    pub document_id: String,
    pub title: String,
    pub subtitle: String,
    /// The layout: `collection-simple-grid`, `collection-tabbed-grid`, `collection-cards` or
    /// `collection-filterable-grid`; null: the default.
    #[schema(required)]
    pub display_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub meta_data: Option<MetaData>,
    pub background_image: Image,
    pub breadcrumbs: Vec<Breadcrumb>,
    pub filter_categories: Vec<FilterCategory>,
    pub promo_cards: Vec<PromoCard>,
    /// In the collection's order.
    pub products: Vec<ProductCard>,
}

/// `GET /api/search`: the matching products as priced cards, by title ignoring case. A search
/// that could not run answers no results (never an error page).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SearchResults {
    /// The query as searched: trimmed and lower-cased.
    pub query: String,
    pub results: Vec<ProductCard>,
}

/// The `q` query parameter's schema, with the bounds `crate::catalogue::query` enforces (after
/// trimming).
pub struct SearchText;

impl utoipa::PartialSchema for SearchText {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use crate::catalogue::query::{MAX_QUERY_CHARS, MIN_QUERY_CHARS};
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .min_length(Some(MIN_QUERY_CHARS))
            .max_length(Some(MAX_QUERY_CHARS))
            .into()
    }
}

impl ToSchema for SearchText {}
