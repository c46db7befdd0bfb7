//! The checkout forms as the browser sends them, their rules (spec section 5, messages word for
//! word, one per field: the first failing rule's), and the upstream's compute and checkout
//! payloads built from them.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use validator::{Validate, ValidateArgs, ValidationError, ValidationErrors};

use super::states;
use crate::commerce::cart::Cart;
use crate::http::error::ApiError;
use crate::http::validation::{field_errors, rules};

const REQUIRED: &str = "Required";
const SHORT_ZIP: &str = "Zip code must be at least 5 digits";
const BAD_STATE: &str = "Must be a US state";
const BAD_COUNTRY: &str = "Only United States addresses are supported";
const NO_DEALER: &str = "FFL items must ship to a licensed dealer: dealer information is required";

/// A form's text field: trimmed, and empty when absent or null.
fn trimmed<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = Option::<String>::deserialize(deserializer)?;
    Ok(text.map(|text| text.trim().to_owned()).unwrap_or_default())
}

/// A shipping method id: a number, or a numeric string as form fields often are.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum MethodId {
    Number(i64),
    Text(String),
}

impl MethodId {
    fn value(&self) -> Option<i64> {
        match self {
            Self::Number(id) => Some(*id),
            Self::Text(text) => text.trim().parse().ok(),
        }
    }
}

/// The dealer (FFL) form. Its rules apply when the cart holds FFL items.
#[derive(Debug, Clone, Default, Deserialize, Validate, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DealerForm {
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "required"))]
    pub dealer_name: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "required"))]
    pub dealer_address: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "email_address"))]
    pub dealer_email: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "phone"))]
    pub dealer_phone: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "required"))]
    pub dealer_city: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "us_state"))]
    pub dealer_state: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "zip"))]
    pub dealer_zip: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "us_country"))]
    pub dealer_country: String,
}

/// The billing and shipping form (spec section 3), the dealer form when the cart holds FFL
/// items, and (at checkout) the one-time payment token.
///
/// Every field may be absent in the document; the rules are checked server-side with the spec's
/// messages (422, `errors` per field): billing e-mail, names, address, city, a US state, a zip of
/// at least 5 characters, country US and `shippingMethodId` always; the shipping fields when
/// `shippingSameAsBilling` is false; every `dealerInfo` field (phone a US number) when the cart
/// holds FFL items. Card number or card code fields are refused: send `paymentToken` only.
#[derive(Debug, Clone, Default, Deserialize, Validate, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[validate(context = Requirements)]
pub struct CheckoutForm {
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "email_address"))]
    pub email: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "required"))]
    pub first_name: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "required"))]
    pub last_name: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    pub company: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    pub main_contact: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "required"))]
    pub address: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "required"))]
    pub city: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "us_state"))]
    pub state: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "zip"))]
    pub zip: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "us_country"))]
    pub country: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "shipping_required", use_context))]
    pub shipping_first_name: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "shipping_required", use_context))]
    pub shipping_last_name: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    pub shipping_company: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    pub address_contact: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "shipping_required", use_context))]
    pub shipping_address: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "shipping_required", use_context))]
    pub shipping_city: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "shipping_state", use_context))]
    pub shipping_state: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "shipping_zip", use_context))]
    pub shipping_zip: String,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "shipping_country", use_context))]
    pub shipping_country: String,
    pub opt_in_newsletter: Option<bool>,
    pub shipping_same_as_billing: Option<bool>,
    #[validate(required(message = "Required"), custom(function = "method_id"))]
    pub shipping_method_id: Option<MethodId>,
    pub dealer_info: Option<DealerForm>,
    #[serde(default, deserialize_with = "trimmed")]
    #[schema(value_type = Option<String>)]
    #[validate(custom(function = "required"))]
    pub payment_token: String,
}

/// What an order needs of the form beyond the billing fields (spec section 5).
pub struct Requirements {
    /// Shipping differs from billing: the shipping fields are required.
    shipping: bool,
}

fn failure(code: &'static str, message: &'static str) -> ValidationError {
    ValidationError::new(code).with_message(message.into())
}

fn required(value: &str) -> Result<(), ValidationError> {
    if value.is_empty() {
        return Err(failure("required", REQUIRED));
    }
    Ok(())
}

