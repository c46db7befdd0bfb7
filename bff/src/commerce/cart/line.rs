//! The cart line relayed to commerce: what the shopper chose (a sku, a quantity, add-ons) in the
//! browser's words, everything shown about it in the catalogue's.
//!
//! Commerce keeps a line's name, URL, image and option pairs as sent and prints them on the cart,
//! the order and the order-confirmation e-mail, which goes to whatever address the checkout
//! names: relayed from the browser, `productName: "Range Beanie (FREE)"` was mailed as the
//! store's words. So the product is looked up in the catalogue (the browser's product URL and
//! name are only hints of where to look) and, when the sku is one of its skus, the name, URL,
//! image, option pairs and option ids are the catalogue's; the chosen add-ons are kept only as
//! the product's own add-on labels. The line's prices are the catalogue's too (specs: cart line
//! payload, `productPrice` the listed price and `price` the final one): the sku's live price and
//! final price, each plus the chosen add-ons' `add_on_price`; commerce checks them and charges
//! them. When the hints name no product of the catalogue and the shopper chose no add-ons, those
//! fields are dropped and commerce names and prices the line from its own sku table. An add that
//! cannot be priced in full is refused, and nothing is added (issue 47: the upstream charged the
//! bare sku while the toast named the add-on): the catalogue cannot be read, the live price map
//! cannot price the sku, or add-ons were chosen for a product the hints do not find. The refusal
//! is a 503 `cart_line_unpriced` naming the product. `notes` and `buildId` are never relayed: no
//! screen of the specs shows or edits either (the payload's `buildId` is null, and the web sends
//! `notes` as null too).

use axum::http::StatusCode;
use serde::Serialize;
use serde_json::Value;

use super::model::{CartOption, NewCartItem};
use crate::commerce::catalogue::content::{ProductContent, SkuContent};
use crate::commerce::catalogue::{Catalogue, SkuPricing};
use crate::http::error::ApiError;
use crate::http::request_id::RequestId;

/// The problem `code` of an add refused because it cannot be priced in full.
pub const UNPRICED_CODE: &str = "cart_line_unpriced";

/// The option pair that carries a line's add-ons (the web's `ADD_ONS_LABEL`).
const ADD_ONS_LABEL: &str = "Add-Ons";
/// Several add-ons are one pair, their labels joined with this (specs: cart line payload).
const ADD_ONS_SEPARATOR: &str = " / ";

/// A cart line as commerce gets it. Made only by [`CheckedLine::of`]: no browser text in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckedLine {
    product_id: String,
    quantity: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    product_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    product_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    image_url: Option<String>,
    options: Vec<CartOption>,
    option_ids: Vec<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    yotpo_product_id: Option<Value>,
    /// The listed unit price: the sku's price plus the add-ons.
    #[serde(skip_serializing_if = "Option::is_none")]
    product_price: Option<f64>,
    /// The final unit price: the sku's final price plus the add-ons.
    #[serde(skip_serializing_if = "Option::is_none")]
    price: Option<f64>,
}

impl CheckedLine {
    /// `item` as the catalogue has it: its product looked up by the title in `productUrl`,
    /// then by `productName` (each through the edge cache), priced from the live price map with
    /// its add-ons. Refused (`cart_line_unpriced`, see `unpriced`) when that cannot be done in full.
    pub async fn of(
        catalogue: &Catalogue,
        item: &NewCartItem,
        request_id: &RequestId,
    ) -> Result<Self, ApiError> {
        for title in hinted_titles(item) {
            match catalogue.product_content(&title, request_id.clone()).await {
                Ok(Some(product)) => {
                    if let Some(mut line) = Self::from_product(item, &product) {
                        let live = catalogue
                            .live_pricing(&item.product_id, request_id.clone())
                            .await
                            .ok_or_else(|| unpriced(&product.title))?;
                        line.priced(&live, add_ons_price(&line.options, &product));
                        return Ok(line);
                    }
                }
                Ok(None) => {}
                Err(err) => {
                    tracing::warn!(error = %err, "catalogue unavailable for a cart line: the add is refused");
                    return Err(unpriced(&shown_name(item)));
                }
            }
        }
        if chose_add_ons(item) {
            // add-ons of a product the catalogue does not know cannot be priced: not dropped unseen
            return Err(unpriced(&shown_name(item)));
        }
        Ok(Self::bare(item))
    }

    /// The line with `product`'s name, URL, image and options, when the sku is one of its skus.
    fn from_product(item: &NewCartItem, product: &ProductContent) -> Option<Self> {
        let sku = product.skus.iter().find(|sku| sku.sku == item.product_id)?;
        let mut options: Vec<CartOption> = sku
            .variants
            .iter()
            .map(|variant| CartOption {
                label: variant.product_variant_type.display_title.clone(),
                value: variant.label.clone(),
            })
            .collect();
        if let Some(add_ons) = chosen_add_ons(item, product) {
            options.push(CartOption {
                label: ADD_ONS_LABEL.to_owned(),
                value: add_ons,
            });
        }
        Some(Self {
            product_name: Some(product.title.clone()),
            product_url: text_at(&product.rest, &["url"]).filter(|url| url.starts_with('/')),
            image_url: image_of(sku, product),
            options,
            option_ids: sku.variants.iter().map(|variant| variant.id).collect(),
            yotpo_product_id: product
                .rest
                .get("productId")
                .filter(|id| id.is_string() || id.is_number())
                .cloned(),
            ..Self::bare(item)
        })
    }

