//! Content + live prices → the answers the product, collection and search screens need.
//!
//! Works on the typed content ([`super::content`]): the sku codes and listed prices are read, the
//! live figures, `noVariants` and `displayedSku` are added, and every other content field is
//! relayed as it is.

use std::cmp::Ordering;

use serde_json::{Map, Value};

use super::answer::{Collection, ProductCard, ProductPage, ProductSku, SearchResults};
use super::content::{CardContent, CollectionContent, ProductContent, SkuContent};
use super::pricing::{PriceMap, SkuPricing};

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

/// The keys the BFF writes into a sku and a product: a content field of the same name is
/// replaced, never sent twice.
const SKU_KEYS: &[&str] = &["finalPrice", "discountPercentage", "inStock"];
const PRODUCT_KEYS: &[&str] = &["noVariants", "displayedSku"];

/// The product page: every sku priced, the first sku displayed; related product cards priced
/// like collection cards.
pub fn product_page(product: ProductContent, prices: &PriceMap) -> ProductPage {
    let (skus, displayed_sku) = priced_skus(product.skus, prices, DisplayedSku::First);
    ProductPage {
        title: product.title,
        no_variants: skus.len() == 1,
        displayed_sku,
        skus,
        related_products: cards(product.related_products, prices),
        content: relayed(product.rest, PRODUCT_KEYS),
    }
}

/// A collection: the group's fields with every product card priced, each showing its cheapest
/// sku.
pub fn collection(group: CollectionContent, prices: &PriceMap) -> Collection {
    Collection {
        products: cards(group.products, prices),
        content: group.rest,
    }
}

/// Search results `{query, results}`: priced cards (cheapest sku displayed), sorted by title
/// ignoring case.
pub fn search_results(query: &str, results: Vec<CardContent>, prices: &PriceMap) -> SearchResults {
    let mut results = cards(results, prices);
    sort_by_title(&mut results);
    SearchResults {
        query: query.to_owned(),
        results,
    }
}

/// A product card: every sku priced, the cheapest displayed.
pub fn card(card: CardContent, prices: &PriceMap) -> ProductCard {
    let (skus, displayed_sku) = priced_skus(card.skus, prices, DisplayedSku::Cheapest);
    ProductCard {
        title: card.title,
        no_variants: skus.len() == 1,
        displayed_sku,
        skus,
        content: relayed(card.rest, PRODUCT_KEYS),
    }
}

fn cards(cards: Vec<CardContent>, prices: &PriceMap) -> Vec<ProductCard> {
    cards.into_iter().map(|c| card(c, prices)).collect()
}

/// Every sku with its live figures (`price`, `finalPrice`, `discountPercentage`, `inStock`), and
/// the code of the sku `shown` (none for a product without skus).
fn priced_skus(
    skus: Vec<SkuContent>,
    prices: &PriceMap,
    shown: DisplayedSku,
) -> (Vec<ProductSku>, Option<String>) {
    let skus: Vec<ProductSku> = skus.into_iter().map(|sku| priced(sku, prices)).collect();
    let displayed = match shown {
        DisplayedSku::First => skus.first(),
        DisplayedSku::Cheapest => cheapest(&skus),
    };
    let displayed = displayed.map(|sku| sku.sku.clone());
    (skus, displayed)
}

fn priced(sku: SkuContent, prices: &PriceMap) -> ProductSku {
    let pricing = SkuPricing::of(sku.price, prices.get(&sku.sku));
    ProductSku {
        sku: sku.sku,
        price: pricing.price,
        final_price: pricing.final_price,
        discount_percentage: pricing.discount_percentage,
        in_stock: pricing.in_stock,
        variants: sku.variants,
        content: relayed(sku.rest, SKU_KEYS),
    }
}

/// The content's other fields, without those the BFF writes.
fn relayed(mut fields: Map<String, Value>, owned: &[&str]) -> Map<String, Value> {
    for key in owned {
        fields.remove(*key);
    }
    fields
}

/// The lowest final price; the first of equals (`min_by` keeps the last, so compare strictly).
fn cheapest(skus: &[ProductSku]) -> Option<&ProductSku> {
    skus.iter().fold(None, |best, candidate| match best {
        Some(best) if candidate.final_price.total_cmp(&best.final_price) != Ordering::Less => {
            Some(best)
        }
        _ => Some(candidate),
    })
}

