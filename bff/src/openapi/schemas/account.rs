//! The account area's answers: the commerce service's profile, addresses and orders, relayed
//! (tokens and password fields removed), and the newsletter and LE/MIL verification answers.

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::commerce::orders::Order;

/// The signed-in user's profile with the address book, orders, favorites and builds.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub id: i64,
    pub first_name: String,
    pub last_name: String,
    pub full_name: String,
    pub email: String,
    #[schema(required = true)]
    pub phone_number: Option<String>,
    /// None, Pending, Rejected or Verified.
    pub military_status: String,
    /// None, Pending, Rejected or Approved.
    pub pro_deal_status: String,
    pub is_subscribed_to_newsletter: bool,
    pub is_email_verified: bool,
    pub created_at: String,
    pub addresses: Vec<StoredAddress>,
    /// Newest first, each as `GET /api/orders/{id}` answers it.
    pub orders: Vec<Order>,
    /// Saved products (opaque objects the storefront stored).
    pub favorites: Vec<Value>,
    /// Saved builds (opaque objects the storefront stored).
    pub builds: Vec<Value>,
}

/// An address of the address book, as stored.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoredAddress {
    pub id: i64,
    pub first_name: String,
    pub last_name: String,
    #[schema(required = true)]
    pub company: Option<String>,
    /// The phone number.
    pub main_contact: String,
    #[schema(required = true)]
    pub fax_contact: Option<String>,
    pub address_name: String,
    #[schema(required = true)]
    pub address_contact: Option<String>,
    pub address_type: i64,
    pub is_default_shipping: bool,
    pub is_default_billing: bool,
    pub address_line1: String,
    #[schema(required = true)]
    pub address_line2: Option<String>,
    pub city: String,
    pub state: String,
    pub postal_code: String,
    pub country: String,
    pub residential: bool,
}

/// An address's newsletter subscription.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewsletterStatus {
    pub email: String,
    pub is_subscribed: bool,
    pub is_verified: bool,
}

/// Where to send the shopper to verify LE/MIL status (a popup).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MilitarySession {
    #[schema(required = true)]
    pub authorization_url: Option<String>,
}

/// The outcome of LE/MIL verification.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MilitaryOutcome {
    #[schema(required = true)]
    pub message: Option<String>,
    /// None, Pending, Rejected or Verified.
    #[schema(required = true)]
    pub military_status: Option<String>,
}
