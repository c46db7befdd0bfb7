//! `[redis.cluster]`: every configured Redis URL (`redis.url`, and `redis.coordination.url` when
//! set) is a Redis Cluster endpoint. The URL is the seed (a managed offering's configuration
//! endpoint, or any node); the client learns the other nodes and their slots from it and
//! follows `MOVED` and failovers on its own.
//!
//! The goal is to run on a cluster, not to shard the cache's coordination: the keys one script
//! reads together share a hash tag (see [`crate::coordination::replicas::Redis::tagged_key`]),
//! so the cache tier's keys (L2 entries, their versions, the byte budget) live on one primary,
//! while leases, idempotency keys, limits and revocations spread over all of them by key.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedisClusterConfig {
    /// Whether the URLs are cluster endpoints. Off: a single server (or Sentinel's primary).
    pub enabled: bool,
}

impl RedisClusterConfig {
    /// What cluster mode cannot work with: Sentinel (a cluster fails over by itself), a
    /// database other than 0, or a key prefix that would change the hash tags.
    pub(super) fn problems(
        &self,
        sentinel: bool,
        key_prefix: &str,
        urls: &[(&str, &str)],
    ) -> Vec<String> {
        let mut problems = Vec::new();
        if !self.enabled {
            return problems;
        }
        if sentinel {
            problems.push(
                "redis.cluster.enabled: cannot be combined with redis.sentinel.primary_name \
                 (a cluster fails over by itself; choose one)"
                    .to_owned(),
            );
        }
        if key_prefix.contains(['{', '}']) {
            problems.push(
                "redis.key_prefix: must not contain { or } with redis.cluster.enabled (the BFF \
                 chooses the hash tags)"
                    .to_owned(),
            );
        }
        for (key, url) in urls {
            let database = url::Url::parse(url)
                .ok()
                .map(|url| url.path().trim_matches('/').to_owned())
                .unwrap_or_default();
            if !(database.is_empty() || database == "0") {
                problems.push(format!(
                    "{key}: a cluster has database 0 only, not /{database}"
                ));
            }
        }
        problems
    }
}
