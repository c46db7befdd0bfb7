//! Add-ons on a cart line. The storefront sends the chosen add-ons as one option pair labelled
//! `Add-Ons` (labels joined with ' / ') and the line's prices (`productPrice`, `price` = final)
//! with them. Commerce takes the line's price from the payload only after checking it against
//! the sku's price plus the add-on prices of that sku's product in the content catalogue: an
//! add-on the product does not offer, or a price that does not match, is a 422.

use super::carts::OptionPair;
use crate::content::catalogue::catalogue;
use crate::content::skus::Sku;
use crate::error::SandboxError;

/// The option pair that carries a line's add-ons.
pub const ADD_ONS_LABEL: &str = "Add-Ons";
/// Several add-ons are one pair, their labels joined with this (specs: cart line payload).
pub const ADD_ONS_SEPARATOR: &str = " / ";

/// The add-ons a line carries: their labels in the product's order (so the same set is always
/// the same option pair, and so the same line) and their summed price in cents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChosenAddOns {
    pub labels: Vec<String>,
    pub cents: i64,
}

/// The add-ons `sku`'s product offers: `(label, price in cents)`, in the product's order.
pub fn offered(sku: &Sku) -> Result<Vec<(String, i64)>, SandboxError> {
    let Some(product) = catalogue()?.product(&sku.product_title) else {
        return Ok(Vec::new());
    };
    let listed = product
        .page
        .get("addOns")
        .and_then(serde_json::Value::as_array);
    Ok(listed
        .into_iter()
        .flatten()
        .filter_map(|add_on| {
            let label = add_on.get("label")?.as_str()?;
            let price = add_on.get("add_on_price")?.as_f64()?;
            Some((label.to_owned(), dollars_to_cents(price)))
        })
        .collect())
}

/// Reads the `Add-Ons` pairs of `options` against what the product offers.
pub fn chosen(
    offered: &[(String, i64)],
    options: &[OptionPair],
) -> Result<ChosenAddOns, SandboxError> {
    let mut wanted: Vec<&str> = Vec::new();
    for option in options
        .iter()
        .filter(|option| option.label == ADD_ONS_LABEL)
    {
        for label in option.value.split(ADD_ONS_SEPARATOR).map(str::trim) {
            if label.is_empty() {
                continue;
            }
            if !offered.iter().any(|(offered, _)| offered == label) {
                return Err(SandboxError::Unprocessable(format!(
                    "The add-on '{label}' is not offered with this product"
                )));
            }
            wanted.push(label);
        }
    }
    let kept: Vec<&(String, i64)> = offered
        .iter()
        .filter(|(label, _)| wanted.contains(&label.as_str()))
        .collect();
    Ok(ChosenAddOns {
        labels: kept.iter().map(|(label, _)| label.clone()).collect(),
        cents: kept.iter().map(|(_, cents)| cents).sum(),
    })
}

/// `options` with the add-ons as one pair in the product's order (or none), after the others.
pub fn normalised_options(options: Vec<OptionPair>, add_ons: &ChosenAddOns) -> Vec<OptionPair> {
    let mut kept: Vec<OptionPair> = options
        .into_iter()
        .filter(|option| option.label != ADD_ONS_LABEL)
        .collect();
    if !add_ons.labels.is_empty() {
        kept.push(OptionPair {
            label: ADD_ONS_LABEL.to_owned(),
            value: add_ons.labels.join(ADD_ONS_SEPARATOR),
        });
    }
    kept
}

