//! The admin listener: metrics and probes (open, for scrapers and kubelets) and the `/admin`
//! API (named, scoped admin tokens, every change audited: see [`crate::admin`]): cache
//! statistics and purges, the effective configuration and its reload, the audit log, and the
//! content service's publish webhook (its own shared secret; audited as `content-webhook`).

use crate::cache::purge_fanout::{FanOut, Origin, PurgeAnswer, purge_with_receipts};
use crate::cache::purge_receipt::{PurgeOrder, new_purge_id};
use crate::cache::store::{keys_purge, tags_purge};
use crate::coordination::replicas::purge_bus::{Purge, PurgeMode};
use axum::Json;
use axum::Router;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use tower::ServiceBuilder;

use crate::admin::access;
use crate::admin::audit::layer::record_admin_actions;
use crate::admin::identity::AdminIdentity;

use crate::cache::RouteKind;
use crate::config::effective::EffectiveConfig;
use crate::content::webhook::{Webhook, affected_tags};
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
        .route("/cache/explain", get(super::admin_cache_explain::explain))
        .route("/cache/top", get(super::admin_cache_explain::top))
        .route("/cache/purges", get(recent_purges))
        .route("/config", get(effective_config))
        .route("/fleet", get(fleet))
        .route("/config/reload", post(reload))
        .route(
            "/config/overrides",
            get(super::admin_overrides::overview).post(super::admin_overrides::change),
        )
        .route(
            "/config/overrides/promote",
            post(super::admin_overrides::promote),
        )
        .route(
            "/config/overrides/rollback",
            post(super::admin_overrides::rollback),
        )
        .route(
            "/config/overrides/diff",
            get(super::admin_overrides::diff_to),
        )
        .route(
            "/config/overrides/export",
            get(super::admin_overrides::export),
        )
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

/// `{"tags": [...]}`, `{"keys": ["product:summit lr"]}` or `{"all": true}`, with an optional
/// `"mode": "soft"|"hard"` (default hard).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PurgeRequest {
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    keys: Vec<String>,
    #[serde(default)]
    all: bool,
    #[serde(default)]
    mode: Option<String>,
}

/// The purge mode `mode` names (hard when absent).
fn purge_mode(mode: Option<&str>) -> Result<PurgeMode, ApiError> {
    match mode.map(str::trim) {
        None | Some("hard") => Ok(PurgeMode::Hard),
        Some("soft") => Ok(PurgeMode::Soft),
        Some(_) => Err(ApiError::BadRequest {
            code: "invalid_mode",
            detail: "mode: must be \"soft\" or \"hard\".".to_owned(),
        }),
    }
}

/// A purge's answer as HTTP: 200 once every replica known confirmed it (or there is no other),
/// 202 when it is not confirmed everywhere (`fanOut` `partial`: some replicas did not confirm in
/// time; `pending`: Redis did not take it, so it is kept and replayed when Redis returns).
fn purge_response(answer: &PurgeAnswer, extra: serde_json::Value) -> Response {
    let status = if answer.fan_out.confirmed() {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    let mut body = serde_json::to_value(answer).unwrap_or_default();
    if let (Some(body), serde_json::Value::Object(extra)) = (body.as_object_mut(), extra) {
        body.extend(extra);
    }
    let mut response = (status, Json(body)).into_response();
    if answer.fan_out == FanOut::Pending {
        // When to look again: the replay runs once the purge channel is joined again.
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
    }
    response
}

/// `GET /admin/fleet`: every replica's last heartbeat, with build and config drift and the
/// silent ones flagged.
async fn fleet(State(state): State<SharedState>) -> Response {
    let own = state.cache.top_lists();
    Json(state.fleet.view(own).await).into_response()
}

/// `?limit=` (default 20) and `?tag=` (only the purges that named that tag).
#[derive(Debug, Deserialize)]
struct RecentPurgesQuery {
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    tag: Option<String>,
}

/// `GET /admin/cache/purges`: the recent purges, newest first.
async fn recent_purges(
    State(state): State<SharedState>,
    Query(query): Query<RecentPurgesQuery>,
) -> Response {
    let limit = query.limit.unwrap_or(20);
    let purges = match &query.tag {
        Some(tag) => {
            let tags = [tag.trim().to_lowercase()];
            state
                .purge_log
                .recent_purges(usize::MAX)
                .await
                .into_iter()
                .filter(|record| {
                    record.what.iter().any(|purge| {
                        matches!(purge, Purge::Tags(named) if named.iter().any(|named| tags.contains(named)))
                    })
                })
                .take(limit)
                .collect()
        }
        None => state.purge_log.recent_purges(limit).await,
    };
    Json(serde_json::json!({ "purges": purges })).into_response()
}

fn parse<T: for<'de> Deserialize<'de>>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|err| ApiError::BadRequest {
        code: "invalid_body",
        detail: format!("The request body is not valid: {err}"),
    })
}

