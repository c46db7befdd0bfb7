//! What search engines and link unfurlers see, who run no JavaScript: every page's first HTML
//! byte carries its own head (title, description, canonical URL, Open Graph and Twitter tags, a
//! product's price and JSON-LD), the status a crawler must see (404 for what the app does not
//! know, 301 for `/home`), `/robots.txt` and `/sitemap.xml`.
//!
//! No server-side React: the head is built from the same cached content and prices the API
//! answers with (`Content`, `Catalogue`), so a cached page costs no upstream call, and the HTML
//! answer carries the parts' `ETag`, `Surrogate-Key` and freshness: a purge refreshes it.
//!
//! - `routes`: the app's route table (kept equal to `web/src/app/router.tsx` by a test).
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
use crate::config::{Config, SeoConfig, resolve_sandbox};
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
        let default_image = (!image.is_empty()).then(|| absolute(&origin, &image));
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
}

impl FromRef<SharedState> for Seo {
    fn from_ref(state: &SharedState) -> Self {
        Self {
            catalogue: Catalogue::from_ref(state),
            web: state.web.clone(),
            settings: state.seo.clone(),
        }
    }
}
