//! Catalogue routes: `GET /api/products/{title}`, `GET /api/collections/{title}` and
//! `GET /api/search?q=`, each the content joined with live prices in one answer.
//!
//! Caching: the parts are cached, not the composition. The content (product, group, search
//! results; camelCased) and the price map are separate cache entries with their own policies
//! (content for minutes, prices for seconds) and tags, and every request composes from the two.
//! A cached composition would live by the content's ttl and serve prices older than the price
//! map's policy allows; composing per request keeps each part's freshness, purges and stale
//! windows exactly as configured, at the cost of one JSON merge when both parts are hot (two
//! in-memory lookups, no upstream call). Unknown titles answer the content entry's own cached
//! 404, without touching the price map.

use std::collections::BTreeMap;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::cache::http::CACHE_STATUS;
use crate::cache::status::cache_status_header;
use crate::cache::{self, CacheState, FetchFailure, Fetched, Lookup, RouteKind};
use crate::catalogue::{PriceMap, answer, compose, query};
use crate::content::camel_case_keys;
use crate::content::pages::{decode, json_entry, not_found};
use crate::error::ApiError;
use crate::openapi::schemas::catalogue::{Collection, ProductPage, SearchResults, SearchText};
use crate::request_id::RequestId;
use crate::state::SharedState;
use crate::upstream::{Upstream, UpstreamError, UpstreamPath};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The price map is one cache entry (tag `prices`) under this key.
const PRICE_MAP_KEY: &str = "all";

pub fn routes() -> OpenApiRouter<SharedState> {
    OpenApiRouter::new()
        .routes(routes!(product))
        .routes(routes!(collection))
        .routes(routes!(search))
}

/// A product page, priced.
///
/// The product content with every sku's live figures, `noVariants`, the initially displayed sku,
/// and priced related products.
#[utoipa::path(
    get,
    path = "/products/{title}",
    operation_id = "getProduct",
    tag = "catalogue",
    params(
        ("title" = String, Path, example = "Falcon 9",
            description = "The product's title, matched ignoring case and surrounding spaces."),
    ),
    responses(
        (status = 200, description = "The product, priced.", body = ProductPage,
            headers(
                ("ETag" = String, description = "Strong; changes exactly when the answer does."),
                ("Cache-Control" = String,
                    description = "The shortest freshness of the content and the price map."),
                ("Cache-Status" = String, description = "What the BFF's cache did (RFC 9211)."),
            )),
        (status = 304, description = "Not modified: `If-None-Match` names the current `ETag`.",
            headers(("ETag" = String))),
        (status = 404, response = crate::openapi::problems::NotFound),
    ),
)]
pub async fn product(
    State(state): State<SharedState>,
    Path(title): Path<String>,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let page = Priced {
        kind: RouteKind::Product,
        fetch: fetch_product,
        compose: compose::product_page,
    };
    page.answer(&state, &title, request_id, &headers).await
}

/// A collection, priced.
///
/// The product group with its products priced, each showing its cheapest sku.
#[utoipa::path(
    get,
    path = "/collections/{title}",
    operation_id = "getCollection",
    tag = "catalogue",
    params(
        ("title" = String, Path, example = "Pistols",
            description = "The collection's title, matched ignoring case and surrounding spaces."),
    ),
    responses(
        (status = 200, description = "The collection, priced.", body = Collection,
            headers(
                ("ETag" = String, description = "Strong; changes exactly when the answer does."),
                ("Cache-Control" = String,
                    description = "The shortest freshness of the content and the price map."),
                ("Cache-Status" = String, description = "What the BFF's cache did (RFC 9211)."),
            )),
        (status = 304, description = "Not modified: `If-None-Match` names the current `ETag`.",
            headers(("ETag" = String))),
        (status = 404, response = crate::openapi::problems::NotFound),
    ),
)]
pub async fn collection(
    State(state): State<SharedState>,
    Path(title): Path<String>,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let page = Priced {
        kind: RouteKind::Collection,
        fetch: fetch_collection,
        compose: compose::collection,
    };
    page.answer(&state, &title, request_id, &headers).await
}

/// A page of content found by title and priced: a product or a collection.
struct Priced<F> {
    kind: RouteKind,
    /// The content entry for a normalised title (its own cached 404 for an unknown one).
    fetch: fn(Upstream, String, RequestId) -> F,
    compose: fn(Value, &PriceMap) -> Value,
}

