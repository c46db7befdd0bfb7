//! Override versions and how one becomes the next: a change (`set`), a canary made the fleet's
//! (`promote`), an earlier version brought back (`rollback`), keys past their expiry dropped
//! (`expire`). Pure: the store (`crate::admin::overrides::store`) runs these under its compare-and-set.
//!
//! The fleet runs `current`; a canary, while one is pending, runs on its replica only. Every
//! version the fleet ran is kept in the history (bounded, oldest dropped first); a canary
//! enters it when it is promoted. Version 0 is the empty layer every storefront starts with.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::layer::OverrideLayer;

/// How a version came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Set,
    Rollback,
    Expire,
    Promote,
}

/// One version of the override layer, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Version {
    pub version: u64,
    /// When it was made, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// The admin token's name that made it (`expiry` for an expiry).
    pub by: String,
    pub action: Action,
    pub layer: OverrideLayer,
    /// When each key's override ends (ms since the epoch); a key absent here has no expiry.
    #[serde(default)]
    pub expiries_ms: BTreeMap<String, u64>,
    /// For a rollback: the version it brought back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolled_back_to: Option<u64>,
}

impl Version {
    /// Version 0: no override.
    pub fn empty() -> Self {
        Self {
            version: 0,
            at_ms: 0,
            by: String::new(),
            action: Action::Set,
            layer: OverrideLayer::default(),
            expiries_ms: BTreeMap::new(),
            rolled_back_to: None,
        }
    }

    /// When the first of its keys expires (`None`: none does).
    pub fn expires_at_ms(&self) -> Option<u64> {
        self.expiries_ms.values().min().copied()
    }

    /// Whether a key of it has expired at `now_ms`.
    pub fn has_expired(&self, now_ms: u64) -> bool {
        self.expires_at_ms().is_some_and(|at| at <= now_ms)
    }

    /// The layer without the keys expired at `now_ms`: what a replica enforces even before
    /// the `expire` version is written.
    pub fn live_layer(&self, now_ms: u64) -> OverrideLayer {
        self.layer
            .without(|key| self.expiries_ms.get(key).is_some_and(|at| *at <= now_ms))
    }
}

/// A version on one replica only, until it is promoted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Canary {
    /// The replica's id (as `/admin/fleet` lists it).
    pub replica: String,
    pub version: Version,
}

/// What the fleet runs, and the pending canary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OverrideState {
    pub current: Version,
    #[serde(default)]
    pub canary: Option<Canary>,
}

impl Default for OverrideState {
    fn default() -> Self {
        Self {
            current: Version::empty(),
            canary: None,
        }
    }
}

/// A change asked for: keys set (checked already), keys unset, an expiry for the keys set.
#[derive(Debug, Clone, Default)]
pub struct Change {
    pub set: OverrideLayer,
    pub unset: Vec<String>,
    pub expires_in_ms: Option<u64>,
    /// The replica (id) to try it on first.
    pub canary: Option<String>,
}

/// What a transition made: the new state, and the version the fleet now runs when it changed
/// (for the history).
#[derive(Debug, Clone)]
pub struct Transition {
    pub state: OverrideState,
    pub fleet_version: Option<Version>,
}

/// Why a transition cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// `promote` without a pending canary.
    NoCanary,
    /// `rollback` to a version the history no longer (or never) held.
    UnknownVersion(u64),
}

impl OverrideState {
    /// The version after every one made so far (a canary's included).
    fn next_version(&self) -> u64 {
        let canary = self
            .canary
            .as_ref()
            .map_or(0, |canary| canary.version.version);
        self.current.version.max(canary) + 1
    }

    /// The version `replica` runs: the canary on its replica, else the fleet's.
    pub fn for_replica(&self, replica: &str) -> &Version {
        match &self.canary {
            Some(canary) if canary.replica == replica => &canary.version,
            _ => &self.current,
        }
    }

