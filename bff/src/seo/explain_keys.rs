//! The cache keys a URL maps to, for `GET /admin/cache/explain`: a page's document and its
//! parts, or an API answer's parts, spelled by the functions the handlers key them with.

use crate::cache::explain::{ExplainTarget, KeyKind};
use crate::cache::key::{cache_key, request_key};
use crate::cache::{RouteKind, normalise};
use crate::commerce::catalogue::PRICE_MAP_KEY;
use crate::commerce::catalogue::query::search_query;
use crate::ssr::{Variant, document_key};

use super::canonical::{Spelling, spelling};
use super::routes::{HeadSource, match_path};

/// Why a URL maps to no key: said to the operator as the `url` field's problem.
pub type Unmapped = &'static str;

/// What a page's last render read on this replica, given the web build's id and the page's
/// canonical path: the URLs its loaders asked for (`None`: not rendered here yet).
pub type ReadsOf<'a> = &'a dyn Fn(&str, &str) -> Option<Vec<String>>;

/// The keys `url` (a path with its query, or an absolute URL) maps to: a page's document first
/// (when `build`, the web build's id, is known and the page is rendered on the server), then
/// the entries it is made of (those of the API answers its last render read, `reads_of`; for
/// a page not rendered here yet, those its head is made of); for an API URL, the entries its
/// answer is made of.
pub fn explain_targets(
    url: &str,
    build: Option<&str>,
    reads_of: ReadsOf<'_>,
) -> Result<Vec<ExplainTarget>, Unmapped> {
    let (path, query) = split(url)?;
    if let Some(api) = path.strip_prefix("/api/") {
        return api_targets(api, query.as_deref());
    }
    page_targets(&path, query.as_deref(), build, reads_of)
}

/// `url`'s path and query.
fn split(url: &str) -> Result<(String, Option<String>), Unmapped> {
    let base = url::Url::parse("http://explain.invalid/").map_err(|_| "unparseable")?;
    let parsed = base.join(url).map_err(|_| "not a URL")?;
    Ok((parsed.path().to_owned(), parsed.query().map(str::to_owned)))
}

/// The entries of the API answers `reads` name, each once (a read with no cached answer, such
/// as the dealers', names none).
fn read_targets(reads: &[String]) -> Vec<ExplainTarget> {
    let mut targets: Vec<ExplainTarget> = Vec::new();
    for read in reads {
        let Ok((path, query)) = split(read) else {
            continue;
        };
        let Some(api) = path.strip_prefix("/api/") else {
            continue;
        };
        for target in api_targets(api, query.as_deref()).unwrap_or_default() {
            if !targets.iter().any(|known| known.key == target.key) {
                targets.push(target);
            }
        }
    }
    targets
}

fn entry(route: RouteKind, key: String) -> ExplainTarget {
    ExplainTarget {
        key,
        route,
        kind: KeyKind::Entry,
    }
}

fn prices() -> ExplainTarget {
    entry(
        RouteKind::Prices,
        cache_key(RouteKind::Prices, PRICE_MAP_KEY),
    )
}

/// A path segment, decoded once as the router's `Path` decodes it.
fn decoded(segment: &str) -> Result<String, Unmapped> {
    percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .map(|text| text.into_owned())
        .map_err(|_| "the path is not UTF-8 once decoded")
}

fn api_targets(api: &str, query: Option<&str>) -> Result<Vec<ExplainTarget>, Unmapped> {
    let (resource, segment) = api.split_once('/').unwrap_or((api, ""));
    let titled = |route: RouteKind| -> Result<ExplainTarget, Unmapped> {
        if segment.is_empty() || segment.contains('/') {
            return Err("no cached API answer at this path");
        }
        Ok(entry(route, request_key(route, &decoded(segment)?)))
    };
    match resource {
        "pages" => Ok(vec![titled(RouteKind::Pages)?]),
        "products" => Ok(vec![titled(RouteKind::Product)?, prices()]),
        "collections" => Ok(vec![titled(RouteKind::Collection)?, prices()]),
        "search" if segment.is_empty() => {
            let q = url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
                .find(|(name, _)| name == "q")
                .map(|(_, value)| value.into_owned());
            let q = search_query(q.as_deref())?;
            Ok(vec![
                entry(RouteKind::Search, cache_key(RouteKind::Search, &q)),
                prices(),
            ])
        }
        _ => Err("no cached API answer at this path"),
    }
}