fn email_address(value: &str) -> Result<(), ValidationError> {
    required(value).and_then(|()| rules::email(value))
}

fn phone(value: &str) -> Result<(), ValidationError> {
    required(value).and_then(|()| rules::us_phone(value))
}

fn zip(value: &str) -> Result<(), ValidationError> {
    required(value)?;
    if value.chars().count() < 5 {
        return Err(failure("zip", SHORT_ZIP));
    }
    Ok(())
}

fn us_state(value: &str) -> Result<(), ValidationError> {
    required(value).and_then(|()| us_state_if_given(value))
}

/// Empty, or a US state by code or full name.
fn us_state_if_given(value: &str) -> Result<(), ValidationError> {
    if !value.is_empty() && states::code(value).is_none() {
        return Err(failure("state", BAD_STATE));
    }
    Ok(())
}

fn us_country(value: &str) -> Result<(), ValidationError> {
    required(value)?;
    let us = ["united states", "us", "usa", "united states of america"];
    if !us.iter().any(|name| name.eq_ignore_ascii_case(value)) {
        return Err(failure("country", BAD_COUNTRY));
    }
    Ok(())
}

fn method_id(id: &MethodId) -> Result<(), ValidationError> {
    id.value()
        .map(drop)
        .ok_or_else(|| failure("required", REQUIRED))
}

/// `rule` for a shipping field, which only an order shipping elsewhere than billing needs.
fn when_shipping(
    value: &str,
    requirements: &Requirements,
    rule: fn(&str) -> Result<(), ValidationError>,
) -> Result<(), ValidationError> {
    if requirements.shipping {
        rule(value)
    } else {
        Ok(())
    }
}

fn shipping_required(value: &str, requirements: &Requirements) -> Result<(), ValidationError> {
    when_shipping(value, requirements, required)
}

fn shipping_state(value: &str, requirements: &Requirements) -> Result<(), ValidationError> {
    when_shipping(value, requirements, us_state)
}

fn shipping_zip(value: &str, requirements: &Requirements) -> Result<(), ValidationError> {
    when_shipping(value, requirements, zip)
}

fn shipping_country(value: &str, requirements: &Requirements) -> Result<(), ValidationError> {
    when_shipping(value, requirements, us_country)
}

impl CheckoutForm {
    pub fn same_as_billing(&self) -> bool {
        self.shipping_same_as_billing.unwrap_or(true)
    }

    pub fn method_id(&self) -> Option<i64> {
        self.shipping_method_id.as_ref().and_then(MethodId::value)
    }

    pub fn opted_in(&self) -> bool {
        self.opt_in_newsletter.unwrap_or(false)
    }

    /// The rules of spec section 5 for an order from a cart that `has_ffl` items (then the
    /// dealer form is required): 422 with one message per field.
    pub fn check(&self, has_ffl: bool) -> Result<(), ApiError> {
        let requirements = Requirements {
            shipping: !self.same_as_billing(),
        };
        let mut errors = self
            .validate_with_args(&requirements)
            .err()
            .unwrap_or_default();
        if has_ffl {
            let dealer = self.dealer_info.clone().unwrap_or_default();
            errors.merge_self("dealer_info", dealer.validate());
            if self.dealer_info.is_none() {
                // Beside the dealer's fields (`dealerInfo.…`), the form as a whole is missing.
                errors.add("dealerInfo", failure("required", NO_DEALER));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Validation(field_errors(&errors)))
        }
    }

    /// The state and zip the order ships to: shipping, or billing when the same.
    fn destination(&self) -> (&str, &str) {
        if self.same_as_billing() {
            (&self.state, &self.zip)
        } else {
            (&self.shipping_state, &self.shipping_zip)
        }
    }

