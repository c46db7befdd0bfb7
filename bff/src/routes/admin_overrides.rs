//! `/admin/config/overrides`: the live overrides of the cache policies (see
//! [`crate::config::overrides`]). Reads need `read`; changes `config` (the admin router's
//! scope table) and go through the audit log with the caller's token like every admin change.
//!
//! - `GET /admin/config/overrides`: the fleet's version, the pending canary, the history
//!   (newest first) and the drift from the file.
//! - `POST /admin/config/overrides`: `{"set": {...}, "unset": [...], "expiresIn"?, "canary"?,
//!   "dryRun"?}`; a bad key or value is a 422 naming it, and nothing changes.
//! - `POST /admin/config/overrides/promote`: the pending canary to the fleet.
//! - `POST /admin/config/overrides/rollback`: `{"to": N}?` (default: the previous version).
//! - `GET /admin/config/overrides/diff?version=N`: from version N to the fleet's current.
//! - `GET /admin/config/overrides/export`: the fleet's layer as a TOML patch to commit.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, Query, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::admin::identity::AdminIdentity;
use crate::admin::overrides::store::{NotStored, Storage};
use crate::config::duration;
use crate::config::overrides::layer::{Change as KeyChange, OverrideLayer, diff, routes_of};
use crate::config::overrides::versions::{
    Action, Change, OverrideState, Refused, Transition, Version,
};
use crate::coordination::replicas::unix_ms;
use crate::edge::state::SharedState;
use crate::http::error::ApiError;

/// `POST /admin/config/overrides`'s body.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
struct ChangeRequest {
    set: BTreeMap<String, Value>,
    unset: Vec<String>,
    expires_in: Option<String>,
    canary: Option<String>,
    dry_run: bool,
}

/// `POST /admin/config/overrides/rollback`'s body.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct RollbackRequest {
    to: Option<u64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffQuery {
    version: u64,
}

/// The answer to every change.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ChangeAnswer {
    /// The version made (`null` on a dry run, or when nothing changed).
    version: Option<u64>,
    dry_run: bool,
    /// The replica it runs on alone, for a canary.
    canary: Option<String>,
    storage: Storage,
    diff: Vec<KeyChange>,
    /// The routes whose policy it changes.
    routes: Vec<&'static str>,
    note: String,
}

/// One version as the API shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct VersionView {
    version: u64,
    at: Option<String>,
    by: String,
    action: Action,
    layer: BTreeMap<String, Value>,
    expires_at: Option<String>,
    /// When each key with an expiry ends.
    expiries: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rolled_back_to: Option<u64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CanaryView {
    replica: String,
    version: u64,
    layer: BTreeMap<String, Value>,
    expires_at: Option<String>,
}

/// RFC 3339 (UTC, seconds) of a Unix time in ms.
fn rfc3339(unix_ms: u64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(unix_ms);
    humantime::format_rfc3339_seconds(at).to_string()
}

impl VersionView {
    fn of(version: &Version) -> Self {
        Self {
            version: version.version,
            at: (version.at_ms > 0).then(|| rfc3339(version.at_ms)),
            by: version.by.clone(),
            action: version.action,
            layer: version.layer.to_json(),
            expires_at: version.expires_at_ms().map(rfc3339),
            expiries: version
                .expiries_ms
                .iter()
                .map(|(key, at)| (key.clone(), rfc3339(*at)))
                .collect(),
            rolled_back_to: version.rolled_back_to,
        }
    }
}

fn unavailable() -> ApiError {
    ApiError::Refused {
        status: StatusCode::SERVICE_UNAVAILABLE,
        code: "overrides_unavailable",
        detail: "The coordination tier (Redis) did not answer: nothing changed. Try again."
            .to_owned(),
        errors: None,
        members: Map::new(),
    }
}

/// A 422 naming each field (a key, `expiresIn`, `canary`, `to`) and why.
fn invalid(errors: BTreeMap<String, String>) -> ApiError {
    let detail = errors
        .iter()
        .map(|(field, why)| format!("{field}: {why}"))
        .collect::<Vec<_>>()
        .join("; ");
    ApiError::Refused {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        code: "invalid_override",
        detail: format!("Nothing changed. {detail}"),
        errors: Some(errors),
        members: Map::new(),
    }
}

fn parse<T: for<'de> Deserialize<'de> + Default>(body: &Bytes) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(body).map_err(|err| ApiError::BadRequest {
        code: "invalid_body",
        detail: format!("The request body is not valid: {err}"),
    })
}

fn not_stored(refused: NotStored) -> ApiError {
    match refused {
        NotStored::Unavailable => unavailable(),
        NotStored::Refused(Refused::NoCanary) => ApiError::Refused {
            status: StatusCode::CONFLICT,
            code: "no_canary",
            detail: "No canary is pending: there is nothing to promote.".to_owned(),
            errors: None,
            members: Map::new(),
        },
        NotStored::Refused(Refused::UnknownVersion(version)) => invalid(BTreeMap::from([(
            "to".to_owned(),
            format!("version {version} is not in the kept history"),
        )])),
    }
}

