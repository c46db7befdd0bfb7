//! The checkout forms as the browser sends them, validated with the spec's rules and messages,
//! and turned into the upstream's compute and checkout payloads.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use validator::{Validate, ValidateEmail};

use super::states;

const REQUIRED: &str = "Required";
const BAD_EMAIL: &str = "Must be a valid email address";
const SHORT_ZIP: &str = "Zip code must be at least 5 digits";
const BAD_PHONE: &str = "Must be a valid phone number";
const BAD_STATE: &str = "Must be a US state";
const BAD_COUNTRY: &str = "Only United States addresses are supported";
const NO_DEALER: &str = "FFL items must ship to a licensed dealer: dealer information is required";

/// A shipping method id: a number, or a numeric string as form fields often are.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
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

/// The dealer (FFL) form.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
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
#[derive(Debug, Clone, Default, Deserialize, Validate, utoipa::ToSchema)]
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

fn text(value: &Option<String>) -> &str {
    value.as_deref().map_or("", str::trim)
}

fn is_us(country: &str) -> bool {
    ["united states", "us", "usa", "united states of america"]
        .iter()
        .any(|us| us.eq_ignore_ascii_case(country))
}

/// A US phone number: 10 digits, optionally after the country code 1, with the usual
/// separators.
pub fn is_us_phone(phone: &str) -> bool {
    if !phone
        .chars()
        .all(|c| c.is_ascii_digit() || " -().+".contains(c))
    {
        return false;
    }
    let digits: String = phone.chars().filter(char::is_ascii_digit).collect();
    digits.len() == 10 || (digits.len() == 11 && digits.starts_with('1'))
}

struct Errors(BTreeMap<String, String>);

impl Errors {
    fn add(&mut self, field: &str, message: &str) {
        self.0
            .entry(field.to_owned())
            .or_insert_with(|| message.to_owned());
    }

    fn required(&mut self, field: &str, value: &str) -> bool {
        if value.is_empty() {
            self.add(field, REQUIRED);
            return false;
        }
        true
    }

    fn email(&mut self, field: &str, value: &str) {
        if self.required(field, value) && !value.validate_email() {
            self.add(field, BAD_EMAIL);
        }
    }

    fn zip(&mut self, field: &str, value: &str) {
        if self.required(field, value) && value.chars().count() < 5 {
            self.add(field, SHORT_ZIP);
        }
    }

    fn state(&mut self, field: &str, value: &str) {
        if self.required(field, value) && states::code(value).is_none() {
            self.add(field, BAD_STATE);
        }
    }

    fn country(&mut self, field: &str, value: &str) {
        if self.required(field, value) && !is_us(value) {
            self.add(field, BAD_COUNTRY);
        }
    }
}

impl CheckoutForm {
    pub fn same_as_billing(&self) -> bool {
        self.shipping_same_as_billing.unwrap_or(true)
    }

    pub fn method_id(&self) -> Option<i64> {
        self.shipping_method_id.as_ref().and_then(MethodId::value)
    }

    pub fn email(&self) -> &str {
        text(&self.email)
    }

    pub fn opted_in(&self) -> bool {
        self.opt_in_newsletter.unwrap_or(false)
    }

    /// The checkout rules of spec section 5, one message per field (the first failing rule).
    /// `has_ffl`: the cart holds FFL items, so the dealer form is required.
    pub fn validate_checkout(&self, has_ffl: bool) -> BTreeMap<String, String> {
        let mut errors = Errors(BTreeMap::new());
        errors.email("email", text(&self.email));
        errors.required("firstName", text(&self.first_name));
        errors.required("lastName", text(&self.last_name));
        errors.required("address", text(&self.address));
        errors.required("city", text(&self.city));
        errors.state("state", text(&self.state));
        errors.zip("zip", text(&self.zip));
        errors.country("country", text(&self.country));
        match &self.shipping_method_id {
            None => errors.add("shippingMethodId", REQUIRED),
            Some(id) if id.value().is_none() => errors.add("shippingMethodId", REQUIRED),
            Some(_) => {}
        }
        if !self.same_as_billing() {
            errors.required("shippingFirstName", text(&self.shipping_first_name));
            errors.required("shippingLastName", text(&self.shipping_last_name));
            errors.required("shippingAddress", text(&self.shipping_address));
            errors.required("shippingCity", text(&self.shipping_city));
            errors.state("shippingState", text(&self.shipping_state));
            errors.zip("shippingZip", text(&self.shipping_zip));
            errors.country("shippingCountry", text(&self.shipping_country));
        }
        if has_ffl {
            if self.dealer_info.is_none() {
                errors.add("dealerInfo", NO_DEALER);
            }
            let dealer = self.dealer_info.clone().unwrap_or_default();
            errors.required("dealerInfo.dealerName", text(&dealer.dealer_name));
            errors.required("dealerInfo.dealerAddress", text(&dealer.dealer_address));
            errors.email("dealerInfo.dealerEmail", text(&dealer.dealer_email));
            let phone = text(&dealer.dealer_phone);
            if errors.required("dealerInfo.dealerPhone", phone) && !is_us_phone(phone) {
                errors.add("dealerInfo.dealerPhone", BAD_PHONE);
            }
            errors.required("dealerInfo.dealerCity", text(&dealer.dealer_city));
            errors.state("dealerInfo.dealerState", text(&dealer.dealer_state));
            errors.zip("dealerInfo.dealerZip", text(&dealer.dealer_zip));
            errors.country("dealerInfo.dealerCountry", text(&dealer.dealer_country));
        }
        errors.required("paymentToken", text(&self.payment_token));
        errors.0
    }