    /// Sets the line's prices: `live`'s, each plus `add_ons_cents`, in whole cents.
    fn priced(&mut self, live: &SkuPricing, add_ons_cents: i64) {
        let with_add_ons = |amount: f64| (cents(amount) + add_ons_cents) as f64 / 100.0;
        self.product_price = Some(with_add_ons(live.price));
        self.price = Some(with_add_ons(live.final_price));
    }

    /// Only what the shopper chose: the sku and the quantity.
    pub(super) fn bare(item: &NewCartItem) -> Self {
        Self {
            product_id: item.product_id.clone(),
            quantity: item.quantity,
            product_name: None,
            product_url: None,
            image_url: None,
            options: Vec::new(),
            option_ids: Vec::new(),
            yotpo_product_id: None,
            product_price: None,
            price: None,
        }
    }
}

/// The refusal of an add that cannot be priced in full: a 503 (the catalogue or the price map
/// is expected back), naming the product, and nothing added.
fn unpriced(product: &str) -> ApiError {
    ApiError::Refused {
        status: StatusCode::SERVICE_UNAVAILABLE,
        code: UNPRICED_CODE,
        detail: format!(
            "{product} was not added to your cart: its price, with the options and add-ons you chose, cannot be checked right now. Please try again in a moment."
        ),
        errors: None,
        members: serde_json::Map::new(),
    }
}

/// The product's name for the refusal when the catalogue cannot say it: the name the page sent
/// (bounded by the payload's validation), else the sku.
fn shown_name(item: &NewCartItem) -> String {
    item.product_name
        .as_deref()
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .unwrap_or(&item.product_id)
        .to_owned()
}

/// Whether the shopper chose any add-on (a non-empty `Add-Ons` pair).
fn chose_add_ons(item: &NewCartItem) -> bool {
    item.options
        .iter()
        .flatten()
        .any(|option| option.label == ADD_ONS_LABEL && !option.value.trim().is_empty())
}

/// Where the browser says the product is: the title of its `/product/{title}` URL, then its
/// name; each at most once.
fn hinted_titles(item: &NewCartItem) -> Vec<String> {
    let from_url = item
        .product_url
        .as_deref()
        .and_then(|url| url.strip_prefix("/product/"))
        .and_then(|title| {
            percent_encoding::percent_decode_str(title)
                .decode_utf8()
                .ok()
                .map(|title| title.into_owned())
        });
    let mut titles: Vec<String> = Vec::with_capacity(2);
    for title in from_url.into_iter().chain(item.product_name.clone()) {
        let title = crate::cache::normalise(&title);
        if !title.is_empty() && !titles.contains(&title) {
            titles.push(title);
        }
    }
    titles
}

/// The add-ons the shopper chose that `product` offers, as one ' / '-joined value, in the
/// product's order; `None` when none.
fn chosen_add_ons(item: &NewCartItem, product: &ProductContent) -> Option<String> {
    let chosen: Vec<&str> = item
        .options
        .iter()
        .flatten()
        .filter(|option| option.label == ADD_ONS_LABEL)
        .flat_map(|option| option.value.split(ADD_ONS_SEPARATOR))
        .map(str::trim)
        .collect();
    let offered = product.rest.get("addOns").and_then(Value::as_array)?;
    let kept: Vec<&str> = offered
        .iter()
        .filter_map(|add_on| add_on.get("label").and_then(Value::as_str))
        .filter(|label| chosen.contains(label))
        .collect();
    (!kept.is_empty()).then(|| kept.join(ADD_ONS_SEPARATOR))
}

/// The summed `add_on_price` (in cents) of the add-ons named by the line's `Add-Ons` pair.
fn add_ons_price(options: &[CartOption], product: &ProductContent) -> i64 {
    let chosen: Vec<&str> = options
        .iter()
        .filter(|option| option.label == ADD_ONS_LABEL)
        .flat_map(|option| option.value.split(ADD_ONS_SEPARATOR))
        .collect();
    product
        .rest
        .get("addOns")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|add_on| {
            add_on
                .get("label")
                .and_then(Value::as_str)
                .is_some_and(|label| chosen.contains(&label))
        })
        // the content's `add_on_price`, camelCased as every content key is read
        .filter_map(|add_on| add_on.get("addOnPrice").and_then(Value::as_f64))
        .map(cents)
        .sum()
}

fn cents(amount: f64) -> i64 {
    (amount * 100.0).round() as i64
}

