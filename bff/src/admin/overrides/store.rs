//! Where the override versions are kept: in the coordination tier when Redis is configured (so
//! every replica, a restarted or new one included, reads them), else in this process (lost on
//! restart, and every answer says so).
//!
//! Redis keys (both with the hash tag `{overrides}` on a cluster, so one script writes both):
//! `config:overrides`, the state (the fleet's version and the pending canary, JSON), and
//! `config:overrides:history`, the fleet's versions newest first, at most `admin.override_versions`
//! (`LPUSH` + `LTRIM`). A change is a compare-and-set of the state's text: two operators changing
//! at once never lose one change under the other; the loser reads again and retries. After a
//! change, `config:overrides` (the channel) carries its version, so the replicas read it at once.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde::Serialize;

use crate::config::overrides::versions::{OverrideState, Refused, Transition, Version};
use crate::coordination::replicas::{Redis, Unavailable};

/// Where the overrides live, as the answers name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Storage {
    /// The coordination tier: shared by the fleet, kept across restarts.
    Redis,
    /// This process only: lost on restart.
    Process,
}

/// Why a change was not stored.
#[derive(Debug)]
pub enum NotStored {
    Refused(Refused),
    /// Redis did not answer (or kept losing the compare-and-set): nothing changed.
    Unavailable,
}

/// Writes the new state when the stored one is still `ARGV[1]` ('' when none), and pushes
/// `ARGV[3]` (when not empty) onto the history, trimmed to `ARGV[4]` versions.
const COMPARE_AND_SET: &str = r"
local stored = redis.call('GET', KEYS[1]) or ''
if stored ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
if ARGV[3] ~= '' then
  redis.call('LPUSH', KEYS[2], ARGV[3])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[4]) - 1)
end
return 1
";

/// How often a change is tried again after losing the compare-and-set to another.
const ATTEMPTS: usize = 5;

#[derive(Debug)]
pub struct OverrideStore {
    redis: Option<Redis>,
    state_key: String,
    history_key: String,
    channel: String,
    /// How many fleet versions the history keeps.
    bound: usize,
    compare_and_set: redis::Script,
    /// Without Redis: the state and the history (newest first). A std mutex: held for a copy
    /// or a write, never across an await.
    local: Mutex<(OverrideState, VecDeque<Version>)>,
}

impl OverrideStore {
    pub fn new(redis: Option<Redis>, bound: usize) -> Self {
        let key = |parts: &[&str]| {
            redis
                .as_ref()
                .map_or_else(String::new, |redis| redis.tagged_key(parts, 1))
        };
        Self {
            state_key: key(&["config", "overrides"]),
            history_key: key(&["config", "overrides", "history"]),
            channel: redis.as_ref().map_or_else(String::new, |redis| {
                redis.key(&["config", "overrides", "changed"])
            }),
            redis,
            bound: bound.max(1),
            compare_and_set: redis::Script::new(COMPARE_AND_SET),
            local: Mutex::new((OverrideState::default(), VecDeque::new())),
        }
    }

    pub fn storage(&self) -> Storage {
        if self.redis.is_some() {
            Storage::Redis
        } else {
            Storage::Process
        }
    }

    pub fn bound(&self) -> usize {
        self.bound
    }

    /// The coordination tier and the channel its changes are announced on (`None` without
    /// Redis).
    pub fn channel(&self) -> Option<(&Redis, &str)> {
        self.redis
            .as_ref()
            .map(|redis| (redis, self.channel.as_str()))
    }

    /// The state now (the default before any change).
    pub async fn state(&self) -> Result<OverrideState, Unavailable> {
        Ok(self.read_state().await?.0)
    }

    /// The state and its stored text ('' when none), for the compare-and-set.
    async fn read_state(&self) -> Result<(OverrideState, String), Unavailable> {
        let Some(redis) = &self.redis else {
            return Ok((self.lock().0.clone(), String::new()));
        };
        let stored: Option<String> = redis
            .query("overrides_read", redis::cmd("GET").arg(&self.state_key))
            .await?;
        let stored = stored.unwrap_or_default();
        let state = if stored.is_empty() {
            OverrideState::default()
        } else {
            serde_json::from_str(&stored).unwrap_or_else(|error| {
                tracing::warn!(%error, "stored overrides not understood; reading none");
                OverrideState::default()
            })
        };
        Ok((state, stored))
    }

    /// The fleet's versions, newest first (at most the bound).
    pub async fn history(&self) -> Result<Vec<Version>, Unavailable> {
        let Some(redis) = &self.redis else {
            return Ok(self.lock().1.iter().cloned().collect());
        };
        let last = isize::try_from(self.bound).unwrap_or(isize::MAX) - 1;
        let lines: Vec<String> = redis
            .query(
                "overrides_history",
                redis::cmd("LRANGE").arg(&self.history_key).arg(0).arg(last),
            )
            .await?;
        Ok(lines
            .iter()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect())
    }

    /// Runs `transition` over the stored state (and history) and stores what it makes; `None`
    /// from it changes nothing. Answers the new state, or the stored one when nothing changed.
    pub async fn change(
        &self,
        transition: impl Fn(&OverrideState, &[Version]) -> Result<Option<Transition>, Refused>,
    ) -> Result<Option<OverrideState>, NotStored> {
        let Some(redis) = &self.redis else {
            let mut local = self.lock();
            let history: Vec<Version> = local.1.iter().cloned().collect();
            let Some(made) = transition(&local.0, &history).map_err(NotStored::Refused)? else {
                return Ok(None);
            };
            if let Some(version) = made.fleet_version {
                local.1.push_front(version);
                local.1.truncate(self.bound);
            }
            local.0 = made.state.clone();
            return Ok(Some(made.state));
        };
        for _ in 0..ATTEMPTS {
            let (state, stored) = self
                .read_state()
                .await
                .map_err(|_| NotStored::Unavailable)?;
            let history = self.history().await.map_err(|_| NotStored::Unavailable)?;
            let Some(made) = transition(&state, &history).map_err(NotStored::Refused)? else {
                return Ok(None);
            };
            let (Ok(text), Ok(pushed)) = (
                serde_json::to_string(&made.state),
                made.fleet_version
                    .as_ref()
                    .map_or(Ok(String::new()), serde_json::to_string),
            ) else {
                return Err(NotStored::Unavailable);
            };
            let mut invocation = self.compare_and_set.prepare_invoke();
            invocation
                .key(&self.state_key)
                .key(&self.history_key)
                .arg(&stored)
                .arg(&text)
                .arg(&pushed)
                .arg(self.bound);
            let stored: i64 = redis
                .invoke("overrides_write", &invocation)
                .await
                .map_err(|_| NotStored::Unavailable)?;
            if stored == 1 {
                return Ok(Some(made.state));
            }
        }
        Err(NotStored::Unavailable)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (OverrideState, VecDeque<Version>)> {
        self.local
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