/// `GET /admin/config/overrides`.
pub async fn overview(State(state): State<SharedState>) -> Result<Response, ApiError> {
    let store = state.overrides.store();
    let (Ok(current), Ok(history)) = (store.state().await, store.history().await) else {
        return Err(unavailable());
    };
    let layered = state.running_config.current().layered.cache.clone();
    let fleet = &current.current;
    let live = fleet.live_layer(unix_ms());
    Ok(Json(serde_json::json!({
        "version": fleet.version,
        "storage": store.storage(),
        "layer": live.to_json(),
        "expiresAt": fleet.expires_at_ms().map(rfc3339),
        "canary": current.canary.as_ref().map(|canary| CanaryView {
            replica: canary.replica.clone(),
            version: canary.version.version,
            layer: canary.version.layer.to_json(),
            expires_at: canary.version.expires_at_ms().map(rfc3339),
        }),
        "history": history.iter().map(VersionView::of).collect::<Vec<_>>(),
        "drift": live.drift(&layered),
        "bound": store.bound(),
        "convergenceMs": duration::millis(state.overrides.convergence()),
        "appliedHere": state.overrides.applied_version(),
        "replica": state.overrides.replica(),
        "note": storage_note(store.storage(), &state),
    }))
    .into_response())
}

/// Plain words on where the overrides live.
fn storage_note(storage: Storage, state: &SharedState) -> String {
    match storage {
        Storage::Redis => format!(
            "Kept in the coordination tier: every replica, a restarted one included, runs them \
             within {} (the convergence bound).",
            duration::format(state.overrides.convergence())
        ),
        Storage::Process => "No Redis is configured: overrides live in this process only and \
                             are lost on restart."
            .to_owned(),
    }
}

/// `POST /admin/config/overrides`.
pub async fn change(
    State(state): State<SharedState>,
    Extension(caller): Extension<AdminIdentity>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request: ChangeRequest = parse(&body)?;
    let change = checked_change(&state, &request).await?;
    let now = unix_ms();
    if request.dry_run {
        let current = state
            .overrides
            .store()
            .state()
            .await
            .map_err(|_| unavailable())?;
        let made = current.set(&change, &caller.name, now);
        let made_layer = &made_version(&made).layer;
        return Ok(answer(
            &state,
            None,
            true,
            &change.canary,
            &current.current.layer,
            made_layer,
        ));
    }
    let before = state.overrides.store().state().await.ok();
    let stored = state
        .overrides
        .store()
        .change(|current, _| Ok(Some(current.set(&change, &caller.name, now))))
        .await
        .map_err(not_stored)?;
    settled(&state, before, stored, change.canary).await
}

/// `POST /admin/config/overrides/promote`.
pub async fn promote(
    State(state): State<SharedState>,
    Extension(caller): Extension<AdminIdentity>,
) -> Result<Response, ApiError> {
    let now = unix_ms();
    let before = state.overrides.store().state().await.ok();
    let stored = state
        .overrides
        .store()
        .change(|current, _| current.promote(&caller.name, now).map(Some))
        .await
        .map_err(not_stored)?;
    settled(&state, before, stored, None).await
}

/// `POST /admin/config/overrides/rollback`.
pub async fn rollback(
    State(state): State<SharedState>,
    Extension(caller): Extension<AdminIdentity>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let request: RollbackRequest = parse(&body)?;
    let now = unix_ms();
    let before = state.overrides.store().state().await.ok();
    let stored = state
        .overrides
        .store()
        .change(|current, history| {
            current
                .rollback(request.to, history, &caller.name, now)
                .map(Some)
        })
        .await
        .map_err(not_stored)?;
    settled(&state, before, stored, None).await
}

/// `GET /admin/config/overrides/diff?version=N`.
pub async fn diff_to(
    State(state): State<SharedState>,
    query: Result<Query<DiffQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|_| ApiError::BadRequest {
        code: "invalid_version",
        detail: "version: a version number (e.g. ?version=2)".to_owned(),
    })?;
    let store = state.overrides.store();
    let (Ok(current), Ok(history)) = (store.state().await, store.history().await) else {
        return Err(unavailable());
    };
    let empty = Version::empty();
    let from = if query.version == 0 {
        Some(&empty)
    } else if query.version == current.current.version {
        Some(&current.current)
    } else {
        history
            .iter()
            .chain(current.canary.as_ref().map(|canary| &canary.version))
            .find(|version| version.version == query.version)
    };
    let Some(from) = from else {
        return Err(invalid(BTreeMap::from([(
            "version".to_owned(),
            format!("version {} is not in the kept history", query.version),
        )])));
    };
    let changes = diff(&from.layer, &current.current.layer);
    Ok(Json(serde_json::json!({
        "from": from.version,
        "to": current.current.version,
        "routes": routes_of(&changes),
        "diff": changes,
    }))
    .into_response())
}

