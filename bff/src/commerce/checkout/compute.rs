//! `POST /api/cart/compute`: tax and shipping for the checkout form's addresses (and the dealer
//! for FFL items), sent upstream in the spec's compute shape. The form is checked out later; here
//! its one rule is that every state given is a US state, whose full name goes upstream.
//!
//! The cart owns the call (whose cart, which path, a guest created on first need); this module
//! owns the form and the payload, so the cart names nothing of checkout.

use serde::{Deserialize, Serialize};
use validator::{Validate, ValidationErrors};

use super::model::CheckoutDetails;
use super::rules::us_state_if_given;
use super::states;
use super::wire::CheckoutForm;
use crate::commerce::Shopper;
use crate::commerce::cart::{self, Cart};
use crate::http::error::ApiError;

/// `POST /api/cart/compute`: the cart with tax and shipping computed for `form`. The cart is read
/// first: its id goes in the payload, its items say whether the dealer goes along.
pub async fn compute(shopper: &Shopper, form: &ComputeForm) -> Result<Cart, ApiError> {
    cart::compute(shopper, |cart| form.payload(cart.id, cart.has_ffl_items())).await
}

/// The checkout form as `POST /api/cart/compute` takes it. Its one rule: every state given is a
/// US state (its full name goes upstream); the rest is checked when the order is placed.
#[derive(Debug, Clone, Deserialize)]
#[serde(from = "CheckoutForm")]
pub struct ComputeForm(pub CheckoutDetails);

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
            shipping_state: if form.shipping_same_as_billing {
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
        let shipping = if form.shipping_same_as_billing {
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
            shipping_method_id: form.shipping_method_id,
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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::rules::BAD_STATE;
    use super::*;
    use crate::commerce::checkout::testing::valid;
    use crate::http::validation::field_errors;

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
}
