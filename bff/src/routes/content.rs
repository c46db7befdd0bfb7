//! Content routes, answered through the edge cache: `GET /api/pages/{name}`, a content page
//! unwrapped from Strapi's `data` envelope and camelCased. (Products, collections and search,
//! which join content with live prices, are in `routes::catalogue`.)

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use crate::cache::CachedAnswer;
use crate::content::Content;
use crate::content::page_shapes::{ContentPage, PageName};
use crate::http::error::ApiError;
use crate::http::extract::Path;
use crate::http::request_id::RequestId;
use crate::routes::openapi::cached::{CachedBody, CachedResponses};

/// A content page.
///
/// The content service's page, unwrapped from its `data` envelope, every key camelCased. Which
/// schema answers depends on `name` (see `ContentPage`).
#[utoipa::path(
    get,
    path = "/pages/{name}",
    operation_id = "getPage",
    tag = "content",
    params(
        ("name" = inline(PageName), Path,
            description = "The page's name, matched ignoring case and surrounding spaces."),
    ),
    responses(
        CachedResponses<ContentPage>,
        (status = 404, response = crate::routes::openapi::problems::NotFound),
    ),
)]
pub async fn page(
    State(content): State<Content>,
    Path(name): Path<String>,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    // Read before the lookup, so the answer is remembered only while nothing has changed.
    let epochs = content.cache.epochs();
    let lookup = content.page_lookup(&name, request_id).await?;
    Ok(CachedAnswer::entry(&lookup)
        .remember(&content.cache, epochs)
        .send(&headers))
}

impl CachedBody for ContentPage {
    const DESCRIPTION: &'static str = "The page.";
    const ETAG: &'static str = "Strong; changes exactly when the page does.";
    const CACHE_CONTROL: &'static str = "The remaining freshness and the stale windows.";
}
