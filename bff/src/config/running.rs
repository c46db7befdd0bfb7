//! The configuration in force: what the process started with, plus what reloads applied (the
//! `[cache]` policies, not their byte budgets), with the live overrides laid over it
//! ([`super::overrides`]), and the configuration the last reload loaded, whose other changes
//! wait for a restart. A reload keeps the overrides; a change of overrides keeps what the
//! reloads applied. One per process state; read by `GET /admin/config` and exported as
//! `bff_config_info`.

use std::sync::{Arc, RwLock};

use super::Config;
use super::fingerprint::ConfigFingerprint;
use super::origin::Origin;
use super::overrides::versions::Applied;
use crate::config::CacheConfig;

/// Whether a reload applies `key` (dotted, `cache.pages.ttl`) to the running process: the cache
/// policies do; their byte budgets and everything else (listeners, Redis, upstreams, limits,
/// ...) are read once at start-up. [`after_reload`] applies exactly these keys.
pub fn applies_live(key: &str) -> bool {
    key.strip_prefix("cache.")
        .is_some_and(|rest| !CacheConfig::BUDGET_KEYS.contains(&rest))
}

/// What runs after a reload that loaded `loaded` over `running`: `running`, with the keys that
/// [`applies_live`] (and their origins) taken from `loaded`.
pub fn after_reload(running: &Config, loaded: &Config) -> Config {
    Config {
        cache: loaded.cache.clone().with_budgets_of(&running.cache),
        origins: running
            .origins
            .with_keys_from(&loaded.origins, applies_live),
        ..running.clone()
    }
}

/// `layered` with the override layer `overrides` over its cache policies, each overridden key's
/// origin the override.
pub fn with_overrides(layered: &Config, overrides: &Applied) -> Config {
    let mut config = layered.clone();
    overrides.layer.apply_to(&mut config.cache);
    for key in overrides.layer.keys() {
        config.origins.insert(
            key.clone(),
            Origin::Override {
                version: overrides.version,
            },
        );
    }
    config
}

#[derive(Debug)]
pub struct InForce {
    /// What the process runs with: `layered` with the live overrides over it.
    pub config: Config,
    /// The configuration below the live overrides (default < file < environment, with what
    /// reloads applied): what the overrides are compared with for drift.
    pub layered: Config,
    /// The live overrides in force (version 0, empty: none).
    pub overrides: Applied,
    pub fingerprint: ConfigFingerprint,
    /// What the last reload loaded (file and environment): where it differs from `config`,
    /// a restart is pending. `None` before the first reload.
    pub loaded: Option<Config>,
    /// When the last reload was applied, in milliseconds since the Unix epoch.
    pub last_reload_unix_ms: Option<u64>,
}

/// What a reload changed.
#[derive(Debug)]
pub struct Reloaded {
    pub previous: ConfigFingerprint,
    pub in_force: Arc<InForce>,
}

#[derive(Debug)]
pub struct RunningConfig {
    /// Swapped whole by a reload; readers clone the `Arc` and never hold the lock.
    current: RwLock<Arc<InForce>>,
}

impl RunningConfig {
    pub fn new(config: Config) -> Self {
        Self {
            current: RwLock::new(Arc::new(InForce {
                fingerprint: ConfigFingerprint::of(&config),
                layered: config.clone(),
                config,
                overrides: Applied {
                    version: 0,
                    layer: Default::default(),
                },
                loaded: None,
                last_reload_unix_ms: None,
            })),
        }
    }

