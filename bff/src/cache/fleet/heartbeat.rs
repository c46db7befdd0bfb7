//! A replica's heartbeat: who it is, what it runs (build and configuration), how full its L1 is
//! and how well it hits lately. Published to the coordination tier every
//! `fleet.heartbeat_interval` (see [`super`]), read back by `GET /admin/fleet`.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::cache::top_lists::TopLists;
use crate::coordination::replica_identity::ReplicaIdentity;

/// Which build a replica runs: replicas that disagree on any part are "build drift".
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildId {
    /// The BFF crate's version.
    pub version: String,
    /// The web build's id (`None`: no web build served).
    pub web: Option<String>,
    /// The git commit, when the build was given one (`BFF_GIT_SHA` at compile time).
    pub git_sha: Option<String>,
}

impl BuildId {
    /// This binary's build, serving the web build `web`.
    pub fn of_this_binary(web: Option<String>) -> Self {
        Self {
            version: env!("CARGO_PKG_VERSION").to_owned(),
            web,
            git_sha: option_env!("BFF_GIT_SHA")
                .filter(|sha| !sha.is_empty())
                .map(str::to_owned),
        }
    }
}

/// The configuration in force: [`crate::config::fingerprint::ConfigFingerprint`]'s fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigVersion {
    pub version: String,
    pub hash: String,
}

/// L1's size as the cache enforces it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct L1Figures {
    pub entries: u64,
    pub bytes: u64,
    /// The byte budgets moka enforces (fixed at start-up, whatever a reload says).
    pub capacity_bytes: u64,
}

/// Lookups since start: `served` are hits and stale-while-revalidate answers (stale-if-error
/// is an outage served, not a hit), `lookups` every lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LookupTotals {
    pub served: u64,
    pub lookups: u64,
}

/// The recent hit ratio: hits and stale over lookups within the window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HitRatio {
    /// How far back it looks (less just after start).
    pub window_seconds: u64,
    pub lookups: u64,
    pub served: u64,
    /// `None` without lookups in the window.
    pub ratio: Option<f64>,
}

/// What the process reports of itself at one instant, beside its identity.
#[derive(Debug, Clone)]
pub struct Figures {
    pub build: BuildId,
    pub config: ConfigVersion,
    pub l1: L1Figures,
    pub totals: LookupTotals,
    /// This replica's top lists now (bounded: see [`crate::cache::top_lists`]).
    pub top_lists: TopLists,
}

/// Reads [`Figures`] now (built where the cache and the configuration are at hand).
pub type FiguresSource =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Figures> + Send>> + Send + Sync>;

/// One heartbeat, as stored and as `GET /admin/fleet` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Heartbeat {
    pub id: String,
    pub pod: Option<String>,
    pub zone: Option<String>,
    pub build: BuildId,
    pub config: ConfigVersion,
    pub started_unix_ms: u64,
    /// The last successful configuration reload (`None`: none since start).
    pub last_reload_unix_ms: Option<u64>,
    pub l1: L1Figures,
    pub hit_ratio: HitRatio,
    /// When it was sent.
    pub sent_unix_ms: u64,
    /// This replica's top lists (per tag and key) as of this heartbeat, for the fleet to merge;
    /// `null` from a replica that does not send them.
    #[serde(default)]
    pub top_lists: Option<TopLists>,
    /// The live override version it runs (`null`: none read yet, or a build without them).
    #[serde(default)]
    pub override_version: Option<u64>,
    /// Its overridden keys whose value differs from its file: drift until the file matches.
    #[serde(default)]
    pub override_drift: Vec<String>,
}

/// The live overrides a replica runs, as its heartbeat reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OverrideReport {
    pub version: Option<u64>,
    pub drift: Vec<String>,
}

impl Heartbeat {
    pub fn new(
        identity: &ReplicaIdentity,
        figures: Figures,
        hit_ratio: HitRatio,
        last_reload_unix_ms: Option<u64>,
        overrides: OverrideReport,
    ) -> Self {
        Self {
            id: identity.id.clone(),
            pod: identity.pod.clone(),
            zone: identity.zone.clone(),
            build: figures.build,
            config: figures.config,
            started_unix_ms: identity.started_unix_ms,
            last_reload_unix_ms,
            l1: figures.l1,
            hit_ratio,
            sent_unix_ms: crate::coordination::clock::unix_ms(),
            top_lists: Some(figures.top_lists),
            override_version: overrides.version,
            override_drift: overrides.drift,
        }
    }
}

/// Lookup totals sampled at each heartbeat, enough to tell the ratio over the last `window`.
#[derive(Debug)]
pub struct HitWindow {
    window: Duration,
    samples: VecDeque<(Instant, LookupTotals)>,
}

/// How far back the recent hit ratio looks.
pub const HIT_RATIO_WINDOW: Duration = Duration::from_secs(300);

impl HitWindow {
    pub fn new(window: Duration) -> Self {
        Self {
            window,
            samples: VecDeque::new(),
        }
    }

    /// Records `totals` at `now` and answers the ratio from the oldest sample within the
    /// window to them.
    pub fn record(&mut self, now: Instant, totals: LookupTotals) -> HitRatio {
        self.samples.push_back((now, totals));
        // Keep one sample at or before the window's start, so the window is covered whole.
        while self.samples.len() > 2
            && self
                .samples
                .get(1)
                .is_some_and(|(at, _)| now.saturating_duration_since(*at) >= self.window)
        {
            self.samples.pop_front();
        }
        let (since, base) = self.samples.front().copied().unwrap_or((now, totals));
        let lookups = totals.lookups.saturating_sub(base.lookups);
        let served = totals.served.saturating_sub(base.served);
        HitRatio {
            window_seconds: now.saturating_duration_since(since).as_secs(),
            lookups,
            served,
            ratio: (lookups > 0).then(|| served as f64 / lookups as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ratio_counts_only_the_window() {
        let mut window = HitWindow::new(Duration::from_secs(10));
        let start = Instant::now();
        let at = |seconds| start + Duration::from_secs(seconds);
        let totals = |served, lookups| LookupTotals { served, lookups };
        window.record(at(0), totals(0, 0));
        // A cold start: everything missed.
        window.record(at(5), totals(0, 100));
        let ratio = window.record(at(10), totals(0, 100));
        assert_eq!(ratio.ratio, Some(0.0));
        // Later, only hits: the cold start leaves the window.
        window.record(at(20), totals(50, 150));
        let ratio = window.record(at(25), totals(100, 200));
        assert_eq!((ratio.served, ratio.lookups), (100, 100));
        assert_eq!(ratio.ratio, Some(1.0));
    }
}
