//! Live prices: the commerce service's price map, and the specs' rule for what a sku costs.
//!
//! The final price is the best discounted price if there is one, otherwise the price; a final
//! price of 0 or less reads 'Coming Soon' on the page; '(N% off)' shows only when the final price
//! is below the price.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::upstream::{UpstreamError, decode};

/// One sku's live figures, as `GET /Products` gives them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LivePrice {
    pub price: f64,
    #[serde(default)]
    pub best_discount_percentage: Option<f64>,
    #[serde(default)]
    pub best_discounted_price: Option<f64>,
    /// Absent means not sellable: a sku is only offered when the commerce service says so.
    #[serde(default)]
    pub in_stock: bool,
}

/// The price map: sku code → live figures. The keys are sku codes (`TF-V15-556-16-BLK`), never
/// converted to camelCase. A `BTreeMap`, so the same map always serialises to the same bytes
/// (and so to the same cache ETag).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PriceMap {
    pub products: BTreeMap<String, LivePrice>,
}

impl PriceMap {
    /// Reads the commerce service's answer `{"products": {sku: {...}}}`. A document without a
    /// `products` object breaks the contract (`upstream_contract`); an entry that does not read is
    /// left out (that sku then has no live figures and is not sellable) rather than failing the
    /// whole map, so one bad row cannot take every price down.
    pub fn from_upstream(body: &[u8]) -> Result<Self, UpstreamError> {
        let answer: PriceMapAnswer = decode("commerce", body)?;
        let mut products = BTreeMap::new();
        for (sku, entry) in answer.products {
            match LivePrice::deserialize(entry) {
                Ok(live) if live.price.is_finite() => {
                    products.insert(sku, live);
                }
                Ok(_) => tracing::warn!(%sku, "price map entry without a finite price; skipped"),
                Err(err) => {
                    tracing::warn!(%sku, error = %err, "unreadable price map entry; skipped")
                }
            }
        }
        Ok(Self { products })
    }

    pub fn get(&self, sku: &str) -> Option<&LivePrice> {
        self.products.get(sku)
    }
}

/// `GET /Products` as the commerce service answers it: the envelope is the contract, each row is
/// read on its own (see [`PriceMap::from_upstream`]).
#[derive(Debug, Deserialize)]
struct PriceMapAnswer {
    products: BTreeMap<String, Value>,
}

/// What one sku costs now, as the storefront shows it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SkuPricing {
    /// The live price (the listed price when the price map does not know the sku).
    pub price: f64,
    /// What the shopper pays: the best discounted price if any, else `price`.
    pub final_price: f64,
    /// Above 0 only when `final_price` is below `price`.
    pub discount_percentage: f64,
    pub in_stock: bool,
}

impl SkuPricing {
    /// `listed` is the content's price, used only when the price map has no entry for the sku;
    /// such a sku is not in stock, because nothing says it can be sold.
    pub fn of(listed: Option<f64>, live: Option<&LivePrice>) -> Self {
        let Some(live) = live else {
            let price = listed.filter(|price| price.is_finite()).unwrap_or(0.0);
            return Self {
                price,
                final_price: price,
                discount_percentage: 0.0,
                in_stock: false,
            };
        };
        let final_price = final_price(live);
        Self {
            price: live.price,
            final_price,
            discount_percentage: discount_percentage(
                live.price,
                final_price,
                live.best_discount_percentage,
            ),
            in_stock: live.in_stock,
        }
    }
}

/// The best discounted price if there is one, otherwise the price. A best discounted price of 0
/// counts only when a discount percentage backs it: commerce systems write 0 for "no discount",
/// and reading that as the price would show a priced sku as 'Coming Soon'.
pub fn final_price(live: &LivePrice) -> f64 {
    let percentage = live.best_discount_percentage.unwrap_or(0.0);
    match live.best_discounted_price {
        Some(discounted) if discounted.is_finite() && (discounted > 0.0 || percentage > 0.0) => {
            discounted
        }
        _ => live.price,
    }
}

/// The reported percentage when the final price is below the price (derived from the two when
/// the map gives none), else 0: '(N% off)' never shows beside an undiscounted price.
fn discount_percentage(price: f64, final_price: f64, reported: Option<f64>) -> f64 {
    if price <= 0.0 || final_price >= price {
        return 0.0;
    }
    match reported {
        Some(percentage) if percentage.is_finite() && percentage > 0.0 => percentage,
        _ => ((price - final_price) / price * 100.0).round(),
    }
}

