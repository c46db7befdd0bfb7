//! The document for any non-API path: the app shell with the page's head, and the status a
//! crawler must see.

use std::net::IpAddr;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::canonical::{Spelling, redirect, spelling};
use super::head::{Head, Offer};
use super::json_ld::{self, ProductFacts};
use super::routes::{AppRoute, HeadSource, Render, match_path, not_found_page};
use super::variants::checked;
use super::{Seo, SeoSettings, absolute, title_url};
use crate::cache::{self, CachedAnswer, Epochs, Lookup};
use crate::commerce::catalogue::query::search_query;
use crate::commerce::catalogue::{Answer, SearchQuery};
use crate::http::error::ApiError;
use crate::http::request_id::RequestId;
use crate::ssr::{ApiReads, DocumentParts, Variant};
use bytes::Bytes;

/// The generic manufacturer description of the default title and description, as the app's
/// `PageMeta` has it (`GENERIC_DESCRIPTION`).
const GENERIC_DESCRIPTION: &str = "Firearms, parts and accessories from the manufacturer";

const HTML: HeaderValue = HeaderValue::from_static("text/html; charset=utf-8");
const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");

/// The content pages every server-rendered document is framed with: parts of each document.
pub(super) const FRAME_PAGES: [&str; 2] = ["app", "footer"];

