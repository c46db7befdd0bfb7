//! The one mapping from the checkout form's wire shape ([`super::wire`]) to its model
//! ([`super::model`]): every reading of a posted field happens here, once, so the wire can say
//! only what the JSON carries and the model only what the service means.
//!
//! Text is trimmed, and empty when absent or null; `shippingSameAsBilling` is true and
//! `optInNewsletter` false unless given; a shipping method id is a number or a numeric string,
//! and anything else reads as none (its rule then reports it missing).

use super::compute::ComputeForm;
use super::model::{CheckoutDetails, DealerDetails};
use super::wire::{CheckoutForm, DealerForm, MethodId};

/// A form's text field: trimmed, and empty when absent or null.
fn text(field: Option<String>) -> String {
    field.map(|text| text.trim().to_owned()).unwrap_or_default()
}

impl MethodId {
    /// The id as a number; `None` for text that is not one.
    fn value(&self) -> Option<i64> {
        match self {
            Self::Number(id) => Some(*id),
            Self::Text(text) => text.trim().parse().ok(),
        }
    }
}

impl From<DealerForm> for DealerDetails {
    fn from(wire: DealerForm) -> Self {
        Self {
            dealer_name: text(wire.dealer_name),
            dealer_address: text(wire.dealer_address),
            dealer_email: text(wire.dealer_email),
            dealer_phone: text(wire.dealer_phone),
            dealer_city: text(wire.dealer_city),
            dealer_state: text(wire.dealer_state),
            dealer_zip: text(wire.dealer_zip),
            dealer_country: text(wire.dealer_country),
        }
    }
}

impl From<CheckoutForm> for CheckoutDetails {
    fn from(wire: CheckoutForm) -> Self {
        Self {
            email: text(wire.email),
            first_name: text(wire.first_name),
            last_name: text(wire.last_name),
            company: text(wire.company),
            main_contact: text(wire.main_contact),
            address: text(wire.address),
            city: text(wire.city),
            state: text(wire.state),
            zip: text(wire.zip),
            country: text(wire.country),
            shipping_first_name: text(wire.shipping_first_name),
            shipping_last_name: text(wire.shipping_last_name),
            shipping_company: text(wire.shipping_company),
            address_contact: text(wire.address_contact),
            shipping_address: text(wire.shipping_address),
            shipping_city: text(wire.shipping_city),
            shipping_state: text(wire.shipping_state),
            shipping_zip: text(wire.shipping_zip),
            shipping_country: text(wire.shipping_country),
            opt_in_newsletter: wire.opt_in_newsletter.unwrap_or(false),
            shipping_same_as_billing: wire.shipping_same_as_billing.unwrap_or(true),
            shipping_method_id: wire.shipping_method_id.as_ref().and_then(MethodId::value),
            dealer_info: wire.dealer_info.map(DealerDetails::from),
            payment_token: text(wire.payment_token),
        }
    }
}

/// `POST /api/cart/compute` reads the same wire shape into the same model.
impl From<CheckoutForm> for ComputeForm {
    fn from(wire: CheckoutForm) -> Self {
        Self(CheckoutDetails::from(wire))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::commerce::checkout::testing::wire;

    /// The model of `body`, through the wire shape and the one mapping.
    fn form(body: Value) -> CheckoutDetails {
        CheckoutDetails::from(wire(body))
    }

    #[test]
    fn absent_null_and_blank_text_all_read_as_empty() {
        let details =
            form(json!({"email": null, "city": "   ", "dealerInfo": {"dealerZip": null}}));
        assert_eq!((details.email.as_str(), details.city.as_str()), ("", ""));
        assert_eq!(details.first_name, "");
        assert_eq!(
            details.dealer_info.map(|dealer| dealer.dealer_zip),
            Some(String::new())
        );
    }

    #[test]
    fn the_defaults_ship_to_billing_without_the_newsletter() {
        let details = form(json!({}));
        assert!(details.shipping_same_as_billing && !details.opt_in_newsletter);
        assert_eq!(details.dealer_info, None);
        let details = form(json!({"shippingSameAsBilling": false, "optInNewsletter": true}));
        assert!(!details.shipping_same_as_billing && details.opt_in_newsletter);
    }

    #[test]
    fn a_method_id_is_a_number_or_numeric_text() {
        let id = |value| form(json!({"shippingMethodId": value})).shipping_method_id;
        assert_eq!(id(json!(2)), Some(2));
        assert_eq!(id(json!(" 3 ")), Some(3));
        assert_eq!(id(json!("two")), None);
        assert_eq!(id(json!(null)), None);
    }
}
