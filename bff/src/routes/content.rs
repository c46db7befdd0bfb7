//! Content routes, answered through the edge cache: `GET /api/pages/{name}`, a content page
//! unwrapped from Strapi's `data` envelope and camelCased. (Products, collections and search,
//! which join content with live prices, are in `routes::catalogue`.)

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde_json::Value;

use crate::cache::{self, FetchFailure, Fetched, Lookup, RouteKind};
use crate::content::{PAGE_NAMES, camel_case_keys};
use crate::error::ApiError;
use crate::openapi::schemas::content::{ContentPage, PageName};
use crate::request_id::RequestId;
use crate::state::SharedState;
use crate::upstream::{Upstream, UpstreamError, UpstreamPath};

impl From<FetchFailure> for ApiError {
    fn from(failure: FetchFailure) -> Self {
        match failure {
            FetchFailure::Upstream(err) => ApiError::Upstream(err),
            FetchFailure::Aborted => ApiError::Internal("cache fetch aborted".to_owned()),
        }
    }
}

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
        (status = 200, description = "The page.", body = ContentPage,
            headers(
                ("ETag" = String, description = "Strong; changes exactly when the page does."),
                ("Cache-Control" = String,
                    description = "The remaining freshness and the stale windows."),
                ("Cache-Status" = String, description = "What the BFF's cache did (RFC 9211)."),
            )),
        (status = 304, description = "Not modified: `If-None-Match` names the current `ETag`.",
            headers(("ETag" = String))),
        (status = 404, response = crate::openapi::problems::NotFound),
    ),
)]
pub async fn page(
    State(state): State<SharedState>,
    Path(name): Path<String>,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let lookup = page_lookup(&state, &name, request_id).await?;
    Ok(cache::respond(&lookup, &headers))
}

/// A content page through the edge cache (one entry per page, whichever route asks).
pub(crate) async fn page_lookup(
    state: &SharedState,
    name: &str,
    request_id: RequestId,
) -> Result<Lookup, ApiError> {
    let name = cache::normalise(name);
    if !PAGE_NAMES.contains(&name.as_str()) {
        return Err(ApiError::NotFound(format!(
            "There is no page named '{name}'."
        )));
    }
    let content = state.content.clone();
    let key = name.clone();
    Ok(state
        .cache
        .lookup(RouteKind::Pages, &key, move || {
            fetch_page(content, name, request_id)
        })
        .await?)
}

/// A 200 JSON entry (also the catalogue's).
pub(crate) fn json_entry(value: &Value) -> Fetched {
    Fetched {
        status: StatusCode::OK,
        body: Bytes::from(value.to_string()),
        content_type: HeaderValue::from_static("application/json"),
        extra_tags: Vec::new(),
    }
}

/// A 404 worth remembering for the negative ttl.
pub(crate) fn not_found(detail: String) -> Fetched {
    Fetched {
        status: StatusCode::NOT_FOUND,
        body: Bytes::from(
            serde_json::to_vec(&ApiError::NotFound(detail).problem()).unwrap_or_default(),
        ),
        content_type: HeaderValue::from_static("application/problem+json"),
        extra_tags: Vec::new(),
    }
}

pub(crate) fn decode(upstream: &'static str, body: &[u8]) -> Result<Value, UpstreamError> {
    serde_json::from_slice(body).map_err(|err| UpstreamError::Decode {
        upstream,
        reason: err.to_string(),
    })
}

async fn fetch_page(
    content: Upstream,
    name: String,
    request_id: RequestId,
) -> Result<Fetched, UpstreamError> {
    let path = UpstreamPath::fixed("page").segment(&name)?;
    let response = match content.get(&path, &request_id).await {
        Ok(response) => response,
        Err(UpstreamError::NotFound { .. }) => {
            return Ok(not_found(format!("There is no page named '{name}'.")));
        }
        Err(err) => return Err(err),
    };
    let mut document = decode("content", &response.body)?;
    let data = document
        .get_mut("data")
        .map(Value::take)
        .filter(Value::is_object)
        .ok_or_else(|| UpstreamError::Decode {
            upstream: "content",
            reason: format!("page {name} has no data object"),
        })?;
    Ok(json_entry(&camel_case_keys(data)))
}
