//! The dealer locator: `GET /api/dealers?zip=&radius=`. The search (geocoding, radius, distance,
//! the locator page through the edge cache) is [`crate::content::dealers`]'s.

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::cache::CachedAnswer;
use crate::content::dealers::{DealerList, DealerSearch, Dealers};
use crate::edge::state::SharedState;
use crate::http::error::ApiError;
use crate::http::request_id::RequestId;
use crate::routes::openapi::cached::{CachedBody, CachedResponses};
use crate::routes::openapi::schemas::dealers::RadiusMiles;

pub fn routes() -> OpenApiRouter<SharedState> {
    OpenApiRouter::new().routes(routes!(list))
}

/// Find dealers.
///
/// Without a zip, every dealer with a place, in content order. With one, the dealers within the
/// radius of the zip's centre, nearest first, each with its distance. Also the locator page's
/// texts, so the screen needs this one request. A zip that is not a known US ZIP code is a 404
/// (`detail`: Geocoding request failed).
#[utoipa::path(
    get,
    path = "/dealers",
    operation_id = "listDealers",
    tag = "dealers",
    params(
        ("zip" = Option<String>, Query, pattern = r"^[0-9]{5}$",
            description = "A US ZIP code, five digits. Absent or empty: every dealer."),
        ("radius" = inline(Option<RadiusMiles>), Query,
            description = "The search radius in miles; used only with a zip. Absent or empty: 50."),
    ),
    responses(
        CachedResponses<DealerList>,
        (status = 404, response = crate::routes::openapi::problems::NotFound),
        (status = 422, response = crate::routes::openapi::problems::Invalid),
    ),
)]
async fn list(
    State(dealers): State<Dealers>,
    search: DealerSearch,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let found = dealers.search(&search, request_id).await?;
    // The cache headers of the page it is made from (freshness, Cache-Status, Surrogate-Key, so
    // a purge of the page reaches CDNs too) and an ETag of this very answer.
    Ok(CachedAnswer::json([&found.page], found.body()?).send(&headers))
}

impl CachedBody for DealerList {
    const DESCRIPTION: &'static str = "The dealers.";
    const ETAG: &'static str = "Of this answer; send it back as If-None-Match.";
    const CACHE_CONTROL: &'static str = "As fresh as the locator page the dealers come from.";
}
