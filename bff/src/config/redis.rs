//! `[redis]`: the shared tier the replicas coordinate through (see
//! [`crate::coordination::replicas`]), its address, how long it may take, and how it is reached
//! (TLS in [`super::redis_tls`]; the ACL user and password are secrets, never here).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

use super::duration;
use super::redis_cluster::RedisClusterConfig;
use super::redis_coordination::RedisCoordinationConfig;
use super::redis_sentinel::RedisSentinelConfig;
use super::redis_tls::RedisTlsConfig;

/// The URL schemes the client speaks: Redis's and Valkey's names for the same protocol, plain
/// and over TLS. Unix sockets are left out: a fleet reaches Redis over the network.
pub const SCHEMES: [&str; 4] = ["redis", "rediss", "valkey", "valkeys"];

/// Whether `scheme` is one of the TLS ones.
pub fn is_tls_scheme(scheme: &str) -> bool {
    matches!(scheme, "rediss" | "valkeys")
}

/// Redis, shared by every replica: the second cache tier, purge fan-out, refresh leases,
/// checkout idempotency keys and the auth rate limits. Off unless `url` is set; without it (or
/// while it is unreachable) each of those stays in process, as with a single replica.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedisConfig {
    /// `redis://host:port/db` (`rediss://` over TLS; `valkey://`, `valkeys://` alike), without
    /// a user or password (those come from `BFF_REDIS_USERNAME` and `BFF_REDIS_PASSWORD`).
    /// Empty: no Redis.
    pub url: String,
    /// Multiplexed connections commands are spread over (each carries many at once).
    pub pool_size: usize,
    /// How long one connection attempt may take.
    #[serde(with = "duration")]
    pub connect_timeout: Duration,
    /// How long one command may take before the feature falls back to its in-process mode.
    #[serde(with = "duration")]
    pub command_timeout: Duration,
    /// Put before every key and channel, so several storefronts can share one Redis.
    pub key_prefix: String,
    /// The most bytes L2 values (entries, documents and their compressed variants) may take
    /// in Redis; past it the oldest written are dropped, by the BFF, before anything else. 0:
    /// no budget of its own (a cache tier apart, under `allkeys-lru`, may leave it to Redis).
    pub l2_max_bytes: u64,
    /// How long a write whose loss a shopper would see (a purge, a checkout's idempotency key,
    /// a revocation, the rollout close) waits for a replica's acknowledgement (`WAIT`) when the
    /// server has replicas. Past it the write stands, counted as unacknowledged.
    #[serde(with = "duration")]
    pub replica_ack_timeout: Duration,
    /// How the server is verified and this client proves itself, for a `rediss://` URL.
    pub tls: RedisTlsConfig,
    /// A Redis of its own for the data cache pressure must never evict.
    pub coordination: RedisCoordinationConfig,
    /// The primary of `url` found, and followed, through Redis Sentinel.
    pub sentinel: RedisSentinelConfig,
    /// The URLs are Redis Cluster endpoints (exclusive with Sentinel).
    pub cluster: RedisClusterConfig,
}

impl Default for RedisConfig {
    fn default() -> Self {
        Self {
            url: String::new(),
            pool_size: 4,
            connect_timeout: Duration::from_millis(250),
            command_timeout: Duration::from_millis(100),
            key_prefix: "bff:".to_owned(),
            // A quarter of a small managed Redis (1 GiB): room for a few thousand documents,
            // with the rest left to coordination data.
            l2_max_bytes: 256 * 1024 * 1024,
            // A replica in the same region acknowledges within a few ms; a purge or a
            // sign-out may wait this long more when one lags.
            replica_ack_timeout: Duration::from_millis(50),
            tls: RedisTlsConfig::default(),
            coordination: RedisCoordinationConfig::default(),
            sentinel: RedisSentinelConfig::default(),
            cluster: RedisClusterConfig::default(),
        }
    }
}