    /// `change` over the fleet's version: for the fleet, or as a canary. A pending canary is
    /// replaced (a change is always made over what the fleet runs).
    pub fn set(&self, change: &Change, by: &str, now_ms: u64) -> Transition {
        let base = &self.current;
        let mut layer = base.layer.clone();
        let mut expiries_ms = base.expiries_ms.clone();
        for key in &change.unset {
            layer.remove(key);
            expiries_ms.remove(key);
        }
        for key in change.set.keys() {
            if let Some(value) = change.set.get(key) {
                // Checked when the change was read; a key it holds is one the layer takes.
                let _ = layer.insert(key, &value);
            }
            match change.expires_in_ms {
                Some(ms) => expiries_ms.insert(key.clone(), now_ms.saturating_add(ms)),
                None => expiries_ms.remove(key),
            };
        }
        let version = Version {
            version: self.next_version(),
            at_ms: now_ms,
            by: by.to_owned(),
            action: Action::Set,
            layer,
            expiries_ms,
            rolled_back_to: None,
        };
        match &change.canary {
            Some(replica) => Transition {
                state: Self {
                    current: self.current.clone(),
                    canary: Some(Canary {
                        replica: replica.clone(),
                        version,
                    }),
                },
                fleet_version: None,
            },
            None => self.for_fleet(version),
        }
    }

    /// The pending canary's version for the whole fleet.
    pub fn promote(&self, by: &str, now_ms: u64) -> Result<Transition, Refused> {
        let canary = self.canary.as_ref().ok_or(Refused::NoCanary)?;
        Ok(self.for_fleet(Version {
            at_ms: now_ms,
            by: by.to_owned(),
            action: Action::Promote,
            ..canary.version.clone()
        }))
    }

    /// A new version with the layer of `to` (default: the one before the fleet's current),
    /// found in `history` (newest first; version 0 is always known). Keys of it already
    /// expired stay gone. A pending canary is dropped.
    pub fn rollback(
        &self,
        to: Option<u64>,
        history: &[Version],
        by: &str,
        now_ms: u64,
    ) -> Result<Transition, Refused> {
        let target = to.unwrap_or_else(|| {
            history
                .iter()
                .map(|version| version.version)
                .find(|version| *version < self.current.version)
                .unwrap_or(0)
        });
        let empty = Version::empty();
        let found = if target == 0 {
            Some(&empty)
        } else {
            history.iter().find(|version| version.version == target)
        };
        let found = found.ok_or(Refused::UnknownVersion(target))?;
        let expiries_ms: BTreeMap<String, u64> = found
            .expiries_ms
            .iter()
            .filter(|(_, at)| **at > now_ms)
            .map(|(key, at)| (key.clone(), *at))
            .collect();
        Ok(self.for_fleet(Version {
            version: self.next_version(),
            at_ms: now_ms,
            by: by.to_owned(),
            action: Action::Rollback,
            layer: found.live_layer(now_ms),
            expiries_ms,
            rolled_back_to: Some(target),
        }))
    }

    /// The versions without their keys expired at `now_ms`: `None` when none has expired.
    pub fn expire(&self, now_ms: u64) -> Option<Transition> {
        let current_expired = self.current.has_expired(now_ms);
        let canary_expired = self
            .canary
            .as_ref()
            .is_some_and(|canary| canary.version.has_expired(now_ms));
        if !current_expired && !canary_expired {
            return None;
        }
        let mut next = self.next_version();
        let mut expired = |version: &Version| {
            let made = Version {
                version: next,
                at_ms: now_ms,
                by: "expiry".to_owned(),
                action: Action::Expire,
                layer: version.live_layer(now_ms),
                expiries_ms: version
                    .expiries_ms
                    .iter()
                    .filter(|(_, at)| **at > now_ms)
                    .map(|(key, at)| (key.clone(), *at))
                    .collect(),
                rolled_back_to: None,
            };
            next += 1;
            made
        };
        let current = if current_expired {
            expired(&self.current)
        } else {
            self.current.clone()
        };
        let canary = self.canary.as_ref().map(|canary| Canary {
            replica: canary.replica.clone(),
            version: if canary_expired {
                expired(&canary.version)
            } else {
                canary.version.clone()
            },
        });
        Some(Transition {
            fleet_version: current_expired.then(|| current.clone()),
            state: Self { current, canary },
        })
    }