/// `GET` any path the other routes do not answer.
pub async fn document(
    State(seo): State<Seo>,
    uri: Uri,
    request_id: RequestId,
    headers: HeaderMap,
    request: Request,
) -> Response {
    // who searches, should this be a search results' page (its search is limited as the API's)
    let client = seo.search_limit.client_of(&request);
    // what answers the render's reads of the API (the app's router holds it)
    let reads = request.extensions().get::<ApiReads>().cloned();
    drop(request);
    let path = uri.path();
    // `/api` and `/api/` are not matched by the nested API router; they are still API paths, and
    // the app shell must never answer for one.
    if path == "/api" || path.starts_with("/api/") {
        return ApiError::NotFound("No API endpoint at this path.".to_owned()).into_response();
    }
    if !seo.web.is_built() {
        return crate::edge::web_assets::WebAssets::not_built();
    }
    let path = if path == "/index.html" { "/" } else { path };
    let Some(matched) = match_path(path) else {
        return not_found(&seo, path);
    };
    let route = matched.route;
    // one document per page: any other spelling is sent to the canonical one, unrendered
    match spelling(route, path, matched.param.as_deref()) {
        Spelling::Canonical => {}
        Spelling::Of(canonical) => {
            return redirect(&canonical, uri.query()).unwrap_or_else(|| not_found(&seo, path));
        }
        Spelling::Nothing => return not_found(&seo, path),
    }
    // the pages the app alone renders keep their spellings; their head names the path without
    // a trailing slash
    let path = match path.strip_suffix('/') {
        Some(trimmed) if !trimmed.is_empty() => trimmed,
        _ => path,
    };
    let param = matched.param.unwrap_or_default();
    // the variant the link asks for (`sku`, `activeFilter`), checked against the page's data
    let requested = Variant::requested(path, uri.query());
    // read before any part is looked up: a store or purge after this makes the document stale
    let epochs = seo.catalogue.content.cache.epochs();
    // and L2's purge epoch, for the pages whose documents may go there: a purge after this
    // keeps the document out of L2
    let shareable = route.render == Render::Shared;
    let shared_epoch = if shareable && seo.renderer.is_running() {
        seo.catalogue.content.cache.shared_epoch().await
    } else {
        None
    };
    let asked = Asked {
        route,
        client,
        reads,
    };
    match route.source {
        HeadSource::Redirect(target) => match HeaderValue::from_str(target) {
            Ok(location) => (
                StatusCode::MOVED_PERMANENTLY,
                [(header::LOCATION, location)],
            )
                .into_response(),
            // a unit test of `routes` holds every target to a valid header value
            Err(_) => not_found(&seo, path),
        },
        HeadSource::Page(name) => {
            let lookup = seo
                .catalogue
                .content
                .page_lookup(name, request_id.clone())
                .await;
            match lookup {
                Ok(lookup) if lookup.entry.status == StatusCode::OK => {
                    let page: Value =
                        serde_json::from_slice(&lookup.entry.body).unwrap_or(Value::Null);
                    let mut head = page_head(&seo.settings, route, path, &page);
                    head.preload_image = home_hero(name, &page);
                    let answer = (format!("/api/pages/{name}"), 200, lookup.entry.body.clone());
                    let first = Rendering {
                        parts: vec![lookup],
                        answers: vec![answer],
                        ..Rendering::at(path, epochs, shared_epoch)
                    };
                    rendered(&seo, asked, first, &head, request_id, &headers).await
                }
                _ => uncached(
                    &seo,
                    StatusCode::OK,
                    &fixed_head(&seo.settings, route, path),
                ),
            }
        }
        HeadSource::Product => {
            let answer = seo.catalogue.product(&param, request_id.clone()).await;
            let at = Rendering {
                variant: requested,
                ..Rendering::at(path, epochs, shared_epoch)
            };
            priced(
                &seo, asked, at, "product", &param, answer, request_id, &headers,
            )
            .await
        }
        HeadSource::Collection => {
            let answer = seo.catalogue.collection(&param, request_id.clone()).await;
            let at = Rendering {
                variant: requested,
                ..Rendering::at(path, epochs, shared_epoch)
            };
            priced(
                &seo,
                asked,
                at,
                "collection",
                &param,
                answer,
                request_id,
                &headers,
            )
            .await
        }
        HeadSource::Search => {
            // the title the app's search page shows, the canonical URL its links use
            let settings = &seo.settings;
            let mut head = Head {
                title: join_title(&format!("Results for \"{param}\""), &settings.brand),
                canonical: title_url(&settings.origin, "search", &cache::normalise(&param)),
                ..fixed_head(settings, route, path)
            };
            let at = Rendering::at(path, epochs, shared_epoch);
            match search_results(&seo, &param, client, request_id.clone()).await {
                Some((parts, body)) => {
                    let page: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    head.preload_image = first_result_image(&page);
                    // the app asks for the query it shows, trimmed (`searchQuery`)
                    let api = format!("/api/search?q={}", param.trim());
                    let first = Rendering {
                        parts,
                        answers: vec![(api, 200, body)],
                        ..at
                    };
                    rendered(&seo, asked, first, &head, request_id, &headers).await
                }
                None => uncached(&seo, StatusCode::OK, &head),
            }
        }
        HeadSource::Fixed => uncached(
            &seo,
            StatusCode::OK,
            &fixed_head(&seo.settings, route, path),
        ),
    }
}

/// A product or a collection: the head from the composed answer, cached as it is; an unknown
/// title is a 404 cached as its remembered 404; an upstream failure the shell with the route's
/// defaults (the app shows what it can).
#[allow(clippy::too_many_arguments)]
async fn priced(
    seo: &Seo,
    asked: Asked,
    at: Rendering<'_>,
    prefix: &str,
    param: &str,
    answer: Result<Answer, ApiError>,
    request_id: RequestId,
    headers: &HeaderMap,
) -> Response {
    let settings = &seo.settings;
    let route = asked.route;
    let path = at.path;
    match answer {
        Ok(Answer::Composed { parts, body, .. }) => {
            let page: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            // a variant's canonical URL is its page's
            let canonical = title_url(&settings.origin, prefix, &cache::normalise(param));
            let variant = checked(&page, at.variant.clone());
            let shown_sku = variant.as_ref().map(|sku| sku.value.as_str());
            let mut head = if prefix == "product" {
                product_head(settings, &page, canonical, shown_sku)
            } else {
                Head {
                    canonical,
                    ..page_head(settings, route, path, &page)
                }
            };
            head.preload_image = if prefix == "product" {
                product_image(&page, shown_sku)
            } else {
                first_card_image(&page)
            };
            let api = if prefix == "product" {
                "products"
            } else {
                "collections"
            };
            // a variant stays in this replica's cache (as search results do): only the page's
            // canonical document goes to L2
            let shared_epoch = if variant.is_some() {
                None
            } else {
                at.shared_epoch
            };
            let first = Rendering {
                parts,
                answers: vec![(format!("/api/{api}/{param}"), 200, body)],
                variant,
                shared_epoch,
                ..at
            };
            rendered(seo, asked, first, &head, request_id, headers).await
        }
        Ok(Answer::Cached(lookup)) if lookup.entry.status == StatusCode::NOT_FOUND => {
            let head = not_found_head(settings, path);
            cached(seo, &[&lookup], StatusCode::NOT_FOUND, &head, headers)
        }
        Ok(_) | Err(_) => uncached(seo, StatusCode::OK, &fixed_head(settings, route, path)),
    }
}

