//! Items that may not ship where the order goes: each cart item names the states and zips it is
//! restricted in, and checkout refuses the order (`restricted_items`) before placing it when the
//! destination is one of them: the shipping (or billing) address for most items, the dealer's for
//! FFL items.

use serde::Serialize;

use super::model::CheckoutDetails;
use super::states;
use crate::commerce::cart::Cart;

/// The cart's items blocked at this destination: non-FFL items against the shipping (or
/// billing) state and zip, FFL items against the dealer's.
pub fn restricted_items(form: &CheckoutDetails, cart: &Cart) -> Vec<RestrictedItem> {
    let (ship_state, ship_zip) = form.destination();
    let (dealer_state, dealer_zip) = form.dealer_info.as_ref().map_or(("", ""), |dealer| {
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
    fn restrictions_follow_state_zip_and_dealer() {
        let cart = cart(json!([
            item(1, "Mag", false, &["CA"], &[]),
            item(2, "Brake", false, &[], &["10001"]),
            item(3, "Rifle", true, &["CA"], &[])
        ]));
        let mut body = valid();
        body["state"] = json!("CA");
        body["dealerInfo"] = json!({"dealerState": "TX", "dealerZip": "75201"});
        let blocked = restricted_items(&form(body), &cart);
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
        let ids: Vec<i64> = restricted_items(&form(body), &cart)
            .iter()
            .map(|item| item.id)
            .collect();
        assert_eq!(ids, vec![2, 3]);
    }
}
