//! The cart as the commerce service answers it and as every `/api/cart` endpoint answers it: one
//! set of types for both, read tolerantly (unknown upstream fields are dropped, so the guest
//! token a cart carries upstream never reaches the browser). Amounts are in dollars.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use validator::{Validate, ValidationError};

/// A cart, guest or signed in. A visitor without a cart gets the empty guest cart (`id` null,
/// no items, every amount 0).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
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

impl Cart {
    /// The specs' default: a guest cart with no items and all amounts 0.
    pub fn empty() -> Self {
        Self {
            id: None,
            user_id: None,
            is_abandoned: false,
            is_guest: true,
            items: Vec::new(),
            inventory_warnings: Vec::new(),
            sub_total: 0.0,
            tax_amount: 0.0,
            shipping: 0.0,
            discount_amount: 0.0,
            total_amount: 0.0,
            applied_discounts: Vec::new(),
            promo_code: None,
            shipping_method_id: None,
            shipping_address: None,
            billing_address: None,
            dealer_info: None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether the cart holds FFL items (checkout then needs the dealer form).
    pub fn has_ffl_items(&self) -> bool {
        self.items.iter().any(|item| item.is_ffl_item)
    }

    /// Whether every item of a non-empty cart is an FFL item.
    pub fn all_ffl_items(&self) -> bool {
        !self.is_empty() && self.items.iter().all(|item| item.is_ffl_item)
    }
}

/// A cart line.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
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
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CartOption {
    pub label: String,
    pub value: String,
}

/// A line the stock cannot cover.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
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
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AppliedDiscount {
    pub promo_code: String,
    pub discount_percentage: f64,
    pub discount_amount: f64,
    pub applied_to_cart_item_ids: Vec<i64>,
    /// The promotion page that comes with the code, if any.
    #[schema(required = true)]
    pub promotional_page_info: Option<PromotionalPageInfo>,
}

/// A promotion page: content-service text embedded in the commerce answer. Every part of it is
/// optional, so a gap in the content never breaks the cart that carries it.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromotionalPageInfo {
    /// The promotion modal shows the first page.
    #[serde(default)]
    #[schema(required = true)]
    pub data: Vec<PromotionalPage>,
}

/// One promotion page: a title, an image and two groups of products to shop.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromotionalPage {
    #[schema(required = true)]
    pub title: Option<String>,
    #[schema(required = true)]
    pub subtitle: Option<String>,
    /// Named `promo_image` by the content service; answered as `promoImage`.
    #[serde(alias = "promo_image")]
    #[schema(required = true)]
    pub promo_image: Option<PromotionImage>,
    #[schema(required = true)]
    pub group1: Option<PromotionGroup>,
    #[schema(required = true)]
    pub group2: Option<PromotionGroup>,
}

/// The promotion's image.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromotionImage {
    #[schema(required = true)]
    pub url: Option<String>,
    #[schema(required = true)]
    pub alternative_text: Option<String>,
}

/// A group of products a promotion suggests.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromotionGroup {
    #[schema(required = true)]
    pub title: Option<String>,
    #[serde(default)]
    #[schema(required = true)]
    pub products: Vec<PromotionProduct>,
}

/// A product of a promotion group, with its skus' live prices.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromotionProduct {
    #[schema(required = true)]
    pub title: Option<String>,
    #[serde(default)]
    #[schema(required = true)]
    pub skus: Vec<PromotionSku>,
}

/// A sku of a promoted product, priced now.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromotionSku {
    /// The sku code.
    pub sku: String,
    #[schema(required = true)]
    pub price: Option<f64>,
    /// The best discounted price, else the price.
    #[schema(required = true)]
    pub final_price: Option<f64>,
    #[schema(required = true)]
    pub discount_percentage: Option<f64>,
    #[schema(required = true)]
    pub in_stock: Option<bool>,
}

/// An address in the commerce service's compute shape (`region` is the full state name).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
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
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShippingMethod {
    pub id: i64,
    pub name: String,
    pub price: f64,
}

/// `POST /api/cart/items`: a cart line. Prices, stock, FFL flags and restrictions are the
/// commerce service's to decide, and what the line shows (name, URL, image, option pairs) is the
/// catalogue's: the browser chooses the sku, the quantity and the add-ons, and its product URL and
/// name only say where in the catalogue to look (see `commerce::cart::CheckedLine`).
#[derive(Debug, Clone, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewCartItem {
    /// The sku code.
    #[serde(default)]
    #[schema(required = true, min_length = 1, example = "TF-F9-BLK-STD-10RD")]
    #[validate(length(min = 1, message = "Product is required"))]
    pub product_id: String,
    /// Defaults to 1. Adding a line that already exists (same sku, options and name) adds to
    /// its quantity.
    #[serde(default = "one")]
    #[schema(required = false, minimum = 1, maximum = 999, default = 1)]
    #[validate(range(min = 1, max = 999, message = "Quantity must be between 1 and 999"))]
    pub quantity: i64,
    /// Where to look the product up (its title); the line gets the catalogue's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, max_length = 200)]
    #[validate(length(max = 200, message = "Product name is too long"))]
    pub product_name: Option<String>,
    /// The option pairs as the product page shows them. The line gets the sku's own pairs, plus
    /// the `Add-Ons` pair reduced to add-ons the product offers.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false)]
    pub options: Option<Vec<CartOption>>,
    /// Ignored: the line gets the sku's variant ids.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false)]
    pub option_ids: Option<Value>,
    /// Ignored: the line gets the catalogue's product id. A string or a number.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false)]
    pub yotpo_product_id: Option<Value>,
    /// Ignored: the line gets the catalogue's image of the sku.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false)]
    pub image_url: Option<String>,
    /// Where to look the product up (`/product/{title}`); the line gets the catalogue's URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, max_length = 500)]
    #[validate(length(max = 500, message = "Product URL is too long"))]
    pub product_url: Option<String>,
    /// Ignored (no screen shows or edits notes; the web sends null).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false)]
    pub notes: Option<String>,
    /// Ignored (the specs' payload sends null). A string or a number.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false)]
    pub build_id: Option<Value>,
}

fn one() -> i64 {
    1
}

/// `PUT /api/cart/items/{id}`: a line's new quantity.
#[derive(Debug, Clone, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuantityUpdate {
    /// The new quantity; 0 removes the line.
    #[schema(required = true, minimum = 0, maximum = 999)]
    #[validate(
        required(message = "Quantity is required"),
        range(min = 0, max = 999, message = "Quantity must be between 0 and 999")
    )]
    pub quantity: Option<i64>,
}

/// `POST /api/cart/promo-code`: a discount code.
#[derive(Debug, Clone, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromoCode {
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(custom(function = "promo_required"))]
    pub promo_code: String,
}

fn promo_required(code: &str) -> Result<(), ValidationError> {
    if code.trim().is_empty() {
        return Err(ValidationError::new("required").with_message("Promo code is required".into()));
    }
    Ok(())
}