    /// The upstream checkout payload (spec section 7): `customerInfo` is the billing form plus
    /// `name` and `shippingName` (first and last joined) without the separate names; the dealer
    /// only when the cart holds FFL items.
    pub fn order_payload<'a>(&'a self, cart: &Cart) -> OrderPayload<'a> {
        let join = |first: &str, last: &str| format!("{first} {last}").trim().to_owned();
        let name = join(&self.first_name, &self.last_name);
        let same = self.same_as_billing();
        // When shipping matches billing (and the cart is not all FFL) the shipping fields are
        // the billing ones.
        let copy = same && !cart.all_ffl_items();
        let pick = |shipping: &'a str, billing: &'a str| if copy { billing } else { shipping };
        let shipping_name = if copy {
            name.clone()
        } else {
            join(&self.shipping_first_name, &self.shipping_last_name)
        };
        let dealer = self
            .dealer_info
            .as_ref()
            .filter(|_| cart.has_ffl_items())
            .map(|dealer| OrderDealer {
                dealer_name: &dealer.dealer_name,
                dealer_address: &dealer.dealer_address,
                dealer_email: &dealer.dealer_email,
                dealer_phone: &dealer.dealer_phone,
                dealer_city: &dealer.dealer_city,
                dealer_state: states::code(&dealer.dealer_state).unwrap_or_default(),
                dealer_zip: &dealer.dealer_zip,
                dealer_country: "US",
            });
        OrderPayload {
            cart_id: cart.id,
            customer_info: CustomerInfo {
                email: &self.email,
                name,
                company: &self.company,
                main_contact: &self.main_contact,
                address: &self.address,
                city: &self.city,
                state: states::code(&self.state).unwrap_or_default(),
                zip: &self.zip,
                country: &self.country,
                shipping_name,
                shipping_company: pick(&self.shipping_company, &self.company),
                address_contact: pick(&self.address_contact, &self.main_contact),
                shipping_address: pick(&self.shipping_address, &self.address),
                shipping_city: pick(&self.shipping_city, &self.city),
                shipping_state: pick(&self.shipping_state, &self.state),
                shipping_zip: pick(&self.shipping_zip, &self.zip),
                shipping_country: pick(&self.shipping_country, &self.country),
                opt_in_newsletter: self.opted_in(),
                shipping_same_as_billing: same,
                shipping_method_id: self.method_id(),
            },
            dealer_info: dealer,
            payment_token: &self.payment_token,
        }
    }

    /// The cart's items blocked at this destination: non-FFL items against the shipping (or
    /// billing) state and zip, FFL items against the dealer's.
    pub fn restricted_items(&self, cart: &Cart) -> Vec<RestrictedItem> {
        let (ship_state, ship_zip) = self.destination();
        let (dealer_state, dealer_zip) = self.dealer_info.as_ref().map_or(("", ""), |dealer| {
            (&dealer.dealer_state, &dealer.dealer_zip)
        });
        cart.items
            .iter()
            .filter(|item| {
                let (state, zip) = if item.is_ffl_item {
                    (dealer_state, dealer_zip)
                } else {
                    (ship_state, ship_zip)
                };
                blocked(&item.restricted_states, &item.restricted_zips, state, zip)
            })
            .map(|item| RestrictedItem {
                id: item.id,
                product_id: item.product_id.clone(),
                product_name: item.product_name.clone(),
            })
            .collect()
    }
}

/// Whether an item restricted in `restricted_states` and `restricted_zips` is blocked at `state`
/// (code or name) and `zip` (a restricted zip anywhere in it, so a zip+4 matches).
fn blocked(
    restricted_states: &[String],
    restricted_zips: &[String],
    state: &str,
    zip: &str,
) -> bool {
    let state = states::code(state).unwrap_or(state);
    let by_state = !state.is_empty()
        && listed(restricted_states).any(|restricted| {
            states::code(restricted)
                .unwrap_or(restricted)
                .eq_ignore_ascii_case(state)
        });
    let by_zip = !zip.is_empty() && listed(restricted_zips).any(|z| zip.contains(z));
    by_state || by_zip
}

/// The entries of a restriction list, trimmed, without empty ones.
fn listed(list: &[String]) -> impl Iterator<Item = &str> {
    list.iter()
        .map(|entry| entry.trim())
        .filter(|entry| !entry.is_empty())
}

/// An item that may not ship where the order goes (the `items` of `restricted_items`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestrictedItem {
    pub id: i64,
    pub product_id: String,
    pub product_name: String,
}

