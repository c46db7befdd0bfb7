//! The configuration in force: what the process started with, plus what reloads applied (the
//! `[cache]` policies, not their byte budgets), and the configuration the last reload loaded,
//! whose other changes wait for a restart. One per process state; read by `GET /admin/config`
//! and exported as `bff_config_info`.

use std::sync::{Arc, RwLock};

use super::Config;
use super::fingerprint::ConfigFingerprint;
use crate::cache::CacheConfig;

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

#[derive(Debug)]
pub struct InForce {
    /// What the process runs with.
    pub config: Config,
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
                config,
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
        let config = after_reload(&current.config, &loaded);
        let in_force = Arc::new(InForce {
            fingerprint: ConfigFingerprint::of(&config),
            config,
            loaded: Some(loaded),
            last_reload_unix_ms: Some(now_unix_ms),
        });
        apply(&in_force);
        let previous = std::mem::replace(&mut *current, in_force.clone())
            .fingerprint
            .clone();
        Reloaded { previous, in_force }
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
}
