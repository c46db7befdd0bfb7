//! The variant a link asks of a page, checked against the page's own data before it names a
//! document: a real sku of the product other than the one it shows by default, a real tab of a
//! tabbed collection other than "All". Anything else is the canonical document, as the app
//! shows it too (`initialSku` and `activeTab` fall back the same way).

use serde_json::Value;

use crate::ssr::{Variant, VariantParam};

/// The collection layout whose tab lives in `?activeFilter=`.
const TABBED_GRID: &str = "collection-tabbed-grid";

/// `requested`, spelled as `page` (a composed product or collection) spells it, when the page
/// has it and it is not what the page shows without it.
pub(super) fn checked(page: &Value, requested: Option<Variant>) -> Option<Variant> {
    let requested = requested?;
    let wanted = requested.key_value();
    let value = match requested.param {
        VariantParam::Sku => {
            let sku = page["skus"]
                .as_array()?
                .iter()
                .filter_map(|sku| sku["sku"].as_str())
                .find(|sku| sku.to_lowercase() == wanted)?;
            (page["displayedSku"].as_str() != Some(sku)).then_some(sku)?
        }
        VariantParam::ActiveFilter => {
            if page["displayType"].as_str() != Some(TABBED_GRID) {
                return None;
            }
            page["filterCategories"][0]["options"]
                .as_array()?
                .iter()
                .filter_map(|option| option["value"].as_str())
                .find(|tab| tab.to_lowercase() == wanted)?
        }
    };
    Some(Variant {
        param: requested.param,
        value: value.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn asked(param: VariantParam, value: &str) -> Option<Variant> {
        Some(Variant {
            param,
            value: value.to_owned(),
        })
    }

    #[test]
    fn a_real_sku_other_than_the_default_is_a_variant() {
        let product = json!({"displayedSku": "TF-1", "skus": [{"sku": "TF-1"}, {"sku": "TF-2"}]});
        let sku = checked(&product, asked(VariantParam::Sku, "tf-2"));
        assert_eq!(sku.map(|sku| sku.value).as_deref(), Some("TF-2"));
        for value in ["TF-1", "TF-3", "TF"] {
            assert_eq!(checked(&product, asked(VariantParam::Sku, value)), None);
        }
        assert_eq!(checked(&product, None), None);
    }

    #[test]
    fn a_real_tab_of_a_tabbed_collection_is_a_variant() {
        let tabbed = json!({
            "displayType": "collection-tabbed-grid",
            "filterCategories": [{"options": [{"value": "Semi-Auto"}]}]
        });
        let tab = checked(&tabbed, asked(VariantParam::ActiveFilter, "semi-auto"));
        assert_eq!(tab.map(|tab| tab.value).as_deref(), Some("Semi-Auto"));
        for value in ["All", "Lever"] {
            assert_eq!(
                checked(&tabbed, asked(VariantParam::ActiveFilter, value)),
                None
            );
        }
        let filterable = json!({
            "displayType": "collection-filterable-grid",
            "filterCategories": [{"options": [{"value": "Semi-Auto"}]}]
        });
        assert_eq!(
            checked(&filterable, asked(VariantParam::ActiveFilter, "Semi-Auto")),
            None
        );
    }
}
