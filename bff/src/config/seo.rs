//! `[seo]`: what crawlers and link previews are told.

use serde::{Deserialize, Serialize};

use super::sandbox::SANDBOX_PLACEHOLDER;

/// What crawlers and link previews are told: `/robots.txt` and the default preview image (see
/// `crate::seo`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SeoConfig {
    /// `false` answers `Disallow: /` in `/robots.txt` (a staging site must stay out of search
    /// results); `true` allows everything but `disallow`.
    pub allow_indexing: bool,
    /// Path prefixes crawlers are asked to skip: pages that are personal, transactional or
    /// endless (search results).
    pub disallow: Vec<String>,
    /// The preview image (`og:image`) of pages without one of their own: absolute, a path on
    /// the public origin, or under `${sandbox}`.
    pub default_image: String,
}

impl Default for SeoConfig {
    fn default() -> Self {
        Self {
            allow_indexing: true,
            disallow: [
                "/checkout",
                "/confirm/",
                "/profile",
                "/login",
                "/register",
                "/forgot-password",
                "/auth/",
                "/verify-email",
                "/Newsletter/verify/",
                "/search/",
            ]
            .map(str::to_owned)
            .to_vec(),
            default_image: format!("{SANDBOX_PLACEHOLDER}/media/logo.svg"),
        }
    }
}