impl RedisConfig {
    pub fn enabled(&self) -> bool {
        !self.url.trim().is_empty()
    }

    /// Whether the URL asks for TLS (`rediss://`, `valkeys://`).
    pub fn uses_tls(&self) -> bool {
        url_uses_tls(&self.url)
    }

    /// The coordination tier's URL: its own, or the cache's.
    pub fn coordination_url(&self) -> &str {
        if self.coordination.is_separate() {
            self.coordination.url.trim()
        } else {
            self.url.trim()
        }
    }

    pub(super) fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !self.enabled() {
            if self.tls.is_set() {
                problems.push("redis.tls: set, but redis.url is empty".to_owned());
            }
            if self.coordination.is_separate() {
                problems.push("redis.coordination.url: set, but redis.url is empty".to_owned());
            }
            if self.cluster.enabled {
                problems.push("redis.cluster.enabled: set, but redis.url is empty".to_owned());
            }
            if self.coordination.sentinel_primary().is_some() {
                problems.push(
                    "redis.coordination.primary_name: set, but redis.url is empty".to_owned(),
                );
            }
            return problems;
        }
        problems.extend(url_problems("redis.url", self.url.trim()));
        let mut tls = self.uses_tls();
        if self.coordination.is_separate() {
            let url = self.coordination.url.trim();
            problems.extend(url_problems("redis.coordination.url", url));
            tls |= url_uses_tls(url);
        }
        problems.extend(self.tls.problems(tls));
        problems.extend(self.sentinel.problems());
        problems.extend(
            self.coordination
                .problems(self.sentinel.enabled(), &self.sentinel.primary_name),
        );
        let mut urls = vec![("redis.url", self.url.trim())];
        if self.coordination.is_separate() {
            urls.push(("redis.coordination.url", self.coordination.url.trim()));
        }
        problems.extend(
            self.cluster
                .problems(self.sentinel.enabled(), &self.key_prefix, &urls),
        );
        if self.pool_size == 0 {
            problems.push("redis.pool_size: must be at least 1".to_owned());
        }
        if self.command_timeout < Duration::from_millis(1)
            || self.connect_timeout < Duration::from_millis(1)
        {
            problems.push("redis: timeouts must be at least 1ms".to_owned());
        }
        problems
    }
}

fn url_uses_tls(url: &str) -> bool {
    Url::parse(url.trim()).is_ok_and(|url| is_tls_scheme(url.scheme()))
}

/// What is wrong with `url` as the address of a Redis the client can use, naming `key`.
fn url_problems(key: &str, url: &str) -> Vec<String> {
    let url = match Url::parse(url) {
        Ok(url) => url,
        Err(err) => return vec![format!("{key}: not a URL ({err})")],
    };
    let mut problems = Vec::new();
    if !SCHEMES.contains(&url.scheme()) {
        problems.push(format!(
            "{key}: must start with redis://, rediss:// (TLS), valkey:// or valkeys:// (TLS), \
             not {}://",
            url.scheme()
        ));
    }
    if url.password().is_some() {
        problems.push(format!(
            "{key}: must not carry a password (set BFF_REDIS_PASSWORD)"
        ));
    } else if !url.username().is_empty() {
        problems.push(format!(
            "{key}: must not carry a user name (set BFF_REDIS_USERNAME)"
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        problems.push(format!("{key}: names no host"));
    }
    // The client reads `#insecure` as "verify nothing": a certificate check that is off is a
    // mistake to refuse, not a mode to offer.
    if url
        .fragment()
        .is_some_and(|fragment| fragment.contains("insecure"))
    {
        problems.push(format!(
            "{key}: #insecure would turn certificate checks off; give the CA in redis.tls.ca_file"
        ));
    }
    if url.query().is_some_and(|query| query.contains("protocol")) {
        problems.push(format!(
            "{key}: the protocol is chosen by the BFF (RESP2); remove ?protocol="
        ));
    }
    problems
}