/// Serialises an amount as a JSON number, whole amounts without a fraction (`1299` rather than
/// `1299.0`), as the upstreams write them; for `#[serde(serialize_with = "amount")]`.
pub fn amount<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53
    if value.fract() == 0.0 && value.abs() < EXACT_INTEGER_LIMIT {
        serializer.serialize_i64(*value as i64)
    } else {
        // Not finite: JSON has no such number (serde_json writes `null`).
        serializer.serialize_f64(*value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn live(price: f64, percentage: f64, discounted: f64, in_stock: bool) -> LivePrice {
        LivePrice {
            price,
            best_discount_percentage: Some(percentage),
            best_discounted_price: Some(discounted),
            in_stock,
        }
    }

    #[test]
    fn a_discounted_sku_pays_the_best_discounted_price() {
        let pricing = SkuPricing::of(Some(1299.99), Some(&live(1299.99, 10.0, 1169.99, true)));
        assert_eq!(
            pricing,
            SkuPricing {
                price: 1299.99,
                final_price: 1169.99,
                discount_percentage: 10.0,
                in_stock: true
            }
        );
    }

    #[test]
    fn an_undiscounted_sku_pays_its_price_with_no_percentage() {
        let pricing = SkuPricing::of(None, Some(&live(1299.99, 0.0, 1299.99, true)));
        assert_eq!(pricing.final_price, 1299.99);
        assert_eq!(pricing.discount_percentage, 0.0);
    }

    #[test]
    fn a_zero_priced_sku_has_a_final_price_of_zero() {
        let pricing = SkuPricing::of(Some(0.0), Some(&live(0.0, 0.0, 0.0, false)));
        assert_eq!(pricing.final_price, 0.0, "'Coming Soon' on the page");
        assert_eq!(pricing.discount_percentage, 0.0);
        assert!(!pricing.in_stock);
    }

    #[test]
    fn without_a_discounted_price_the_price_is_final() {
        let missing = LivePrice {
            price: 49.0,
            best_discount_percentage: None,
            best_discounted_price: None,
            in_stock: true,
        };
        assert_eq!(final_price(&missing), 49.0);
        assert_eq!(
            final_price(&live(49.0, 0.0, 0.0, true)),
            49.0,
            "a 0 without a percentage means no discount"
        );
        assert_eq!(
            final_price(&live(49.0, 100.0, 0.0, true)),
            0.0,
            "a 100% discount is a discount"
        );
    }

    #[test]
    fn a_missing_percentage_is_derived_and_an_inconsistent_one_is_dropped() {
        let unreported = LivePrice {
            best_discount_percentage: None,
            ..live(200.0, 0.0, 150.0, true)
        };
        assert_eq!(
            SkuPricing::of(None, Some(&unreported)).discount_percentage,
            25.0
        );
        let not_cheaper = live(200.0, 10.0, 200.0, true);
        assert_eq!(
            SkuPricing::of(None, Some(&not_cheaper)).discount_percentage,
            0.0
        );
    }

    #[test]
    fn a_sku_the_price_map_does_not_know_keeps_its_listed_price_and_is_not_sellable() {
        let pricing = SkuPricing::of(Some(59.0), None);
        assert_eq!(pricing.price, 59.0);
        assert_eq!(pricing.final_price, 59.0);
        assert!(!pricing.in_stock);
    }

    #[test]
    fn the_price_map_keeps_sku_codes_and_skips_unreadable_entries() {
        let body = json!({"products": {
            "TF-V15-556-16-BLK": {"price": 1299.99, "bestDiscountPercentage": 10, "bestDiscountedPrice": 1169.99, "inStock": true, "warehouse": "unknown field"},
            "tf_lower_case_code": {"price": 5, "inStock": true},
            "TF-BROKEN": {"price": "free"}
        }, "generatedAt": "unknown field"});
        let map = PriceMap::from_upstream(body.to_string().as_bytes()).unwrap_or_default();
        assert_eq!(
            map.products.keys().collect::<Vec<_>>(),
            ["TF-V15-556-16-BLK", "tf_lower_case_code"]
        );
        assert_eq!(map.get("TF-V15-556-16-BLK").map(final_price), Some(1169.99));
    }

    #[test]
    fn a_price_map_without_its_products_object_breaks_the_contract() {
        for (body, field) in [
            (json!({"items": {}}), "."),
            (json!([]), "."),
            (json!({"products": []}), "products"),
        ] {
            let err = PriceMap::from_upstream(body.to_string().as_bytes()).unwrap_err();
            let UpstreamError::Contract {
                upstream,
                field: at,
                ..
            } = &err
            else {
                panic!("not a contract error: {err:?}");
            };
            assert_eq!((*upstream, at.as_str()), ("commerce", field), "{body}");
            assert_eq!(err.code(), "upstream_contract");
            assert_eq!(err.status().as_u16(), 502);
        }
    }

    #[derive(Serialize)]
    struct Amount(#[serde(serialize_with = "amount")] f64);

    fn printed(value: f64) -> String {
        serde_json::to_string(&Amount(value)).unwrap_or_default()
    }

    #[test]
    fn amounts_print_like_the_upstreams() {
        assert_eq!(printed(1299.0), "1299");
        assert_eq!(printed(1169.99), "1169.99");
        assert_eq!(printed(0.0), "0");
        assert_eq!(printed(f64::NAN), "null");
        assert_eq!(serde_json::to_value(Amount(10.0)).ok(), Some(json!(10)));
    }
}
