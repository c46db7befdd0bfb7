//! The checkout form as the service reads it: text trimmed and empty when not given, the
//! defaults applied (shipping is the billing address, no newsletter), the shipping method a
//! number. It is made from the wire shape ([`super::wire`]) in one place, `from_wire`, and
//! carries the rules of spec section 5 (`rules`).
//!
//! Its field names are the problem+json field names: a failing rule is reported under the
//! field's camelCase name (`shippingZip`, `dealerInfo.dealerPhone`), the same as the wire's, so
//! the web app puts each message beside the field it sent.

use validator::{Validate, ValidateArgs};

use super::rules::{
    NO_DEALER, Requirements, email_address, failure, phone, required, shipping_country,
    shipping_required, shipping_state, shipping_zip, us_country, us_state, zip,
};
use crate::http::error::ApiError;
use crate::http::validation::field_errors;

/// The dealer (FFL) items ship to. Its rules apply when the cart holds FFL items.
#[derive(Debug, Clone, Default, PartialEq, Eq, Validate)]
pub struct DealerDetails {
    #[validate(custom(function = "required"))]
    pub dealer_name: String,
    #[validate(custom(function = "required"))]
    pub dealer_address: String,
    #[validate(custom(function = "email_address"))]
    pub dealer_email: String,
    #[validate(custom(function = "phone"))]
    pub dealer_phone: String,
    #[validate(custom(function = "required"))]
    pub dealer_city: String,
    /// A state's code or full name, as given.
    #[validate(custom(function = "us_state"))]
    pub dealer_state: String,
    #[validate(custom(function = "zip"))]
    pub dealer_zip: String,
    #[validate(custom(function = "us_country"))]
    pub dealer_country: String,
}

/// The billing and shipping details, the dealer when given, and the payment token. The shipping
/// fields are kept as given even when shipping is the billing address: the order payload decides
/// which to send (see `super::order`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Validate)]
#[validate(context = Requirements)]
pub struct CheckoutDetails {
    #[validate(custom(function = "email_address"))]
    pub email: String,
    #[validate(custom(function = "required"))]
    pub first_name: String,
    #[validate(custom(function = "required"))]
    pub last_name: String,
    pub company: String,
    pub main_contact: String,
    #[validate(custom(function = "required"))]
    pub address: String,
    #[validate(custom(function = "required"))]
    pub city: String,
    /// A state's code or full name, as given.
    #[validate(custom(function = "us_state"))]
    pub state: String,
    #[validate(custom(function = "zip"))]
    pub zip: String,
    #[validate(custom(function = "us_country"))]
    pub country: String,
    #[validate(custom(function = "shipping_required", use_context))]
    pub shipping_first_name: String,
    #[validate(custom(function = "shipping_required", use_context))]
    pub shipping_last_name: String,
    pub shipping_company: String,
    pub address_contact: String,
    #[validate(custom(function = "shipping_required", use_context))]
    pub shipping_address: String,
    #[validate(custom(function = "shipping_required", use_context))]
    pub shipping_city: String,
    #[validate(custom(function = "shipping_state", use_context))]
    pub shipping_state: String,
    #[validate(custom(function = "shipping_zip", use_context))]
    pub shipping_zip: String,
    #[validate(custom(function = "shipping_country", use_context))]
    pub shipping_country: String,
    pub opt_in_newsletter: bool,
    /// True unless the form says otherwise.
    pub shipping_same_as_billing: bool,
    /// `None` when not given or not a number.
    #[validate(required(message = "Required"))]
    pub shipping_method_id: Option<i64>,
    pub dealer_info: Option<DealerDetails>,
    #[validate(custom(function = "required"))]
    pub payment_token: String,
}

impl CheckoutDetails {
    /// The rules of spec section 5 for an order from a cart that `has_ffl` items (then the
    /// dealer form is required): 422 with one message per field.
    pub fn check(&self, has_ffl: bool) -> Result<(), ApiError> {
        let requirements = Requirements {
            shipping: !self.shipping_same_as_billing,
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
    pub fn destination(&self) -> (&str, &str) {
        if self.shipping_same_as_billing {
            (&self.state, &self.zip)
        } else {
            (&self.shipping_state, &self.shipping_zip)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::{Value, json};

    use super::super::rules::{BAD_COUNTRY, BAD_STATE, REQUIRED, SHORT_ZIP};
    use super::*;
    use crate::commerce::checkout::testing::{valid, wire};

    /// The model of `body`, through the wire shape and the one mapping.
    fn form(body: Value) -> CheckoutDetails {
        CheckoutDetails::from(wire(body))
    }

    fn errors(form: &CheckoutDetails, has_ffl: bool) -> BTreeMap<String, String> {
        match form.check(has_ffl) {
            Ok(()) => BTreeMap::new(),
            Err(ApiError::Validation(errors)) => errors,
            Err(other) => panic!("not a validation failure: {other:?}"),
        }
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
        assert_eq!(form.shipping_method_id, Some(3));
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
    fn the_field_names_of_the_errors_are_the_wires() {
        // Every rule reports under the name the browser sent the field by.
        let all: Value = json!({"shippingSameAsBilling": false, "dealerInfo": {}});
        let names: Vec<String> = errors(&form(all), true).into_keys().collect();
        assert_eq!(
            names,
            [
                "address",
                "city",
                "country",
                "dealerInfo.dealerAddress",
                "dealerInfo.dealerCity",
                "dealerInfo.dealerCountry",
                "dealerInfo.dealerEmail",
                "dealerInfo.dealerName",
                "dealerInfo.dealerPhone",
                "dealerInfo.dealerState",
                "dealerInfo.dealerZip",
                "email",
                "firstName",
                "lastName",
                "paymentToken",
                "shippingAddress",
                "shippingCity",
                "shippingCountry",
                "shippingFirstName",
                "shippingLastName",
                "shippingMethodId",
                "shippingState",
                "shippingZip",
                "state",
                "zip",
            ]
        );
    }
}