/// Sorts cards by title ignoring case (Unicode lower case), then by the exact title so equal
/// titles in different cases keep one order.
pub fn sort_by_title(cards: &mut [ProductCard]) {
    cards.sort_by_cached_key(|card| (card.title.to_lowercase(), card.title.clone()));
}

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde::de::DeserializeOwned;
    use serde_json::json;

    use super::*;
    use crate::commerce::catalogue::pricing::LivePrice;
    use crate::content::read;

    /// A content document as the typed content.
    fn content<T: DeserializeOwned>(document: Value) -> T {
        read(document).unwrap()
    }

    /// An answer as the browser receives it.
    fn sent(answer: impl Serialize) -> Value {
        serde_json::to_value(answer).unwrap()
    }

    fn price_product(product: Value, prices: &PriceMap, shown: DisplayedSku) -> Value {
        match shown {
            DisplayedSku::First => sent(product_page(content(product), prices)),
            DisplayedSku::Cheapest => sent(card(content(product), prices)),
        }
    }

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

    fn card_of(title: &str, skus: &[&str]) -> Value {
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
        let page = sent(product_page(
            content(card_of("A", &["A-BLK", "A-FDE"])),
            &map,
        ));
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
        let mut product = card_of("A", &["A-1", "A-2"]);
        product["relatedProducts"] = json!([card_of("B", &["B-1", "B-2"])]);
        let page = sent(product_page(content(product), &map));
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
        let group = sent(collection(
            content(
                json!({"title": "Rifles", "products": [card_of("Summit LR", &["S-65", "S-308", "S-6CM"])]}),
            ),
            &map,
        ));
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
        let product = price_product(
            card_of("X", &["X-1", "X-2", "X-3"]),
            &map,
            DisplayedSku::Cheapest,
        );
        assert_eq!(product["displayedSku"], "X-2");
    }

    #[test]
    fn no_variants_means_exactly_one_sku() {
        let map = prices(&[("ONE", 0.0, 0.0, 0.0, false)]);
        let one = price_product(card_of("One", &["ONE"]), &map, DisplayedSku::Cheapest);
        assert_eq!(one["noVariants"], true);
        assert_eq!(one["displayedSku"], "ONE");
        assert_eq!(one["skus"][0]["finalPrice"], json!(0), "'Coming Soon'");
        let none = price_product(
            json!({"title": "None", "skus": []}),
            &map,
            DisplayedSku::Cheapest,
        );
        assert_eq!(none["noVariants"], false);
        assert_eq!(none["displayedSku"], Value::Null);
    }

    #[test]
    fn search_results_are_sorted_by_title_ignoring_case_and_priced() {
        let map = prices(&[("F", 10.0, 0.0, 10.0, true)]);
        let results = json!([
            card_of("falcon Compensator", &["F"]),
            card_of("Falcon 9", &["F"]),
            card_of("apex Muzzle Brake", &["F"]),
            card_of("Falcon 45", &["F"]),
            card_of("Über Grip", &["F"]),
            card_of("Zeta", &["F"]),
        ]);
        let answer = sent(search_results("falcon", content(results), &map));
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
        let product = price_product(
            card_of("Ghost", &["GHOST-1"]),
            &PriceMap::default(),
            DisplayedSku::First,
        );
        assert_eq!(product["skus"][0]["inStock"], false);
        assert_eq!(product["skus"][0]["finalPrice"], json!(1));
    }

    #[test]
    fn content_fields_are_relayed_and_the_bffs_own_keys_are_written_once() {
        let map = prices(&[("S", 100.0, 10.0, 90.0, true)]);
        let product = json!({
            "title": "T", "url": "/product/t", "noVariants": "from the cms",
            "skus": [{"sku": "S", "price": 120, "finalPrice": 1, "imgUrl": {"src": "s", "alt": ""}}],
        });
        let page = product_page(content(product), &map);
        assert!(!page.content.contains_key("noVariants"));
        assert!(!page.skus[0].content.contains_key("finalPrice"));
        let body = serde_json::to_string(&page).unwrap();
        assert_eq!(body.matches("\"finalPrice\"").count(), 1, "{body}");
        assert_eq!(body.matches("\"noVariants\"").count(), 1, "{body}");
        let page = sent(page);
        assert_eq!(page["url"], "/product/t");
        assert_eq!(page["noVariants"], true);
        assert_eq!(page["skus"][0]["finalPrice"], json!(90));
        assert_eq!(page["skus"][0]["imgUrl"], json!({"src": "s", "alt": ""}));
        assert_eq!(page["relatedProducts"], json!([]));
    }

    #[test]
    fn a_collection_relays_its_own_fields() {
        let group = sent(collection(
            content(
                json!({"title": "Rifles", "filter_categories": [{"depends_on": null}], "products": []}),
            ),
            &PriceMap::default(),
        ));
        assert_eq!(group["filterCategories"], json!([{"dependsOn": null}]));
        assert_eq!(group["title"], "Rifles");
        assert_eq!(group["products"], json!([]));
    }
}
