//! The orders as the account's profile and `GET /api/orders/{id}` relay them. The profile,
//! addresses, newsletter and LE/MIL answers are runtime types of `commerce::account`.

use serde::Serialize;
use utoipa::ToSchema;

use super::cart::DealerInfo;

/// An order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Order {
    pub id: i64,
    pub status: String,
    pub created_at: String,
    pub user_email: String,
    pub is_guest_order: bool,
    #[schema(required = true)]
    pub customer_name: Option<String>,
    #[schema(required = true)]
    pub company: Option<String>,
    #[schema(required = true)]
    pub customer_phone: Option<String>,
    #[schema(required = true)]
    pub billing_address: Option<String>,
    #[schema(required = true)]
    pub billing_city: Option<String>,
    #[schema(required = true)]
    pub billing_state: Option<String>,
    #[schema(required = true)]
    pub billing_zip_code: Option<String>,
    #[schema(required = true)]
    pub billing_country: Option<String>,
    #[schema(required = true)]
    pub shipping_name: Option<String>,
    #[schema(required = true)]
    pub shipping_first_name: Option<String>,
    #[schema(required = true)]
    pub shipping_last_name: Option<String>,
    #[schema(required = true)]
    pub shipping_company: Option<String>,
    #[schema(required = true)]
    pub shipping_phone: Option<String>,
    #[schema(required = true)]
    pub address: Option<String>,
    #[schema(required = true)]
    pub city: Option<String>,
    #[schema(required = true)]
    pub state: Option<String>,
    #[schema(required = true)]
    pub zip_code: Option<String>,
    #[schema(required = true)]
    pub country: Option<String>,
    /// The dealer: every field null when the order has no FFL items.
    #[serde(flatten)]
    pub dealer: DealerInfo,
    #[schema(required = true)]
    pub shipping_method_id: Option<i64>,
    #[schema(required = true)]
    pub shipping_method_name: Option<String>,
    pub payment_method: PaymentMethod,
    pub items: Vec<OrderItem>,
    pub subtotal: f64,
    pub shipping_cost: f64,
    pub discount_amount: f64,
    pub tax_amount: f64,
    pub total_amount: f64,
}

/// The card an order was paid with, as far as it may be shown.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentMethod {
    pub card_brand: String,
    pub last4: String,
}

/// An order line.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderItem {
    pub id: i64,
    pub product_id: String,
    pub product_name: String,
    #[schema(required = true)]
    pub product_url: Option<String>,
    #[schema(required = true)]
    pub image_url: Option<String>,
    /// The option values, as the confirmation page lists them.
    pub options: Vec<String>,
    pub unit_price: f64,
    pub quantity: i64,
    /// Unit price times quantity.
    pub price: f64,
    pub is_ffl_item: bool,
}
