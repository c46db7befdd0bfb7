//! The demo catalogue: products and product groups from the embedded fixtures, checked once and
//! pre-rendered into the shapes the content endpoints answer.
//!
//! A fixture product is authored in its served shape with two differences: each sku carries an
//! `inventory` object (stock and discount, which live in the `skus` table and are never served),
//! and `relatedProducts` lists titles (served as product cards). A fixture product group lists
//! its products by title (served as product cards).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::skus::Sku;
use crate::error::SandboxError;

/// Product fixtures, one file per family.
const PRODUCT_FILES: &[(&str, &str)] = &[
    (
        "rifles",
        include_str!("../../fixtures/catalogue/rifles.json"),
    ),
    (
        "pistols",
        include_str!("../../fixtures/catalogue/pistols.json"),
    ),
    (
        "receivers",
        include_str!("../../fixtures/catalogue/receivers.json"),
    ),
    (
        "upgrades",
        include_str!("../../fixtures/catalogue/upgrades.json"),
    ),
    (
        "apparel",
        include_str!("../../fixtures/catalogue/apparel.json"),
    ),
    ("gear", include_str!("../../fixtures/catalogue/gear.json")),
];

const COLLECTIONS: &str = include_str!("../../fixtures/catalogue/collections.json");

pub const PRODUCT_DISPLAY_TYPES: [&str; 3] = ["product-short-alt", "product-short", "product-long"];
pub const COLLECTION_DISPLAY_TYPES: [&str; 4] = [
    "collection-simple-grid",
    "collection-tabbed-grid",
    "collection-cards",
    "collection-filterable-grid",
];

/// The fields of a fixture product the sandbox reasons about; the rest is served as authored.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProductFields {
    title: String,
    subtitle: String,
    display_type: Option<String>,
    ffl_item: bool,
    receiver_item: bool,
    skus: Vec<SkuFields>,
    related_products: Vec<String>,
    compatibility_options: Vec<CompatibilityGroup>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SkuFields {
    sku: String,
    price: f64,
    variants: Vec<VariantFields>,
    restricted_states: Vec<String>,
    restricted_zips: Vec<String>,
    inventory: Inventory,
}

#[derive(Debug, Deserialize)]
struct VariantFields {
    label: String,
    product_variant_type: VariantType,
}

#[derive(Debug, Deserialize)]
struct VariantType {
    title: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Inventory {
    stock: i64,
    discount_percent: f64,
}

#[derive(Debug, Deserialize)]
struct CompatibilityGroup {
    options: Vec<CompatibilityOption>,
}

#[derive(Debug, Deserialize)]
struct CompatibilityOption {
    label: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FilterTag {
    filter_value: String,
    filter_category: String,
}

/// The fields of a fixture product group the sandbox reasons about.
#[derive(Debug, Deserialize)]
struct GroupFields {
    title: String,
    display_type: Option<String>,
    filter_categories: Vec<FilterCategory>,
    products: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct FilterCategory {
    title: String,
    depends_on: Option<String>,
    options: Vec<FilterOption>,
}

#[derive(Debug, Deserialize)]
struct FilterOption {
    value: String,
    parent_value: Option<String>,
}

/// One product, pre-rendered.
#[derive(Debug)]
pub struct Product {
    pub title: String,
    pub subtitle: String,
    /// The lower-cased title: titles match case-insensitively.
    key: String,
    /// As `GET /strapi/products/{title}` answers it (one element of the array).
    pub page: Value,
    /// The compact shape embedded in product groups, search results and related products.
    pub card: Value,
    /// The rows this product contributes to the `skus` table.
    pub skus: Vec<Sku>,
}

/// One product group (collection), pre-rendered.
#[derive(Debug)]
pub struct Group {
    pub title: String,
    key: String,
    /// As `GET /strapi/product-groups/{title}` answers it inside `data`.
    pub data: Value,
}

#[derive(Debug)]
pub struct Catalogue {
    products: Vec<Product>,
    groups: Vec<Group>,
}

/// Parsed and checked on first use; a broken fixture is reported by every content call (and by
/// the unit tests) rather than crashing the sandbox.
static CATALOGUE: LazyLock<Result<Catalogue, String>> = LazyLock::new(Catalogue::load);

/// The embedded catalogue.
pub fn catalogue() -> Result<&'static Catalogue, SandboxError> {
    CATALOGUE
        .as_ref()
        .map_err(|err| SandboxError::Internal(format!("catalogue fixtures: {err}")))
}

impl Catalogue {
    fn load() -> Result<Self, String> {
        let mut raw_products = Vec::new();
        for (family, text) in PRODUCT_FILES {
            let items: Vec<Map<String, Value>> =
                serde_json::from_str(text).map_err(|err| format!("{family}.json: {err}"))?;
            raw_products.extend(items);
        }
        let raw_groups: Vec<Map<String, Value>> =
            serde_json::from_str(COLLECTIONS).map_err(|err| format!("collections.json: {err}"))?;
        Self::build(raw_products, raw_groups)
    }