/// `POST /Checkout/simplified`'s body.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderPayload<'a> {
    cart_id: Option<i64>,
    customer_info: CustomerInfo<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dealer_info: Option<OrderDealer<'a>>,
    payment_token: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CustomerInfo<'a> {
    email: &'a str,
    name: String,
    company: &'a str,
    main_contact: &'a str,
    address: &'a str,
    city: &'a str,
    /// The two-letter code.
    state: &'static str,
    zip: &'a str,
    country: &'a str,
    shipping_name: String,
    shipping_company: &'a str,
    address_contact: &'a str,
    shipping_address: &'a str,
    shipping_city: &'a str,
    shipping_state: &'a str,
    shipping_zip: &'a str,
    shipping_country: &'a str,
    opt_in_newsletter: bool,
    shipping_same_as_billing: bool,
    shipping_method_id: Option<i64>,
}

/// The dealer as the order takes it (state as its two-letter code).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct OrderDealer<'a> {
    dealer_name: &'a str,
    dealer_address: &'a str,
    dealer_email: &'a str,
    dealer_phone: &'a str,
    dealer_city: &'a str,
    dealer_state: &'static str,
    dealer_zip: &'a str,
    dealer_country: &'static str,
}

/// The checkout form as `POST /api/cart/compute` takes it. Its one rule: every state given is a
/// US state (its full name goes upstream); the rest is checked when the order is placed.
#[derive(Debug, Clone, Deserialize)]
#[serde(transparent)]
pub struct ComputeForm(pub CheckoutForm);

/// The states a compute form gives, as the compute rule sees them.
#[derive(Validate)]
struct GivenStates<'a> {
    #[validate(custom(function = "us_state_if_given"))]
    state: &'a str,
    /// Empty when shipping is the billing address.
    #[validate(custom(function = "us_state_if_given"))]
    shipping_state: &'a str,
    #[validate(nested)]
    dealer_info: Option<GivenDealerState<'a>>,
}

#[derive(Validate)]
struct GivenDealerState<'a> {
    #[validate(custom(function = "us_state_if_given"))]
    dealer_state: &'a str,
}

impl Validate for ComputeForm {
    fn validate(&self) -> Result<(), ValidationErrors> {
        let form = &self.0;
        GivenStates {
            state: &form.state,
            shipping_state: if form.same_as_billing() {
                ""
            } else {
                &form.shipping_state
            },
            dealer_info: form.dealer_info.as_ref().map(|dealer| GivenDealerState {
                dealer_state: &dealer.dealer_state,
            }),
        }
        .validate()
    }
}

impl ComputeForm {
    /// The upstream compute payload (spec section 7): addresses with the full state name and
    /// country 'US', the dealer when the cart holds FFL items, the cart id and shipping method.
    pub fn payload(&self, cart_id: Option<i64>, has_ffl: bool) -> ComputePayload<'_> {
        let form = &self.0;
        let billing = AddressPayload::of(&form.address, &form.city, &form.state, &form.zip);
        let shipping = if form.same_as_billing() {
            billing.clone()
        } else {
            AddressPayload::of(
                &form.shipping_address,
                &form.shipping_city,
                &form.shipping_state,
                &form.shipping_zip,
            )
        };
        ComputePayload {
            shipping_address: shipping,
            billing_address: billing,
            dealer_info: form.dealer_info.as_ref().filter(|_| has_ffl).map(|dealer| {
                ComputeDealer {
                    dealer_name: &dealer.dealer_name,
                    dealer_address: &dealer.dealer_address,
                    dealer_city: &dealer.dealer_city,
                    dealer_state: full_state_name(&dealer.dealer_state),
                    dealer_zip: &dealer.dealer_zip,
                    dealer_country: "US",
                }
            }),
            cart_id,
            shipping_method_id: form.method_id(),
        }
    }
}

/// The full name of a US state given by code or name; anything else as given.
fn full_state_name(state: &str) -> &str {
    states::name(state).unwrap_or(state)
}

/// `POST Cart/compute`'s body.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ComputePayload<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    shipping_address: Option<AddressPayload<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    billing_address: Option<AddressPayload<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dealer_info: Option<ComputeDealer<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cart_id: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    shipping_method_id: Option<i64>,
}

