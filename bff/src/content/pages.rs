//! Content pages through the edge cache: one entry per page, whichever route asks.

use axum::http::{HeaderValue, StatusCode};
use bytes::Bytes;
use serde::Serialize;
use serde_json::{Map, Value};

use super::{Content, Data, PAGE_NAMES, read};
use crate::cache::{self, Fetched, Lookup, RouteKind};
use crate::error::ApiError;
use crate::request_id::RequestId;
use crate::upstream::{Upstream, UpstreamError, UpstreamPath};

impl Content {
    /// A content page through the edge cache (one entry per page, whichever route asks).
    pub async fn page_lookup(&self, name: &str, request_id: RequestId) -> Result<Lookup, ApiError> {
        let name = cache::normalise(name);
        if !PAGE_NAMES.contains(&name.as_str()) {
            return Err(ApiError::NotFound(format!(
                "There is no page named '{name}'."
            )));
        }
        let content = self.upstream.clone();
        let key = name.clone();
        Ok(self
            .cache
            .lookup(RouteKind::Pages, &key, move || {
                fetch_page(content, name, request_id)
            })
            .await?)
    }
}

/// A 200 JSON entry.
pub fn json_entry(value: &Value) -> Fetched {
    Fetched {
        status: StatusCode::OK,
        body: Bytes::from(value.to_string()),
        content_type: HeaderValue::from_static("application/json"),
        extra_tags: Vec::new(),
    }
}

/// A 200 JSON entry of a typed `value` read from `upstream` (a page, the catalogue's content and
/// price map).
pub fn encoded_entry<T: Serialize + ?Sized>(
    upstream: &'static str,
    value: &T,
) -> Result<Fetched, UpstreamError> {
    let body = serde_json::to_vec(value).map_err(|err| UpstreamError::Encode {
        upstream,
        reason: format!("cache entry: {err}"),
    })?;
    Ok(Fetched {
        status: StatusCode::OK,
        body: Bytes::from(body),
        content_type: HeaderValue::from_static("application/json"),
        extra_tags: Vec::new(),
    })
}

/// A 404 worth remembering for the negative ttl.
pub fn not_found(detail: String) -> Fetched {
    Fetched {
        status: StatusCode::NOT_FOUND,
        body: ApiError::NotFound(detail).problem_body(),
        content_type: HeaderValue::from_static("application/problem+json"),
        extra_tags: Vec::new(),
    }
}

pub fn decode(upstream: &'static str, body: &[u8]) -> Result<Value, UpstreamError> {
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
    // A deliberate pass-through: the page is relayed as the CMS wrote it (camelCased); its
    // shapes are documented by `content::page_shapes`, the envelope is the contract.
    let Data { data: page } = read::<Data<Map<String, Value>>>(decode("content", &response.body)?)?;
    encoded_entry("content", &page)
}
