//! The signed-in user's tokens: the upstream's auth answer as tokens, and their refresh, once
//! per refresh token even under concurrent requests (single flight), and, with Redis, once
//! across all replicas (see [`super::refresh_lease`]). When to refresh, and what a refusal does
//! to the session, is the commerce `Shopper`'s business.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use secrecy::SecretString;
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::model::{RefreshFailure, UserTokens};
use super::refresh_lease::{LeaseTiming, RedisLeases};
use crate::config::ConfigError;
use crate::coordination::replicas::Redis;
use crate::coordination::single_flight::{Outcome, SingleFlight};
use crate::http::request_id::RequestId;
use crate::observe::metrics::SessionEvent;
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
            // The upstream just issued these: the session is alive now.
            confirmed_at_ms: issued_at_ms,
        }
    }
}

/// Refreshes in flight and recent rotations, keyed by a hash of the refresh token they spend.
///
/// With Redis, the rotation memory and the single flight stay in front: a request first looks
/// for a rotation this replica already knows, then joins this replica's refresh in flight, and
/// only the run's leader asks Redis for the lease or another replica's successor. So Redis sees
/// one claim per replica and token, and with Redis down everything works as with one replica.
#[derive(Debug)]
pub struct Refresher {
    inflight: SingleFlight<String, Result<UserTokens, RefreshFailure>>,
    rotated: moka::sync::Cache<String, UserTokens>,
    /// The lease and successors shared by the replicas; `None` without Redis.
    across_replicas: Option<Arc<RedisLeases>>,
}

impl Default for Refresher {
    fn default() -> Self {
        Self {
            inflight: SingleFlight::default(),
            rotated: moka::sync::Cache::builder()
                .max_capacity(100_000)
                .time_to_live(ROTATION_MEMORY)
                .build(),
            across_replicas: None,
        }
    }
}

fn key_of(refresh_token: &str) -> String {
    hex::encode(Sha256::digest(refresh_token.as_bytes()))
}

impl Refresher {
    /// A refresher for this replica alone without `redis`; with it, for all replicas sharing it
    /// (successors are sealed with keys derived from `session_keys`, which they all have).
    pub fn new(
        redis: Option<Redis>,
        session_keys: &[SecretString],
        timing: LeaseTiming,
    ) -> Result<Self, ConfigError> {
        let across_replicas = redis
            .map(|redis| RedisLeases::new(redis, session_keys, timing).map(Arc::new))
            .transpose()?;
        Ok(Self {
            across_replicas,
            ..Self::default()
        })
    }

    /// New tokens for `current`: the rotation already done for its refresh token, the one in
    /// flight, or a new one (run in its own task, so a cancelled request cannot strand the
    /// others, and a panicking one cannot strand the key).
    pub async fn refresh(
        &self,
        commerce: &Upstream,
        current: &UserTokens,
        request_id: &RequestId,
        metrics: &Arc<crate::observe::metrics::Metrics>,
    ) -> Result<UserTokens, RefreshFailure> {
        let (commerce, tokens, request_id) =
            (commerce.clone(), current.clone(), request_id.clone());
        let across_replicas = self.across_replicas.clone();
        let work = async move {
            let spend = call_refresh(&commerce, &tokens, &request_id);
            match across_replicas {
                Some(leases) => {
                    leases
                        .refresh_once(&key_of(&tokens.refresh_token), spend)
                        .await
                }
                None => spend.await,
            }
        };
        self.refresh_with(current, work, metrics.clone()).await
    }

    /// `refresh` with the upstream call given: the single flight and the rotation memory.
    async fn refresh_with<F>(
        &self,
        current: &UserTokens,
        work: F,
        metrics: Arc<crate::observe::metrics::Metrics>,
    ) -> Result<UserTokens, RefreshFailure>
    where
        F: Future<Output = Result<UserTokens, RefreshFailure>> + Send + 'static,
    {
        let key = key_of(&current.refresh_token);
        let flight = {
            let mut runs = self.inflight.lock();
            // The rotation memory is read under the runs' lock: a run settles (keeps its
            // rotation) under it before releasing its key, so a request can never fall between
            // "remembered" and "in flight", start a second run and spend a dead token.
            if let Some(tokens) = self.rotated.get(&key) {
                return Ok(tokens);
            }
            match runs.get(&key) {
                Some((flight, ())) => flight,
                None => {
                    let rotated = self.rotated.clone();
                    let settled_key = key.clone();
                    // The run's span: its upstream call is a child of it, and a failed
                    // refresh marks it an error.
                    let span = tracing::info_span!(
                        "session.refresh",
                        otel.status_code = tracing::field::Empty,
                    );
                    let _entered = span.enter();
                    let settled_span = span.clone();
                    // Counted once per run, however many requests wait on it.
                    runs.start(key, (), work, move |result| match result {
                        Ok(tokens) => {
                            rotated.insert(settled_key, tokens.clone());
                            metrics.count_session_event(SessionEvent::RefreshOk);
                        }
                        Err(_) => {
                            settled_span.record("otel.status_code", "error");
                            metrics.count_session_event(SessionEvent::RefreshFailed);
                        }
                    })
                }
            }
        };
        match flight.await {
            Outcome::Completed(result) => result,
            Outcome::Panicked | Outcome::Cancelled => {
                Err(RefreshFailure::Unavailable(UpstreamError::Decode {
                    upstream: "commerce",
                    reason: "the refresh did not finish".to_owned(),
                }))
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::metrics::Metrics;

    fn tokens(refresh_token: &str) -> UserTokens {
        UserTokens::for_test(refresh_token)
    }

    #[tokio::test]
    async fn a_refresh_whose_leader_panics_releases_its_key() {
        let refresher = Refresher::default();
        let metrics = Arc::new(Metrics::new());
        let current = tokens("r1");
        let panicked = refresher
            .refresh_with(
                &current,
                async { panic!("the refresh call blew up") },
                metrics.clone(),
            )
            .await;
        assert!(matches!(panicked, Err(RefreshFailure::Unavailable(_))));
        assert!(refresher.inflight.is_empty(), "the key is released");
        // The next request of the session refreshes for real.
        let next = refresher
            .refresh_with(&current, async { Ok(tokens("r2")) }, metrics.clone())
            .await;
        assert_eq!(next.map(|t| t.refresh_token).ok().as_deref(), Some("r2"));
        // And a request still carrying the spent token gets the rotation, with no new run.
        let again = refresher
            .refresh_with(
                &current,
                async { panic!("must not run: the rotation is remembered") },
                metrics,
            )
            .await;
        assert_eq!(again.map(|t| t.refresh_token).ok().as_deref(), Some("r2"));
    }

    #[tokio::test]
    async fn concurrent_refreshes_of_one_token_make_one_call() {
        let refresher = Arc::new(Refresher::default());
        let metrics = Arc::new(Metrics::new());
        let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut waiting = Vec::new();
        for _ in 0..5 {
            let (refresher, metrics, calls) = (refresher.clone(), metrics.clone(), calls.clone());
            waiting.push(tokio::spawn(async move {
                let work = async move {
                    calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    Ok(tokens("r2"))
                };
                refresher.refresh_with(&tokens("r1"), work, metrics).await
            }));
        }
        for handle in waiting {
            assert!(handle.await.unwrap().is_ok());
        }
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(
            metrics
                .render()
                .contains("bff_session_events_total{event=\"refresh_ok\"} 1\n"),
            "counted once per run"
        );
    }
}