impl<F> Priced<F>
where
    F: Future<Output = Result<Fetched, UpstreamError>> + Send + 'static,
{
    /// The content through the cache, then the price map, composed. An unknown title answers
    /// the content entry's cached 404 without touching the price map.
    async fn answer(
        &self,
        state: &SharedState,
        title: &str,
        request_id: RequestId,
        headers: &HeaderMap,
    ) -> Result<Response, ApiError> {
        let title = cache::normalise(title);
        let content = state.content.clone();
        let fetch_id = request_id.clone();
        let fetch = self.fetch;
        let key = title.clone();
        let page = state
            .cache
            .lookup(self.kind, &key, move || fetch(content, title, fetch_id))
            .await?;
        if page.entry.status != StatusCode::OK {
            return Ok(cache::respond(&page, headers));
        }
        let (prices, map) = price_map(state, request_id).await?;
        let body = (self.compose)(cached_json(&page)?, &map);
        Ok(answer::respond(&[&page, &prices], to_bytes(&body), headers))
    }
}

#[derive(Debug, Deserialize)]
pub struct SearchParams {
    q: Option<String>,
}

/// Search products.
///
/// Priced search results sorted by title. A failed search is an empty result list, never an
/// error page (spec, section 8); a query shorter than 2 characters is a 422.
#[utoipa::path(
    get,
    path = "/search",
    operation_id = "searchProducts",
    tag = "catalogue",
    params(
        ("q" = inline(SearchText), Query,
            description = "What to search for in titles and subtitles, ignoring case: 2 to 100 \
                characters once surrounding spaces are trimmed."),
    ),
    responses(
        (status = 200, description = "The matching products, priced; no results when the \
            search could not run (then `Cache-Control: no-store` and no `ETag`).",
            body = SearchResults,
            headers(
                ("ETag" = String, description = "Strong; changes exactly when the answer does."),
                ("Cache-Control" = String,
                    description = "The shortest freshness of the results and the price map."),
                ("Cache-Status" = String, description = "What the BFF's cache did (RFC 9211)."),
            )),
        (status = 304, description = "Not modified: `If-None-Match` names the current `ETag`.",
            headers(("ETag" = String))),
        (status = 422, response = crate::openapi::problems::Invalid),
    ),
)]
pub async fn search(
    State(state): State<SharedState>,
    params: Result<Query<SearchParams>, QueryRejection>,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let raw = match &params {
        Ok(Query(params)) => params.q.as_deref(),
        Err(_) => None,
    };
    let q = query::search_query(raw).map_err(|message| {
        ApiError::Validation(BTreeMap::from([("q".to_owned(), message.to_owned())]))
    })?;
    let content = state.content.clone();
    let fetch_id = request_id.clone();
    let key = q.clone();
    let fetch_query = q.clone();
    let results = match state
        .cache
        .lookup(RouteKind::Search, &key, move || {
            fetch_search(content, fetch_query, fetch_id)
        })
        .await
    {
        Ok(results) => results,
        Err(failure) => return Ok(no_results(&q, &failure)),
    };
    let (prices, map) = match price_map(&state, request_id).await {
        Ok(prices) => prices,
        Err(failure) => return Ok(no_results(&q, &failure)),
    };
    let body = compose::search_results(&q, cached_json(&results)?, &map);
    Ok(answer::respond(
        &[&results, &prices],
        to_bytes(&body),
        &headers,
    ))
}

/// `{"query": q, "results": []}` for a search that could not run: 200, never stored by anyone.
fn no_results(q: &str, failure: &FetchFailure) -> Response {
    tracing::warn!(error = %failure, "search failed; answering empty results");
    let forward_status = match failure {
        FetchFailure::Upstream(UpstreamError::Status { status, .. }) => status.as_u16(),
        FetchFailure::Upstream(UpstreamError::Timeout { .. }) => 504,
        _ => 502,
    };
    let mut response = (
        StatusCode::OK,
        axum::Json(json!({"query": q, "results": []})),
    )
        .into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(value) = HeaderValue::from_str(&cache_status_header(
        CacheState::Miss,
        0,
        false,
        Some(forward_status),
    )) {
        headers.insert(CACHE_STATUS.clone(), value);
    }
    response
}

/// The price map through the cache, and parsed.
async fn price_map(
    state: &SharedState,
    request_id: RequestId,
) -> Result<(Lookup, PriceMap), FetchFailure> {
    let commerce = state.commerce.clone();
    let lookup = state
        .cache
        .lookup(RouteKind::Prices, PRICE_MAP_KEY, move || {
            fetch_prices(commerce, request_id)
        })
        .await?;
    // Stored by `fetch_prices` in this very shape, so this cannot fail short of a bug.
    let map = serde_json::from_slice(&lookup.entry.body).map_err(|err| {
        FetchFailure::Upstream(UpstreamError::Decode {
            upstream: "commerce",
            reason: format!("cached price map: {err}"),
        })
    })?;
    Ok((lookup, map))
}

