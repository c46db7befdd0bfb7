//! `/robots.txt`, from `[seo]`: everything allowed but the configured prefixes (or nothing,
//! on a site that must stay out of search results), and where the sitemap is.

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use super::Seo;
use crate::config::SeoConfig;

/// The file, for a site at `origin` (no trailing slash).
pub fn robots_txt(config: &SeoConfig, origin: &str) -> String {
    let mut out = String::from("User-agent: *\n");
    if config.allow_indexing {
        out.push_str("Allow: /\n");
        for prefix in &config.disallow {
            // A line break would start a rule of its own.
            if !prefix.is_empty() && !prefix.contains(['\n', '\r']) {
                out.push_str("Disallow: ");
                out.push_str(prefix);
                out.push('\n');
            }
        }
    } else {
        out.push_str("Disallow: /\n");
    }
    out.push_str("\nSitemap: ");
    out.push_str(origin);
    out.push_str("/sitemap.xml\n");
    out
}

/// `GET /robots.txt`: built from the configuration, which changes only on restart.
pub async fn robots(State(seo): State<Seo>) -> Response {
    let settings = &seo.settings;
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            ),
        ],
        robots_txt(&settings.config, &settings.origin),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_all_but_the_private_paths() {
        let text = robots_txt(&SeoConfig::default(), "https://shop.example");
        assert!(text.starts_with("User-agent: *\nAllow: /\n"), "{text}");
        for prefix in ["/checkout", "/profile", "/login", "/auth/", "/search/"] {
            assert!(text.contains(&format!("Disallow: {prefix}\n")), "{prefix}");
        }
        assert!(text.ends_with("Sitemap: https://shop.example/sitemap.xml\n"));
    }

    #[test]
    fn a_closed_site_disallows_everything() {
        let config = SeoConfig {
            allow_indexing: false,
            ..SeoConfig::default()
        };
        let text = robots_txt(&config, "https://shop.example");
        assert!(text.contains("Disallow: /\n"));
        assert!(!text.contains("Allow: /\n"));
    }
}
