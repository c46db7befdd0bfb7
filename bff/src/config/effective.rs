//! `GET /admin/config`: what the process runs with, value by value, each with where it came
//! from (an overridden one also with the value below the override: both layers); the live
//! overrides in force and their drift from the file; after a reload, what waits for a restart (the running and the loaded value, never the
//! loaded one as in effect); which secrets are set (never their values); credentials in URLs
//! redacted ([`super::redact`]).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::fingerprint::ConfigFingerprint;
use super::origin::Origin;
use super::overrides::layer::Drift;
use super::redact::redact_json;
use super::running::{InForce, applies_live};
use super::secrets::{SecretState, Secrets};

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EffectiveConfig {
    /// Of the configuration in force, as `bff_config_info` exports it.
    pub fingerprint: ConfigFingerprint,
    /// When the last reload was applied (milliseconds since the Unix epoch); `null`: never.
    pub last_reload_unix_ms: Option<u64>,
    /// Every value by dotted key (`cache.pages.ttl`), as the TOML file names it.
    pub values: BTreeMap<String, Setting>,
    /// The keys whose loaded value waits for a restart (each also marked in `values`).
    pub pending_restart: Vec<String>,
    /// Each secret's variable: `set`, `unset` or `development_default`.
    pub secrets: BTreeMap<&'static str, SecretState>,
    /// The live overrides this replica runs.
    pub overrides: OverridesInForce,
}

/// The live override layer in force here (see [`super::overrides`]).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OverridesInForce {
    /// Its version (0: none set yet).
    pub version: u64,
    pub layer: BTreeMap<String, Value>,
    /// The overrides whose value the file (or environment) does not say: drift until the file
    /// matches (`bff admin config export` gives the patch).
    pub drift: Vec<Drift>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Setting {
    /// The value in effect.
    pub value: Value,
    /// `source`: `default`, `file` or `environment` (with its `variable`).
    #[serde(flatten)]
    pub origin: Origin,
    /// Whether a reload applies this key while running.
    pub reloadable: bool,
    /// For an overridden key: the value the layers below the override give (default < file <
    /// environment), and where it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub below_override: Option<Pending>,
    /// The value the last reload loaded, when it differs and only a restart applies it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_restart: Option<Pending>,
}

#[derive(Debug, Serialize)]
pub struct Pending {
    pub value: Value,
    #[serde(flatten)]
    pub origin: Origin,
}

impl EffectiveConfig {
    pub fn of(in_force: &InForce, secrets: &Secrets) -> Self {
        let running = leaves(&in_force.config);
        let layered = leaves(&in_force.layered);
        let loaded = in_force.loaded.as_ref().map(leaves).unwrap_or_default();
        let mut values = BTreeMap::new();
        let mut pending_restart = Vec::new();
        for (key, value) in &running {
            let pending = in_force.loaded.as_ref().and_then(|config| {
                let loaded_value = loaded.get(key).cloned().unwrap_or(Value::Null);
                // Against the layers below the overrides: an override is no pending restart.
                let below = layered.get(key).unwrap_or(value);
                (loaded_value != *below).then(|| Pending {
                    value: loaded_value,
                    origin: config.origins.of(key).clone(),
                })
            });
            if pending.is_some() {
                pending_restart.push(key.clone());
            }
            let origin = in_force.config.origins.of(key).clone();
            let below_override = matches!(origin, Origin::Override { .. }).then(|| Pending {
                value: layered.get(key).cloned().unwrap_or(Value::Null),
                origin: in_force.layered.origins.of(key).clone(),
            });
            values.insert(
                key.clone(),
                Setting {
                    value: value.clone(),
                    origin,
                    reloadable: applies_live(key),
                    pending_restart: pending,
                    below_override,
                },
            );
        }
        // A key only the loaded configuration has (an optional one newly set) waits too.
        if let Some(config) = &in_force.loaded {
            for (key, value) in loaded.iter().filter(|(key, _)| !running.contains_key(*key)) {
                pending_restart.push(key.clone());
                values.insert(
                    key.clone(),
                    Setting {
                        value: Value::Null,
                        origin: Origin::Default,
                        reloadable: applies_live(key),
                        below_override: None,
                        pending_restart: Some(Pending {
                            value: value.clone(),
                            origin: config.origins.of(key).clone(),
                        }),
                    },
                );
            }
        }
        pending_restart.sort();
        Self {
            fingerprint: in_force.fingerprint.clone(),
            last_reload_unix_ms: in_force.last_reload_unix_ms,
            values,
            pending_restart,
            secrets: secrets.states().into_iter().collect(),
            overrides: OverridesInForce {
                version: in_force.overrides.version,
                layer: in_force.overrides.layer.to_json(),
                drift: in_force.overrides.layer.drift(&in_force.layered.cache),
            },
        }
    }
}

/// The configuration's values by dotted key, credentials in URLs redacted. Tables are walked;
/// anything else (arrays included) is one value.
fn leaves(config: &super::Config) -> BTreeMap<String, Value> {
    let mut document = serde_json::to_value(config).unwrap_or(Value::Null);
    redact_json(&mut document);
    let mut found = BTreeMap::new();
    walk(document, String::new(), &mut found);
    found
}

fn walk(value: Value, key: String, found: &mut BTreeMap<String, Value>) {
    match value {
        Value::Object(fields) => {
            for (name, inner) in fields {
                let dotted = if key.is_empty() {
                    name
                } else {
                    format!("{key}.{name}")
                };
                walk(inner, dotted, found);
            }
        }
        other => {
            found.insert(key, other);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::config::running::RunningConfig;

    fn secrets() -> Secrets {
        Secrets::from_lookup(&Config::default(), |_| None).unwrap_or_else(|err| panic!("{err}"))
    }

    #[test]
    fn a_budget_changed_by_a_reload_is_pending_and_a_policy_is_in_effect() {
        let running = RunningConfig::new(Config::default());
        let mut loaded = Config::default();
        loaded.cache.capacity_bytes = 1234;
        loaded.cache.pages.jitter = 0.0;
        running.reload(loaded, 7, |_| {});
        let view = EffectiveConfig::of(&running.current(), &secrets());
        assert_eq!(view.pending_restart, ["cache.capacity_bytes"]);
        let capacity = &view.values["cache.capacity_bytes"];
        assert_eq!(
            capacity.value,
            Value::from(Config::default().cache.capacity_bytes)
        );
        assert_eq!(
            capacity.pending_restart.as_ref().map(|p| &p.value),
            Some(&Value::from(1234))
        );
        assert_eq!(view.values["cache.pages.jitter"].value, Value::from(0.0));
        assert!(view.values["cache.pages.jitter"].reloadable);
        assert_eq!(view.last_reload_unix_ms, Some(7));
    }

    #[test]
    fn a_password_in_the_redis_url_is_never_shown() {
        let mut config = Config::default();
        config.redis.url = "redis://app:hunter2@redis:6379/0".to_owned();
        let view = EffectiveConfig::of(&RunningConfig::new(config).current(), &secrets());
        let text = serde_json::to_string(&view).unwrap_or_default();
        assert!(!text.contains("hunter2"), "{text}");
        assert_eq!(
            view.values["redis.url"].value,
            "redis://redacted:redacted@redis:6379/0"
        );
    }
}