    fn for_fleet(&self, version: Version) -> Transition {
        Transition {
            state: Self {
                current: version.clone(),
                canary: None,
            },
            fleet_version: Some(version),
        }
    }
}

/// The version this replica runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub version: u64,
    /// Its keys not yet expired.
    pub layer: OverrideLayer,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn change(key: &str, value: &str) -> Change {
        let mut set = OverrideLayer::default();
        let _ = set.insert(key, &json!(value));
        Change {
            set,
            ..Change::default()
        }
    }

    #[test]
    fn a_canary_runs_on_its_replica_until_promoted() {
        let state = OverrideState::default();
        let one = state.set(&change("cache.product.ttl", "30s"), "ops", 10);
        assert_eq!(one.fleet_version.as_ref().map(|v| v.version), Some(1));
        let canary = one.state.set(
            &Change {
                canary: Some("replica-b".into()),
                ..change("cache.pages.ttl", "1m")
            },
            "ops",
            20,
        );
        assert!(canary.fleet_version.is_none());
        let state = canary.state;
        assert_eq!(state.for_replica("replica-a").version, 1);
        assert_eq!(state.for_replica("replica-b").version, 2);
        assert_eq!(
            state
                .for_replica("replica-b")
                .layer
                .get("cache.product.ttl"),
            Some(json!("30s"))
        );
        let promoted = state.promote("lead", 30).unwrap_or_else(|_| unreachable!());
        assert_eq!(promoted.state.current.version, 2);
        assert_eq!(promoted.state.current.action, Action::Promote);
        assert!(promoted.state.canary.is_none());
        assert_eq!(
            promoted.state.promote("lead", 40).err(),
            Some(Refused::NoCanary)
        );
    }

    #[test]
    fn rollback_brings_back_the_previous_or_a_named_version() {
        let one = OverrideState::default().set(&change("cache.product.ttl", "30s"), "ops", 1);
        let two = one.state.set(&change("cache.product.ttl", "45s"), "ops", 2);
        let history: Vec<Version> = [&two, &one]
            .iter()
            .filter_map(|t| t.fleet_version.clone())
            .collect();
        let back = two
            .state
            .rollback(None, &history, "ops", 3)
            .unwrap_or_else(|_| unreachable!());
        assert_eq!(back.state.current.version, 3);
        assert_eq!(back.state.current.rolled_back_to, Some(1));
        assert_eq!(
            back.state.current.layer.get("cache.product.ttl"),
            Some(json!("30s"))
        );
        let to_none = two
            .state
            .rollback(Some(0), &history, "ops", 3)
            .unwrap_or_else(|_| unreachable!());
        assert!(to_none.state.current.layer.is_empty());
        assert_eq!(
            two.state.rollback(Some(9), &history, "ops", 3).err(),
            Some(Refused::UnknownVersion(9))
        );
    }

    #[test]
    fn only_the_keys_past_their_expiry_expire() {
        let one = OverrideState::default().set(&change("cache.product.ttl", "30s"), "ops", 0);
        let two = one.state.set(
            &Change {
                expires_in_ms: Some(1_000),
                ..change("cache.pages.ttl", "1m")
            },
            "ops",
            0,
        );
        assert!(two.state.expire(999).is_none());
        let expired = two.state.expire(1_000).unwrap_or_else(|| unreachable!());
        let current = &expired.state.current;
        assert_eq!((current.version, current.action), (3, Action::Expire));
        assert_eq!(current.layer.get("cache.pages.ttl"), None);
        assert_eq!(current.layer.get("cache.product.ttl"), Some(json!("30s")));
        assert!(expired.state.expire(5_000).is_none());
    }
}
