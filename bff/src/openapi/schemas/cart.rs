//! The cart as every `/api/cart` endpoint answers it: the commerce service's cart, relayed
//! without its guest token (see `routes::cart::for_browser`). Amounts are in dollars.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// A cart, guest or signed in. A visitor without a cart gets the empty guest cart (`id` null,
/// no items, every amount 0).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Cart {
    /// Null until the visitor's first cart write.
    #[schema(required = true)]
    pub id: Option<i64>,
    #[schema(required = true)]
    pub user_id: Option<i64>,
    pub is_abandoned: bool,
    pub is_guest: bool,
    pub items: Vec<CartItem>,
    /// Lines the stock cannot cover (shown beside the line; checkout refuses them).
    pub inventory_warnings: Vec<InventoryWarning>,
    pub sub_total: f64,
    pub tax_amount: f64,
    pub shipping: f64,
    pub discount_amount: f64,
    pub total_amount: f64,
    pub applied_discounts: Vec<AppliedDiscount>,
    #[schema(required = false)]
    pub promo_code: Option<String>,
    #[schema(required = false)]
    pub shipping_method_id: Option<i64>,
    /// The addresses and dealer of the last compute.
    #[schema(required = false)]
    pub shipping_address: Option<ComputeAddress>,
    #[schema(required = false)]
    pub billing_address: Option<ComputeAddress>,
    #[schema(required = false)]
    pub dealer_info: Option<DealerInfo>,
}

/// A cart line.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CartItem {
    pub id: i64,
    /// The sku code.
    pub product_id: String,
    #[schema(required = true)]
    pub yotpo_product_id: Option<String>,
    pub product_name: String,
    pub options: Vec<CartOption>,
    /// The option ids as the storefront sent them (opaque).
    pub option_ids: Value,
    /// The original unit price.
    pub price: f64,
    /// The unit price charged: the best discounted price, else the price.
    pub product_price: f64,
    pub quantity: i64,
    pub image_url: String,
    #[schema(required = true)]
    pub product_url: Option<String>,
    #[schema(required = true)]
    pub notes: Option<String>,
    #[schema(required = true)]
    pub build_id: Option<String>,
    /// Ships to a licensed dealer (checkout then needs the dealer fields).
    pub is_ffl_item: bool,
    pub is_receiver_item: bool,
    /// Two-letter codes of the states this item may not ship to.
    pub restricted_states: Vec<String>,
    /// Zip codes this item may not ship to.
    pub restricted_zips: Vec<String>,
}

/// A product option as the storefront shows it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CartOption {
    pub label: String,
    pub value: String,
}

/// A line the stock cannot cover.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InventoryWarning {
    #[schema(example = "OutOfStock")]
    /// `OutOfStock` or `InsufficientStock`.
    pub warning_type: String,
    pub cart_item_id: i64,
    pub product_id: String,
    pub product_name: String,
    pub message: String,
}

/// A promo code applied to the cart.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppliedDiscount {
    pub promo_code: String,
    pub discount_percentage: f64,
    pub discount_amount: f64,
    pub applied_to_cart_item_ids: Vec<i64>,
    /// The promotion's content: `{data: [{title, subtitle, promo_image: {url}, group1, group2}]}`.
    #[schema(required = true)]
    pub promotional_page_info: Option<Value>,
}

/// An address in the commerce service's compute shape (`region` is the full state name).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComputeAddress {
    #[schema(required = true)]
    pub line1: Option<String>,
    #[schema(required = true)]
    pub line2: Option<String>,
    #[schema(required = true)]
    pub city: Option<String>,
    #[schema(required = true)]
    pub region: Option<String>,
    #[schema(required = true)]
    pub postal_code: Option<String>,
    #[schema(required = true)]
    pub country: Option<String>,
}

/// The licensed dealer FFL items ship to.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DealerInfo {
    #[schema(required = true)]
    pub dealer_name: Option<String>,
    #[schema(required = true)]
    pub dealer_address: Option<String>,
    #[schema(required = true)]
    pub dealer_email: Option<String>,
    #[schema(required = true)]
    pub dealer_phone: Option<String>,
    #[schema(required = true)]
    pub dealer_city: Option<String>,
    #[schema(required = true)]
    pub dealer_state: Option<String>,
    #[schema(required = true)]
    pub dealer_zip: Option<String>,
    #[schema(required = true)]
    pub dealer_country: Option<String>,
}

/// A way to ship; a price of 0 is shown as Free.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShippingMethod {
    pub id: i64,
    pub name: String,
    pub price: f64,
}

/// `POST /api/cart/items`: a cart line. Prices, stock, FFL flags and restrictions are the
/// commerce service's to decide: whatever the browser sends for them is ignored.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewCartItem {
    /// The sku code.
    #[schema(min_length = 1, example = "TF-F9-BLK-STD-10RD")]
    pub product_id: String,
    /// Defaults to 1. Adding a line that already exists (same sku, options and name) adds to
    /// its quantity.
    #[schema(required = false, minimum = 1, maximum = 999, default = 1)]
    pub quantity: Option<i64>,
    #[schema(required = false)]
    pub product_name: Option<String>,
    #[schema(required = false)]
    pub options: Option<Vec<CartOption>>,
    #[schema(required = false)]
    pub option_ids: Option<Value>,
    /// A string or a number.
    #[schema(required = false)]
    pub yotpo_product_id: Option<Value>,
    #[schema(required = false)]
    pub image_url: Option<String>,
    #[schema(required = false)]
    pub product_url: Option<String>,
    #[schema(required = false)]
    pub notes: Option<String>,
    /// A string or a number.
    #[schema(required = false)]
    pub build_id: Option<Value>,
}
