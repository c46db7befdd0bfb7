//! The fleet: every replica's last heartbeat, kept in the coordination tier, and what they
//! disagree on.
//!
//! Storage: one key per replica (`fleet:replica:<id>`, the heartbeat's JSON, expiring
//! `fleet.forget_after` after its last heartbeat) and an index (`fleet:index`, a sorted set of
//! replica ids by last-seen Unix ms). A replica that stops sending stays listed, flagged
//! `silent` once its heartbeat is older than `fleet.silent_after`, until `fleet.forget_after`;
//! one that shuts down cleanly takes itself off. Both keys carry the hash tag `{fleet}` on a
//! cluster, so one `MULTI` writes them and one `MGET` reads every heartbeat.
//!
//! Every Redis call has the command timeout; a failure leaves the replica serving, and the
//! fleet answer says the coordination tier is unavailable.

pub mod heartbeat;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use self::heartbeat::{FiguresSource, HIT_RATIO_WINDOW, Heartbeat, HitWindow, OverrideReport};
use super::top_lists::TopLists;
use crate::config::duration::millis;
use crate::config::fleet::FleetConfig;
use crate::coordination::replica_identity::ReplicaIdentity;
use crate::coordination::replicas::Redis;

/// The replicas this one knows of, and its own last heartbeat.
#[derive(Debug)]
pub struct Fleet {
    redis: Option<Redis>,
    identity: Arc<ReplicaIdentity>,
    config: FleetConfig,
    /// Unix ms of the last successful reload; 0: none.
    last_reload_unix_ms: AtomicU64,
    latest: Mutex<Option<Heartbeat>>,
    /// The live overrides this replica runs, for its heartbeats.
    overrides: Mutex<OverrideReport>,
    /// Sends a heartbeat before the interval ends (a new override version to report).
    beat_now: tokio::sync::Notify,
}

/// Where the fleet's list came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Coordination {
    /// Read from the coordination tier: every replica that sent heartbeats.
    Redis,
    /// No Redis is configured: this replica is the whole fleet.
    None,
    /// Redis did not answer: only this replica is known.
    Unavailable,
}

/// One replica in `GET /admin/fleet`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    #[serde(flatten)]
    pub heartbeat: Heartbeat,
    pub last_seen_unix_ms: u64,
    /// Its last heartbeat is older than `fleet.silent_after`.
    pub silent: bool,
    /// This is the replica that answered.
    #[serde(rename = "self")]
    pub this: bool,
}

/// What the live replicas disagree on.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Drift {
    /// More than one build among the live replicas.
    pub build: bool,
    /// More than one configuration hash among the live replicas.
    pub config: bool,
    /// Each distinct build (`version`, web build, git sha) among them.
    pub builds: Vec<heartbeat::BuildId>,
    /// Each distinct configuration hash among them.
    pub config_hashes: Vec<String>,
    /// More than one live override version among them (a canary pending, or a replica that
    /// has not read the latest yet).
    pub overrides: bool,
    /// Each distinct override version among them (`null`: a replica that reports none).
    pub override_versions: Vec<Option<u64>>,
    /// The overridden keys whose value differs from the file on any of them: drift until the
    /// file matches.
    pub override_keys: Vec<String>,
}

/// `GET /admin/fleet`'s answer.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetView {
    pub coordination: Coordination,
    /// Plain words for an operator: what the list covers.
    pub note: String,
    pub replicas: Vec<Member>,
    pub drift: Drift,
    /// Ids of the replicas flagged silent.
    pub silent: Vec<String>,
    pub heartbeat_interval_ms: u64,
    pub silent_after_ms: u64,
    pub forget_after_ms: u64,
    /// The top lists (see [`crate::cache::top_lists`]) of the replicas not silent, merged with
    /// [`TopLists::merge`]: this replica's as of now, the others' as of their last heartbeat.
    /// Each replica's own are in its entry of `replicas`.
    pub top_lists: TopLists,
}

impl Fleet {
    pub fn new(redis: Option<Redis>, identity: Arc<ReplicaIdentity>, config: FleetConfig) -> Self {
        Self {
            redis,
            identity,
            config,
            last_reload_unix_ms: AtomicU64::new(0),
            latest: Mutex::default(),
            overrides: Mutex::default(),
            beat_now: tokio::sync::Notify::new(),
        }
    }

    /// Records the live overrides this replica now runs and sends a heartbeat at once, so the
    /// fleet shows the new version without waiting for the interval.
    pub fn note_overrides(&self, report: OverrideReport) {
        *self
            .overrides
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = report;
        self.beat_now.notify_one();
    }

    pub fn identity(&self) -> &ReplicaIdentity {
        &self.identity
    }