/// The priced results of the search `param` names and the cache entries they are made from, as
/// `GET /api/search` answers them, under the same rules: a query the API refuses (too short or
/// too long), a client over the search limit, or a search that cannot run gives `None` (the
/// shell: the app then asks the API, which says why).
async fn search_results(
    seo: &Seo,
    param: &str,
    client: IpAddr,
    request_id: RequestId,
) -> Option<(Vec<Lookup>, Bytes)> {
    let query = search_query(Some(param)).ok()?;
    if !seo.search_limit.admits(client).await {
        return None;
    }
    match seo.catalogue.search(&SearchQuery(query), request_id).await {
        Ok(Answer::Composed { parts, body, .. }) => Some((parts, body)),
        Ok(Answer::Cached(_)) | Err(_) => None,
    }
}

/// Which route was asked for, by whom (renders are counted per client, and read the API as
/// that client), and what answers the render's reads.
#[derive(Clone)]
struct Asked {
    route: &'static AppRoute,
    client: IpAddr,
    reads: Option<ApiReads>,
}

/// A document to render: the page's canonical path and the variant asked for, the cache's
/// counters read before any lookup, the page's own parts and its API answers (the frame's are
/// added by [`rendered`]).
struct Rendering<'a> {
    path: &'a str,
    /// Before the page's data is read, the variant the request asks for; after, the one the
    /// page has (`None`: the canonical document).
    variant: Option<Variant>,
    epochs: Epochs,
    /// L2's purge epoch, read before any lookup (`None`: the document stays out of L2).
    shared_epoch: Option<String>,
    parts: Vec<Lookup>,
    answers: Vec<(String, u16, Bytes)>,
}

impl<'a> Rendering<'a> {
    fn at(path: &'a str, epochs: Epochs, shared_epoch: Option<String>) -> Self {
        Self {
            path,
            variant: None,
            epochs,
            shared_epoch,
            parts: Vec::new(),
            answers: Vec::new(),
        }
    }
}

/// The document with the page's first screen rendered by React: the frame's content pages
/// (`app`, `footer`) join the page's parts and answers. Without them, without a web build id,
/// or for a route the manifest does not render on the server, the shell with the head as
/// before.
async fn rendered(
    seo: &Seo,
    asked: Asked,
    mut page: Rendering<'_>,
    head: &Head,
    request_id: RequestId,
    headers: &HeaderMap,
) -> Response {
    let head_html = head.render();
    let Some(shell) = seo.web.document(&head_html) else {
        return crate::edge::web_assets::WebAssets::not_built();
    };
    let route = asked.route;
    let build = seo
        .web
        .build_id()
        .filter(|_| route.render.on_server() && seo.renderer.is_running());
    let Some(build) = build else {
        let parts: Vec<&Lookup> = page.parts.iter().collect();
        return cached(seo, &parts, StatusCode::OK, head, headers);
    };
    for name in FRAME_PAGES {
        match seo
            .catalogue
            .content
            .page_lookup(name, request_id.clone())
            .await
        {
            Ok(lookup) if lookup.entry.status == StatusCode::OK => {
                page.answers
                    .push((format!("/api/pages/{name}"), 200, lookup.entry.body.clone()));
                page.parts.push(lookup);
            }
            _ => {
                let parts: Vec<&Lookup> = page.parts.iter().collect();
                return cached(seo, &parts, StatusCode::OK, head, headers);
            }
        }
    }
    let url = format!("{}{}", seo.settings.origin, page.path);
    let document = DocumentParts {
        path: page.path.to_owned(),
        variant: page.variant,
        route: route.pattern,
        client: asked.client,
        url,
        shell,
        parts: page.parts,
        epochs: page.epochs,
        shared_epoch: page.shared_epoch,
        answers: page.answers,
        reads: asked.reads,
    };
    seo.renderer
        .document(&seo.catalogue.content.cache, build, document, headers)
        .await
}

