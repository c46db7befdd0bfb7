//! `GET /admin/cache/explain?url=…`: why a URL's keys hit or miss on each replica of the fleet
//! and in L2;
//! `GET /admin/cache/top`: this replica's top lists (the keys and tags that miss most).
//! Neither shows shopper-typed text: search keys are redacted, and the URL asked about is not
//! echoed back.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use crate::cache::explain_fanout::explain_across_fleet;
use crate::edge::state::SharedState;
use crate::http::error::ApiError;
use crate::seo::explain_keys::explain_targets;

#[derive(Debug, Deserialize)]
pub(super) struct ExplainParams {
    url: Option<String>,
}

fn invalid_url(message: &str) -> ApiError {
    ApiError::Validation(BTreeMap::from([("url".to_owned(), message.to_owned())]))
}

pub(super) async fn explain(
    State(state): State<SharedState>,
    params: Result<Query<ExplainParams>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, ApiError> {
    let url = params
        .ok()
        .and_then(|Query(params)| params.url)
        .filter(|url| !url.trim().is_empty())
        .ok_or_else(|| {
            invalid_url("Give the page or API URL to explain, e.g. /product/summit%20lr.")
        })?;
    let reads_of = |build: &str, path: &str| state.ssr.recalled_reads(build, path);
    let targets =
        explain_targets(url.trim(), state.web.build_id(), &reads_of).map_err(invalid_url)?;
    let explained =
        explain_across_fleet(&state.cache, &state.fleet, &state.purge_log, &targets).await;
    Ok(Json(explained).into_response())
}

pub(super) async fn top(State(state): State<SharedState>) -> Response {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Top {
        replica: String,
        #[serde(flatten)]
        lists: crate::cache::TopLists,
    }
    Json(Top {
        replica: state.cache.replica_id().to_owned(),
        lists: state.cache.top_lists(),
    })
    .into_response()
}
