//! Sentinels that agree before a test relies on them: each knows the other two and the standby,
//! so a failover can be elected as soon as the primary goes away.

use std::time::{Duration, Instant};

use super::redis::{RedisServer, SentinelServer};

/// Waits (15 s at most) until every sentinel watching `name` knows the others and `standby`
/// (when the primary has one).
pub fn until_sentinels_agree(
    sentinels: &[SentinelServer],
    standby: Option<&RedisServer>,
    name: &str,
) {
    let deadline = Instant::now() + Duration::from_secs(15);
    for sentinel in sentinels {
        loop {
            let others = sentinel.cli(&["SENTINEL", "SENTINELS", name]);
            let replicas = sentinel.cli(&["SENTINEL", "REPLICAS", name]);
            let known = others.matches("runid").count();
            let knows_standby =
                standby.is_none_or(|standby| replicas.contains(&standby.port.to_string()));
            if known + 1 >= sentinels.len() && knows_standby {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "sentinels never agreed on {name}: {others}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// `host:port` of each sentinel, as `[redis.sentinel] sentinels` lists them.
pub fn addresses(sentinels: &[SentinelServer]) -> Vec<String> {
    sentinels
        .iter()
        .map(|sentinel| format!("127.0.0.1:{}", sentinel.port))
        .collect()
}
