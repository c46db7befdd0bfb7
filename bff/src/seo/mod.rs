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
//! - `routes`: the app's route table (kept equal to `web/src/app/page-table.tsx` by a test).
//! - `head`: the tags, escaped; `json_ld`: a product's schema.org `Product`.
//! - `page`: the document handler; `robots`, `sitemap`: the two crawler files.

pub mod head;
pub mod json_ld;
mod page;
pub mod robots;
pub mod routes;
pub mod sitemap;

use std::sync::Arc;

use axum::extract::FromRef;
use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};

pub use page::document;
pub use robots::robots;
pub use sitemap::sitemap;

use crate::catalogue::Catalogue;
use crate::config::{Config, SANDBOX_PLACEHOLDER, SeoConfig, resolve_sandbox};
use crate::state::SharedState;
use crate::web_assets::WebAssets;

/// What the head needs from the configuration, resolved once at start-up.
#[derive(Debug, Clone)]
pub struct SeoSettings {
    /// The public origin, no trailing slash: canonical URLs are absolute.
    pub origin: String,
    pub brand: String,
    /// The preview image of pages without their own, absolute.
    pub default_image: Option<String>,
    pub config: SeoConfig,
}

impl SeoSettings {
    pub fn new(config: &Config, sandbox_origin: Option<&str>) -> Self {
        let origin = config.server.public_origin.origin().ascii_serialization();
        let image = resolve_sandbox(&config.seo.default_image, sandbox_origin);
        // Without the sandbox a `${sandbox}` image names nothing: pages keep their own images
        // and the others go without one rather than point at a broken URL.
        let default_image = (!image.is_empty() && !image.starts_with(SANDBOX_PLACEHOLDER))
            .then(|| absolute(&origin, &image));
        Self {
            brand: config.public.brand_name.clone(),
            default_image,
            config: config.seo.clone(),
            origin,
        }
    }
}

/// `url` made absolute against `origin` when it is a path.
pub fn absolute(origin: &str, url: &str) -> String {
    if url.starts_with('/') && !url.starts_with("//") {
        format!("{origin}{url}")
    } else {
        url.to_owned()
    }
}

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
    pub search_limit: Arc<crate::rate_limit::ClientRateLimit>,
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
    fn the_default_image_is_absolute_and_never_an_unresolved_placeholder() {
        let config = Config::default();
        let with_sandbox = SeoSettings::new(&config, Some("http://127.0.0.1:8081"));
        assert_eq!(
            with_sandbox.default_image.as_deref(),
            Some("http://127.0.0.1:8081/media/logo.svg")
        );
        assert_eq!(SeoSettings::new(&config, None).default_image, None);
        let mut own = Config::default();
        own.seo.default_image = "/og.png".to_owned();
        assert_eq!(
            SeoSettings::new(&own, None).default_image.as_deref(),
            Some("http://localhost:8080/og.png")
        );
    }

    #[test]
    fn titles_are_one_encoded_segment() {
        assert_eq!(
            title_url("https://s.example", "product", "a b/c?d#e%"),
            "https://s.example/product/a%20b%2Fc%3Fd%23e%25"
        );
    }
}
