//! Catalogue routes: `GET /api/products/{title}`, `GET /api/collections/{title}` and
//! `GET /api/search?q=`, each the content joined with live prices in one answer. The catalogue
//! service (`crate::commerce::catalogue`) does the work: the cached parts, the upstream paths, the
//! composition.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::commerce::catalogue::answer::{Collection, ProductPage, SearchResults};
use crate::commerce::catalogue::{Catalogue, SearchQuery};
use crate::edge::state::SharedState;
use crate::http::error::ApiError;
use crate::http::extract::Path;
use crate::http::request_id::RequestId;
use crate::routes::openapi::cached::{CachedBody, CachedResponses};

/// What a catalogue answer's `ETag` follows: the answer composed from the content and the prices.
const ANSWER_ETAG: &str = "Strong; changes exactly when the answer does.";

/// Products and collections.
pub fn routes() -> OpenApiRouter<SharedState> {
    OpenApiRouter::new()
        .routes(routes!(product))
        .routes(routes!(collection))
}

/// Search, apart: it carries a rate limit of its own.
pub fn search_routes() -> OpenApiRouter<SharedState> {
    OpenApiRouter::new().routes(routes!(search))
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
            description = "The product's title, matched ignoring case and surrounding spaces. \
                A title over 200 bytes is a 404 at once; past `rate_limit.not_found_per_minute` \
                404s the client is answered 429."),
    ),
    responses(
        CachedResponses<ProductPage>,
        (status = 404, response = crate::routes::openapi::problems::NotFound),
        (status = 429, response = crate::routes::openapi::problems::TooManyRequests),
    ),
)]
pub async fn product(
    State(catalogue): State<Catalogue>,
    Path(title): Path<String>,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let answer = catalogue.product(&title, request_id).await?;
    Ok(answer.cached(&catalogue.content.cache).send(&headers))
}

impl CachedBody for ProductPage {
    const DESCRIPTION: &'static str = "The product, priced.";
    const ETAG: &'static str = ANSWER_ETAG;
    const CACHE_CONTROL: &'static str = "The shortest freshness of the content and the price map.";
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
            description = "The collection's title, matched ignoring case and surrounding \
                spaces. A title over 200 bytes is a 404 at once; past \
                `rate_limit.not_found_per_minute` 404s the client is answered 429."),
    ),
    responses(
        CachedResponses<Collection>,
        (status = 404, response = crate::routes::openapi::problems::NotFound),
        (status = 429, response = crate::routes::openapi::problems::TooManyRequests),
    ),
)]
pub async fn collection(
    State(catalogue): State<Catalogue>,
    Path(title): Path<String>,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let answer = catalogue.collection(&title, request_id).await?;
    Ok(answer.cached(&catalogue.content.cache).send(&headers))
}

impl CachedBody for Collection {
    const DESCRIPTION: &'static str = "The collection, priced.";
    const ETAG: &'static str = ANSWER_ETAG;
    const CACHE_CONTROL: &'static str = "The shortest freshness of the content and the price map.";
}

/// Search products.
///
/// Priced search results sorted by title. A search that cannot run (the content service or the
/// price map failing) is a 503 `search_unavailable`; a query shorter than 2 characters is a 422;
/// more than `rate_limit.search_per_minute` searches a minute from one client is a 429.
#[utoipa::path(
    get,
    path = "/search",
    operation_id = "searchProducts",
    tag = "catalogue",
    params(
        ("q" = inline(SearchQuery), Query,
            description = "What to search for in titles and subtitles, ignoring case: 2 to 100 \
                characters once surrounding spaces are trimmed."),
    ),
    responses(
        CachedResponses<SearchResults>,
        (status = 422, response = crate::routes::openapi::problems::Invalid),
        (status = 429, response = crate::routes::openapi::problems::TooManyRequests),
        (status = 503, response = crate::routes::openapi::problems::SearchUnavailable),
    ),
)]
pub async fn search(
    State(catalogue): State<Catalogue>,
    query: SearchQuery,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let answer = catalogue.search(&query, request_id).await?;
    Ok(answer.cached(&catalogue.content.cache).send(&headers))
}

impl CachedBody for SearchResults {
    const DESCRIPTION: &'static str = "The matching products, priced.";
    const ETAG: &'static str = ANSWER_ETAG;
    const CACHE_CONTROL: &'static str = "The shortest freshness of the results and the price map.";
}
