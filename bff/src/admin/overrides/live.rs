//! This replica's side of the overrides: it reads the version it runs (the canary when it is
//! the canary's replica, else the fleet's) and hands it to the running parts whenever it
//! changes. It reads on start, on every message of the change channel (in milliseconds), on
//! joining that channel again (messages may have been missed), and every
//! `admin.override_convergence` whatever happens: so a replica that missed a message, or whose
//! Redis connection was down, runs the fleet's version within that bound once Redis answers.
//! The same tick drops keys past their expiry (and writes the `expire` version: whichever
//! replica comes first, the others find it written).

use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use super::store::OverrideStore;
pub use crate::config::overrides::versions::Applied;
use crate::config::overrides::versions::OverrideState;
use crate::coordination::replicas::unix_ms;

/// Hands a version to the running parts (the configuration in force, the caches, the fleet).
pub type Apply = Arc<dyn Fn(&Applied) + Send + Sync>;

pub struct LiveOverrides {
    store: OverrideStore,
    /// This replica's id.
    replica: String,
    convergence: Duration,
    /// What runs here (`None` before the first read). A std mutex: never held across an await.
    applied: Mutex<Option<Applied>>,
    /// Set once the application state exists (it owns this value).
    apply: OnceLock<Apply>,
    /// One read-and-apply at a time (the tick, the channel and an admin call may all ask at
    /// once): else an older read could be applied after a newer one. Async: held across the
    /// reads from Redis.
    syncing: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for LiveOverrides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveOverrides")
            .field("storage", &self.store.storage())
            .field("replica", &self.replica)
            .field("applied", &self.applied_version())
            .finish_non_exhaustive()
    }
}

/// The longest a subscription attempt may take before the tick goes on without it.
const SUBSCRIBE_TIMEOUT: Duration = Duration::from_secs(2);

impl LiveOverrides {
    pub fn new(store: OverrideStore, replica: String, convergence: Duration) -> Self {
        Self {
            store,
            replica,
            convergence,
            applied: Mutex::new(None),
            apply: OnceLock::new(),
            syncing: tokio::sync::Mutex::new(()),
        }
    }

    pub fn store(&self) -> &OverrideStore {
        &self.store
    }

    pub fn replica(&self) -> &str {
        &self.replica
    }

    pub fn convergence(&self) -> Duration {
        self.convergence
    }

    /// Where the running parts get each new version; set once.
    pub fn set_apply(&self, apply: Apply) {
        let _ = self.apply.set(apply);
    }

    pub fn applied_version(&self) -> Option<u64> {
        self.lock().as_ref().map(|applied| applied.version)
    }

    /// Reads the stored state, writes the `expire` version when a key is past its expiry, and
    /// applies this replica's version when it is not what runs. `None` when Redis did not
    /// answer (what runs stays).
    pub async fn sync(&self) -> Option<OverrideState> {
        let _one_at_a_time = self.syncing.lock().await;
        let mut state = self.store.state().await.ok()?;
        let now = unix_ms();
        if state.expire(now).is_some() {
            match self.store.change(|stored, _| Ok(stored.expire(now))).await {
                Ok(Some(expired)) => {
                    tracing::info!(
                        version = expired.current.version,
                        "overrides past their expiry dropped"
                    );
                    state = expired;
                    self.announce().await;
                }
                // Another replica wrote it first.
                Ok(None) => state = self.store.state().await.ok()?,
                // Enforced here anyway (the live layer leaves expired keys out).
                Err(_) => {}
            }
        }
        let version = state.for_replica(&self.replica);
        let wanted = Applied {
            version: version.version,
            layer: version.live_layer(now),
        };
        let changed = {
            let mut applied = self.lock();
            let changed = applied.as_ref() != Some(&wanted);
            if changed {
                *applied = Some(wanted.clone());
            }
            changed
        };
        if changed {
            if let Some(apply) = self.apply.get() {
                apply(&wanted);
            }
            tracing::info!(version = wanted.version, keys = ?wanted.layer.keys().collect::<Vec<_>>(), "live overrides applied");
        }
        Some(state)
    }

    /// Tells the other replicas that the overrides changed (best effort: they read again
    /// within the convergence bound anyway).
    pub async fn announce(&self) {
        let Some((redis, channel)) = self.store.channel() else {
            return;
        };
        let version = self
            .store
            .state()
            .await
            .map_or(0, |state| state.current.version);
        let _ = redis
            .query::<i64>(
                "overrides_publish",
                redis::cmd("PUBLISH").arg(channel).arg(version),
            )
            .await;
    }

    /// Keeps this replica on its version until `stop` (see the module's documentation).
    pub fn spawn(self: &Arc<Self>, stop: CancellationToken) {
        let live = self.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(live.convergence);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                let subscribed = match live.store.channel() {
                    Some(_) => live.subscribe().await,
                    None => None,
                };
                let Some(pubsub) = subscribed else {
                    tokio::select! {
                        () = stop.cancelled() => return,
                        _ = ticks.tick() => live.sync().await,
                    };
                    continue;
                };
                // Joined (again): what was announced meanwhile was missed.
                live.sync().await;
                let mut messages = pubsub.into_on_message();
                loop {
                    tokio::select! {
                        () = stop.cancelled() => return,
                        _ = ticks.tick() => { live.sync().await; }
                        message = messages.next() => match message {
                            Some(_) => { live.sync().await; }
                            None => break,
                        },
                    }
                }
                tracing::warn!("override channel lost; reading on the tick until it is back");
            }
        });
    }

    async fn subscribe(&self) -> Option<redis::aio::PubSub> {
        let (redis, channel) = self.store.channel()?;
        for client in redis.subscriber_clients().await {
            let attempt = async {
                let mut pubsub = client.get_async_pubsub().await?;
                pubsub.subscribe(channel).await?;
                Ok::<_, redis::RedisError>(pubsub)
            };
            if let Ok(Ok(pubsub)) = tokio::time::timeout(SUBSCRIBE_TIMEOUT, attempt).await {
                return Some(pubsub);
            }
        }
        None
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Applied>> {
        self.applied.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
