//! The upstream's checkout body (spec section 7), built from the checkout form's model and the
//! cart it orders. The model keeps every field as given; this is where the order decides which
//! of them the upstream gets (billing copied to shipping, names joined, states as codes).

use serde::Serialize;

use super::model::CheckoutDetails;
use super::states;
use crate::commerce::cart::Cart;

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

impl<'a> OrderPayload<'a> {
    /// The upstream checkout payload (spec section 7): `customerInfo` is the billing form plus
    /// `name` and `shippingName` (first and last joined) without the separate names; the dealer
    /// only when the cart holds FFL items.
    pub fn of(form: &'a CheckoutDetails, cart: &Cart) -> Self {
        let join = |first: &str, last: &str| format!("{first} {last}").trim().to_owned();
        let name = join(&form.first_name, &form.last_name);
        let same = form.shipping_same_as_billing;
        // When shipping matches billing (and the cart is not all FFL) the shipping fields are
        // the billing ones.
        let copy = same && !cart.all_ffl_items();
        let pick = |shipping: &'a str, billing: &'a str| if copy { billing } else { shipping };
        let shipping_name = if copy {
            name.clone()
        } else {
            join(&form.shipping_first_name, &form.shipping_last_name)
        };
        let dealer = form
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
        Self {
            cart_id: cart.id,
            customer_info: CustomerInfo {
                email: &form.email,
                name,
                company: &form.company,
                main_contact: &form.main_contact,
                address: &form.address,
                city: &form.city,
                state: states::code(&form.state).unwrap_or_default(),
                zip: &form.zip,
                country: &form.country,
                shipping_name,
                shipping_company: pick(&form.shipping_company, &form.company),
                address_contact: pick(&form.address_contact, &form.main_contact),
                shipping_address: pick(&form.shipping_address, &form.address),
                shipping_city: pick(&form.shipping_city, &form.city),
                shipping_state: pick(&form.shipping_state, &form.state),
                shipping_zip: pick(&form.shipping_zip, &form.zip),
                shipping_country: pick(&form.shipping_country, &form.country),
                opt_in_newsletter: form.opt_in_newsletter,
                shipping_same_as_billing: same,
                shipping_method_id: form.shipping_method_id,
            },
            dealer_info: dealer,
            payment_token: &form.payment_token,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::commerce::checkout::testing::{cart, item, valid, wire};

    /// The model of `body`, through the wire shape and the one mapping.
    fn form(body: Value) -> CheckoutDetails {
        CheckoutDetails::from(wire(body))
    }

    #[test]
    fn checkout_joins_names_and_drops_the_separate_ones() {
        let cart = cart(json!([item(1, "Mount", false, &[], &[])]));
        let payload = serde_json::to_value(OrderPayload::of(&form(valid()), &cart)).unwrap();
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
        let payload = serde_json::to_value(OrderPayload::of(&form(body), &cart)).unwrap();
        assert_eq!(payload["customerInfo"]["shippingCity"], "");
        assert_eq!(payload["dealerInfo"]["dealerState"], "TX");
        assert_eq!(payload["dealerInfo"]["dealerCountry"], "US");
    }
}
