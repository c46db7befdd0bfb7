//! `[redis.sentinel]`: find the primary through Redis Sentinel and follow its failovers. With a
//! `primary_name`, `redis.url` gives the scheme (TLS or not) and the database; its host and port
//! are replaced by the primary the sentinels name, asked again every second and whenever a
//! server answers `READONLY` (an old primary that came back as a replica).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedisSentinelConfig {
    /// The name the sentinels monitor the primary under (`sentinel monitor <name> …`). Empty:
    /// no Sentinel, `redis.url` is the server.
    pub primary_name: String,
    /// The sentinels, `host:port` each (plain TCP; `BFF_REDIS_SENTINEL_PASSWORD` when they ask
    /// for one). Asked in turn until one names the primary.
    pub sentinels: Vec<String>,
}

impl RedisSentinelConfig {
    pub fn enabled(&self) -> bool {
        !self.primary_name.trim().is_empty()
    }

    pub(super) fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !self.enabled() {
            if !self.sentinels.is_empty() {
                problems.push("redis.sentinel.primary_name: required with sentinels".to_owned());
            }
            return problems;
        }
        if self.sentinels.is_empty() {
            problems.push("redis.sentinel.sentinels: at least one host:port".to_owned());
        }
        for sentinel in &self.sentinels {
            let port = sentinel
                .rsplit_once(':')
                .map(|(_, port)| port.parse::<u16>());
            if !matches!(port, Some(Ok(_))) {
                problems.push(format!(
                    "redis.sentinel.sentinels: {sentinel:?} is not host:port"
                ));
            }
        }
        problems
    }
}
