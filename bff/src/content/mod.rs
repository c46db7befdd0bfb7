//! The content service as this API uses it: pages (and, with live prices, the catalogue)
//! through the edge cache; the page names the specs allow, and the key conversion from the
//! CMS's snake_case to the API's camelCase.

pub mod dealers;
pub mod geo;
pub mod page_shapes;
pub mod pages;
pub mod tiles;
pub mod webhook;
pub mod webhook_auth;
pub mod webhook_coalesce;
pub mod webhook_purge_cap;
pub mod webhook_replay;
pub mod webhook_signature;

use std::sync::Arc;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::cache::EdgeCache;
use crate::observe::metrics::Metrics;
use crate::upstream::{Upstream, UpstreamError, decode_value};

/// What the content services need: the content upstream, the edge cache and the metrics (pages
/// that break their documented shape are counted).
#[derive(Debug, Clone)]
pub struct Content {
    pub upstream: Upstream,
    pub cache: EdgeCache,
    pub metrics: Arc<Metrics>,
}

/// Every content page name in the specs (section 7 of the account spec, plus `app` and
/// `footer`).
pub const PAGE_NAMES: &[&str] = &[
    "app",
    "footer",
    "home",
    "aboutus",
    "contactus",
    "dealerlocator",
    "dealerregistration",
    "faq",
    "limitededition",
    "medialibrary",
    "warranty",
    "resources",
    "support",
    "patent",
    "login",
    "register",
    "forgotpassword",
    "resetpassword",
    "terms",
    "privacy",
];

/// The API's names are camelCase, whatever the CMS calls its fields (the rule is `http`'s: a
/// validation error names its field the same way).
pub use crate::http::camel_case::{camel_case, camel_case_keys};

/// Strapi's single-document envelope: `{"data": …}`.
#[derive(Debug, Deserialize)]
pub struct Data<T> {
    pub data: T,
}

/// A content document (parsed JSON), camelCased, read as a `T`: a missing or mistyped field `T`
/// requires is `upstream_contract`.
pub fn read<T: DeserializeOwned>(document: Value) -> Result<T, UpstreamError> {
    decode_value("content", camel_case_keys(document))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn converts_snake_case_keys_deeply() {
        let value =
            json!({"nav_links": [{"hover_image": {"src": "a"}}], "address_1": "x", "metaData": {}});
        assert_eq!(
            camel_case_keys(value),
            json!({"navLinks": [{"hoverImage": {"src": "a"}}], "address1": "x", "metaData": {}})
        );
    }

    #[test]
    fn leaves_values_alone() {
        assert_eq!(
            camel_case_keys(json!({"a": "snake_value"})),
            json!({"a": "snake_value"})
        );
    }
}