fn cached_json(lookup: &Lookup) -> Result<Value, ApiError> {
    serde_json::from_slice(&lookup.entry.body).map_err(|err| {
        ApiError::Internal(format!(
            "cached {} entry: {err}",
            lookup.entry.route.as_str()
        ))
    })
}

fn to_bytes(value: &Value) -> Bytes {
    Bytes::from(value.to_string())
}

/// `GET Products` on the commerce upstream: the live price map, stored in its checked form.
async fn fetch_prices(commerce: Upstream, request_id: RequestId) -> Result<Fetched, UpstreamError> {
    let unreadable = |reason: String| UpstreamError::Decode {
        upstream: "commerce",
        reason,
    };
    let path = UpstreamPath::fixed("Products");
    let response = match commerce.get(&path, &request_id).await {
        Ok(response) => response,
        // Not an unknown product: a missing price map is an outage, worth stale-if-error.
        Err(UpstreamError::NotFound { .. }) => {
            return Err(unreadable("no price map at Products".to_owned()));
        }
        Err(err) => return Err(err),
    };
    let map = PriceMap::from_upstream(decode("commerce", &response.body)?).map_err(unreadable)?;
    let map = serde_json::to_value(&map).map_err(|err| unreadable(err.to_string()))?;
    Ok(json_entry(&map))
}

/// `GET products/{title}` on the content upstream: an array whose first element is the product.
async fn fetch_product(
    content: Upstream,
    title: String,
    request_id: RequestId,
) -> Result<Fetched, UpstreamError> {
    let missing = || not_found(format!("There is no product titled '{title}'."));
    let path = match UpstreamPath::fixed("products").segment(&title) {
        Ok(path) => path,
        // `.` and `..` cannot be product titles.
        Err(_) => return Ok(missing()),
    };
    let response = match content.get(&path, &request_id).await {
        Ok(response) => response,
        Err(UpstreamError::NotFound { .. }) => return Ok(missing()),
        Err(err) => return Err(err),
    };
    match decode("content", &response.body)? {
        Value::Array(mut products) if !products.is_empty() => {
            Ok(json_entry(&camel_case_keys(products.swap_remove(0))))
        }
        Value::Array(_) => Ok(missing()),
        _ => Err(UpstreamError::Decode {
            upstream: "content",
            reason: "products answer is not an array".to_owned(),
        }),
    }
}

/// `GET product-groups/{title}` on the content upstream: `{data: group}`. The entry is also
/// tagged with each of its products, so purging a product drops the collections listing it.
async fn fetch_collection(
    content: Upstream,
    title: String,
    request_id: RequestId,
) -> Result<Fetched, UpstreamError> {
    let missing = || not_found(format!("There is no collection titled '{title}'."));
    let path = match UpstreamPath::fixed("product-groups").segment(&title) {
        Ok(path) => path,
        Err(_) => return Ok(missing()),
    };
    let response = match content.get(&path, &request_id).await {
        Ok(response) => response,
        Err(UpstreamError::NotFound { .. }) => return Ok(missing()),
        Err(err) => return Err(err),
    };
    let mut document = decode("content", &response.body)?;
    let group = document
        .get_mut("data")
        .map(Value::take)
        .filter(Value::is_object)
        .ok_or_else(|| UpstreamError::Decode {
            upstream: "content",
            reason: format!("product group {title} has no data object"),
        })?;
    let group = camel_case_keys(group);
    let product_tags = group
        .get("products")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|card| card.get("title").and_then(Value::as_str))
        .map(|title| RouteKind::Product.tag(&cache::normalise(title)))
        .collect();
    Ok(Fetched {
        extra_tags: product_tags,
        ..json_entry(&group)
    })
}

/// `GET products/search/{query}` on the content upstream: an array of product cards.
async fn fetch_search(
    content: Upstream,
    query: String,
    request_id: RequestId,
) -> Result<Fetched, UpstreamError> {
    let nothing = || json_entry(&Value::Array(Vec::new()));
    let path = match UpstreamPath::fixed("products/search").segment(&query) {
        Ok(path) => path,
        // `..` matches no title worth finding.
        Err(_) => return Ok(nothing()),
    };
    let response = match content.get(&path, &request_id).await {
        Ok(response) => response,
        Err(UpstreamError::NotFound { .. }) => return Ok(nothing()),
        Err(err) => return Err(err),
    };
    match decode("content", &response.body)? {
        results @ Value::Array(_) => Ok(json_entry(&camel_case_keys(results))),
        _ => Err(UpstreamError::Decode {
            upstream: "content",
            reason: "search answer is not an array".to_owned(),
        }),
    }
}
