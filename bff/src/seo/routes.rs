//! The web app's route table, as the BFF needs it: which paths the app renders (anything else
//! is a 404), which content page gives a path its head, which pages crawlers must not index and
//! which the BFF renders. It is read from the app's own route manifest,
//! `web/src/app/routes.json`, the file the web's router is built from (`page-table.tsx`): one
//! table for both, so they cannot differ.

use std::sync::LazyLock;

use percent_encoding::percent_decode_str;
use serde::Deserialize;

/// The app's route manifest, compiled in.
const MANIFEST: &str = include_str!("../../../web/src/app/routes.json");

/// Where a route's head comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadSource {
    /// A permanent redirect to this path (`/home` to `/`).
    Redirect(&'static str),
    /// The content page of this name (its `metaData`).
    Page(&'static str),
    /// The product named by the path's parameter.
    Product,
    /// The collection named by the path's parameter.
    Collection,
    /// Search results for the path's parameter.
    Search,
    /// Nothing to look up: the route's own title and the site defaults.
    Fixed,
}

/// What the BFF answers a route's document with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Render {
    /// The app shell with the route's head; the browser renders the page.
    Shell,
    /// The first screen rendered by React on the server, kept in this replica's cache only
    /// (search results: who may search is limited per client).
    Server,
    /// Rendered on the server, and the document may go to the shared cache (L2).
    Shared,
}

impl Render {
    /// The BFF renders the page's first screen.
    pub fn on_server(self) -> bool {
        matches!(self, Self::Server | Self::Shared)
    }
}

/// One route of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppRoute {
    /// The app's pattern without the leading `/` (`product/:title`); `:name` matches one
    /// segment.
    pub pattern: &'static str,
    pub source: HeadSource,
    /// The page's own title as the app's `PageMeta` shows it (the brand name is appended);
    /// empty for the site's default title.
    pub title: &'static str,
    /// Personal, transactional or verification pages: `noindex`.
    pub noindex: bool,
    pub render: Render,
}

/// The manifest as written: routes nest (a layout's pages are its children), each with its
/// full path. Its strings are borrowed from the compiled-in text.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Manifest<'a> {
    #[serde(borrow)]
    routes: Vec<Entry<'a>>,
    #[serde(borrow)]
    not_found: NotFound<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry<'a> {
    path: &'a str,
    /// The page's module (the web's business); a redirect has none.
    #[serde(borrow, default)]
    module: Option<&'a str>,
    /// The layout module around the page and its children (the web's business).
    #[serde(borrow, default)]
    layout: Option<&'a str>,
    head: &'a str,
    title: &'a str,
    noindex: bool,
    render: Render,
    #[serde(borrow, default)]
    redirect: Option<&'a str>,
    #[serde(borrow, default)]
    children: Vec<Entry<'a>>,
}

/// The page of any path no route matches (its `module` is the web's business).
#[derive(Deserialize)]
struct NotFound<'a> {
    title: &'a str,
    noindex: bool,
}

/// The routes, nested ones with their full path, and the not-found page's head.
struct Table {
    routes: Vec<AppRoute>,
    not_found: NotFound<'static>,
}

static TABLE: LazyLock<Table> = LazyLock::new(|| match parse(MANIFEST) {
    Ok(table) => table,
    // the manifest is compiled in: a unit test parses it, so this cannot happen in a build
    Err(error) => panic!("web/src/app/routes.json: {error}"),
});

/// Every route of the app, nested routes with their full path, in the manifest's order.
pub fn routes() -> &'static [AppRoute] {
    &TABLE.routes
}

/// The not-found page's title (the brand name is appended) and whether it is indexed.
pub fn not_found_page() -> (&'static str, bool) {
    (TABLE.not_found.title, TABLE.not_found.noindex)
}

fn parse(manifest: &'static str) -> Result<Table, String> {
    let manifest: Manifest<'static> =
        serde_json::from_str(manifest).map_err(|error| error.to_string())?;
    let mut routes = Vec::new();
    flatten(&manifest.routes, &mut routes)?;
    Ok(Table {
        routes,
        not_found: manifest.not_found,
    })
}

fn flatten(entries: &[Entry<'static>], routes: &mut Vec<AppRoute>) -> Result<(), String> {
    for entry in entries {
        let path = entry.path;
        let source = match (entry.head, entry.redirect) {
            ("redirect", Some(target)) => HeadSource::Redirect(target),
            (_, Some(_)) => return Err(format!("{path}: a redirect's head is \"redirect\"")),
            ("product", None) => HeadSource::Product,
            ("collection", None) => HeadSource::Collection,
            ("search", None) => HeadSource::Search,
            ("fixed", None) => HeadSource::Fixed,
            (head, None) => match head.strip_prefix("page:") {
                Some(name) if !name.is_empty() => HeadSource::Page(name),
                _ => return Err(format!("{path}: unknown head source {head:?}")),
            },
        };
        if entry.module.is_none() && !matches!(source, HeadSource::Redirect(_)) {
            return Err(format!("{path}: a page needs a module"));
        }
        if entry.layout.is_some() && entry.module.is_none() {
            return Err(format!("{path}: a layout needs its index page's module"));
        }
        // the BFF renders a page from the content its head is made of
        if entry.render.on_server() && matches!(source, HeadSource::Redirect(_) | HeadSource::Fixed)
        {
            return Err(format!("{path}: nothing to render it from"));
        }
        routes.push(AppRoute {
            pattern: path,
            source,
            title: entry.title,
            noindex: entry.noindex,
            render: entry.render,
        });
        for child in &entry.children {
            let nested = child
                .path
                .strip_prefix(path)
                .is_some_and(|rest| rest.starts_with('/'));
            if !nested {
                return Err(format!("{}: not under its parent {path}", child.path));
            }
        }
        flatten(&entry.children, routes)?;
    }
    Ok(())
}

/// A path matched to its route, with the parameter (decoded) when the pattern has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    pub route: &'static AppRoute,
    pub param: Option<String>,
}

