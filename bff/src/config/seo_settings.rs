//! What the head needs from the configuration, resolved once: built by the composition root
//! (`crate::edge::state`) and read by the head's builders (`crate::seo`). It depends on the
//! configuration only, so it lives here, below both.

use super::{Config, SANDBOX_PLACEHOLDER, SeoConfig, resolve_sandbox};

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
}