    /// For compute: every state given must be a US state (its full name goes upstream).
    pub fn state_errors(&self) -> BTreeMap<String, String> {
        let mut errors = Errors(BTreeMap::new());
        let mut check = |field: &str, value: &str| {
            if !value.is_empty() && states::code(value).is_none() {
                errors.add(field, BAD_STATE);
            }
        };
        check("state", text(&self.state));
        if !self.same_as_billing() {
            check("shippingState", text(&self.shipping_state));
        }
        if let Some(dealer) = &self.dealer_info {
            check("dealerInfo.dealerState", text(&dealer.dealer_state));
        }
        errors.0
    }

    /// The state and zip the order ships to: shipping, or billing when the same.
    fn destination(&self) -> (&str, &str) {
        if self.same_as_billing() {
            (text(&self.state), text(&self.zip))
        } else {
            (text(&self.shipping_state), text(&self.shipping_zip))
        }
    }

    /// The upstream compute payload (spec section 7): addresses with the full state name and
    /// country 'US', the dealer when the cart holds FFL items, the cart id and shipping method.
    pub fn compute_payload(&self, cart_id: Value, has_ffl: bool) -> Value {
        fn address(line1: &str, city: &str, state: &str, zip: &str) -> Option<Value> {
            if [line1, city, state, zip].iter().all(|part| part.is_empty()) {
                return None;
            }
            Some(json!({
                "line1": line1,
                "city": city,
                "region": states::name(state).unwrap_or(state),
                "postalCode": zip,
                "country": "US",
            }))
        }
        let billing = address(
            text(&self.address),
            text(&self.city),
            text(&self.state),
            text(&self.zip),
        );
        let shipping = if self.same_as_billing() {
            billing.clone()
        } else {
            address(
                text(&self.shipping_address),
                text(&self.shipping_city),
                text(&self.shipping_state),
                text(&self.shipping_zip),
            )
        };
        let mut payload = Map::new();
        if let Some(shipping) = shipping {
            payload.insert("shippingAddress".to_owned(), shipping);
        }
        if let Some(billing) = billing {
            payload.insert("billingAddress".to_owned(), billing);
        }
        if has_ffl && let Some(dealer) = &self.dealer_info {
            let state = text(&dealer.dealer_state);
            payload.insert(
                "dealerInfo".to_owned(),
                json!({
                    "dealerName": text(&dealer.dealer_name),
                    "dealerAddress": text(&dealer.dealer_address),
                    "dealerCity": text(&dealer.dealer_city),
                    "dealerState": states::name(state).unwrap_or(state),
                    "dealerZip": text(&dealer.dealer_zip),
                    "dealerCountry": "US",
                }),
            );
        }
        if !cart_id.is_null() {
            payload.insert("cartId".to_owned(), cart_id);
        }
        if let Some(id) = self.method_id() {
            payload.insert("shippingMethodId".to_owned(), json!(id));
        }
        Value::Object(payload)
    }