/// The home page's LCP image: its first carousel slide.
fn home_hero(name: &str, page: &Value) -> Option<String> {
    if name != "home" {
        return None;
    }
    page["carousel"]
        .as_array()?
        .first()
        .and_then(|slide| image_of(&slide["imgUrl"]).or_else(|| image_of(&slide["image"])))
        .map(str::to_owned)
}

/// A product's main image: the sku shown's (`shown`, else its displayed sku), else its own.
fn product_image(product: &Value, shown: Option<&str>) -> Option<String> {
    let displayed = shown.or_else(|| text(&product["displayedSku"]));
    product["skus"]
        .as_array()
        .and_then(|skus| skus.iter().find(|sku| text(&sku["sku"]) == displayed))
        .and_then(|sku| image_of(&sku["imgUrl"]))
        .or_else(|| image_of(&product["imgUrl"]))
        .map(str::to_owned)
}

/// A collection's first product card image.
fn first_card_image(collection: &Value) -> Option<String> {
    collection["products"]
        .as_array()?
        .first()
        .and_then(|card| image_of(&card["imgUrl"]))
        .map(str::to_owned)
}

/// The first search result's image (the results' LCP image).
fn first_result_image(results: &Value) -> Option<String> {
    results["results"]
        .as_array()?
        .first()
        .and_then(|card| image_of(&card["imgUrl"]))
        .map(str::to_owned)
}

/// The shell with `head`, with the cache headers of `parts`.
fn cached(
    seo: &Seo,
    parts: &[&Lookup],
    status: StatusCode,
    head: &Head,
    headers: &HeaderMap,
) -> Response {
    match seo.web.document(&head.render()) {
        // towards browsers a document is revalidated on every visit (its `ETag` makes that a
        // 304); the parts' windows stay for the edge cache (`Surrogate-Key`, `Age`)
        Some(body) => CachedAnswer::document(parts.iter().copied(), status, HTML, body)
            .revalidated()
            .send(headers),
        None => crate::edge::web_assets::WebAssets::not_built(),
    }
}

/// The shell with `head`, revalidated every time (nothing cached describes it).
fn uncached(seo: &Seo, status: StatusCode, head: &Head) -> Response {
    match seo.web.document(&head.render()) {
        Some(body) => (
            status,
            [
                (header::CONTENT_TYPE, HTML),
                (header::CACHE_CONTROL, NO_CACHE),
            ],
            body,
        )
            .into_response(),
        None => crate::edge::web_assets::WebAssets::not_built(),
    }
}

/// A path the app does not know: 404, its not-found page, never indexed.
fn not_found(seo: &Seo, path: &str) -> Response {
    uncached(
        seo,
        StatusCode::NOT_FOUND,
        &not_found_head(&seo.settings, path),
    )
}

fn not_found_head(settings: &SeoSettings, path: &str) -> Head {
    let (title, noindex) = not_found_page();
    Head {
        title: format!("{title} | {}", settings.brand),
        noindex,
        ..defaults(settings, path)
    }
}

