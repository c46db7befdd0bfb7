//! The document for any non-API path: the app shell with the page's head, and the status a
//! crawler must see.

use std::sync::Arc;

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
use crate::cache::key::cache_key;
use crate::cache::{self, Lookup, RouteKind};
use crate::edge::web_assets::WebAssets;
use crate::http::error::ApiError;
use crate::ssr::{ApiAnswer, ApiReads, DocumentPage, Frame, Framing, Variant};

/// The generic manufacturer description of the default title and description, as the app's
/// `PageMeta` has it (`GENERIC_DESCRIPTION`).
const GENERIC_DESCRIPTION: &str = "Firearms, parts and accessories from the manufacturer";

const HTML: HeaderValue = HeaderValue::from_static("text/html; charset=utf-8");
const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");

/// `GET` any path the other routes do not answer.
pub async fn document(
    State(seo): State<Seo>,
    uri: Uri,
    headers: HeaderMap,
    request: Request,
) -> Response {
    // who asks: renders are counted per client, and the render reads the API as this client
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
    if let HeadSource::Redirect(target) = route.source {
        return match HeaderValue::from_str(target) {
            Ok(location) => (
                StatusCode::MOVED_PERMANENTLY,
                [(header::LOCATION, location)],
            )
                .into_response(),
            // a unit test of `routes` holds every target to a valid header value
            Err(_) => not_found(&seo, path),
        };
    }
    let build = seo
        .web
        .build_id()
        .filter(|_| route.render.on_server() && seo.renderer.is_running());
    let (Some(build), Some(reads)) = (build, reads) else {
        // the pages the app alone renders, and any page while nothing renders on the server:
        // the route's own head
        return uncached(
            &seo,
            StatusCode::OK,
            &fixed_head(&seo.settings, route, path),
        );
    };
    let framing = PageHead {
        settings: seo.settings.clone(),
        web: seo.web.clone(),
        route,
        path: path.to_owned(),
        param: matched.param.unwrap_or_default(),
    };
    let page = DocumentPage {
        path: path.to_owned(),
        // the variant the link asks for (`sku`, `activeFilter`), checked against the page's data
        requested: Variant::requested(path, uri.query()),
        route: route.pattern,
        client,
        url: format!("{}{path}", seo.settings.origin),
        shareable: route.render == Render::Shared,
        reads,
        framing: Arc::new(framing),
    };
    seo.renderer
        .document(&seo.catalogue.content.cache, build, page, &headers)
        .await
        .unwrap_or_else(crate::edge::web_assets::WebAssets::not_built)
}

/// A rendered page's head, from the answers its render read: the page's own answer is the
/// one made from the entry the route's head names (the content page `name`, the product or
/// collection of the path's title, the search results). A page whose answer is missing or
/// failed gets the route's own head.
struct PageHead {
    settings: Arc<SeoSettings>,
    web: Arc<WebAssets>,
    route: &'static AppRoute,
    /// The page's canonical path.
    path: String,
    /// The path's parameter (a title, a search query), decoded.
    param: String,
}

impl Framing for PageHead {
    fn frame(&self, answers: &[ApiAnswer], requested: Option<&Variant>) -> Option<Frame> {
        let (settings, route, path, param) =
            (&*self.settings, self.route, &*self.path, &*self.param);
        let mut frame = Framed {
            status: StatusCode::OK,
            head: fixed_head(settings, route, path),
            variant: None,
            first_screen: true,
        };
        match route.source {
            HeadSource::Page(name) => {
                match answer_of(answers, &cache_key(RouteKind::Pages, name)) {
                    Some((StatusCode::OK, page)) => {
                        frame.head = page_head(settings, route, path, &page);
                        frame.head.preload_image = home_hero(name, &page);
                    }
                    // the CMS does not have the page: the app says so in the browser
                    Some(_) => frame.first_screen = false,
                    None => {}
                }
            }
            HeadSource::Product | HeadSource::Collection => {
                let product = route.source == HeadSource::Product;
                let (kind, prefix) = if product {
                    (RouteKind::Product, "product")
                } else {
                    (RouteKind::Collection, "collection")
                };
                match answer_of(answers, &cache_key(kind, &cache::normalise(param))) {
                    Some((StatusCode::OK, page)) => {
                        // a variant's canonical URL is its page's
                        let canonical =
                            title_url(&settings.origin, prefix, &cache::normalise(param));
                        frame.variant = checked(&page, requested.cloned());
                        let shown = frame.variant.as_ref().map(|sku| sku.value.as_str());
                        frame.head = if product {
                            product_head(settings, &page, canonical, shown)
                        } else {
                            Head {
                                canonical,
                                ..page_head(settings, route, path, &page)
                            }
                        };
                        frame.head.preload_image = if product {
                            product_image(&page, shown)
                        } else {
                            first_card_image(&page)
                        };
                    }
                    Some((StatusCode::NOT_FOUND, _)) => {
                        frame.status = StatusCode::NOT_FOUND;
                        frame.head = not_found_head(settings, path);
                        frame.first_screen = false;
                    }
                    _ => {}
                }
            }
            HeadSource::Search => {
                // the title the app's search page shows, the canonical URL its links use
                frame.head.title = join_title(&format!("Results for \"{param}\""), &settings.brand);
                frame.head.canonical =
                    title_url(&settings.origin, "search", &cache::normalise(param));
                if let Some((StatusCode::OK, results)) = answers
                    .iter()
                    .find(|answer| made_of(answer, |part| part.entry.route == RouteKind::Search))
                    .and_then(parsed)
                {
                    frame.head.preload_image = first_result_image(&results);
                }
            }
            HeadSource::Fixed | HeadSource::Redirect(_) => {}
        }
        Some(Frame {
            status: frame.status,
            shell: self.web.document(&frame.head.render())?,
            variant: frame.variant,
            first_screen: frame.first_screen,
        })
    }
}

/// A frame as the head makes it, before the shell is.
struct Framed {
    status: StatusCode,
    head: Head,
    variant: Option<Variant>,
    first_screen: bool,
}

/// The status and JSON of the answer made from the cache entry `key`, if the render read it.
fn answer_of(answers: &[ApiAnswer], key: &str) -> Option<(StatusCode, Value)> {
    answers
        .iter()
        .find(|answer| made_of(answer, |part| part.key == key))
        .and_then(parsed)
}

/// Whether any entry `answer` is made from is one `wanted` names.
fn made_of(answer: &ApiAnswer, wanted: impl Fn(&Lookup) -> bool) -> bool {
    answer.parts.iter().flatten().any(wanted)
}

fn parsed(answer: &ApiAnswer) -> Option<(StatusCode, Value)> {
    let status = StatusCode::from_u16(answer.status).ok()?;
    Some((
        status,
        serde_json::from_slice(&answer.body).unwrap_or(Value::Null),
    ))
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
