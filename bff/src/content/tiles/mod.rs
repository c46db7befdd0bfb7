//! `GET /tiles/{z}/{x}/{y}`: map tiles through the BFF. The browser names only this path; the
//! provider's URL and key stay here. Tiles are validated before anything is fetched, cached in a
//! byte budget of their own (`[cache] tile_capacity_bytes`, policy `[cache.tiles]`) and answered
//! with the cache's ETag, freshness and `Cache-Control`, so browsers keep them too.

mod coords;
mod provider;

pub use coords::{InvalidTile, TileCoords};
pub use provider::TileProvider;

use axum::http::StatusCode;

use crate::cache::{EdgeCache, FetchFailure, Lookup, RouteKind};
use crate::config::TILE_PATH_TEMPLATE;
use crate::http::error::ApiError;
use crate::http::request_id::RequestId;
use crate::upstream::UpstreamError;

/// The axum route of [`TILE_PATH_TEMPLATE`].
pub const ROUTE: &str = TILE_PATH_TEMPLATE;

/// What the tile route needs: the provider (if any), the tiles' own cache and the zoom limit.
#[derive(Debug, Clone)]
pub struct Tiles {
    pub provider: Option<TileProvider>,
    pub cache: EdgeCache,
    pub max_zoom: u8,
}

impl Tiles {
    /// The tile at `z/x/y` as the path gave it, through the tile cache.
    pub async fn lookup(
        &self,
        (z, x, y): (&str, &str, &str),
        request_id: RequestId,
    ) -> Result<Lookup, ApiError> {
        let tile =
            TileCoords::parse(z, x, y, self.max_zoom).map_err(|err| ApiError::BadRequest {
                code: "invalid_tile",
                detail: err.to_string(),
            })?;
        let provider = self
            .provider
            .clone()
            .ok_or_else(|| ApiError::NotFound("No map tile provider is configured.".to_owned()))?;
        self.cache
            .lookup(RouteKind::Tiles, &tile.to_string(), move || async move {
                provider.fetch(tile, request_id).await
            })
            .await
            .map_err(provider_failure)
    }
}

/// A provider refusing the key (401/403) is the operator's problem, not the shopper's session:
/// a 502 with its own code, which the map tells apart from an outage.
fn provider_failure(failure: FetchFailure) -> ApiError {
    match failure {
        FetchFailure::Upstream(UpstreamError::Status { status, .. })
            if status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN =>
        {
            ApiError::BadGateway {
                code: "map_key_rejected",
                detail: "The map provider refused the configured key.".to_owned(),
            }
        }
        other => other.into(),
    }
}