/// The route `path` renders, if any. Matching is exact and case-sensitive, as React Router's
/// is by default, except for one trailing slash, which it ignores too. A parameter that is
/// not valid UTF-8 once decoded matches nothing.
pub fn match_path(path: &str) -> Option<Matched> {
    let trimmed = path.strip_prefix('/')?;
    let trimmed = match trimmed.strip_suffix('/') {
        Some(rest) if !rest.is_empty() => rest,
        _ => trimmed,
    };
    let segments: Vec<&str> = if trimmed.is_empty() {
        Vec::new()
    } else {
        trimmed.split('/').collect()
    };
    routes().iter().find_map(|route| {
        let pattern: Vec<&str> = if route.pattern.is_empty() {
            Vec::new()
        } else {
            route.pattern.split('/').collect()
        };
        if pattern.len() != segments.len() {
            return None;
        }
        let mut param = None;
        for (expected, actual) in pattern.iter().zip(&segments) {
            if expected.starts_with(':') {
                if actual.is_empty() {
                    return None;
                }
                param = Some(percent_decode_str(actual).decode_utf8().ok()?.into_owned());
            } else if expected != actual {
                return None;
            }
        }
        Some(Matched { route, param })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_their_routes() {
        assert_eq!(match_path("/").map(|m| m.route.pattern), Some(""));
        let product = match_path("/product/summit%20lr").unwrap();
        assert_eq!(product.route.source, HeadSource::Product);
        assert_eq!(product.param.as_deref(), Some("summit lr"));
        assert_eq!(
            match_path("/profile/orders/7/").map(|m| m.route.pattern),
            Some("profile/orders/:id")
        );
        assert!(match_path("/about-us").is_some());
    }

    #[test]
    fn anything_else_matches_nothing() {
        for path in [
            "/nope",
            "/product",
            "/product/",
            "/product/a/b",
            "/About-Us",
            "/profile/unknown",
            "//",
            "/product/%FF",
        ] {
            assert_eq!(match_path(path), None, "{path}");
        }
    }

    #[test]
    fn the_manifest_parses() {
        let routes = parse(MANIFEST).map(|table| table.routes.len());
        assert!(matches!(routes, Ok(count) if count > 40), "{routes:?}");
        assert_eq!(not_found_page(), ("Page not found", true));
    }

    #[test]
    fn nested_routes_have_their_full_path() {
        let patterns: Vec<&str> = routes().iter().map(|route| route.pattern).collect();
        for pattern in [
            "",
            "home",
            "product/:title",
            "profile",
            "profile/orders/:id",
        ] {
            assert!(patterns.contains(&pattern), "{pattern}");
        }
        // one route per path
        let mut unique = patterns.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), patterns.len());
    }

    #[test]
    fn home_redirects_to_a_route() {
        let home = match_path("/home").map(|m| m.route.source);
        assert_eq!(home, Some(HeadSource::Redirect("/")));
        for route in routes() {
            if let HeadSource::Redirect(target) = route.source {
                assert!(match_path(target).is_some(), "{target}");
                assert!(
                    axum::http::HeaderValue::from_str(target).is_ok(),
                    "{target}"
                );
            }
        }
    }

    #[test]
    fn the_pages_with_content_are_rendered_on_the_server() {
        let render = |path: &str| match_path(path).map(|m| m.route.render);
        assert_eq!(render("/product/x"), Some(Render::Shared));
        assert_eq!(render("/about-us"), Some(Render::Shared));
        assert_eq!(render("/search/x"), Some(Render::Server));
        assert_eq!(render("/checkout"), Some(Render::Shell));
        assert_eq!(render("/profile"), Some(Render::Shell));
    }

    #[test]
    fn malformed_manifests_are_refused() {
        for manifest in [
            r#"{"routes": [{"path": "a", "module": "a", "head": "nope", "title": "", "noindex": false, "render": "shell"}], "notFound": {"title": "", "noindex": true}}"#,
            r#"{"routes": [{"path": "a", "module": "a", "head": "fixed", "title": "", "noindex": false, "render": "shared"}], "notFound": {"title": "", "noindex": true}}"#,
            r#"{"routes": [{"path": "a", "head": "fixed", "title": "", "noindex": false, "render": "shell"}], "notFound": {"title": "", "noindex": true}}"#,
            r#"{"routes": [{"path": "a", "module": "a", "head": "fixed", "title": "", "noindex": false, "render": "shell", "children": [{"path": "b", "module": "b", "head": "fixed", "title": "", "noindex": false, "render": "shell"}]}], "notFound": {"title": "", "noindex": true}}"#,
        ] {
            assert!(parse(manifest).is_err(), "{manifest}");
        }
    }

    #[test]
    fn every_page_named_is_a_content_page() {
        for route in routes() {
            if let HeadSource::Page(name) = route.source {
                assert!(crate::content::PAGE_NAMES.contains(&name), "{name}");
            }
        }
    }
}
