//! Content routes, answered through the edge cache: `GET /api/pages/{name}` (a content page,
//! unwrapped from Strapi's `data` envelope and camelCased) and `GET /api/products/{title}`
//! (the product's content).

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde_json::Value;

use crate::cache::{self, FetchFailure, Fetched, RouteKind};
use crate::content::{PAGE_NAMES, camel_case_keys};
use crate::error::ApiError;
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

pub async fn page(
    State(state): State<SharedState>,
    Path(name): Path<String>,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let name = cache::normalise(&name);
    if !PAGE_NAMES.contains(&name.as_str()) {
        return Err(ApiError::NotFound(format!(
            "There is no page named '{name}'."
        )));
    }
    let content = state.content.clone();
    let key = name.clone();
    let lookup = state
        .cache
        .lookup(RouteKind::Pages, &key, move || {
            fetch_page(content, name, request_id)
        })
        .await?;
    Ok(cache::respond(&lookup, &headers))
}

pub async fn product(
    State(state): State<SharedState>,
    Path(title): Path<String>,
    request_id: RequestId,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let title = cache::normalise(&title);
    let content = state.content.clone();
    let key = title.clone();
    let lookup = state
        .cache
        .lookup(RouteKind::Product, &key, move || {
            fetch_product(content, title, request_id)
        })
        .await?;
    Ok(cache::respond(&lookup, &headers))
}

fn json(value: &Value) -> Fetched {
    Fetched {
        status: StatusCode::OK,
        body: Bytes::from(value.to_string()),
        content_type: HeaderValue::from_static("application/json"),
        extra_tags: Vec::new(),
    }
}

/// A 404 worth remembering for the negative ttl.
fn not_found(detail: String) -> Fetched {
    Fetched {
        status: StatusCode::NOT_FOUND,
        body: Bytes::from(
            serde_json::to_vec(&ApiError::NotFound(detail).problem()).unwrap_or_default(),
        ),
        content_type: HeaderValue::from_static("application/problem+json"),
        extra_tags: Vec::new(),
    }
}

fn decode(upstream: &'static str, body: &[u8]) -> Result<Value, UpstreamError> {
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
    Ok(json(&camel_case_keys(data)))
}

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
    // The content API answers an array; the first match is the product.
    match decode("content", &response.body)? {
        Value::Array(mut products) if !products.is_empty() => {
            Ok(json(&camel_case_keys(products.swap_remove(0))))
        }
        Value::Array(_) => Ok(missing()),
        _ => Err(UpstreamError::Decode {
            upstream: "content",
            reason: "products answer is not an array".to_owned(),
        }),
    }
}
