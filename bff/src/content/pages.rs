//! Content pages through the edge cache: one entry per page, whichever route asks.

use axum::http::{HeaderValue, StatusCode};
use bytes::Bytes;
use serde::Serialize;
use serde_json::{Map, Value};

use std::sync::Arc;

use super::page_shapes::ContentPage;
use super::{Content, Data, PAGE_NAMES, read};
use crate::cache::{self, Fetched, Lookup, RouteKind};
use crate::http::error::ApiError;
use crate::http::request_id::RequestId;
use crate::observe::metrics::Metrics;
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
        let metrics = self.metrics.clone();
        let key = name.clone();
        Ok(self
            .cache
            .lookup(RouteKind::Pages, &key, move || {
                fetch_page(content, metrics, name, request_id)
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
        no_store: false,
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
        no_store: false,
    })
}

pub fn decode(upstream: &'static str, body: &[u8]) -> Result<Value, UpstreamError> {
    serde_json::from_slice(body).map_err(|err| UpstreamError::Decode {
        upstream,
        reason: err.to_string(),
    })
}

async fn fetch_page(
    content: Upstream,
    metrics: Arc<Metrics>,
    name: String,
    request_id: RequestId,
) -> Result<Fetched, UpstreamError> {
    let path = UpstreamPath::fixed("page").segment(&name)?;
    let response = match content.get(&path, &request_id).await {
        Ok(response) => response,
        Err(UpstreamError::NotFound { .. }) => {
            return Ok(Fetched::not_found(format!(
                "There is no page named '{name}'."
            )));
        }
        Err(err) => return Err(err),
    };
    let Data { data: page } = read::<Data<Map<String, Value>>>(decode("content", &response.body)?)?;
    let page = Value::Object(page);
    check_shape(&name, &page, &metrics);
    // Relayed as the CMS wrote it (camelCased), keys the shapes do not name included: a page
    // that breaks its shape is counted, not refused, so a CMS edit is never an outage.
    Ok(Fetched {
        no_store: response.no_store,
        ..encoded_entry("content", &page)?
    })
}

/// Reads the page as the shape its name answers (`content::page_shapes`, the API's documented
/// schema). A page that does not read is logged and counted; this runs once per cache fill.
fn check_shape(name: &str, page: &Value, metrics: &Metrics) {
    if let Some(Err(error)) = ContentPage::decode(name, page.clone()) {
        tracing::warn!(page = name, %error, "content page breaks its documented shape");
        metrics.count_contract_violation(name);
    }
}
