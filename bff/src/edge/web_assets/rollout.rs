//! The rollout window: how long after a build first started the previous releases' hashed
//! assets are still served (see `web.previous_assets_window`).
//!
//! With Redis every replica of a build shares one start, the first replica's, and one closing
//! flag; the shared state is read again at most once a second while the window is open (in
//! the background, and when a previous release's asset is asked for). Without Redis, or while
//! it does not answer, a replica counts from its own start and closes on its own.
//!
//! Both values carry a MAC bound to their key ([`SharedTierMac`]): a start or a closing flag
//! this fleet did not write is ignored (and counted). A window this process has seen closed
//! stays closed, whatever Redis says later: deleting the flag, or its eviction, reopens nothing
//! on a replica that was running when it closed (each reads the flag within a second).

use std::sync::{Mutex, Weak};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::config::duration::millis;
use crate::coordination::replicas::{Redis, unix_ms};
use crate::coordination::shared_tier_mac::{SharedTierMac, SignedKind};

/// How long the shared start and closing flag are reused before Redis is asked again.
const REFRESH: Duration = Duration::from_secs(1);
/// How long Redis keeps a build's start and closing flag past the window (the keys of builds
/// long gone expire).
const KEEP_PAST_WINDOW: Duration = Duration::from_secs(7 * 24 * 3600);
/// What the closing flag's MAC covers beside its key.
const CLOSED: &[u8] = b"closed";

#[derive(Debug)]
pub struct RolloutWindow {
    length: Duration,
    /// `None` when the web app is not built: nothing to share a window for.
    build_id: Option<String>,
    /// Where the start and the closing flag are shared, and the MAC they carry there.
    redis: Option<(Redis, SharedTierMac)>,
    /// This replica's start, in Unix milliseconds.
    own_start_ms: u64,
    state: Mutex<State>,
}

#[derive(Debug, Clone, Copy)]
struct State {
    start_ms: u64,
    closed: bool,
    /// When Redis last answered for this window; `None` until it has.
    refreshed: Option<Instant>,
}

/// What `GET /admin/web/rollout` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub build_id: Option<String>,
    pub window_seconds: u64,
    /// When the window started (Unix milliseconds): this build's first start.
    pub started_at_ms: u64,
    pub closed: bool,
    pub open: bool,
    /// Whether the start and the closing are shared through Redis (else this replica's own).
    pub shared: bool,
}

impl RolloutWindow {
    pub fn new(
        length: Duration,
        build_id: Option<String>,
        redis: Option<(Redis, SharedTierMac)>,
    ) -> Self {
        let own_start_ms = unix_ms();
        Self {
            length,
            build_id,
            redis,
            own_start_ms,
            state: Mutex::new(State {
                start_ms: own_start_ms,
                closed: length.is_zero(),
                refreshed: None,
            }),
        }
    }

    /// Records this build's first start in Redis (unless another replica already has), so the
    /// window counts from the rollout's beginning, then reads the shared state every
    /// second until the window closes or ends, so this replica sees a close made on another
    /// within a second (and keeps it closed, whatever Redis says later). Called once at
    /// start-up, in a task of its own; ends when `window` is dropped.
    pub async fn follow(window: Weak<Self>) {
        loop {
            let Some(this) = window.upgrade() else {
                return;
            };
            if this.length.is_zero() || this.redis.is_none() || !this.is_open_now() {
                return;
            }
            this.refresh().await;
            drop(this);
            tokio::time::sleep(REFRESH).await;
        }
    }

    /// Whether the previous releases' assets are still served.
    pub async fn is_open(&self) -> bool {
        if self.length.is_zero() {
            return false;
        }
        let stale = self
            .current()
            .refreshed
            .is_none_or(|at| at.elapsed() >= REFRESH);
        if stale {
            self.refresh().await;
        }
        self.is_open_now()
    }

    /// Whether the window is open as this process knows it now, without asking Redis.
    fn is_open_now(&self) -> bool {
        let state = self.current();
        !state.closed && unix_ms() < state.start_ms.saturating_add(millis(self.length))
    }