    pub fn config(&self) -> &FleetConfig {
        &self.config
    }

    /// Records a successful configuration reload (shown in the next heartbeat).
    pub fn note_reload(&self) {
        self.last_reload_unix_ms
            .store(crate::coordination::clock::unix_ms(), Ordering::Release);
    }

    pub fn last_reload_unix_ms(&self) -> Option<u64> {
        Some(self.last_reload_unix_ms.load(Ordering::Acquire)).filter(|at| *at > 0)
    }

    /// This replica's last heartbeat (`None` before the first).
    pub fn latest(&self) -> Option<Heartbeat> {
        self.latest
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn replica_key(redis: &Redis, id: &str) -> String {
        redis.tagged_key(&["fleet", "replica", id], 0)
    }

    fn index_key(redis: &Redis) -> String {
        redis.tagged_key(&["fleet", "index"], 0)
    }

    /// Sends a heartbeat every `fleet.heartbeat_interval` (the first at once) until `stop`;
    /// then takes this replica off the fleet (a clean stop is not a silent replica).
    pub fn spawn_heartbeats(self: &Arc<Self>, figures: FiguresSource, stop: CancellationToken) {
        let fleet = self.clone();
        tokio::spawn(async move {
            let mut window = HitWindow::new(HIT_RATIO_WINDOW);
            let mut ticks = tokio::time::interval(fleet.config.heartbeat_interval);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    () = stop.cancelled() => break,
                    _ = ticks.tick() => {}
                    () = fleet.beat_now.notified() => {}
                }
                let figures = figures().await;
                let ratio = window.record(Instant::now(), figures.totals);
                let overrides = fleet
                    .overrides
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone();
                let heartbeat = Heartbeat::new(
                    &fleet.identity,
                    figures,
                    ratio,
                    fleet.last_reload_unix_ms(),
                    overrides,
                );
                *fleet.latest.lock().unwrap_or_else(PoisonError::into_inner) =
                    Some(heartbeat.clone());
                fleet.publish(&heartbeat).await;
            }
            fleet.leave().await;
        });
    }

    /// Stores `heartbeat` and moves this replica's last-seen; drops replicas forgotten.
    async fn publish(&self, heartbeat: &Heartbeat) -> bool {
        let Some(redis) = &self.redis else {
            return false;
        };
        let Ok(json) = serde_json::to_string(heartbeat) else {
            return false;
        };
        let now = crate::coordination::clock::unix_ms();
        let forget = millis(self.config.forget_after).max(1);
        let index = Self::index_key(redis);
        let mut pipeline = redis::pipe();
        pipeline
            .atomic()
            .cmd("SET")
            .arg(Self::replica_key(redis, &heartbeat.id))
            .arg(json)
            .arg("PX")
            .arg(forget)
            .ignore()
            .cmd("ZADD")
            .arg(&index)
            .arg(now)
            .arg(&heartbeat.id)
            .ignore()
            .cmd("ZREMRANGEBYSCORE")
            .arg(&index)
            .arg("-inf")
            .arg(format!("({}", now.saturating_sub(forget)))
            .ignore()
            .cmd("PEXPIRE")
            .arg(&index)
            .arg(forget)
            .ignore();
        redis
            .pipeline::<()>("fleet_heartbeat", &pipeline)
            .await
            .is_ok()
    }

    /// Takes this replica off the fleet (best effort, bounded by the command timeout).
    async fn leave(&self) {
        let Some(redis) = &self.redis else {
            return;
        };
        let mut pipeline = redis::pipe();
        pipeline
            .atomic()
            .cmd("DEL")
            .arg(Self::replica_key(redis, &self.identity.id))
            .ignore()
            .cmd("ZREM")
            .arg(Self::index_key(redis))
            .arg(&self.identity.id)
            .ignore();
        let _ = redis.pipeline::<()>("fleet_leave", &pipeline).await;
    }

    /// Every replica's last heartbeat with its last-seen time, or `None` when Redis is not
    /// configured or did not answer.
    async fn read_members(&self) -> Option<Vec<(Heartbeat, u64)>> {
        let redis = self.redis.as_ref()?;
        let forget = millis(self.config.forget_after);
        let now = crate::coordination::clock::unix_ms();
        let seen: Vec<(String, u64)> = redis
            .query(
                "fleet_read",
                redis::cmd("ZRANGEBYSCORE")
                    .arg(Self::index_key(redis))
                    .arg(now.saturating_sub(forget))
                    .arg("+inf")
                    .arg("WITHSCORES"),
            )
            .await
            .ok()?;
        if seen.is_empty() {
            return Some(Vec::new());
        }
        let mut get = redis::cmd("MGET");
        for (id, _) in &seen {
            get.arg(Self::replica_key(redis, id));
        }
        let stored: Vec<Option<String>> = redis.query("fleet_read", &get).await.ok()?;
        Some(
            seen.into_iter()
                .zip(stored)
                .filter_map(|((_, last_seen), json)| {
                    let heartbeat: Heartbeat = serde_json::from_str(&json?).ok()?;
                    Some((heartbeat, last_seen))
                })
                .collect(),
        )
    }

    /// The replicas expected to confirm a purge: those with a heartbeat newer than
    /// `fleet.silent_after` (this one included). `None` without Redis or when it did not answer.
    pub async fn live_replicas(&self) -> Option<Vec<String>> {
        let silent_after = millis(self.config.silent_after);
        let now = crate::coordination::clock::unix_ms();
        let members = self.read_members().await?;
        Some(
            members
                .into_iter()
                .filter(|(_, last_seen)| now.saturating_sub(*last_seen) <= silent_after)
                .map(|(heartbeat, _)| heartbeat.id)
                .collect(),
        )
    }

    /// The fleet as `GET /admin/fleet` shows it, with this replica's top lists `own` (read now).
    pub async fn view(&self, own: TopLists) -> FleetView {
        let silent_after = millis(self.config.silent_after);
        let now = crate::coordination::clock::unix_ms();
        let (coordination, members) = match (&self.redis, self.read_members().await) {
            (None, _) => (Coordination::None, Vec::new()),
            (Some(_), None) => (Coordination::Unavailable, Vec::new()),
            (Some(_), Some(members)) => (Coordination::Redis, members),
        };
        let mut replicas: Vec<Member> = members
            .into_iter()
            .map(|(heartbeat, last_seen)| Member {
                this: heartbeat.id == self.identity.id,
                silent: now.saturating_sub(last_seen) > silent_after,
                heartbeat,
                last_seen_unix_ms: last_seen,
            })
            .collect();
        // This replica is always listed: before its first heartbeat reached Redis, or without it.
        if !replicas.iter().any(|member| member.this)
            && let Some(heartbeat) = self.latest()
        {
            replicas.push(Member {
                last_seen_unix_ms: heartbeat.sent_unix_ms,
                heartbeat,
                silent: false,
                this: true,
            });
        }
        replicas.sort_by(|a, b| {
            a.heartbeat
                .started_unix_ms
                .cmp(&b.heartbeat.started_unix_ms)
        });
        let live = || replicas.iter().filter(|member| !member.silent);
        let builds: BTreeSet<String> = live()
            .filter_map(|member| serde_json::to_string(&member.heartbeat.build).ok())
            .collect();
        let config_hashes: BTreeSet<String> = live()
            .map(|member| member.heartbeat.config.hash.clone())
            .collect();
        let override_versions: BTreeSet<Option<u64>> = live()
            .map(|member| member.heartbeat.override_version)
            .collect();
        let override_keys: BTreeSet<String> = live()
            .flat_map(|member| member.heartbeat.override_drift.iter().cloned())
            .collect();
        let drift = Drift {
            build: builds.len() > 1,
            config: config_hashes.len() > 1,
            overrides: override_versions.len() > 1,
            override_versions: override_versions.into_iter().collect(),
            override_keys: override_keys.into_iter().collect(),
            builds: builds
                .iter()
                .filter_map(|build| serde_json::from_str(build).ok())
                .collect(),
            config_hashes: config_hashes.into_iter().collect(),
        };
        let mut top_lists = own.clone();
        for member in live().filter(|member| !member.this) {
            if let Some(theirs) = &member.heartbeat.top_lists {
                top_lists.merge(theirs);
            }
        }
        for member in replicas.iter_mut().filter(|member| member.this) {
            member.heartbeat.top_lists = Some(own.clone());
        }
        let silent = replicas
            .iter()
            .filter(|member| member.silent)
            .map(|member| member.heartbeat.id.clone())
            .collect();
        let note = match coordination {
            Coordination::Redis => "Every replica that sent a heartbeat to the coordination tier.",
            Coordination::None => {
                "No Redis is configured: the fleet is this replica alone (no drift can be seen)."
            }
            Coordination::Unavailable => {
                "The coordination tier did not answer: only this replica is listed."
            }
        };
        FleetView {
            coordination,
            note: note.to_owned(),
            replicas,
            drift,
            silent,
            heartbeat_interval_ms: millis(self.config.heartbeat_interval),
            silent_after_ms: silent_after,
            forget_after_ms: millis(self.config.forget_after),
            top_lists,
        }
    }

    /// How long ago (at most) this replica's last heartbeat was sent.
    pub fn heartbeat_interval(&self) -> Duration {
        self.config.heartbeat_interval
    }
}