async fn purge(State(state): State<SharedState>, body: Bytes) -> Result<Response, ApiError> {
    let request: PurgeRequest = parse(&body)?;
    let mode = purge_mode(request.mode.as_deref())?;
    let id = new_purge_id();
    let order = |purge| PurgeOrder {
        id: id.clone(),
        purge,
        mode,
    };
    let mut orders = Vec::new();
    if request.all {
        orders.push(order(Purge::All));
    } else {
        if !request.tags.is_empty() {
            orders.push(order(tags_purge(&request.tags)));
        }
        if !request.keys.is_empty() {
            orders.push(order(keys_purge(&request.keys)));
        }
    }
    if orders.is_empty() {
        return Err(ApiError::BadRequest {
            code: "nothing_to_purge",
            detail: "Give tags, keys, or all: true.".to_owned(),
        });
    }
    let answer = purge_with_receipts(
        &state.cache,
        &state.fleet,
        &state.purge_log,
        &orders,
        Origin {
            source: "admin".to_owned(),
        },
    )
    .await;
    tracing::info!(id = %answer.id, mode = mode.as_str(), purged = answer.purged,
        replicas = answer.receipts.len(), missing = ?answer.missing,
        fan_out = answer.fan_out.as_str(), replication = ?answer.replication,
        tags = ?request.tags, keys = ?request.keys, all = request.all, "cache purged");
    Ok(purge_response(&answer, serde_json::json!({})))
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

/// The answer to a webhook that purges nothing.
#[derive(Debug, Default, Serialize)]
struct Purged {
    purged: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    ignored: Option<String>,
}

#[derive(Debug, Serialize)]
struct Reloaded {
    reloaded: bool,
    detail: String,
}

/// The content service's publish webhook: its answer names the caller `content-webhook` for
/// the audit log once its secret or signature is accepted (see
/// [`crate::content::webhook_auth`]: with a signing secret, a signature seen for the first
/// time within its window, and no bearer alone).
async fn content_webhook(
    State(state): State<SharedState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    if let Err(refusal) = state.webhook_auth.check(&headers, &body, now).await {
        tracing::warn!(?refusal, "content webhook refused");
        return Err(ApiError::Unauthorized(refusal.detail().to_owned()));
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
    let mode = if state
        .config
        .content
        .webhook
        .soft_purge_events
        .contains(&hook.event)
    {
        PurgeMode::Soft
    } else {
        PurgeMode::Hard
    };
    // A soft and a hard purge of one tag set are two purges, not one.
    let mut coalescing = vec![format!("mode={}", mode.as_str())];
    coalescing.extend(tags.iter().cloned());
    let outcome = state
        .webhook_purges
        .purge(&coalescing, || async {
            // One cap over every tag set: a new set each call is not a way around it.
            state.webhook_purge_cap.take()?;
            let order = PurgeOrder::new(tags_purge(&tags), mode);
            Ok(purge_with_receipts(
                &state.cache,
                &state.fleet,
                &state.purge_log,
                &[order],
                Origin {
                    source: format!("webhook:{}", hook.event),
                },
            )
            .await)
        })
        .await;
    let answer = match outcome.answer {
        Ok(answer) => answer,
        Err(capped) => {
            tracing::warn!(event = %hook.event, %model, ?tags,
                retry_after_s = capped.retry_after_seconds,
                "content webhook over content.webhook.purges_per_minute; not purged");
            return Err(ApiError::TooManyRequests {
                retry_after_seconds: capped.retry_after_seconds,
            });
        }
    };
    tracing::info!(event = %hook.event, %model, ?tags, id = %answer.id, mode = mode.as_str(),
        purged = answer.purged, fan_out = answer.fan_out.as_str(),
        coalesced = outcome.coalesced, "content webhook");
    // `coalesced` only when true: the purge of another webhook for the same tags, started
    // after this one arrived, did it (its answer is this one's).
    let mut extra = serde_json::json!({ "tags": tags });
    if outcome.coalesced {
        extra["coalesced"] = serde_json::Value::Bool(true);
    }
    Ok(purge_response(&answer, extra))
}