    /// The upstream checkout payload (spec section 7): `customerInfo` is the billing form plus
    /// `name` and `shippingName` (first and last joined) without the separate names; the dealer
    /// only when the cart holds FFL items.
    pub fn checkout_payload(&self, cart_id: Value, all_ffl: bool, has_ffl: bool) -> Value {
        let join = |first: &Option<String>, last: &Option<String>| {
            format!("{} {}", text(first), text(last)).trim().to_owned()
        };
        let name = join(&self.first_name, &self.last_name);
        let same = self.same_as_billing();
        // When shipping matches billing (and the cart is not all FFL) the shipping fields are
        // the billing ones.
        let copy = same && !all_ffl;
        let pick = |shipping: &Option<String>, billing: &Option<String>| {
            if copy {
                text(billing).to_owned()
            } else {
                text(shipping).to_owned()
            }
        };
        let shipping_name = if copy {
            name.clone()
        } else {
            join(&self.shipping_first_name, &self.shipping_last_name)
        };
        let customer = json!({
            "email": text(&self.email),
            "name": name,
            "company": text(&self.company),
            "mainContact": text(&self.main_contact),
            "address": text(&self.address),
            "city": text(&self.city),
            "state": states::code(text(&self.state)).unwrap_or_default(),
            "zip": text(&self.zip),
            "country": text(&self.country),
            "shippingName": shipping_name,
            "shippingCompany": pick(&self.shipping_company, &self.company),
            "addressContact": pick(&self.address_contact, &self.main_contact),
            "shippingAddress": pick(&self.shipping_address, &self.address),
            "shippingCity": pick(&self.shipping_city, &self.city),
            "shippingState": pick(&self.shipping_state, &self.state),
            "shippingZip": pick(&self.shipping_zip, &self.zip),
            "shippingCountry": pick(&self.shipping_country, &self.country),
            "optInNewsletter": self.opted_in(),
            "shippingSameAsBilling": same,
            "shippingMethodId": self.method_id(),
        });
        let mut payload = Map::new();
        payload.insert("cartId".to_owned(), cart_id);
        payload.insert("customerInfo".to_owned(), customer);
        if has_ffl && let Some(dealer) = &self.dealer_info {
            payload.insert(
                "dealerInfo".to_owned(),
                json!({
                    "dealerName": text(&dealer.dealer_name),
                    "dealerAddress": text(&dealer.dealer_address),
                    "dealerEmail": text(&dealer.dealer_email),
                    "dealerPhone": text(&dealer.dealer_phone),
                    "dealerCity": text(&dealer.dealer_city),
                    "dealerState": states::code(text(&dealer.dealer_state)).unwrap_or_default(),
                    "dealerZip": text(&dealer.dealer_zip),
                    "dealerCountry": "US",
                }),
            );
        }
        payload.insert("paymentToken".to_owned(), json!(text(&self.payment_token)));
        Value::Object(payload)
    }

    /// The cart's items blocked at this destination: non-FFL items against the shipping (or
    /// billing) state and zip, FFL items against the dealer's.
    pub fn restricted_items(&self, cart: &Value) -> Vec<Value> {
        let (ship_state, ship_zip) = self.destination();
        let dealer = self.dealer_info.clone().unwrap_or_default();
        let dealer_state = text(&dealer.dealer_state).to_owned();
        let dealer_zip = text(&dealer.dealer_zip).to_owned();
        items(cart)
            .iter()
            .filter(|item| {
                let (state, zip) = if is_ffl(item) {
                    (dealer_state.as_str(), dealer_zip.as_str())
                } else {
                    (ship_state, ship_zip)
                };
                blocked(item, state, zip)
            })
            .map(|item| {
                json!({
                    "id": item.get("id").cloned().unwrap_or(Value::Null),
                    "productId": item.get("productId").cloned().unwrap_or(Value::Null),
                    "productName": item.get("productName").cloned().unwrap_or(Value::Null),
                })
            })
            .collect()
    }
}

