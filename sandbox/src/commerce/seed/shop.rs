//! Demo data of the shop: shipping methods, the sales-tax table and the promo codes.

use rusqlite::{Transaction, params};
use serde_json::{Value, json};

use crate::commerce::shop::promos::MEDIA_PLACEHOLDER;
use crate::content::skus::{self, Sku};
use crate::error::SandboxError;

/// `(id, name, price in cents)`, cheapest first: the first is the storefront's default.
pub const SHIPPING_METHODS: [(i64, &str, i64); 3] = [
    (1, "Standard Ground", 0),
    (2, "Expedited", 1_999),
    (3, "Overnight", 3_999),
];

/// Statewide base sales-tax rates (demo data, close to the published base rates; local add-ons
/// are left out). Every state and DC is listed; five states have no sales tax.
pub const TAX_RATES: [(&str, f64); 51] = [
    ("AL", 0.04),
    ("AK", 0.0),
    ("AZ", 0.056),
    ("AR", 0.065),
    ("CA", 0.0725),
    ("CO", 0.029),
    ("CT", 0.0635),
    ("DE", 0.0),
    ("DC", 0.06),
    ("FL", 0.06),
    ("GA", 0.04),
    ("HI", 0.04),
    ("ID", 0.06),
    ("IL", 0.0625),
    ("IN", 0.07),
    ("IA", 0.06),
    ("KS", 0.065),
    ("KY", 0.06),
    ("LA", 0.05),
    ("ME", 0.055),
    ("MD", 0.06),
    ("MA", 0.0625),
    ("MI", 0.06),
    ("MN", 0.06875),
    ("MS", 0.07),
    ("MO", 0.04225),
    ("MT", 0.0),
    ("NE", 0.055),
    ("NV", 0.0685),
    ("NH", 0.0),
    ("NJ", 0.06625),
    ("NM", 0.04875),
    ("NY", 0.04),
    ("NC", 0.0475),
    ("ND", 0.05),
    ("OH", 0.0575),
    ("OK", 0.045),
    ("OR", 0.0),
    ("PA", 0.06),
    ("RI", 0.07),
    ("SC", 0.06),
    ("SD", 0.042),
    ("TN", 0.07),
    ("TX", 0.0625),
    ("UT", 0.061),
    ("VT", 0.06),
    ("VA", 0.053),
    ("WA", 0.065),
    ("WV", 0.06),
    ("WI", 0.05),
    ("WY", 0.04),
];

/// 10% off the cart.
pub const SAVE10: &str = "SAVE10";
/// 20% off the cart, with a promotion page of two product groups.
pub const BUNDLE20: &str = "BUNDLE20";
/// A code that has expired: refused like any unknown code.
pub const EXPIRED15: &str = "EXPIRED15";

/// How many products each promotion group shows.
const GROUP_SIZE: usize = 3;

pub fn seed(tx: &Transaction<'_>) -> Result<(), SandboxError> {
    for (sort, (id, name, price_cents)) in SHIPPING_METHODS.iter().enumerate() {
        tx.execute(
            "INSERT INTO shipping_methods (id, name, price_cents, sort) VALUES (?1, ?2, ?3, ?4)",
            params![id, name, price_cents, sort as i64],
        )?;
    }
    for (state, rate) in TAX_RATES {
        tx.execute(
            "INSERT INTO tax_rates (state, rate) VALUES (?1, ?2)",
            params![state, rate],
        )?;
    }
    let page_info = bundle_page_info(&skus::all(tx)?);
    for (code, percent, page_info, active) in [
        (SAVE10, 10.0, None, true),
        (BUNDLE20, 20.0, Some(page_info.to_string()), true),
        (EXPIRED15, 15.0, None, false),
    ] {
        tx.execute(
            "INSERT INTO promo_codes (code, percent, promotional_page_info, active) VALUES (?1, ?2, ?3, ?4)",
            params![code, percent, page_info, active],
        )?;
    }
    Ok(())
}

/// The BUNDLE20 promotion page: firearms (FFL items) in group 1, gear in group 2, picked from
/// the catalogue seeded just before (the first products in sku-code order that are in stock
/// and priced). Sku entries hold only codes; prices and stock are filled in per response.
fn bundle_page_info(catalogue: &[Sku]) -> Value {
    let group = |title: &str, ffl: bool| {
        let mut products: Vec<(&str, Vec<&str>)> = Vec::new();
        for sku in catalogue
            .iter()
            .filter(|sku| sku.ffl_item == ffl && sku.in_stock() && sku.final_price_cents() > 0)
        {
            let known = products
                .iter()
                .position(|(product, _)| *product == sku.product_title);
            match known {
                Some(index) => products[index].1.push(&sku.code),
                None if products.len() < GROUP_SIZE => {
                    products.push((&sku.product_title, vec![&sku.code]));
                }
                None => {}
            }
        }
        json!({
            "title": title,
            "products": products
                .into_iter()
                .map(|(product, codes)| json!({
                    "title": product,
                    "skus": codes.into_iter().map(|code| json!({"sku": code})).collect::<Vec<_>>(),
                }))
                .collect::<Vec<_>>(),
        })
    };
    json!({
        "data": [{
            "title": "Bundle & Save",
            "subtitle": "20% off your whole order when you build a kit",
            "promo_image": {
                "url": format!("{MEDIA_PLACEHOLDER}/media/promo-bundle-and-save.svg"),
                "alternativeText": "Bundle & Save",
            },
            "group1": group("Pick your firearm", true),
            "group2": group("Complete the kit", false),
        }]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commerce::shop::states::STATES;

    fn sku(code: &str, product: &str, ffl: bool, stock: i64) -> Sku {
        Sku {
            code: code.to_owned(),
            product_title: product.to_owned(),
            product_name: product.to_owned(),
            price_cents: 10_000,
            discount_percent: 0.0,
            stock,
            ffl_item: ffl,
            receiver_item: false,
            restricted_states: Vec::new(),
            restricted_zips: Vec::new(),
        }
    }

    #[test]
    fn every_state_has_a_tax_rate() {
        for (code, _) in STATES {
            assert!(TAX_RATES.iter().any(|(state, _)| *state == code), "{code}");
        }
    }

    #[test]
    fn the_bundle_groups_firearms_and_gear_by_product() {
        let catalogue = [
            sku("R-1", "Rifle", true, 3),
            sku("R-2", "Rifle", true, 3),
            sku("P-1", "Pistol", true, 0),
            sku("G-1", "Sling", false, 9),
        ];
        let page = bundle_page_info(&catalogue);
        let entry = &page["data"][0];
        assert_eq!(
            entry["group1"]["products"],
            json!([{"title": "Rifle", "skus": [{"sku": "R-1"}, {"sku": "R-2"}]}])
        );
        assert_eq!(entry["group2"]["products"][0]["title"], "Sling");
    }
}
