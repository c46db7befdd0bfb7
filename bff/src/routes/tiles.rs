//! `GET /tiles/{z}/{x}/{y}`: map tiles through the BFF (see `crate::content::tiles`).

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;

use crate::cache::CachedAnswer;
use crate::content::tiles::Tiles;
use crate::http::error::ApiError;
use crate::http::extract::Path;
use crate::http::request_id::RequestId;

pub async fn tile(
    State(tiles): State<Tiles>,
    Path((z, x, y)): Path<(String, String, String)>,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let lookup = tiles.lookup((&z, &x, &y), request_id).await?;
    Ok(CachedAnswer::entry(&lookup).send(&headers))
}