/// `GET /admin/config/overrides/export`: `text/plain`, a TOML patch of the fleet's layer.
pub async fn export(State(state): State<SharedState>) -> Result<Response, ApiError> {
    let current = state
        .overrides
        .store()
        .state()
        .await
        .map_err(|_| unavailable())?;
    let fleet = &current.current;
    let layer = fleet.live_layer(unix_ms());
    let mut text = format!(
        "# Live overrides, version {}: commit into the configuration file, then unset them\n\
         # (`bff admin config set` ... `--unset`), so the file is the record again.\n",
        fleet.version
    );
    if !layer.is_empty() {
        text.push_str(&layer.to_toml_patch());
    }
    Ok((
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        )],
        text,
    )
        .into_response())
}

/// The change `request` asks for, every key and value checked: a 422 naming each bad one.
async fn checked_change(state: &SharedState, request: &ChangeRequest) -> Result<Change, ApiError> {
    let mut errors = BTreeMap::new();
    let mut set = OverrideLayer::default();
    for (key, value) in &request.set {
        if let Err(why) = set.insert(key, value) {
            errors.insert(key.clone(), why);
        }
    }
    for key in &request.unset {
        if let Err(why) = crate::config::overrides::layer::OverrideKey::parse(key) {
            errors.insert(key.clone(), why);
        }
    }
    if request.set.is_empty() && request.unset.is_empty() {
        errors.insert(
            "set".to_owned(),
            "give at least one key to set or unset".to_owned(),
        );
    }
    let expires_in_ms = match &request.expires_in {
        None => None,
        Some(text) => match duration::parse(text) {
            Ok(expires) if !expires.is_zero() => Some(duration::millis(expires)),
            Ok(_) => {
                errors.insert("expiresIn".to_owned(), "must be more than 0".to_owned());
                None
            }
            Err(why) => {
                errors.insert("expiresIn".to_owned(), why);
                None
            }
        },
    };
    let canary = match &request.canary {
        None => None,
        Some(named) => match canary_replica(state, named).await {
            Some(id) => Some(id),
            None => {
                errors.insert(
                    "canary".to_owned(),
                    format!("{named:?} is no live replica (see GET /admin/fleet: an id or pod)"),
                );
                None
            }
        },
    };
    if !errors.is_empty() {
        return Err(invalid(errors));
    }
    Ok(Change {
        set,
        unset: request.unset.clone(),
        expires_in_ms,
        canary,
    })
}

/// The id of the live replica `named` (its id or pod name): this one, or one whose heartbeat
/// is fresh.
async fn canary_replica(state: &SharedState, named: &str) -> Option<String> {
    let named = named.trim();
    let this = state.fleet.identity();
    if this.id == named || this.pod.as_deref() == Some(named) {
        return Some(this.id.clone());
    }
    let view = state.fleet.view(Default::default()).await;
    view.replicas
        .into_iter()
        .filter(|member| !member.silent)
        .find(|member| {
            member.heartbeat.id == named || member.heartbeat.pod.as_deref() == Some(named)
        })
        .map(|member| member.heartbeat.id)
}

/// The version a transition made: the canary's, else the fleet's.
fn made_version(made: &Transition) -> &Version {
    made.state
        .canary
        .as_ref()
        .filter(|_| made.fleet_version.is_none())
        .map_or(&made.state.current, |canary| &canary.version)
}

/// After a stored change: announced to the fleet, applied here at once, answered.
async fn settled(
    state: &SharedState,
    before: Option<OverrideState>,
    stored: Option<OverrideState>,
    canary: Option<String>,
) -> Result<Response, ApiError> {
    let Some(stored) = stored else {
        return Err(unavailable());
    };
    state.overrides.announce().await;
    state.overrides.sync().await;
    let before = before.unwrap_or_default();
    let (version, layer) = match (&canary, &stored.canary) {
        (Some(_), Some(pending)) => (&pending.version, &pending.version.layer),
        _ => (&stored.current, &stored.current.layer),
    };
    let response = answer(
        state,
        Some(version.version),
        false,
        &canary,
        &before.current.layer,
        layer,
    );
    tracing::info!(version = version.version, canary = ?canary, "live overrides changed");
    Ok(response)
}

fn answer(
    state: &SharedState,
    version: Option<u64>,
    dry_run: bool,
    canary: &Option<String>,
    from: &OverrideLayer,
    to: &OverrideLayer,
) -> Response {
    let storage = state.overrides.store().storage();
    let changes = diff(from, to);
    let mut note = storage_note(storage, state);
    if let Some(replica) = canary {
        note = format!(
            "{note} A canary: it runs on replica {replica} only until \
             POST /admin/config/overrides/promote."
        );
    }
    if dry_run {
        note = format!("A dry run: nothing changed. {note}");
    }
    Json(ChangeAnswer {
        version,
        dry_run,
        canary: canary.clone(),
        storage,
        routes: routes_of(&changes),
        diff: changes,
        note,
    })
    .into_response()
}