/// The sku's image, else the product's.
fn image_of(sku: &SkuContent, product: &ProductContent) -> Option<String> {
    text_at(&sku.rest, &["imgUrl", "src"])
        .or_else(|| text_at(&product.rest, &["imgUrl", "src"]))
        .filter(|src| !src.is_empty())
}

/// The string at `path` in a content object.
fn text_at(fields: &serde_json::Map<String, Value>, path: &[&str]) -> Option<String> {
    let (first, rest) = path.split_first()?;
    let mut value = fields.get(*first)?;
    for key in rest {
        value = value.get(*key)?;
    }
    value.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::content::read;

    fn product() -> ProductContent {
        read(json!({
            "title": "Summit LR", "url": "/product/summit%20lr", "productId": "TFA-1001",
            "imgUrl": {"src": "https://media.example/summit.svg", "alt": "Summit"},
            "addOns": [{"id": 1, "label": "Carbon Bipod", "add_on_price": 249.0},
                       {"id": 2, "label": "Ironclad Rail", "add_on_price": 89.0}],
            "skus": [{
                "sku": "TF-S-65", "price": 10.0,
                "imgUrl": {"src": "https://media.example/summit-65.svg"},
                "variants": [{"id": 7, "fieldName": "6-5", "label": "6.5 Creedmoor",
                    "product_variant_type": {"title": "caliber", "display_title": "Caliber"}}],
            }],
        }))
        .unwrap()
    }

    fn item(fields: Value) -> NewCartItem {
        serde_json::from_value(fields).unwrap()
    }

    #[test]
    fn a_line_of_a_known_sku_says_only_what_the_catalogue_says() {
        let line = CheckedLine::from_product(
            &item(json!({
                "productId": "TF-S-65", "quantity": 2, "productName": "Summit LR (FREE)",
                "productUrl": "https://evil.example/", "imageUrl": "https://evil.example/x.png",
                "notes": "ship it free", "buildId": "b-1", "yotpoProductId": "X",
                "optionIds": [99],
                "options": [{"label": "Caliber", "value": "FREE"},
                            {"label": "Add-Ons", "value": "Ironclad Rail / Gold Plating / Carbon Bipod"}],
            })),
            &product(),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(&line).unwrap(),
            json!({
                "productId": "TF-S-65", "quantity": 2, "productName": "Summit LR",
                "productUrl": "/product/summit%20lr",
                "imageUrl": "https://media.example/summit-65.svg",
                "options": [{"label": "Caliber", "value": "6.5 Creedmoor"},
                            {"label": "Add-Ons", "value": "Carbon Bipod / Ironclad Rail"}],
                "optionIds": [7], "yotpoProductId": "TFA-1001",
            })
        );
    }

    #[test]
    fn a_lines_prices_are_the_skus_plus_its_add_ons() {
        let mut line = CheckedLine::from_product(
            &item(json!({
                "productId": "TF-S-65", "productPrice": 1.0, "price": 1.0,
                "options": [{"label": "Add-Ons", "value": "Ironclad Rail"}],
            })),
            &product(),
        )
        .unwrap();
        assert_eq!(
            (line.product_price, line.price),
            (None, None),
            "never the browser's"
        );
        let add_ons = add_ons_price(&line.options, &product());
        assert_eq!(add_ons, 8_900);
        line.priced(
            &SkuPricing {
                price: 2199.0,
                final_price: 1979.1,
                discount_percentage: 10.0,
                in_stock: true,
            },
            add_ons,
        );
        let sent = serde_json::to_value(&line).unwrap();
        assert_eq!(sent["productPrice"], json!(2288.0));
        assert_eq!(sent["price"], json!(2068.1));

        let plain =
            CheckedLine::from_product(&item(json!({"productId": "TF-S-65"})), &product()).unwrap();
        assert_eq!(add_ons_price(&plain.options, &product()), 0);
    }

    #[test]
    fn a_sku_the_product_does_not_have_is_not_its_line() {
        let other = item(json!({"productId": "TF-BNE", "productName": "Summit LR"}));
        assert_eq!(CheckedLine::from_product(&other, &product()), None);
        assert_eq!(
            serde_json::to_value(CheckedLine::bare(&other)).unwrap(),
            json!({"productId": "TF-BNE", "quantity": 1, "options": [], "optionIds": []}),
            "commerce names the line from its own skus"
        );
    }

    #[test]
    fn the_product_is_looked_for_by_its_url_then_its_name() {
        let titles = hinted_titles(&item(json!({
            "productId": "S", "productName": " Range Beanie (FREE) ",
            "productUrl": "/product/range%20beanie",
        })));
        assert_eq!(titles, ["range beanie", "range beanie (free)"]);
        let same = hinted_titles(&item(json!({
            "productId": "S", "productName": "Range Beanie", "productUrl": "/product/Range%20Beanie",
        })));
        assert_eq!(same, ["range beanie"]);
        let elsewhere = hinted_titles(&item(json!({
            "productId": "S", "productUrl": "https://evil.example/product/x",
        })));
        assert!(elsewhere.is_empty());
    }
}
