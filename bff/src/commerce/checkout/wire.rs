//! The checkout form on the wire: the flat JSON the browser posts to `POST /api/checkout` and
//! `POST /api/cart/compute`, field for field as the API documents it (`CheckoutForm`,
//! `DealerForm`, `MethodId` in the OpenAPI document, from which the web app's types are
//! generated).
//!
//! Only the shape lives here: every field as the JSON may carry it (absent and null read as
//! `None`). What the fields mean (trimmed text, the defaults, the method id as a number) is
//! `model`'s, reached through the one mapping in `from_wire`; the rules and their messages are
//! the model's too. Changing a name here changes the API.

use serde::{Deserialize, Serialize};

/// A shipping method id: a number, or a numeric string as form fields often are.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum MethodId {
    Number(i64),
    Text(String),
}

/// The dealer (FFL) form. Its rules apply when the cart holds FFL items.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DealerForm {
    pub dealer_name: Option<String>,
    pub dealer_address: Option<String>,
    pub dealer_email: Option<String>,
    pub dealer_phone: Option<String>,
    pub dealer_city: Option<String>,
    pub dealer_state: Option<String>,
    pub dealer_zip: Option<String>,
    pub dealer_country: Option<String>,
}

/// The billing and shipping form (spec section 3), the dealer form when the cart holds FFL
/// items, and (at checkout) the one-time payment token.
///
/// Every field may be absent in the document; the rules are checked server-side with the spec's
/// messages (422, `errors` per field): billing e-mail, names, address, city, a US state, a zip of
/// at least 5 characters, country US and `shippingMethodId` always; the shipping fields when
/// `shippingSameAsBilling` is false; every `dealerInfo` field (phone a US number) when the cart
/// holds FFL items. Card number or card code fields are refused: send `paymentToken` only.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckoutForm {
    pub email: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub company: Option<String>,
    pub main_contact: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip: Option<String>,
    pub country: Option<String>,
    pub shipping_first_name: Option<String>,
    pub shipping_last_name: Option<String>,
    pub shipping_company: Option<String>,
    pub address_contact: Option<String>,
    pub shipping_address: Option<String>,
    pub shipping_city: Option<String>,
    pub shipping_state: Option<String>,
    pub shipping_zip: Option<String>,
    pub shipping_country: Option<String>,
    pub opt_in_newsletter: Option<bool>,
    pub shipping_same_as_billing: Option<bool>,
    pub shipping_method_id: Option<MethodId>,
    pub dealer_info: Option<DealerForm>,
    pub payment_token: Option<String>,
}