    /// Checks the fixtures' cross-references and renders every served shape.
    fn build(
        raw_products: Vec<Map<String, Value>>,
        raw_groups: Vec<Map<String, Value>>,
    ) -> Result<Self, String> {
        let mut cards = HashMap::new();
        let mut drafts = Vec::new();
        let mut codes = HashSet::new();
        for raw in raw_products {
            let fields: ProductFields = serde_json::from_value(Value::Object(raw.clone()))
                .map_err(|err| format!("product {:?}: {err}", raw.get("title")))?;
            check_product(&fields)?;
            for sku in &fields.skus {
                if !codes.insert(sku.sku.clone()) {
                    return Err(format!("sku {} appears twice", sku.sku));
                }
            }
            let key = fields.title.to_lowercase();
            let mut page = raw;
            page.insert("skus".to_owned(), Value::Array(served_skus(&page)));
            let card = card(&page);
            if cards.insert(key.clone(), card.clone()).is_some() {
                return Err(format!("product title {:?} appears twice", fields.title));
            }
            drafts.push((fields, key, page, card));
        }

        let mut products = Vec::new();
        for (fields, key, mut page, card) in drafts {
            let related = fields
                .related_products
                .iter()
                .map(|title| lookup_card(&cards, title, &fields.title))
                .collect::<Result<Vec<_>, _>>()?;
            for option in fields
                .compatibility_options
                .iter()
                .flat_map(|group| &group.options)
            {
                lookup_card(&cards, &option.label, &fields.title)?;
            }
            page.insert("relatedProducts".to_owned(), Value::Array(related));
            products.push(Product {
                skus: sku_rows(&fields),
                title: fields.title,
                subtitle: fields.subtitle,
                key,
                page: Value::Object(page),
                card,
            });
        }

        let tags_by_product: HashMap<String, Vec<FilterTag>> = products
            .iter()
            .map(|product| {
                let tags = serde_json::from_value(product.page["filterTags"].clone())
                    .map_err(|err| format!("{}: filterTags: {err}", product.title))?;
                Ok((product.key.clone(), tags))
            })
            .collect::<Result<_, String>>()?;
        let mut groups = Vec::new();
        for mut raw in raw_groups {
            let fields: GroupFields = serde_json::from_value(Value::Object(raw.clone()))
                .map_err(|err| format!("product group {:?}: {err}", raw.get("title")))?;
            check_group(&fields, &tags_by_product)?;
            let embedded = fields
                .products
                .iter()
                .map(|title| lookup_card(&cards, title, &fields.title))
                .collect::<Result<Vec<_>, _>>()?;
            raw.insert("products".to_owned(), Value::Array(embedded));
            let key = fields.title.to_lowercase();
            if groups.iter().any(|group: &Group| group.key == key) {
                return Err(format!("product group {:?} appears twice", fields.title));
            }
            groups.push(Group {
                title: fields.title,
                key,
                data: Value::Object(raw),
            });
        }
        Ok(Self { products, groups })
    }

