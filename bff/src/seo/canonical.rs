//! One spelling per page. A title names its product, collection or search as the catalogue
//! keys it (trimmed, lower-cased), so `/product/SUMMIT%20LR`, `/product/%73ummit%20lr` and
//! `/product/summit%20lr%09` are one page; a content page is its route's path, without a
//! trailing slash. Any other spelling is answered with a permanent redirect to the canonical
//! URL (the one in `<link rel=canonical>`), the query kept as sent (analytics still sees its
//! parameters), before anything is looked up or rendered: only a canonical spelling can make a
//! document or a cache entry.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::routes::{AppRoute, HeadSource};
use super::title_path;
use crate::cache;

/// Where a request's spelling stands.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Spelling {
    /// The page's own spelling.
    Canonical,
    /// Another spelling of the page at this path.
    Of(String),
    /// A title that is blank once trimmed: no page.
    Nothing,
}

/// The spelling of `path` (matched to `route`, whose parameter decodes to `param`) among the
/// spellings of its page. Only the pages the BFF renders are held to one spelling.
pub(super) fn spelling(route: &AppRoute, path: &str, param: Option<&str>) -> Spelling {
    if !route.render.on_server() {
        return Spelling::Canonical;
    }
    let canonical = match (route.source, param) {
        (HeadSource::Product | HeadSource::Collection | HeadSource::Search, Some(param)) => {
            let title = cache::normalise(param);
            if title.is_empty() {
                return Spelling::Nothing;
            }
            let prefix = route.pattern.split('/').next().unwrap_or_default();
            title_path(prefix, &title)
        }
        _ => format!("/{}", route.pattern),
    };
    if canonical == path {
        Spelling::Canonical
    } else {
        Spelling::Of(canonical)
    }
}

/// The permanent redirect to `canonical`, with the request's `query` as it was sent.
pub(super) fn redirect(canonical: &str, query: Option<&str>) -> Option<Response> {
    let location = match query {
        Some(query) => format!("{canonical}?{query}"),
        None => canonical.to_owned(),
    };
    let location = HeaderValue::from_str(&location).ok()?;
    Some(
        (
            StatusCode::MOVED_PERMANENTLY,
            [(header::LOCATION, location)],
        )
            .into_response(),
    )
}

#[cfg(test)]
mod tests {
    use super::super::routes::match_path;
    use super::*;

    fn spelling_of(path: &str) -> Spelling {
        let matched = match_path(path).unwrap();
        spelling(matched.route, path, matched.param.as_deref())
    }

    #[test]
    fn every_other_spelling_of_a_title_names_the_canonical_path() {
        assert_eq!(spelling_of("/product/summit%20lr"), Spelling::Canonical);
        for path in [
            "/product/SUMMIT%20LR",
            "/product/%73ummit%20lr",
            "/product/%20summit%20lr",
            "/product/summit%20lr%09",
            "/product/summit%20lr/",
        ] {
            assert_eq!(
                spelling_of(path),
                Spelling::Of("/product/summit%20lr".to_owned()),
                "{path}"
            );
        }
        assert_eq!(
            spelling_of("/search/Summit"),
            Spelling::Of("/search/summit".to_owned())
        );
        assert_eq!(spelling_of("/collection/%20%09"), Spelling::Nothing);
    }

    #[test]
    fn a_content_page_is_its_routes_path() {
        assert_eq!(spelling_of("/"), Spelling::Canonical);
        assert_eq!(spelling_of("/about-us"), Spelling::Canonical);
        assert_eq!(
            spelling_of("/about-us/"),
            Spelling::Of("/about-us".to_owned())
        );
        // pages the BFF does not render keep their spellings
        assert_eq!(spelling_of("/profile/orders/7/"), Spelling::Canonical);
    }

    #[test]
    fn the_query_is_kept_as_sent() {
        let answer = redirect("/product/a", Some("utm_source=x&sku=TF%2D1")).unwrap();
        assert_eq!(answer.status(), StatusCode::MOVED_PERMANENTLY);
        assert_eq!(
            answer.headers()["location"],
            "/product/a?utm_source=x&sku=TF%2D1"
        );
    }
}