/// An address in the compute shape.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct AddressPayload<'a> {
    line1: &'a str,
    city: &'a str,
    /// The full state name.
    region: &'a str,
    postal_code: &'a str,
    country: &'static str,
}

impl<'a> AddressPayload<'a> {
    /// The address, or `None` when every part is empty.
    fn of(line1: &'a str, city: &'a str, state: &'a str, zip: &'a str) -> Option<Self> {
        if [line1, city, state, zip].iter().all(|part| part.is_empty()) {
            return None;
        }
        Some(Self {
            line1,
            city,
            region: full_state_name(state),
            postal_code: zip,
            country: "US",
        })
    }
}

/// The dealer as compute takes it (state as its full name, no contact fields).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ComputeDealer<'a> {
    dealer_name: &'a str,
    dealer_address: &'a str,
    dealer_city: &'a str,
    dealer_state: &'a str,
    dealer_zip: &'a str,
    dealer_country: &'static str,
}

/// Field names that carry card data (compared lowercase, without separators).
const CARD_FIELDS: [&str; 18] = [
    "cardnumber",
    "cardcode",
    "card",
    "carddata",
    "creditcard",
    "cvv",
    "cvv2",
    "cvc",
    "securitycode",
    "month",
    "year",
    "expmonth",
    "expyear",
    "expirymonth",
    "expiryyear",
    "expirationdate",
    "expiry",
    "pan",
];

