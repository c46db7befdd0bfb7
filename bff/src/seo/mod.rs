//! What search engines and link unfurlers see, who run no JavaScript: every page's first HTML
//! byte carries its own head (title, description, canonical URL, Open Graph and Twitter tags, a
//! product's price and JSON-LD), the status a crawler must see (404 for what the app does not
//! know, 301 for `/home`), `/robots.txt` and `/sitemap.xml`.
//!
//! The head is built here from the same cached content and prices the API answers with
//! (`Content`, `Catalogue`), so a cached page costs no upstream call; the body's first screen is
//! React's, rendered once per cache fill by [`crate::ssr`] from the same answers. The HTML
//! answer carries the parts' `ETag` and `Surrogate-Key`, and is `no-cache` towards browsers: a
//! purge refreshes it.
//!
//! - `routes`: the app's route table, read from the web app's route manifest
//!   (`web/src/app/routes.json`).
//! - `head`: the tags, escaped; `json_ld`: a product's schema.org `Product`.
//! - `page`: the document handler; `robots`, `sitemap`: the two crawler files.
//! - `canonical`: one spelling per page (any other is a permanent redirect to it);
//!   `variants`: the `sku` or tab a link asks for, checked against the page's data.
//! - `SeoSettings` (`crate::config::seo_settings`): what the head needs from the configuration,
//!   built once by the composition root.

mod canonical;
pub mod explain_keys;
pub mod head;
pub mod json_ld;
mod page;
pub mod robots;
pub mod routes;
pub mod sitemap;
mod variants;

use std::sync::Arc;

use axum::extract::FromRef;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

pub use crate::config::seo_settings::{SeoSettings, absolute};
pub use page::document;
pub use robots::robots;
pub use sitemap::sitemap;

use crate::commerce::catalogue::Catalogue;
use crate::edge::state::SharedState;
use crate::edge::web_assets::WebAssets;

/// What a title's path segment may not hold as is: everything `encodeURIComponent` encodes,
/// so the canonical URL is the one the app's own links (`paths.ts`) spell, and following one of
/// them never costs a redirect.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// `/{prefix}/{title}`, the title percent-encoded as one segment.
pub fn title_path(prefix: &str, title: &str) -> String {
    format!("/{prefix}/{}", utf8_percent_encode(title, SEGMENT))
}

/// `{origin}/{prefix}/{title}`, the title percent-encoded as one segment.
pub fn title_url(origin: &str, prefix: &str, title: &str) -> String {
    format!("{origin}{}", title_path(prefix, title))
}

/// The document handler's and the sitemap's services.
#[derive(Debug, Clone)]
pub struct Seo {
    pub catalogue: Catalogue,
    pub web: Arc<WebAssets>,
    pub settings: Arc<SeoSettings>,
    pub renderer: Arc<crate::ssr::Renderer>,
    /// The search limit: a search results' document looks the search up as the API does.
    pub search_limit: Arc<crate::http::rate_limit::ClientRateLimit>,
}

impl FromRef<SharedState> for Seo {
    fn from_ref(state: &SharedState) -> Self {
        Self {
            catalogue: Catalogue::from_ref(state),
            web: state.web.clone(),
            settings: state.seo.clone(),
            renderer: state.ssr.clone(),
            search_limit: state.search_rate_limit.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_one_encoded_segment() {
        assert_eq!(
            title_url("https://s.example", "product", "a b/c?d#e%"),
            "https://s.example/product/a%20b%2Fc%3Fd%23e%25"
        );
    }

    #[test]
    fn titles_are_encoded_as_the_apps_links_encode_them() {
        // encodeURIComponent("apparel & gear, 5.56 (x'y)!~*;=:@$+")
        assert_eq!(
            title_path("collection", "apparel & gear, 5.56 (x'y)!~*;=:@$+"),
            "/collection/apparel%20%26%20gear%2C%205.56%20(x'y)!~*%3B%3D%3A%40%24%2B"
        );
    }
}