    /// Closes the window now, for every replica of this build when Redis answers.
    pub async fn close(&self) -> Report {
        self.lock().closed = true;
        if let (Some((redis, mac)), Some(key)) = (&self.redis, self.key("closed")) {
            let ttl = self.redis_ttl_seconds();
            let set = redis::cmd("SET")
                .arg(&key)
                .arg(mac.sign(&key, &[CLOSED]))
                .arg("EX")
                .arg(ttl)
                .clone();
            if redis
                .query_replicated::<()>("web_rollout_close", &set)
                .await
                .is_err()
            {
                tracing::warn!("rollout window closed on this replica only: Redis did not answer");
            }
        }
        tracing::info!(build_id = ?self.build_id, "rollout window closed: previous assets answer 404");
        self.report().await
    }

    pub async fn report(&self) -> Report {
        let open = self.is_open().await;
        let state = self.current();
        Report {
            build_id: self.build_id.clone(),
            window_seconds: self.length.as_secs(),
            started_at_ms: state.start_ms,
            closed: state.closed,
            open,
            shared: state.refreshed.is_some(),
        }
    }

    /// Reads the shared start (recording ours when there is none) and the closing flag. A
    /// value whose MAC fails is ignored (this replica's own start; not closed by it).
    async fn refresh(&self) {
        let (Some((redis, mac)), Some(start_key), Some(closed_key)) =
            (&self.redis, self.key("start"), self.key("closed"))
        else {
            return;
        };
        // SET NX GET: records our start when this build has none yet, and answers the one
        // already there otherwise, in one round trip. Stored as `<ms>.<mac>`.
        let own_start = self.own_start_ms.to_string();
        let signed_start = format!(
            "{own_start}.{}",
            mac.sign(&start_key, &[own_start.as_bytes()])
        );
        let set = redis::cmd("SET")
            .arg(&start_key)
            .arg(&signed_start)
            .arg("NX")
            .arg("GET")
            .arg("EX")
            .arg(self.redis_ttl_seconds())
            .clone();
        let Ok(earlier) = redis
            .query::<Option<String>>("web_rollout_start", &set)
            .await
        else {
            return;
        };
        let get = redis::cmd("GET").arg(&closed_key).clone();
        let Ok(closed) = redis
            .query::<Option<String>>("web_rollout_closed", &get)
            .await
        else {
            return;
        };
        let earlier = earlier.and_then(|value| {
            let (start, signature) = value.split_once('.').unwrap_or((&value, ""));
            let valid = mac.check(
                SignedKind::Rollout,
                &start_key,
                &[start.as_bytes()],
                Some(signature.as_bytes()),
            );
            valid.then(|| start.parse::<u64>().ok()).flatten()
        });
        let closed = closed.is_some_and(|flag| {
            mac.check(
                SignedKind::Rollout,
                &closed_key,
                &[CLOSED],
                Some(flag.as_bytes()),
            )
        });
        let mut state = self.lock();
        state.start_ms = earlier.unwrap_or(self.own_start_ms);
        // once closed, closed for good in this process
        state.closed = state.closed || closed;
        state.refreshed = Some(Instant::now());
    }

    fn key(&self, what: &str) -> Option<String> {
        let (redis, _) = self.redis.as_ref()?;
        let build_id = self.build_id.as_deref()?;
        Some(redis.key(&["web", "rollout", build_id, what]))
    }

    fn redis_ttl_seconds(&self) -> u64 {
        (self.length + KEEP_PAST_WINDOW).as_secs()
    }

    fn current(&self) -> State {
        *self.lock()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // the state is plain data: a panic elsewhere cannot leave it half-written
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::RolloutWindow;

    #[tokio::test]
    async fn without_redis_the_window_counts_from_this_replica_and_closes_on_call() {
        let window = RolloutWindow::new(Duration::from_secs(60), Some("b".to_owned()), None);
        assert!(window.is_open().await);
        let report = window.close().await;
        assert!(report.closed && !report.open && !report.shared);
        assert!(!window.is_open().await);
    }

    #[tokio::test]
    async fn a_zero_window_is_never_open() {
        let window = RolloutWindow::new(Duration::ZERO, Some("b".to_owned()), None);
        assert!(!window.is_open().await);
    }

    #[tokio::test]
    async fn the_window_ends_after_its_length() {
        let window = RolloutWindow::new(Duration::from_millis(50), None, None);
        assert!(window.is_open().await);
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert!(!window.is_open().await);
    }
}
