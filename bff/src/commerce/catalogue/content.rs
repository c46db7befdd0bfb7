//! The content service's products, product groups and search results, as the catalogue reads
//! them: the upstream contract, checked when an answer is fetched and kept in the edge cache in
//! this shape.
//!
//! Tolerant reader: the fields the composition reads are typed (titles, sku codes, listed prices,
//! variants); every other field of the CMS is kept in a `rest` map and passed through to the
//! browser as it is (its shape is documented by the answer types, see [`super::answer`]). A
//! missing or mistyped typed field breaks the contract: `upstream_contract`, a 502.
//!
//! The keys are camelCase: the CMS mixes `display_type` and `fieldName`, and
//! [`crate::content::read`] normalises the document before reading it into these types.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// A product as `GET products/{title}` gives it (the first element of the answer array).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProductContent {
    pub title: String,
    #[serde(default)]
    pub skus: Vec<SkuContent>,
    #[serde(default)]
    pub related_products: Vec<CardContent>,
    /// Everything else the CMS says about the product, relayed.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// A product card, as product groups, search results and related products embed them.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CardContent {
    pub title: String,
    #[serde(default)]
    pub skus: Vec<SkuContent>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// A sku as the content service lists it: its code (the price map's key), its listed price and
/// its option choices.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkuContent {
    pub sku: String,
    /// The listed price, used only when the price map does not know the sku.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<f64>,
    #[serde(default)]
    pub variants: Vec<SkuVariant>,
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// The choice a sku makes for one option select (caliber, barrel length, color…).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkuVariant {
    pub id: i64,
    /// The option's slug: `6-5-creedmoor`.
    pub field_name: String,
    /// The option as shown: `6.5 Creedmoor`.
    pub label: String,
    pub product_variant_type: ProductVariantType,
}

/// One option select of a product; skus list theirs in the same order, the selects cascade.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductVariantType {
    /// The select's slug: `caliber`.
    pub title: String,
    /// The select's label: `Caliber`.
    pub display_title: String,
}

/// A product group as `GET product-groups/{title}` gives it, unwrapped from `{data: …}`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectionContent {
    /// In the collection's order.
    #[serde(default)]
    pub products: Vec<CardContent>,
    /// The group's own fields (title, filters, promo cards…), relayed.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::content::{Data, read};
    use crate::upstream::UpstreamError;

    fn sku(code: &str) -> Value {
        json!({
            "id": 1, "sku": code, "price": 10.0, "restrictedStates": ["CA"],
            "variants": [{"id": 1, "fieldName": "black", "label": "Black",
                "product_variant_type": {"title": "color", "display_title": "Color"}}],
        })
    }

    #[test]
    fn a_product_is_camel_cased_and_keeps_the_cms_fields_it_does_not_read() {
        let product: ProductContent = read(json!({
            "title": "Summit LR", "display_type": "product-long", "brand_new_field": {"a_b": 1},
            "skus": [sku("S-1")],
            "relatedProducts": [{"title": "Falcon 9", "ffl_item": true, "skus": []}],
        }))
        .unwrap();
        assert_eq!(product.title, "Summit LR");
        assert_eq!(product.rest["displayType"], "product-long");
        assert_eq!(product.rest["brandNewField"], json!({"aB": 1}));
        let sku = &product.skus[0];
        assert_eq!((sku.sku.as_str(), sku.price), ("S-1", Some(10.0)));
        assert_eq!(sku.rest["restrictedStates"], json!(["CA"]));
        assert_eq!(sku.variants[0].product_variant_type.display_title, "Color");
        assert_eq!(product.related_products[0].rest["fflItem"], true);
    }

    #[test]
    fn a_product_survives_the_cache_round_trip() {
        let product: ProductContent =
            read(json!({"title": "T", "url": "/product/t", "skus": [sku("S-1")]})).unwrap();
        let stored = serde_json::to_vec(&product).unwrap();
        let again: ProductContent = serde_json::from_slice(&stored).unwrap();
        assert_eq!(again, product);
    }

    #[test]
    fn optional_lists_default_to_empty() {
        let card: CardContent = read(json!({"title": "Bare"})).unwrap();
        assert!(card.skus.is_empty());
        let group: CollectionContent = read(json!({"title": "Empty"})).unwrap();
        assert!(group.products.is_empty());
        let sku: SkuContent = read(json!({"sku": "S"})).unwrap();
        assert_eq!(sku.price, None);
    }

    fn contract_field<T: serde::de::DeserializeOwned + std::fmt::Debug>(document: Value) -> String {
        match read::<T>(document) {
            Err(UpstreamError::Contract {
                upstream, field, ..
            }) => {
                assert_eq!(upstream, "content");
                field
            }
            other => panic!("not a contract error: {other:?}"),
        }
    }

    #[test]
    fn a_missing_or_mistyped_field_breaks_the_contract_at_its_path() {
        assert_eq!(contract_field::<ProductContent>(json!({"skus": []})), ".");
        assert_eq!(
            contract_field::<ProductContent>(json!({"title": "T", "skus": [{"price": 1}]})),
            "skus[0]"
        );
        assert_eq!(
            contract_field::<ProductContent>(
                json!({"title": "T", "skus": [{"sku": "S", "price": "ten"}]})
            ),
            "skus[0].price"
        );
        assert_eq!(
            contract_field::<CollectionContent>(json!({"products": [{"title": 7}]})),
            "products[0].title"
        );
        assert_eq!(
            contract_field::<Data<CollectionContent>>(json!({"items": []})),
            "."
        );
    }
}