    pub fn products(&self) -> &[Product] {
        &self.products
    }

    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The product titled `title`, ignoring case.
    pub fn product(&self, title: &str) -> Option<&Product> {
        let key = title.to_lowercase();
        self.products.iter().find(|product| product.key == key)
    }

    /// The product group titled `title`, ignoring case.
    pub fn group(&self, title: &str) -> Option<&Group> {
        let key = title.to_lowercase();
        self.groups.iter().find(|group| group.key == key)
    }

    /// Products whose title or subtitle contains `query` (ignoring case), by title ignoring case.
    pub fn search(&self, query: &str) -> Vec<&Product> {
        let needle = query.to_lowercase();
        let mut found: Vec<&Product> = self
            .products
            .iter()
            .filter(|product| {
                product.key.contains(&needle) || product.subtitle.to_lowercase().contains(&needle)
            })
            .collect();
        found.sort_by(|a, b| a.key.cmp(&b.key).then_with(|| a.title.cmp(&b.title)));
        found
    }
}

fn lookup_card(cards: &HashMap<String, Value>, title: &str, from: &str) -> Result<Value, String> {
    cards
        .get(&title.to_lowercase())
        .cloned()
        .ok_or_else(|| format!("{from} refers to an unknown product {title:?}"))
}

fn check_product(product: &ProductFields) -> Result<(), String> {
    let title = &product.title;
    if let Some(display) = &product.display_type
        && !PRODUCT_DISPLAY_TYPES.contains(&display.as_str())
    {
        return Err(format!("{title}: unknown display_type {display:?}"));
    }
    let Some(first) = product.skus.first() else {
        return Err(format!("{title} has no skus"));
    };
    // The cascading selects are the variant types in order; every sku must answer each of them.
    let selects: Vec<&str> = variant_types(first);
    let mut combinations = HashSet::new();
    for sku in &product.skus {
        if variant_types(sku) != selects {
            return Err(format!("{title}: sku {} has other selects", sku.sku));
        }
        let labels: Vec<&str> = sku.variants.iter().map(|v| v.label.as_str()).collect();
        if !combinations.insert(labels) {
            return Err(format!(
                "{title}: two skus share the options of {}",
                sku.sku
            ));
        }
        if !sku.price.is_finite() || sku.price < 0.0 {
            return Err(format!("{}: bad price", sku.sku));
        }
        let discount = sku.inventory.discount_percent;
        if !(0.0..100.0).contains(&discount) || sku.inventory.stock < 0 {
            return Err(format!("{}: bad inventory", sku.sku));
        }
    }
    Ok(())
}

fn variant_types(sku: &SkuFields) -> Vec<&str> {
    sku.variants
        .iter()
        .map(|variant| variant.product_variant_type.title.as_str())
        .collect()
}

fn check_group(
    group: &GroupFields,
    tags_by_product: &HashMap<String, Vec<FilterTag>>,
) -> Result<(), String> {
    let title = &group.title;
    if let Some(display) = &group.display_type
        && !COLLECTION_DISPLAY_TYPES.contains(&display.as_str())
    {
        return Err(format!("{title}: unknown display_type {display:?}"));
    }
    for (index, category) in group.filter_categories.iter().enumerate() {
        let Some(parent_title) = &category.depends_on else {
            continue;
        };
        let parent = group.filter_categories[..index]
            .iter()
            .find(|earlier| &earlier.title == parent_title)
            .ok_or_else(|| format!("{title}: {} depends on an unknown filter", category.title))?;
        for option in &category.options {
            let known = option
                .parent_value
                .as_ref()
                .is_some_and(|value| parent.options.iter().any(|o| &o.value == value));
            if !known {
                return Err(format!("{title}: {} has no valid parent", option.value));
            }
        }
    }
    // Every tag a member carries in one of this group's filter categories is one of its options.
    for product in &group.products {
        let tags = tags_by_product
            .get(&product.to_lowercase())
            .ok_or_else(|| format!("{title} lists an unknown product {product:?}"))?;
        for tag in tags {
            let Some(category) = group
                .filter_categories
                .iter()
                .find(|category| category.title == tag.filter_category)
            else {
                continue;
            };
            if !category.options.iter().any(|o| o.value == tag.filter_value) {
                return Err(format!(
                    "{title}: {product} is tagged {:?} which {} does not offer",
                    tag.filter_value, category.title
                ));
            }
        }
    }
    Ok(())
}

/// A fixture product's skus as served: without the `inventory` the `skus` table owns.
fn served_skus(product: &Map<String, Value>) -> Vec<Value> {
    product
        .get("skus")
        .and_then(Value::as_array)
        .map(|skus| {
            skus.iter()
                .map(|sku| {
                    let mut sku = sku.clone();
                    if let Some(fields) = sku.as_object_mut() {
                        fields.remove("inventory");
                    }
                    sku
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The product card: what a collection, a search result or a related product shows. Field names
/// follow the collection endpoint's snake_case.
fn card(page: &Map<String, Value>) -> Value {
    let field = |name: &str| page.get(name).cloned().unwrap_or(Value::Null);
    json!({
        "id": field("id"),
        "documentId": field("documentId"),
        "title": field("title"),
        "subtitle": field("subtitle"),
        "url": field("url"),
        "display_type": field("display_type"),
        "imgUrl": field("imgUrl"),
        "skus": field("skus"),
        "colorOptions": field("colorOptions"),
        "filter_options": field("filterTags"),
        "compatibility": field("compatibilityOptions"),
        "ffl_item": field("fflItem"),
        "receiver_item": field("receiverItem"),
    })
}

/// The `skus` table rows of a product: listed price in cents, the seeded discount and stock.
fn sku_rows(product: &ProductFields) -> Vec<Sku> {
    product
        .skus
        .iter()
        .map(|sku| Sku {
            code: sku.sku.clone(),
            product_title: product.title.clone(),
            product_name: product_name(&product.title, sku),
            price_cents: (sku.price * 100.0).round() as i64,
            discount_percent: sku.inventory.discount_percent,
            stock: sku.inventory.stock,
            ffl_item: product.ffl_item,
            receiver_item: product.receiver_item,
            restricted_states: sku.restricted_states.clone(),
            restricted_zips: sku.restricted_zips.clone(),
        })
        .collect()
}

/// "Summit LR - 6.5 Creedmoor / 24\" / Black"; the bare title for a single-sku product.
fn product_name(title: &str, sku: &SkuFields) -> String {
    if sku.variants.is_empty() {
        return title.to_owned();
    }
    let options: Vec<&str> = sku.variants.iter().map(|v| v.label.as_str()).collect();
    format!("{title} - {}", options.join(" / "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded() -> &'static Catalogue {
        catalogue().unwrap_or_else(|err| panic!("{err}"))
    }

    #[test]
    fn fixtures_load_and_cross_reference() {
        let catalogue = loaded();
        assert!(catalogue.products().len() >= 40);
        assert!(catalogue.groups().len() >= 6);
    }

    #[test]
    fn every_display_type_is_used() {
        let catalogue = loaded();
        for display in COLLECTION_DISPLAY_TYPES {
            assert!(
                catalogue
                    .groups()
                    .iter()
                    .any(|g| g.data["display_type"] == display),
                "{display}"
            );
        }
        for display in PRODUCT_DISPLAY_TYPES {
            assert!(
                catalogue
                    .products()
                    .iter()
                    .any(|p| p.page["display_type"] == display),
                "{display}"
            );
        }
    }

    #[test]
    fn served_shapes_hide_inventory_and_expand_references() {
        let summit = loaded().product("SUMMIT lr").unwrap();
        assert!(!summit.page.to_string().contains("inventory"));
        assert_eq!(
            summit.page["relatedProducts"][0]["title"],
            "Summit Tactical"
        );
        assert!(summit.page["relatedProducts"][0]["skus"].is_array());
        let rifles = loaded().group("rifles").unwrap();
        assert_eq!(rifles.data["products"][0]["title"], "Summit LR");
        assert_eq!(rifles.data["products"][0]["ffl_item"], true);
    }

    #[test]
    fn sku_rows_carry_cents_inventory_and_names() {
        let summit = loaded().product("Summit LR").unwrap();
        let row = summit
            .skus
            .iter()
            .find(|sku| sku.discount_percent > 0.0)
            .unwrap();
        assert_eq!(row.price_cents, 219_900);
        assert_eq!(row.product_title, "Summit LR");
        assert!(row.product_name.starts_with("Summit LR - 6.5 Creedmoor / "));
        assert!(row.ffl_item);
        let beanie = loaded().product("Range Beanie").unwrap();
        assert_eq!(beanie.skus[0].product_name, "Range Beanie");
    }

    #[test]
    fn search_matches_title_or_subtitle_and_sorts_ignoring_case() {
        let catalogue = loaded();
        let titles: Vec<&str> = catalogue
            .search("FALCON")
            .iter()
            .map(|p| p.title.as_str())
            .collect();
        assert!(titles.contains(&"Falcon 9") && titles.contains(&"Falcon Frame Module"));
        let mut sorted = titles.clone();
        sorted.sort_by_key(|title| title.to_lowercase());
        assert_eq!(titles, sorted);
        // "Cobalt Dust Cover" says "CD-47" only in its subtitle.
        assert!(
            catalogue
                .search("cd-47")
                .iter()
                .any(|p| p.title == "Cobalt Dust Cover")
        );
        assert!(catalogue.search("no such thing").is_empty());
    }

    fn product(title: &str, skus: Value, related: Value) -> Map<String, Value> {
        let value = json!({
            "title": title, "subtitle": "s", "display_type": null, "fflItem": false,
            "receiverItem": false, "skus": skus, "relatedProducts": related,
            "compatibilityOptions": [], "filterTags": [],
        });
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    fn sku(code: &str, label: &str) -> Value {
        json!({
            "sku": code, "price": 10.0, "restrictedStates": [], "restrictedZips": [],
            "variants": [{"label": label, "product_variant_type": {"title": "color"}}],
            "inventory": {"stock": 1, "discountPercent": 0},
        })
    }

    #[test]
    fn refuses_broken_fixtures() {
        let ok = product("A", json!([sku("A-1", "Black")]), json!([]));
        assert!(Catalogue::build(vec![ok.clone()], vec![]).is_ok());
        let dangling = product("B", json!([sku("B-1", "Black")]), json!(["Nope"]));
        assert!(Catalogue::build(vec![dangling], vec![]).is_err());
        let twice = product(
            "C",
            json!([sku("C-1", "Black"), sku("C-2", "Black")]),
            json!([]),
        );
        assert!(Catalogue::build(vec![twice], vec![]).is_err());
        let same_code = product("D", json!([sku("A-1", "Grey")]), json!([]));
        assert!(Catalogue::build(vec![ok.clone(), same_code], vec![]).is_err());
        let group = |products: Value| match json!({
            "title": "G", "display_type": "collection-cards", "filter_categories": [],
            "products": products,
        }) {
            Value::Object(map) => map,
            _ => unreachable!(),
        };
        assert!(Catalogue::build(vec![ok.clone()], vec![group(json!(["a"]))]).is_ok());
        assert!(Catalogue::build(vec![ok], vec![group(json!(["Z"]))]).is_err());
    }
}
