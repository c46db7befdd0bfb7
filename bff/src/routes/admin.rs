//! The admin listener: metrics and probes (open, for scrapers and kubelets) and the `/admin`
//! API (named, scoped admin tokens, every change audited: see [`crate::admin`]): cache
//! statistics and purges, the effective configuration and its reload, the audit log, and the
//! content service's publish webhook (its own shared secret; audited as `content-webhook`).

use crate::coordination::replicas::replication::Replication;
use axum::Json;
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;
use tower::ServiceBuilder;

use crate::admin::access;
use crate::admin::audit::layer::record_admin_actions;
use crate::admin::identity::AdminIdentity;

use crate::cache::RouteKind;
use crate::config::effective::EffectiveConfig;
use crate::content::webhook::{Webhook, affected_tags};
use crate::content::webhook_signature;
use crate::edge::state::SharedState;
use crate::http::error::ApiError;

/// Every `/admin` route: authenticated (401), then audited (every change), then authorised
/// by its scope (403, see [`access::required_scope`]); handlers read the caller as
/// `Extension<AdminIdentity>`.
pub fn router(state: &SharedState) -> Router<SharedState> {
    let protected = Router::new()
        .route("/cache", get(cache_stats))
        .route("/upstreams", get(upstreams))
        .route("/cache/purge", post(purge))
        .route("/config", get(effective_config))
        .route("/config/reload", post(reload))
        .route("/audit", get(audit))
        .route("/web/rollout", get(rollout_window))
        .route("/web/rollout/close", post(close_rollout_window))
        .route_layer(
            ServiceBuilder::new()
                .layer(middleware::from_fn_with_state(
                    state.admin_tokens.clone(),
                    access::authenticate,
                ))
                .layer(middleware::from_fn_with_state(
                    state.audit.clone(),
                    record_admin_actions,
                ))
                .layer(middleware::from_fn(access::authorize)),
        );
    Router::new()
        .route("/metrics", get(metrics))
        .route(
            "/admin/webhooks/content",
            post(content_webhook).route_layer(middleware::from_fn_with_state(
                state.audit.clone(),
                record_admin_actions,
            )),
        )
        .nest("/admin", protected)
}

/// The bearer token of `headers`, compared in constant time with `expected`.
fn bearer_matches(headers: &HeaderMap, expected: &str) -> bool {
    access::bearer_token(headers)
        .is_some_and(|token| bool::from(token.as_bytes().ct_eq(expected.as_bytes())))
}

fn unauthorized() -> ApiError {
    ApiError::Unauthorized("A valid bearer token is required.".to_owned())
}

/// `?limit=N`: how many records, newest first (default 100, at most `admin.audit_entries`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AuditQuery {
    limit: Option<usize>,
}

/// The audit log: `{"source": "redis"|"local", "note"?, "bound", "unshared", "entries":
/// [{"atMs", "actor", "replica", "method", "route", "arguments", "status", "result"}]}`.
async fn audit(
    State(state): State<SharedState>,
    query: Result<Query<AuditQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|_| ApiError::BadRequest {
        code: "invalid_limit",
        detail: "limit: a whole number of records (e.g. ?limit=50)".to_owned(),
    })?;
    let limit = query.limit.unwrap_or(100);
    if limit == 0 {
        return Err(ApiError::BadRequest {
            code: "invalid_limit",
            detail: "limit: at least 1".to_owned(),
        });
    }
    Ok(Json(state.audit.read(limit).await).into_response())
}

async fn metrics(State(state): State<SharedState>) -> Response {
    let (entries, bytes) = state.cache.size().await;
    state.metrics.set_cache_size(entries, bytes);
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/openmetrics-text; version=1.0.0; charset=utf-8"),
        )],
        state.metrics.render(),
    )
        .into_response()
}

/// The rollout window: whether the previous releases' assets are still served.
async fn rollout_window(State(state): State<SharedState>) -> Response {
    Json(state.web.rollout().report().await).into_response()
}

/// Closes the rollout window now: the previous releases' assets answer 404 from here on (on
/// every replica of this build when Redis is configured, else on this one).
async fn close_rollout_window(State(state): State<SharedState>) -> Response {
    Json(state.web.rollout().close().await).into_response()
}

/// The edge cache's figures, the tile cache's lookups counted under `tiles` (as the metrics
/// count them), so the ratios are the dashboard's.
async fn cache_stats(State(state): State<SharedState>) -> Response {
    let tiles = state.tile_cache.stats().await;
    Json(
        state
            .cache
            .stats()
            .await
            .with_route_from(&tiles, RouteKind::Tiles),
    )
    .into_response()
}

/// What the process runs with: see [`EffectiveConfig`].
async fn effective_config(State(state): State<SharedState>) -> Response {
    Json(EffectiveConfig::of(
        &state.running_config.current(),
        &state.secrets,
    ))
    .into_response()
}

/// Each upstream's circuit breaker: `{"upstreams": [{"upstream": "content", "state": "open",
/// "consecutiveFailures": 5, "retryAfterMs": 8200, ...}]}`.
async fn upstreams(State(state): State<SharedState>) -> Response {
    let mut breakers = vec![state.commerce.breaker(), state.content.breaker()];
    if let Some(tiles) = &state.tiles {
        breakers.push(tiles.upstream().breaker());
    }
    Json(serde_json::json!({ "upstreams": breakers })).into_response()
}

/// `{"tags": [...]}`, `{"keys": ["product:summit lr"]}` or `{"all": true}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PurgeRequest {
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    keys: Vec<String>,
    #[serde(default)]
    all: bool,
}

