//! The content service's fields of the catalogue answers, relayed as they are (camelCased).
//! Documentation only: the answer types ([`super::answer`]: `ProductPage`,
//! `ProductCard`, `ProductSku`, `Collection`, `SearchResults`) type the BFF's own keys and the
//! fields the composition reads, and carry these in a map (`#[serde(flatten)]`, documented as the
//! `*Fields` schemas below), so these types are never built.
//!
//! Objects stay open to more keys: the content service may add fields.

use serde::Serialize;
use utoipa::ToSchema;

use crate::content::page_shapes::{Breadcrumb, Image, MetaData, RichText};

/// The content service's fields of a sku (`ProductSku`), relayed.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkuFields {
    pub id: i64,
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

/// The content service's fields of a product card (`ProductCard`), relayed. Field names follow
/// the content service's collection endpoint (`filterOptions`, `compatibility`), not the product
/// page's.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductCardFields {
    pub id: i64,
    pub document_id: String,
    pub subtitle: String,
    /// The product's page, an in-app path: `/product/summit%20lr`.
    pub url: String,
    /// The product page's layout: `product-short-alt`, `product-short` or `product-long`; null:
    /// the default.
    #[schema(required)]
    pub display_type: Option<String>,
    pub img_url: Image,
    pub color_options: Vec<ColorOption>,
    /// The product's filter tags.
    pub filter_options: Vec<FilterTag>,
    /// The product's compatibility groups.
    pub compatibility: Vec<CompatibilityGroup>,
    /// Ships only to a licensed FFL dealer.
    pub ffl_item: bool,
    pub receiver_item: bool,
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

/// The content service's fields of a product page (`ProductPage`), relayed.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductPageFields {
    pub id: i64,
    pub document_id: String,
    /// The commerce product id: `TFA-1001`.
    pub product_id: String,
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

/// The content service's fields of a product group (`Collection`), relayed.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionFields {
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
}