    pub fn current(&self) -> Arc<InForce> {
        self.current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Applies what can change live of `loaded` (see [`after_reload`]) and keeps the rest of it
    /// as pending restart. `apply` hands the configuration in force to the running parts (and
    /// the metrics) while the swap holds the lock, so two reloads at once (SIGHUP and the admin
    /// API) leave the parts with the one that won.
    pub fn reload(
        &self,
        loaded: Config,
        now_unix_ms: u64,
        apply: impl FnOnce(&InForce),
    ) -> Reloaded {
        let mut current = self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let layered = after_reload(&current.layered, &loaded);
        let config = with_overrides(&layered, &current.overrides);
        let in_force = Arc::new(InForce {
            fingerprint: ConfigFingerprint::of(&config),
            config,
            layered,
            overrides: current.overrides.clone(),
            loaded: Some(loaded),
            last_reload_unix_ms: Some(now_unix_ms),
        });
        apply(&in_force);
        let previous = std::mem::replace(&mut *current, in_force.clone())
            .fingerprint
            .clone();
        Reloaded { previous, in_force }
    }

    /// Lays `overrides` over the layered configuration in place of the ones in force; `apply`
    /// as for [`Self::reload`].
    pub fn set_overrides(&self, overrides: &Applied, apply: impl FnOnce(&InForce)) -> Arc<InForce> {
        let mut current = self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let config = with_overrides(&current.layered, overrides);
        let in_force = Arc::new(InForce {
            fingerprint: ConfigFingerprint::of(&config),
            config,
            layered: current.layered.clone(),
            overrides: overrides.clone(),
            loaded: current.loaded.clone(),
            last_reload_unix_ms: current.last_reload_unix_ms,
        });
        apply(&in_force);
        *current = in_force.clone();
        in_force
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reload_applies_the_cache_policies_and_nothing_else() {
        let running = Config::default();
        let mut loaded = Config::default();
        loaded.cache.pages.ttl = std::time::Duration::from_secs(1);
        loaded.cache.capacity_bytes += 1;
        loaded.cache.tile_capacity_bytes += 1;
        loaded.server.max_body_bytes += 1;
        let after = after_reload(&running, &loaded);
        assert_eq!(after.cache.pages.ttl, loaded.cache.pages.ttl);
        assert_eq!(after.cache.capacity_bytes, running.cache.capacity_bytes);
        assert_eq!(
            after.cache.tile_capacity_bytes,
            running.cache.tile_capacity_bytes
        );
        assert_eq!(after.server.max_body_bytes, running.server.max_body_bytes);
        assert!(applies_live("cache.pages.ttl"));
        assert!(applies_live("cache.stale_wait"));
        for budget in CacheConfig::BUDGET_KEYS {
            assert!(!applies_live(&format!("cache.{budget}")), "{budget}");
        }
        assert!(!applies_live("server.max_body_bytes"));
    }

    #[test]
    fn a_reload_changes_the_fingerprint_only_with_what_it_applies() {
        let running = RunningConfig::new(Config::default());
        let mut loaded = Config::default();
        loaded.cache.capacity_bytes += 1;
        let reloaded = running.reload(loaded.clone(), 1, |_| {});
        assert_eq!(reloaded.previous, reloaded.in_force.fingerprint);
        loaded.cache.pages.jitter = 0.0;
        let reloaded = running.reload(loaded, 2, |_| {});
        assert_ne!(reloaded.previous, reloaded.in_force.fingerprint);
        assert_eq!(running.current().last_reload_unix_ms, Some(2));
    }

    #[test]
    fn a_reload_keeps_the_overrides_and_they_keep_what_it_applied() {
        let running = RunningConfig::new(Config::default());
        let mut layer = crate::config::overrides::layer::OverrideLayer::default();
        let _ = layer.insert("cache.product.ttl", &serde_json::json!("30s"));
        running.set_overrides(&Applied { version: 3, layer }, |_| {});
        let mut loaded = Config::default();
        loaded.cache.product.ttl = std::time::Duration::from_secs(1);
        loaded.cache.pages.ttl = std::time::Duration::from_secs(7);
        running.reload(loaded, 1, |_| {});
        let in_force = running.current();
        assert_eq!(in_force.config.cache.product.ttl.as_secs(), 30);
        assert_eq!(in_force.layered.cache.product.ttl.as_secs(), 1);
        assert_eq!(in_force.config.cache.pages.ttl.as_secs(), 7);
        assert_eq!(
            in_force.config.origins.of("cache.product.ttl"),
            &Origin::Override { version: 3 }
        );
        let none = Applied {
            version: 4,
            layer: Default::default(),
        };
        let in_force = running.set_overrides(&none, |_| {});
        assert_eq!(in_force.config.cache.product.ttl.as_secs(), 1);
        assert_eq!(
            in_force.config.origins.of("cache.product.ttl"),
            &Origin::Default
        );
    }
}