fn parse<T: for<'de> Deserialize<'de>>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|err| ApiError::BadRequest {
        code: "invalid_body",
        detail: format!("The request body is not valid: {err}"),
    })
}

async fn purge(State(state): State<SharedState>, body: Bytes) -> Result<Response, ApiError> {
    let request: PurgeRequest = parse(&body)?;
    let report = if request.all {
        state.cache.purge_all().await
    } else if request.keys.is_empty() && !request.tags.is_empty() {
        state.cache.purge_tags(&request.tags).await
    } else if request.tags.is_empty() && !request.keys.is_empty() {
        state.cache.purge_keys(&request.keys).await
    } else if !request.tags.is_empty() {
        state.cache.purge_tags(&request.tags).await + state.cache.purge_keys(&request.keys).await
    } else {
        return Err(ApiError::BadRequest {
            code: "nothing_to_purge",
            detail: "Give tags, keys, or all: true.".to_owned(),
        });
    };
    let purged = report.purged;
    tracing::info!(purged, replication = ?report.replication, tags = ?request.tags, keys = ?request.keys, all = request.all, "cache purged");
    Ok(Json(Purged {
        purged,
        replication: Some(report.replication),
        ..Purged::default()
    })
    .into_response())
}

async fn reload(State(state): State<SharedState>) -> Result<Response, ApiError> {
    match state.reload() {
        Ok(detail) => Ok(Json(Reloaded {
            reloaded: true,
            detail,
        })
        .into_response()),
        Err(err) => Err(ApiError::Unprocessable {
            code: "invalid_configuration",
            detail: format!("The configuration was not reloaded: {err}"),
        }),
    }
}

/// A purge's answer.
#[derive(Debug, Default, Serialize)]
struct Purged {
    purged: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ignored: Option<String>,
    /// The purge of another webhook for the same tags, started after this one arrived, did it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    coalesced: bool,
    /// Whether the purge's L2 write reached a Redis replica: `acknowledged`, `no_replicas`,
    /// `unacknowledged` (a failover now would undo it in L2; the replicas' memory of versions
    /// still refuses the purged entries) or `not_shared` (Redis did not take it; replayed when
    /// it returns).
    #[serde(skip_serializing_if = "Option::is_none")]
    replication: Option<Replication>,
}

#[derive(Debug, Serialize)]
struct Reloaded {
    reloaded: bool,
    detail: String,
}

/// Whether the webhook is the content service's: its bearer secret (what Strapi sends), or,
/// when `BFF_WEBHOOK_SIGNING_SECRET` is set, a valid HMAC-SHA256 signature within five minutes.
fn webhook_authorised(state: &SharedState, headers: &HeaderMap, body: &[u8]) -> bool {
    if bearer_matches(headers, state.secrets.webhook_secret.expose_secret()) {
        return true;
    }
    let Some(secret) = &state.secrets.webhook_signing_secret else {
        return false;
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    match webhook_signature::verify(secret.expose_secret().as_bytes(), headers, body, now) {
        Ok(()) => true,
        Err(refused) => {
            tracing::warn!(?refused, "content webhook signature refused");
            false
        }
    }
}

/// The content service's publish webhook: its answer names the caller `content-webhook` for
/// the audit log once its secret or signature is accepted.
async fn content_webhook(
    State(state): State<SharedState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    if !webhook_authorised(&state, &headers, &body) {
        return Err(unauthorized());
    }
    let mut response = purge_for_webhook(&state, &body)
        .await
        .unwrap_or_else(IntoResponse::into_response);
    response
        .extensions_mut()
        .insert(AdminIdentity::content_webhook());
    Ok(response)
}

/// The purge an accepted webhook asks for.
async fn purge_for_webhook(state: &SharedState, body: &Bytes) -> Result<Response, ApiError> {
    let hook: Webhook = parse(body)?;
    if !hook.event.starts_with("entry.") {
        return Ok(Json(Purged {
            ignored: Some(hook.event),
            ..Purged::default()
        })
        .into_response());
    }
    let model = hook.model.unwrap_or_default();
    let Some(tags) = affected_tags(&model, &hook.entry) else {
        // An unknown model (or an entry without the field its tags come from) changes nothing
        // this cache holds that can be named: purging everything would let any such webhook
        // empty the cache. Its entries expire on their own.
        tracing::warn!(event = %hook.event, %model, "content webhook for an unknown model ignored");
        return Ok(Json(Purged {
            ignored: Some(format!("unknown model: {model}")),
            ..Purged::default()
        })
        .into_response());
    };
    let tags: Vec<String> = tags.into_iter().map(String::from).collect();
    let outcome = state
        .webhook_purges
        .purge(&tags, || async {
            state.cache.purge_tags(&tags).await.purged
        })
        .await;
    tracing::info!(event = %hook.event, %model, ?tags, purged = outcome.purged,
        coalesced = outcome.coalesced, "content webhook");
    Ok(Json(Purged {
        purged: outcome.purged,
        tags: Some(tags),
        coalesced: outcome.coalesced,
        ..Purged::default()
    })
    .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn authorization(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(value).unwrap_or_else(|_| unreachable!()),
        );
        headers
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive_and_the_token_is_not() {
        for value in [
            "Bearer s3cret",
            "bearer s3cret",
            "BEARER s3cret",
            "bEaReR  s3cret",
        ] {
            assert!(bearer_matches(&authorization(value), "s3cret"), "{value}");
        }
        for value in [
            "Bearer S3CRET",
            "Basic s3cret",
            "Bearers3cret",
            "s3cret",
            "Bearer",
        ] {
            assert!(!bearer_matches(&authorization(value), "s3cret"), "{value}");
        }
        assert!(!bearer_matches(&HeaderMap::new(), "s3cret"));
    }
}