fn luhn(digits: &str) -> bool {
    let mut sum = 0;
    for (index, c) in digits.chars().rev().enumerate() {
        let Some(mut d) = c.to_digit(10) else {
            return false;
        };
        if index % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum % 10 == 0
}

/// A value that looks like a card number: 13 to 19 digits (spaces and dashes allowed) passing
/// the Luhn check.
fn looks_like_card_number(value: &str) -> bool {
    if !value
        .chars()
        .all(|c| c.is_ascii_digit() || c == ' ' || c == '-')
    {
        return false;
    }
    let digits: String = value.chars().filter(char::is_ascii_digit).collect();
    (13..=19).contains(&digits.len()) && luhn(&digits)
}

/// The places in a request body that carry card data (the BFF accepts a payment token only):
/// card field names anywhere, or a card number in any string. Read on the raw JSON, before any
/// typing, so no field the form does not know escapes it.
pub fn card_data_fields(body: &Value) -> Vec<String> {
    fn walk(value: &Value, path: &str, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    let at = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    let normalised: String = key
                        .chars()
                        .filter(char::is_ascii_alphanumeric)
                        .collect::<String>()
                        .to_ascii_lowercase();
                    if CARD_FIELDS.contains(&normalised.as_str()) {
                        found.push(at);
                    } else {
                        walk(inner, &at, found);
                    }
                }
            }
            Value::Array(list) => {
                for (index, inner) in list.iter().enumerate() {
                    walk(inner, &format!("{path}[{index}]"), found);
                }
            }
            Value::String(text) if looks_like_card_number(text) => found.push(path.to_owned()),
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(body, "", &mut found);
    found
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    fn form(value: Value) -> CheckoutForm {
        serde_json::from_value(value).unwrap()
    }

    fn valid() -> Value {
        json!({
            "email": "jane@example.com", "firstName": "Jane", "lastName": "Doe",
            "address": "100 Congress Ave", "city": "Austin", "state": "TX", "zip": "78701",
            "country": "United States", "shippingMethodId": 2, "paymentToken": "tok"
        })
    }

    fn errors(form: &CheckoutForm, has_ffl: bool) -> BTreeMap<String, String> {
        match form.check(has_ffl) {
            Ok(()) => BTreeMap::new(),
            Err(ApiError::Validation(errors)) => errors,
            Err(other) => panic!("not a validation failure: {other:?}"),
        }
    }

    fn cart(items: Value) -> Cart {
        let mut cart = serde_json::to_value(Cart::empty()).unwrap();
        cart["id"] = json!(7);
        cart["items"] = items;
        serde_json::from_value(cart).unwrap()
    }

    fn item(id: i64, name: &str, ffl: bool, states: &[&str], zips: &[&str]) -> Value {
        json!({
            "id": id, "productId": format!("TF-{id}"), "yotpoProductId": null,
            "productName": name, "options": [], "optionIds": [], "price": 10.0,
            "productPrice": 10.0, "quantity": 1, "imageUrl": "", "productUrl": null,
            "notes": null, "buildId": null, "isFflItem": ffl, "isReceiverItem": false,
            "restrictedStates": states, "restrictedZips": zips
        })
    }

    #[test]
    fn a_complete_billing_form_passes() {
        assert!(form(valid()).check(false).is_ok());
    }

    #[test]
    fn text_is_trimmed_and_null_reads_as_empty() {
        let form = form(json!({"firstName": "  Jane ", "lastName": null}));
        assert_eq!(form.first_name, "Jane");
        assert_eq!(form.last_name, "");
        assert_eq!(errors(&form, false)["lastName"], REQUIRED);
    }

    #[test]
    fn missing_fields_bad_email_and_short_zip_get_the_specs_messages() {
        let errors = errors(&form(json!({"email": "nope", "zip": "123"})), false);
        assert_eq!(errors["email"], "Must be a valid email address");
        assert_eq!(errors["zip"], SHORT_ZIP);
        assert_eq!(errors["firstName"], REQUIRED);
        assert_eq!(errors["state"], REQUIRED);
        assert_eq!(errors["country"], REQUIRED);
        assert_eq!(errors["shippingMethodId"], REQUIRED);
        assert_eq!(errors["paymentToken"], REQUIRED);
        assert!(!errors.contains_key("shippingAddress"));
        assert!(!errors.contains_key("dealerInfo"));
    }

    #[test]
    fn states_countries_and_method_ids_are_checked() {
        let mut body = valid();
        body["state"] = json!("ZZ");
        body["country"] = json!("Canada");
        body["shippingMethodId"] = json!("two");
        let errors = errors(&form(body), false);
        assert_eq!(errors["state"], BAD_STATE);
        assert_eq!(errors["country"], BAD_COUNTRY);
        assert_eq!(errors["shippingMethodId"], REQUIRED);
        let mut body = valid();
        body["state"] = json!("texas");
        body["shippingMethodId"] = json!(" 3 ");
        let form = form(body);
        assert!(form.check(false).is_ok());
        assert_eq!(form.method_id(), Some(3));
    }

    #[test]
    fn shipping_fields_are_required_when_shipping_differs() {
        let mut body = valid();
        body["shippingSameAsBilling"] = json!(false);
        body["shippingZip"] = json!("12");
        let errors = errors(&form(body), false);
        assert_eq!(errors["shippingAddress"], REQUIRED);
        assert_eq!(errors["shippingState"], REQUIRED);
        assert_eq!(errors["shippingZip"], SHORT_ZIP);
        assert_eq!(errors["shippingCountry"], REQUIRED);
    }

    #[test]
    fn ffl_carts_need_a_dealer_with_a_us_phone() {
        let missing = errors(&form(valid()), true);
        assert_eq!(missing["dealerInfo"], NO_DEALER);
        assert_eq!(missing["dealerInfo.dealerName"], REQUIRED);
        assert_eq!(missing["dealerInfo.dealerPhone"], REQUIRED);
        let mut body = valid();
        body["dealerInfo"] = json!({
            "dealerName": "Lone Star Arms", "dealerAddress": "200 Ranch Rd",
            "dealerEmail": "ffl@lonestar.example", "dealerPhone": "555-01",
            "dealerCity": "Dallas", "dealerState": "TX", "dealerZip": "75201",
            "dealerCountry": "United States"
        });
        let form = form(body);
        let found = errors(&form, true);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found["dealerInfo.dealerPhone"],
            "Must be a valid phone number"
        );
        assert!(
            form.check(false).is_ok(),
            "no dealer rules without FFL items"
        );
    }

    #[test]
    fn compute_checks_only_the_states_given() {
        let compute = |body: Value| {
            let form: ComputeForm = serde_json::from_value(body).unwrap();
            form.validate().map_err(|errors| field_errors(&errors))
        };
        assert!(compute(json!({})).is_ok());
        assert!(compute(json!({"state": "TX", "shippingState": "ZZ"})).is_ok());
        let errors = compute(json!({
            "state": "ZZ", "shippingSameAsBilling": false, "shippingState": "Nowhere",
            "dealerInfo": {"dealerState": "YY"}
        }))
        .unwrap_err();
        assert_eq!(errors["state"], BAD_STATE);
        assert_eq!(errors["shippingState"], BAD_STATE);
        assert_eq!(errors["dealerInfo.dealerState"], BAD_STATE);
    }

    #[test]
    fn compute_sends_full_state_names_and_us() {
        let form: ComputeForm = serde_json::from_value(valid()).unwrap();
        let payload = serde_json::to_value(form.payload(Some(7), false)).unwrap();
        assert_eq!(payload["shippingAddress"]["region"], "Texas");
        assert_eq!(payload["billingAddress"]["country"], "US");
        assert_eq!(payload["cartId"], 7);
        assert_eq!(payload["shippingMethodId"], 2);
        assert!(payload.get("dealerInfo").is_none());
        let empty: ComputeForm = serde_json::from_value(json!({})).unwrap();
        assert_eq!(
            serde_json::to_value(empty.payload(None, true)).unwrap(),
            json!({})
        );
    }

    #[test]
    fn checkout_joins_names_and_drops_the_separate_ones() {
        let cart = cart(json!([item(1, "Mount", false, &[], &[])]));
        let payload = serde_json::to_value(form(valid()).order_payload(&cart)).unwrap();
        assert_eq!(payload["cartId"], 7);
        assert_eq!(payload["customerInfo"]["name"], "Jane Doe");
        assert_eq!(payload["customerInfo"]["shippingName"], "Jane Doe");
        assert_eq!(payload["customerInfo"]["state"], "TX");
        assert_eq!(payload["customerInfo"]["shippingCity"], "Austin");
        assert!(payload["customerInfo"].get("firstName").is_none());
        assert!(payload.get("dealerInfo").is_none());
        assert_eq!(payload["paymentToken"], "tok");
    }

    #[test]
    fn an_all_ffl_order_keeps_its_own_shipping_fields_and_sends_the_dealer() {
        let cart = cart(json!([item(3, "Rifle", true, &[], &[])]));
        let mut body = valid();
        body["dealerInfo"] = json!({"dealerName": "Lone Star Arms", "dealerState": "Texas"});
        let payload = serde_json::to_value(form(body).order_payload(&cart)).unwrap();
        assert_eq!(payload["customerInfo"]["shippingCity"], "");
        assert_eq!(payload["dealerInfo"]["dealerState"], "TX");
        assert_eq!(payload["dealerInfo"]["dealerCountry"], "US");
    }

    #[test]
    fn restrictions_follow_state_zip_and_dealer() {
        let cart = cart(json!([
            item(1, "Mag", false, &["CA"], &[]),
            item(2, "Brake", false, &[], &["10001"]),
            item(3, "Rifle", true, &["CA"], &[])
        ]));
        let mut body = valid();
        body["state"] = json!("CA");
        body["dealerInfo"] = json!({"dealerState": "TX", "dealerZip": "75201"});
        let blocked = form(body).restricted_items(&cart);
        assert_eq!(
            blocked,
            vec![RestrictedItem {
                id: 1,
                product_id: "TF-1".to_owned(),
                product_name: "Mag".to_owned()
            }]
        );
        let mut body = valid();
        body["zip"] = json!("10001-1234");
        body["dealerInfo"] = json!({"dealerState": "California", "dealerZip": "90001"});
        let ids: Vec<i64> = form(body)
            .restricted_items(&cart)
            .iter()
            .map(|item| item.id)
            .collect();
        assert_eq!(ids, vec![2, 3]);
    }

    #[test]
    fn card_data_is_found_by_name_and_by_value() {
        assert_eq!(
            card_data_fields(&json!({"cardNumber": "x", "paymentToken": "t"})),
            vec!["cardNumber"]
        );
        assert_eq!(
            card_data_fields(&json!({"dealerInfo": {"card_code": "123"}})),
            vec!["dealerInfo.card_code"]
        );
        assert_eq!(
            card_data_fields(&json!({"company": "4111 1111 1111 1111"})),
            vec!["company"]
        );
        assert!(card_data_fields(&valid()).is_empty());
    }
}
