//! Content + live prices → the answers the product, collection and search screens need.
//!
//! Works on the camelCased content (`serde_json::Value`): the content service owns the product's
//! many fields and the BFF passes them through; only the sku figures, `noVariants` and
//! `displayedSku` are the BFF's.

use std::cmp::Ordering;

use serde_json::{Map, Value, json};

use super::pricing::{PriceMap, SkuPricing, amount};

/// Which sku a product shows before the shopper picks options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisplayedSku {
    /// The product page: the first sku. The option selects cascade to each select's first valid
    /// value, and the first sku is that combination.
    First,
    /// Collection cards and search results (the specs' rule): the sku with the lowest final
    /// (best discounted) price; the first of equals.
    Cheapest,
}

/// The product page: every sku priced, the first sku displayed; related product cards priced
/// like collection cards.
pub fn product_page(mut product: Value, prices: &PriceMap) -> Value {
    price_product(&mut product, prices, DisplayedSku::First);
    if let Some(related) = product
        .get_mut("relatedProducts")
        .and_then(Value::as_array_mut)
    {
        for card in related {
            price_product(card, prices, DisplayedSku::Cheapest);
        }
    }
    product
}

/// A collection: the group's fields with every product card priced, each showing its cheapest
/// sku.
pub fn collection(mut group: Value, prices: &PriceMap) -> Value {
    if let Some(products) = group.get_mut("products").and_then(Value::as_array_mut) {
        for card in products {
            price_product(card, prices, DisplayedSku::Cheapest);
        }
    }
    group
}

/// Search results `{query, results}`: priced cards (cheapest sku displayed), sorted by title
/// ignoring case.
pub fn search_results(query: &str, results: Value, prices: &PriceMap) -> Value {
    let mut results = match results {
        Value::Array(results) => results,
        _ => Vec::new(),
    };
    for card in &mut results {
        price_product(card, prices, DisplayedSku::Cheapest);
    }
    sort_by_title(&mut results);
    json!({"query": query, "results": results})
}

/// Adds the live figures (`price`, `finalPrice`, `discountPercentage`, `inStock`) to every sku of
/// `product`, and `noVariants` (exactly one sku) and `displayedSku` (a sku code, or null for a
/// product without skus) to the product.
pub fn price_product(product: &mut Value, prices: &PriceMap, shown: DisplayedSku) {
    let Some(object) = product.as_object_mut() else {
        return;
    };
    let mut priced: Vec<(Option<String>, f64)> = Vec::new();
    if let Some(skus) = object.get_mut("skus").and_then(Value::as_array_mut) {
        for sku in skus.iter_mut().filter_map(Value::as_object_mut) {
            let code = sku.get("sku").and_then(Value::as_str).map(str::to_owned);
            let listed = sku.get("price").and_then(Value::as_f64);
            let pricing = SkuPricing::of(listed, code.as_deref().and_then(|c| prices.get(c)));
            apply(sku, &pricing);
            priced.push((code, pricing.final_price));
        }
    }
    let displayed = match shown {
        DisplayedSku::First => priced.first(),
        DisplayedSku::Cheapest => cheapest(&priced),
    };
    object.insert("noVariants".to_owned(), Value::Bool(priced.len() == 1));
    object.insert(
        "displayedSku".to_owned(),
        displayed
            .and_then(|(code, _)| code.clone())
            .map_or(Value::Null, Value::String),
    );
}

fn apply(sku: &mut Map<String, Value>, pricing: &SkuPricing) {
    sku.insert("price".to_owned(), amount(pricing.price));
    sku.insert("finalPrice".to_owned(), amount(pricing.final_price));
    sku.insert(
        "discountPercentage".to_owned(),
        amount(pricing.discount_percentage),
    );
    sku.insert("inStock".to_owned(), Value::Bool(pricing.in_stock));
}

/// The lowest final price; the first of equals (`min_by` keeps the last, so compare strictly).
fn cheapest(priced: &[(Option<String>, f64)]) -> Option<&(Option<String>, f64)> {
    priced.iter().fold(None, |best, candidate| match best {
        Some(best) if candidate.1.total_cmp(&best.1) != Ordering::Less => Some(best),
        _ => Some(candidate),
    })
}

