//! The signed-in user's tokens: the upstream's auth answer as tokens, and their refresh, once
//! per refresh token even under concurrent requests (single flight). When to refresh, and
//! what a refusal does to the session, is the commerce `Shopper`'s business.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use tracing::Instrument;

use super::model::UserTokens;
use crate::request_id::RequestId;
use crate::upstream::{Call, Upstream, UpstreamError, UpstreamPath};

/// How long a rotation is remembered: requests still carrying the previous cookie (sent before
/// the new one arrived) get the new tokens instead of spending a dead refresh token.
const ROTATION_MEMORY: Duration = Duration::from_secs(60);

/// The upstream's auth answer (login, register, refresh).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthResponse {
    pub access_token: String,
    pub refresh_token: String,
    #[serde(default = "bearer")]
    pub token_type: String,
    /// Seconds until the access token expires.
    pub expires_in: i64,
}

fn bearer() -> String {
    "Bearer".to_owned()
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl AuthResponse {
    /// The session's tokens from this answer, keeping the user's name and e-mail.
    pub fn into_tokens(self, previous: Option<&UserTokens>) -> UserTokens {
        let issued_at_ms = now_ms();
        UserTokens {
            access_token: self.access_token,
            refresh_token: self.refresh_token,
            token_type: self.token_type,
            expires_at: issued_at_ms / 1000 + self.expires_in,
            issued_at_ms,
            first_name: previous.map(|p| p.first_name.clone()).unwrap_or_default(),
            last_name: previous.map(|p| p.last_name.clone()).unwrap_or_default(),
            email: previous.map(|p| p.email.clone()).unwrap_or_default(),
        }
    }
}

#[derive(Debug, Clone)]
pub enum RefreshFailure {
    /// The upstream refused the refresh token: the session is over.
    Refused,
    /// The upstream could not be asked: the session stays, this request fails.
    Unavailable(UpstreamError),
}

type SharedRefresh = Shared<BoxFuture<'static, Result<UserTokens, RefreshFailure>>>;

/// Refreshes in flight and recent rotations, keyed by a hash of the refresh token they spend.
pub struct Refresher {
    /// A std `Mutex`: only held to look up or register a refresh, never across an await.
    inflight: Mutex<HashMap<String, SharedRefresh>>,
    rotated: moka::sync::Cache<String, UserTokens>,
}

impl std::fmt::Debug for Refresher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Refresher")
    }
}

impl Default for Refresher {
    fn default() -> Self {
        Self {
            inflight: Mutex::new(HashMap::new()),
            rotated: moka::sync::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(ROTATION_MEMORY)
                .build(),
        }
    }
}

fn key_of(refresh_token: &str) -> String {
    hex::encode(Sha256::digest(refresh_token.as_bytes()))
}

impl Refresher {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, SharedRefresh>> {
        self.inflight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// New tokens for `current`: the rotation already done for its refresh token, the one in
    /// flight, or a new one (run in its own task, so a cancelled request cannot strand the
    /// others).
    pub async fn refresh(
        self: &Arc<Self>,
        commerce: &Upstream,
        current: &UserTokens,
        request_id: &RequestId,
        metrics: &Arc<crate::metrics::Metrics>,
    ) -> Result<UserTokens, RefreshFailure> {
        let key = key_of(&current.refresh_token);
        if let Some(tokens) = self.rotated.get(&key) {
            return Ok(tokens);
        }
        let shared = {
            let mut inflight = self.lock();
            if let Some(shared) = inflight.get(&key) {
                shared.clone()
            } else {
                let this = self.clone();
                let commerce = commerce.clone();
                let current = current.clone();
                let request_id = request_id.clone();
                let metrics = metrics.clone();
                let task_key = key.clone();
                let task = tokio::spawn(
                    async move {
                        let result = call_refresh(&commerce, &current, &request_id).await;
                        match &result {
                            Ok(tokens) => {
                                this.rotated.insert(task_key.clone(), tokens.clone());
                                metrics
                                    .count_session_event(crate::metrics::SessionEvent::RefreshOk);
                            }
                            Err(_) => metrics
                                .count_session_event(crate::metrics::SessionEvent::RefreshFailed),
                        }
                        this.lock().remove(&task_key);
                        result
                    }
                    .instrument(tracing::info_span!("session.refresh")),
                );
                let shared: SharedRefresh = async move {
                    task.await.unwrap_or_else(|err| {
                        Err(RefreshFailure::Unavailable(UpstreamError::Decode {
                            upstream: "commerce",
                            reason: format!("refresh task failed: {err}"),
                        }))
                    })
                }
                .boxed()
                .shared();
                inflight.insert(key, shared.clone());
                shared
            }
        };
        shared.await
    }
}

async fn call_refresh(
    commerce: &Upstream,
    current: &UserTokens,
    request_id: &RequestId,
) -> Result<UserTokens, RefreshFailure> {
    let path = UpstreamPath::fixed("Auth/refresh-token");
    let body = json!({"refreshToken": current.refresh_token});
    match commerce
        .call_json(Call::post(&path, &body), request_id)
        .await
    {
        Ok(value) => serde_json::from_value::<AuthResponse>(value)
            .map(|auth| auth.into_tokens(Some(current)))
            .map_err(|err| {
                RefreshFailure::Unavailable(UpstreamError::Decode {
                    upstream: "commerce",
                    reason: err.to_string(),
                })
            }),
        Err(UpstreamError::Status { status, .. }) if status.is_client_error() => {
            Err(RefreshFailure::Refused)
        }
        Err(err) => Err(RefreshFailure::Unavailable(err)),
    }
}