/// The site defaults for `path`.
fn defaults(settings: &SeoSettings, path: &str) -> Head {
    let brand = &settings.brand;
    Head {
        title: if brand.is_empty() {
            GENERIC_DESCRIPTION.to_owned()
        } else {
            format!("{brand} | {GENERIC_DESCRIPTION}")
        },
        description: if brand.is_empty() {
            format!("{GENERIC_DESCRIPTION}.")
        } else {
            format!("{brand}: {GENERIC_DESCRIPTION}.")
        },
        canonical: format!("{}{path}", settings.origin),
        image: settings.default_image.clone(),
        og_type: "website",
        site_name: brand.clone(),
        noindex: false,
        offer: None,
        json_ld: None,
        preload_image: None,
    }
}

/// A route's head without content: its own title, the site's description.
fn fixed_head(settings: &SeoSettings, route: &AppRoute, path: &str) -> Head {
    let mut head = defaults(settings, path);
    if !route.title.is_empty() {
        head.title = join_title(route.title, &settings.brand);
    }
    head.noindex = route.noindex;
    head
}

/// A content page's (or a collection's) head: its `metaData` wins, then the route's title.
fn page_head(settings: &SeoSettings, route: &AppRoute, path: &str, page: &Value) -> Head {
    let mut head = fixed_head(settings, route, path);
    let meta = &page["metaData"];
    if let Some(title) = text(&meta["title"]) {
        head.title = title.to_owned();
    } else if let Some(title) = text(&page["title"]) {
        head.title = join_title(title, &settings.brand);
    }
    if let Some(description) = text(&meta["description"]).or_else(|| text(&page["subtitle"])) {
        head.description = description.to_owned();
    }
    if let Some(image) = image_of(meta)
        .or_else(|| image_of(&page["backgroundImage"]))
        .or_else(|| image_of(&page["imgUrl"]))
    {
        head.image = Some(absolute(&settings.origin, image));
    }
    head
}

/// A product's head: `og:type=product`, the final price and stock of the sku shown (`shown`, else
/// the displayed sku), JSON-LD.
fn product_head(
    settings: &SeoSettings,
    product: &Value,
    canonical: String,
    shown: Option<&str>,
) -> Head {
    let name = text(&product["title"]).unwrap_or_default();
    let meta = &product["metaData"];
    let mut head = defaults(settings, "");
    head.title =
        text(&meta["title"]).map_or_else(|| join_title(name, &settings.brand), str::to_owned);
    if let Some(description) = text(&meta["description"]).or_else(|| text(&product["subtitle"])) {
        head.description = description.to_owned();
    }
    let displayed = shown.or_else(|| text(&product["displayedSku"]));
    let sku = product["skus"]
        .as_array()
        .and_then(|skus| skus.iter().find(|sku| text(&sku["sku"]) == displayed));
    let image = sku
        .and_then(|sku| image_of(&sku["imgUrl"]))
        .or_else(|| image_of(&product["imgUrl"]))
        .map(|image| absolute(&settings.origin, image));
    if image.is_some() {
        head.image = image;
    }
    let offer = sku.and_then(|sku| {
        let price = sku["finalPrice"].as_f64().filter(|price| *price > 0.0)?;
        Some(Offer {
            price,
            in_stock: sku["inStock"].as_bool().unwrap_or(false),
        })
    });
    head.json_ld = Some(json_ld::product(&ProductFacts {
        name,
        description: &head.description,
        image: head.image.as_deref(),
        sku: displayed,
        brand: &settings.brand,
        url: &canonical,
        offer: offer.as_ref().map(|offer| (offer.price, offer.in_stock)),
    }));
    head.offer = offer;
    head.og_type = "product";
    head.canonical = canonical;
    head
}

fn join_title(title: &str, brand: &str) -> String {
    if brand.is_empty() {
        title.to_owned()
    } else {
        format!("{title} | {brand}")
    }
}

/// A non-blank string.
fn text(value: &Value) -> Option<&str> {
    value.as_str().filter(|text| !text.trim().is_empty())
}

/// An image's URL: a string, or an object's `src`.
fn image_of(value: &Value) -> Option<&str> {
    text(value).or_else(|| text(&value["src"]))
}