/// Sorts cards by title ignoring case (Unicode lower case), then by the exact title so equal
/// titles in different cases keep one order.
pub fn sort_by_title(cards: &mut [Value]) {
    cards.sort_by_cached_key(|card| {
        let title = card
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        (title.to_lowercase(), title)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::pricing::LivePrice;

    fn prices(entries: &[(&str, f64, f64, f64, bool)]) -> PriceMap {
        PriceMap {
            products: entries
                .iter()
                .map(|(sku, price, percentage, discounted, in_stock)| {
                    (
                        (*sku).to_owned(),
                        LivePrice {
                            price: *price,
                            best_discount_percentage: Some(*percentage),
                            best_discounted_price: Some(*discounted),
                            in_stock: *in_stock,
                        },
                    )
                })
                .collect(),
        }
    }

    fn card(title: &str, skus: &[&str]) -> Value {
        json!({
            "title": title,
            "skus": skus.iter().map(|sku| json!({"sku": sku, "price": 1, "variants": []})).collect::<Vec<_>>(),
        })
    }

    #[test]
    fn every_sku_carries_its_live_figures() {
        let map = prices(&[
            ("A-BLK", 1299.99, 10.0, 1169.99, true),
            ("A-FDE", 1299.99, 0.0, 1299.99, false),
        ]);
        let page = product_page(card("A", &["A-BLK", "A-FDE"]), &map);
        assert_eq!(
            page["skus"][0],
            json!({"sku": "A-BLK", "price": 1299.99, "finalPrice": 1169.99, "discountPercentage": 10, "inStock": true, "variants": []})
        );
        assert_eq!(page["skus"][1]["finalPrice"], json!(1299.99));
        assert_eq!(page["skus"][1]["discountPercentage"], json!(0));
        assert_eq!(page["skus"][1]["inStock"], json!(false));
        assert_eq!(page["noVariants"], json!(false));
    }

    #[test]
    fn the_product_page_displays_the_first_sku_and_cards_the_cheapest() {
        let map = prices(&[
            ("A-1", 100.0, 0.0, 100.0, true),
            ("A-2", 120.0, 25.0, 90.0, true),
            ("B-1", 50.0, 0.0, 50.0, true),
            ("B-2", 40.0, 0.0, 40.0, true),
        ]);
        let mut product = card("A", &["A-1", "A-2"]);
        product["relatedProducts"] = json!([card("B", &["B-1", "B-2"])]);
        let page = product_page(product, &map);
        assert_eq!(page["displayedSku"], "A-1");
        assert_eq!(page["relatedProducts"][0]["displayedSku"], "B-2");
    }

    #[test]
    fn a_collection_card_displays_the_lowest_best_discounted_price_not_the_lowest_price() {
        let map = prices(&[
            ("S-308", 2149.0, 0.0, 2149.0, true),
            ("S-6CM", 2299.0, 15.0, 1954.15, true),
            ("S-65", 2199.0, 0.0, 2199.0, true),
        ]);
        let group = collection(
            json!({"title": "Rifles", "products": [card("Summit LR", &["S-65", "S-308", "S-6CM"])]}),
            &map,
        );
        assert_eq!(group["products"][0]["displayedSku"], "S-6CM");
        assert_eq!(group["title"], "Rifles");
    }

    #[test]
    fn the_first_of_equally_cheap_skus_is_displayed() {
        let map = prices(&[
            ("X-1", 30.0, 0.0, 30.0, true),
            ("X-2", 20.0, 0.0, 20.0, true),
            ("X-3", 25.0, 20.0, 20.0, true),
        ]);
        let mut product = card("X", &["X-1", "X-2", "X-3"]);
        price_product(&mut product, &map, DisplayedSku::Cheapest);
        assert_eq!(product["displayedSku"], "X-2");
    }

    #[test]
    fn no_variants_means_exactly_one_sku() {
        let map = prices(&[("ONE", 0.0, 0.0, 0.0, false)]);
        let mut one = card("One", &["ONE"]);
        price_product(&mut one, &map, DisplayedSku::Cheapest);
        assert_eq!(one["noVariants"], true);
        assert_eq!(one["displayedSku"], "ONE");
        assert_eq!(one["skus"][0]["finalPrice"], json!(0), "'Coming Soon'");
        let mut none = json!({"title": "None", "skus": []});
        price_product(&mut none, &map, DisplayedSku::Cheapest);
        assert_eq!(none["noVariants"], false);
        assert_eq!(none["displayedSku"], Value::Null);
    }

    #[test]
    fn search_results_are_sorted_by_title_ignoring_case_and_priced() {
        let map = prices(&[("F", 10.0, 0.0, 10.0, true)]);
        let results = json!([
            card("falcon Compensator", &["F"]),
            card("Falcon 9", &["F"]),
            card("apex Muzzle Brake", &["F"]),
            card("Falcon 45", &["F"]),
            card("Über Grip", &["F"]),
            card("Zeta", &["F"]),
        ]);
        let answer = search_results("falcon", results, &map);
        let titles: Vec<&str> = answer["results"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|card| card["title"].as_str())
            .collect();
        assert_eq!(
            titles,
            [
                "apex Muzzle Brake",
                "Falcon 45",
                "Falcon 9",
                "falcon Compensator",
                "Zeta",
                "Über Grip"
            ]
        );
        assert_eq!(answer["query"], "falcon");
        assert_eq!(answer["results"][0]["skus"][0]["finalPrice"], json!(10));
        assert_eq!(answer["results"][0]["displayedSku"], "F");
    }

    #[test]
    fn a_sku_missing_from_the_price_map_is_not_sellable() {
        let mut product = card("Ghost", &["GHOST-1"]);
        price_product(&mut product, &PriceMap::default(), DisplayedSku::First);
        assert_eq!(product["skus"][0]["inStock"], false);
        assert_eq!(product["skus"][0]["finalPrice"], json!(1));
    }
}