fn page_targets(
    path: &str,
    query: Option<&str>,
    build: Option<&str>,
    reads_of: ReadsOf<'_>,
) -> Result<Vec<ExplainTarget>, Unmapped> {
    let path = if path == "/index.html" { "/" } else { path };
    let matched = match_path(path).ok_or("no page at this path")?;
    let route = matched.route;
    // the router sends other spellings to the canonical page: explain that one
    let canonical = match spelling(route, path, matched.param.as_deref()) {
        Spelling::Canonical => path.to_owned(),
        Spelling::Of(canonical) => canonical,
        Spelling::Nothing => return Err("no page at this path"),
    };
    let path = match canonical.strip_suffix('/') {
        Some(trimmed) if !trimmed.is_empty() => trimmed.to_owned(),
        _ => canonical,
    };
    let param = matched.param.unwrap_or_default();
    let mut parts = match route.source {
        HeadSource::Page(name) => vec![entry(RouteKind::Pages, cache_key(RouteKind::Pages, name))],
        HeadSource::Product => vec![
            entry(
                RouteKind::Product,
                cache_key(RouteKind::Product, &normalise(&param)),
            ),
            prices(),
        ],
        HeadSource::Collection => vec![
            entry(
                RouteKind::Collection,
                cache_key(RouteKind::Collection, &normalise(&param)),
            ),
            prices(),
        ],
        HeadSource::Search => {
            let q = search_query(Some(&param))?;
            vec![
                entry(RouteKind::Search, cache_key(RouteKind::Search, &q)),
                prices(),
            ]
        }
        HeadSource::Redirect(_) | HeadSource::Fixed => Vec::new(),
    };
    let Some(build) = build.filter(|_| route.render.on_server() && !parts.is_empty()) else {
        return Ok(parts);
    };
    let variant = Variant::requested(&path, query);
    let document = ExplainTarget {
        key: document_key(build, &path, variant.as_ref()),
        route: parts[0].route,
        kind: KeyKind::Document,
    };
    // what the page's render read, when it rendered here: the document is made of exactly that
    if let Some(reads) = reads_of(build, &path) {
        let read = read_targets(&reads);
        if !read.is_empty() {
            parts = read;
        }
    }
    parts.insert(0, document);
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn not_rendered(_build: &str, _path: &str) -> Option<Vec<String>> {
        None
    }

    fn keys(url: &str, build: Option<&str>) -> Vec<String> {
        explain_targets(url, build, &not_rendered)
            .unwrap()
            .into_iter()
            .map(|target| target.key)
            .collect()
    }

    #[test]
    fn an_api_product_maps_to_its_entry_and_the_price_map() {
        assert_eq!(
            keys("/api/products/Summit%20LR", None),
            ["product:summit lr", "prices:all"]
        );
        assert_eq!(
            keys("/api/search?q=Red+Rifle", None),
            ["search:red rifle", "prices:all"]
        );
    }

    #[test]
    fn a_product_page_not_rendered_here_maps_to_its_document_and_its_heads_parts() {
        let variant = Variant::requested("/product/summit%20lr", Some("sku=TF-1"));
        let document = document_key("b1", "/product/summit%20lr", variant.as_ref());
        assert_eq!(
            keys("/product/summit%20lr?sku=TF-1", Some("b1")),
            [document.as_str(), "product:summit lr", "prices:all"]
        );
    }

    #[test]
    fn a_rendered_page_maps_to_what_its_render_read() {
        let reads_of = |build: &str, path: &str| {
            assert_eq!((build, path), ("b1", "/dealer-locator"));
            Some(vec![
                "/api/pages/dealerlocator".to_owned(),
                "/api/pages/app".to_owned(),
                "/api/dealers?zip=78701".to_owned(),
                "/api/products/Summit%20LR".to_owned(),
                "/api/pages/app".to_owned(),
            ])
        };
        let targets: Vec<String> = explain_targets("/dealer-locator", Some("b1"), &reads_of)
            .unwrap()
            .into_iter()
            .map(|target| target.key)
            .collect();
        assert_eq!(
            targets,
            [
                document_key("b1", "/dealer-locator", None).as_str(),
                "pages:dealerlocator",
                "pages:app",
                "product:summit lr",
                "prices:all"
            ]
        );
    }

    #[test]
    fn a_url_with_no_cached_answer_is_refused() {
        assert!(explain_targets("/api/orders/1", None, &not_rendered).is_err());
        assert!(explain_targets("/no/such/page/here", None, &not_rendered).is_err());
    }
}