fn strings(item: &Value, field: &str) -> Vec<String> {
    item.get(field)
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

fn blocked(item: &Value, state: &str, zip: &str) -> bool {
    let state = states::code(state).unwrap_or(state);
    let by_state = !state.is_empty()
        && strings(item, "restrictedStates").iter().any(|restricted| {
            states::code(restricted)
                .unwrap_or(restricted)
                .eq_ignore_ascii_case(state)
        });
    let by_zip = !zip.is_empty()
        && strings(item, "restrictedZips")
            .iter()
            .any(|z| zip.contains(z.as_str()));
    by_state || by_zip
}

fn items(cart: &Value) -> &[Value] {
    cart.get("items")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn is_ffl(item: &Value) -> bool {
    item.get("isFflItem").and_then(Value::as_bool) == Some(true)
}

/// Whether the cart holds FFL items.
pub fn has_ffl_items(cart: &Value) -> bool {
    items(cart).iter().any(is_ffl)
}

/// Whether every item of a non-empty cart is an FFL item.
pub fn all_ffl_items(cart: &Value) -> bool {
    !items(cart).is_empty() && items(cart).iter().all(is_ffl)
}

/// Whether the cart has no items.
pub fn is_empty(cart: &Value) -> bool {
    items(cart).is_empty()
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
/// card field names anywhere, or a card number in any string.
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
    use super::*;

    fn form(value: Value) -> CheckoutForm {
        serde_json::from_value(value).unwrap_or_default()
    }

    fn valid() -> Value {
        json!({
            "email": "jane@example.com", "firstName": "Jane", "lastName": "Doe",
            "address": "100 Congress Ave", "city": "Austin", "state": "TX", "zip": "78701",
            "country": "United States", "shippingMethodId": 2, "paymentToken": "tok"
        })
    }

    #[test]
    fn a_complete_billing_form_passes() {
        assert!(form(valid()).validate_checkout(false).is_empty());
    }

    #[test]
    fn missing_fields_bad_email_and_short_zip_get_the_specs_messages() {
        let errors = form(json!({"email": "nope", "zip": "123"})).validate_checkout(false);
        assert_eq!(errors["email"], BAD_EMAIL);
        assert_eq!(errors["zip"], SHORT_ZIP);
        assert_eq!(errors["firstName"], REQUIRED);
        assert_eq!(errors["shippingMethodId"], REQUIRED);
        assert_eq!(errors["paymentToken"], REQUIRED);
        assert!(!errors.contains_key("shippingAddress"));
    }

    #[test]
    fn shipping_fields_are_required_when_shipping_differs() {
        let mut body = valid();
        body["shippingSameAsBilling"] = json!(false);
        body["shippingZip"] = json!("12");
        let errors = form(body).validate_checkout(false);
        assert_eq!(errors["shippingAddress"], REQUIRED);
        assert_eq!(errors["shippingZip"], SHORT_ZIP);
    }

    #[test]
    fn ffl_carts_need_a_dealer_with_a_us_phone() {
        let errors = form(valid()).validate_checkout(true);
        assert_eq!(errors["dealerInfo"], NO_DEALER);
        let mut body = valid();
        body["dealerInfo"] = json!({
            "dealerName": "Lone Star Arms", "dealerAddress": "200 Ranch Rd",
            "dealerEmail": "ffl@lonestar.example", "dealerPhone": "555-01",
            "dealerCity": "Dallas", "dealerState": "TX", "dealerZip": "75201",
            "dealerCountry": "United States"
        });
        let errors = form(body).validate_checkout(true);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors["dealerInfo.dealerPhone"], BAD_PHONE);
    }

    #[test]
    fn us_phone_pattern() {
        assert!(is_us_phone("(512) 555-0100"));
        assert!(is_us_phone("+1 512 555 0100"));
        assert!(!is_us_phone("2 512 555 0100"));
        assert!(!is_us_phone("512-555-010x"));
    }

    #[test]
    fn compute_sends_full_state_names_and_us() {
        let payload = form(valid()).compute_payload(json!(7), false);
        assert_eq!(payload["shippingAddress"]["region"], "Texas");
        assert_eq!(payload["billingAddress"]["country"], "US");
        assert_eq!(payload["cartId"], 7);
        assert!(payload.get("dealerInfo").is_none());
    }

    #[test]
    fn checkout_joins_names_and_drops_the_separate_ones() {
        let payload = form(valid()).checkout_payload(json!(7), false, false);
        assert_eq!(payload["customerInfo"]["name"], "Jane Doe");
        assert_eq!(payload["customerInfo"]["shippingName"], "Jane Doe");
        assert!(payload["customerInfo"].get("firstName").is_none());
        assert!(payload.get("dealerInfo").is_none());
    }

    #[test]
    fn restrictions_follow_state_zip_and_dealer() {
        let cart = json!({"items": [
            {"id": 1, "productName": "Mag", "isFflItem": false, "restrictedStates": ["CA"], "restrictedZips": []},
            {"id": 2, "productName": "Brake", "isFflItem": false, "restrictedStates": [], "restrictedZips": ["10001"]},
            {"id": 3, "productName": "Rifle", "isFflItem": true, "restrictedStates": ["CA"], "restrictedZips": []}
        ]});
        let mut body = valid();
        body["state"] = json!("CA");
        body["dealerInfo"] = json!({"dealerState": "TX", "dealerZip": "75201"});
        let blocked = form(body).restricted_items(&cart);
        assert_eq!(blocked.len(), 1);
        assert_eq!(blocked[0]["id"], 1);
        let mut body = valid();
        body["zip"] = json!("10001-1234");
        body["dealerInfo"] = json!({"dealerState": "California", "dealerZip": "90001"});
        let ids: Vec<Value> = form(body)
            .restricted_items(&cart)
            .iter()
            .map(|i| i["id"].clone())
            .collect();
        assert_eq!(ids, vec![json!(2), json!(3)]);
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
