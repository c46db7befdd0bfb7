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
}

impl RedisCoordinationConfig {
    /// Whether a Redis of its own is named.
    pub fn is_separate(&self) -> bool {
        !self.url.trim().is_empty()
    }
}