/// Checks the payload's prices (dollars, as sent) against the sku and its add-ons: `price` is
/// the final price plus the add-ons, `productPrice` the listed price plus the add-ons. An absent
/// price is not checked (commerce prices the line itself); a different one is a 422.
pub fn check_prices(
    sku: &Sku,
    add_ons: &ChosenAddOns,
    product_price: Option<f64>,
    price: Option<f64>,
) -> Result<(), SandboxError> {
    let expected = [
        ("price", price, sku.final_price_cents() + add_ons.cents),
        (
            "productPrice",
            product_price,
            sku.price_cents + add_ons.cents,
        ),
    ];
    for (field, sent, expected_cents) in expected {
        let Some(sent) = sent else { continue };
        if !sent.is_finite() || dollars_to_cents(sent) != expected_cents {
            return Err(SandboxError::Unprocessable(format!(
                "The {field} of {} does not match the catalogue: expected {}",
                sku.code,
                super::money::Money(expected_cents).display()
            )));
        }
    }
    Ok(())
}

fn dollars_to_cents(dollars: f64) -> i64 {
    (dollars * 100.0).round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sku(discount_percent: f64) -> Sku {
        Sku {
            code: "TF-SLR-65CM-24-BLK".to_owned(),
            product_title: "Summit LR".to_owned(),
            product_name: "Summit LR".to_owned(),
            price_cents: 219_900,
            discount_percent,
            stock: 25,
            ffl_item: true,
            receiver_item: false,
            restricted_states: vec![],
            restricted_zips: vec![],
        }
    }

    fn pair(label: &str, value: &str) -> OptionPair {
        OptionPair {
            label: label.to_owned(),
            value: value.to_owned(),
        }
    }

    #[test]
    fn the_summit_lr_offers_its_catalogue_add_ons() {
        let offered = offered(&sku(0.0)).unwrap();
        assert!(offered.contains(&("Ironclad 20 MOA Rail".to_owned(), 8_900)));
        assert!(offered.contains(&("Carbon Bipod".to_owned(), 24_900)));
    }

    #[test]
    fn chosen_add_ons_are_summed_and_kept_in_the_products_order() {
        let offered = offered(&sku(0.0)).unwrap();
        let chosen = chosen(
            &offered,
            &[
                pair("Caliber", "6.5 Creedmoor"),
                pair(ADD_ONS_LABEL, "Ironclad 20 MOA Rail / Carbon Bipod"),
            ],
        )
        .unwrap();
        assert_eq!(chosen.labels, ["Carbon Bipod", "Ironclad 20 MOA Rail"]);
        assert_eq!(chosen.cents, 24_900 + 8_900);
        let options = normalised_options(
            vec![
                pair(ADD_ONS_LABEL, "Ironclad 20 MOA Rail / Carbon Bipod"),
                pair("Caliber", "6.5"),
            ],
            &chosen,
        );
        assert_eq!(
            options,
            [
                pair("Caliber", "6.5"),
                pair(ADD_ONS_LABEL, "Carbon Bipod / Ironclad 20 MOA Rail")
            ]
        );
    }

    #[test]
    fn an_add_on_the_product_does_not_offer_is_refused() {
        let offered = offered(&sku(0.0)).unwrap();
        let err = chosen(&offered, &[pair(ADD_ONS_LABEL, "Gold Plating")]).unwrap_err();
        assert!(matches!(err, SandboxError::Unprocessable(_)), "{err:?}");
    }

    #[test]
    fn prices_must_be_the_skus_plus_the_add_ons() {
        let add_ons = ChosenAddOns {
            labels: vec!["Ironclad 20 MOA Rail".to_owned()],
            cents: 8_900,
        };
        let discounted = sku(10.0); // final 1979.10
        assert!(check_prices(&discounted, &add_ons, Some(2288.0), Some(2068.1)).is_ok());
        assert!(check_prices(&discounted, &add_ons, None, None).is_ok());
        let cheaper = check_prices(&discounted, &add_ons, Some(2288.0), Some(1979.1)).unwrap_err();
        assert!(
            matches!(cheaper, SandboxError::Unprocessable(_)),
            "{cheaper:?}"
        );
        assert!(check_prices(&discounted, &add_ons, Some(2199.0), Some(2068.1)).is_err());
        assert!(check_prices(&discounted, &ChosenAddOns::default(), None, Some(f64::NAN)).is_err());
    }
}
