//! `/sitemap.xml`: the content routes, every collection linked from the site's frame and home
//! page, and every product those collections (or the frame) list. Built per request from cache
//! entries (the pages and the collections' content), so it costs no upstream call while they
//! are fresh, and it carries their `Surrogate-Key` and freshness: purging a collection or a
//! product (collections are tagged with their products) refreshes it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use futures::future::join_all;
use percent_encoding::percent_decode_str;
use serde_json::Value;

use super::head::escape;
use super::routes::{HeadSource, routes};
use super::{Seo, title_url};
use crate::cache::{self, CachedAnswer, Lookup};
use crate::http::request_id::RequestId;

/// The pages whose links name the collections and products to list.
const LINKING_PAGES: &[&str] = &["app", "footer", "home"];

/// `GET /sitemap.xml`.
pub async fn sitemap(
    State(seo): State<Seo>,
    request_id: RequestId,
    headers: HeaderMap,
) -> Response {
    let content = &seo.catalogue.content;
    let pages = join_all(
        LINKING_PAGES
            .iter()
            .map(|name| content.page_lookup(name, request_id.clone())),
    )
    .await;
    let mut parts: Vec<Lookup> = pages
        .into_iter()
        .filter_map(Result::ok)
        .filter(|lookup| lookup.entry.status == StatusCode::OK)
        .collect();
    let mut collections = BTreeMap::new();
    let mut products = BTreeMap::new();
    for page in &parts {
        if let Ok(value) = serde_json::from_slice::<Value>(&page.entry.body) {
            collect_links(&value, &mut collections, &mut products);
        }
    }
    let found = join_all(
        collections
            .keys()
            .map(|title| seo.catalogue.collection_content(title, request_id.clone())),
    )
    .await;
    for (lookup, lastmod) in found.into_iter().zip(collections.values_mut()) {
        let Ok(lookup) = lookup else { continue };
        if lookup.entry.status != StatusCode::OK {
            continue;
        }
        if let Ok(group) = serde_json::from_slice::<Value>(&lookup.entry.body) {
            *lastmod = updated(&group);
            for card in group["products"].as_array().into_iter().flatten() {
                if let Some(title) = card["title"].as_str() {
                    products
                        .entry(cache::normalise(title))
                        .or_insert_with(|| updated(card));
                }
            }
        }
        parts.push(lookup);
    }
    let origin = &seo.settings.origin;
    let mut urls: Vec<(String, Option<String>)> = routes()
        .iter()
        .filter(|route| {
            !route.noindex
                && !route.pattern.contains(':')
                && matches!(route.source, HeadSource::Page(_) | HeadSource::Fixed)
        })
        .map(|route| {
            let url = if route.pattern.is_empty() {
                format!("{origin}/")
            } else {
                format!("{origin}/{}", route.pattern)
            };
            (url, None)
        })
        .collect();
    urls.extend(
        collections
            .into_iter()
            .map(|(title, lastmod)| (title_url(origin, "collection", &title), lastmod)),
    );
    urls.extend(
        products
            .into_iter()
            .map(|(title, lastmod)| (title_url(origin, "product", &title), lastmod)),
    );
    let body = render(&urls);
    CachedAnswer::document(
        &parts,
        StatusCode::OK,
        HeaderValue::from_static("application/xml; charset=utf-8"),
        body.into(),
    )
    .send(&headers)
}

/// Every `/collection/…` and `/product/…` link anywhere in `value`, by normalised title.
fn collect_links(
    value: &Value,
    collections: &mut BTreeMap<String, Option<String>>,
    products: &mut BTreeMap<String, Option<String>>,
) {
    match value {
        Value::String(link) => {
            let (map, rest) = if let Some(rest) = link.strip_prefix("/collection/") {
                (collections, rest)
            } else if let Some(rest) = link.strip_prefix("/product/") {
                (products, rest)
            } else {
                return;
            };
            let segment = rest.split(['?', '#', '/']).next().unwrap_or_default();
            if let Ok(title) = percent_decode_str(segment).decode_utf8() {
                let title = cache::normalise(&title);
                if !title.is_empty() {
                    map.entry(title).or_insert(None);
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_links(item, collections, products);
            }
        }
        Value::Object(map) => {
            for item in map.values() {
                collect_links(item, collections, products);
            }
        }
        _ => {}
    }
}

/// The date an entry was last changed, when its content says (`updatedAt`).
fn updated(value: &Value) -> Option<String> {
    let stamp = value["updatedAt"].as_str()?;
    let date = stamp.get(..10)?;
    let valid = date.bytes().enumerate().all(|(i, b)| {
        if i == 4 || i == 7 {
            b == b'-'
        } else {
            b.is_ascii_digit()
        }
    });
    valid.then(|| date.to_owned())
}

fn render(urls: &[(String, Option<String>)]) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for (url, lastmod) in urls {
        let _ = write!(out, "<url><loc>{}</loc>", escape(url));
        if let Some(lastmod) = lastmod {
            let _ = write!(out, "<lastmod>{lastmod}</lastmod>");
        }
        out.push_str("</url>\n");
    }
    out.push_str("</urlset>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn links_anywhere_in_a_page_are_found_once() {
        let page = json!({"menus": [{"link": "/collection/Rifles", "links": [
            {"link": "/product/summit%20lr"}, {"link": "/product/Summit%20LR?x=1"},
        ]}], "other": "/collection/rifles", "external": "https://x/collection/no"});
        let (mut collections, mut products) = (BTreeMap::new(), BTreeMap::new());
        collect_links(&page, &mut collections, &mut products);
        assert_eq!(collections.keys().collect::<Vec<_>>(), ["rifles"]);
        assert_eq!(products.keys().collect::<Vec<_>>(), ["summit lr"]);
    }

    #[test]
    fn lastmod_is_a_date_or_nothing() {
        assert_eq!(
            updated(&json!({"updatedAt": "2026-03-01T10:00:00Z"})).as_deref(),
            Some("2026-03-01")
        );
        assert_eq!(updated(&json!({"updatedAt": "<script>"})), None);
        assert_eq!(updated(&json!({})), None);
    }
}
