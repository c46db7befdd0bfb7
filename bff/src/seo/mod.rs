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
//! - `settings`: what the head needs from the configuration, built once by the composition root.

pub mod head;
pub mod json_ld;
mod page;
pub mod robots;
pub mod routes;
mod settings;
pub mod sitemap;

use std::sync::Arc;

use axum::extract::FromRef;
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

pub use page::document;
pub use robots::robots;
pub use settings::{SeoSettings, absolute};
pub use sitemap::sitemap;

use crate::commerce::catalogue::Catalogue;
use crate::edge::state::SharedState;
use crate::edge::web_assets::WebAssets;

/// What a path segment may not hold as is (the URL spec's path-segment set).
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'/')
    .add(b'%');

/// `{origin}/{prefix}/{title}`, the title percent-encoded as one segment.
pub fn title_url(origin: &str, prefix: &str, title: &str) -> String {
    format!("{origin}/{prefix}/{}", utf8_percent_encode(title, SEGMENT))
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
}
