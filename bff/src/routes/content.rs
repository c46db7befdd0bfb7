//! `GET /api/pages/{name}`: content pages from the content service, unwrapped from Strapi's
//! `data` envelope and camelCased for the browser.

use axum::Json;
use axum::extract::{Path, State};
use serde_json::Value;

use crate::content::{PAGE_NAMES, camel_case_keys};
use crate::error::ApiError;
use crate::request_id::RequestId;
use crate::state::SharedState;
use crate::upstream::{UpstreamError, UpstreamPath};

pub async fn page(
    State(state): State<SharedState>,
    Path(name): Path<String>,
    request_id: RequestId,
) -> Result<Json<Value>, ApiError> {
    let name = name.trim().to_ascii_lowercase();
    if !PAGE_NAMES.contains(&name.as_str()) {
        return Err(ApiError::NotFound(format!(
            "There is no page named '{name}'."
        )));
    }
    let path = UpstreamPath::fixed("page")
        .segment(&name)
        .map_err(UpstreamError::from)?;
    let response = state.content.get(&path, &request_id).await?;
    let mut document: Value =
        serde_json::from_slice(&response.body).map_err(|err| UpstreamError::Decode {
            upstream: "content",
            reason: err.to_string(),
        })?;
    let data = document
        .get_mut("data")
        .map(Value::take)
        .filter(Value::is_object)
        .ok_or_else(|| UpstreamError::Decode {
            upstream: "content",
            reason: format!("page {name} has no data object"),
        })?;
    Ok(Json(camel_case_keys(data)))
}
