//! `[redis.coordination]`: where the data that must never be evicted lives (leases, checkout
//! idempotency keys, rate limits, sign-out revocations, the rollout window), when it is not the
//! cache's Redis. The cache tier (L2 entries, documents, their purge versions, fill locks and
//! the purge channel) may then run `allkeys-lru`; this one runs `noeviction`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedisCoordinationConfig {
    /// The coordination tier's URL, as `redis.url` is written (same user, password, TLS files
    /// and timeouts). Empty: `redis.url` holds both tiers, and L2 keeps to `redis.l2_max_bytes`.
    pub url: String,
    /// With `[redis.sentinel]`: the name the same sentinels monitor this tier's primary under.
    /// `url` then gives the scheme and database only, as `redis.url` does for the cache tier,
    /// and this tier follows its own failovers. Empty: `url` is the server.
    pub primary_name: String,
}

impl RedisCoordinationConfig {
    /// Whether a Redis of its own is named.
    pub fn is_separate(&self) -> bool {
        !self.url.trim().is_empty()
    }

    /// The primary name the sentinels know this tier by, if it is found through them.
    pub fn sentinel_primary(&self) -> Option<&str> {
        Some(self.primary_name.trim()).filter(|name| !name.is_empty())
    }

    /// What is wrong with the primary name, given whether Sentinel is on and the cache tier's
    /// own primary name.
    pub(super) fn problems(&self, sentinel: bool, cache_primary: &str) -> Vec<String> {
        let Some(name) = self.sentinel_primary() else {
            return Vec::new();
        };
        if !self.is_separate() {
            return vec![
                "redis.coordination.primary_name: set, but redis.coordination.url is empty \
                 (one Redis holds both tiers)"
                    .to_owned(),
            ];
        }
        if !sentinel {
            return vec![
                "redis.coordination.primary_name: needs [redis.sentinel] (its sentinels are \
                 asked for this primary too)"
                    .to_owned(),
            ];
        }
        if name == cache_primary.trim() {
            return vec![format!(
                "redis.coordination.primary_name: {name:?} is the cache tier's primary \
                 (redis.sentinel.primary_name); leave redis.coordination.url empty for one Redis"
            )];
        }
        Vec::new()
    }
}
