//! Two tiers behind one set of sentinels: the cache tier's primary and the coordination tier's
//! are monitored under names of their own (`[redis.sentinel] primary_name`,
//! `[redis.coordination] primary_name`). The coordination primary dies: that tier follows its
//! own failover, without a restart and without losing a revocation, a failure count or an
//! idempotency key, while the cache tier stays where it was.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::coordination_data::{
    FAILURES_ALLOWED, assert_honoured, coordination_keys, write_coordination_data,
};
use common::redis::{RedisServer, SentinelServer};
use common::replicas::{Replicas, Setup};
use common::sentinels::{addresses, until_sentinels_agree};
use common::{SandboxHooks, TestServer, header};

const CACHE: &str = "storefront-cache";
const COORDINATION: &str = "storefront-coordination";

async fn connected(replica: &TestServer, tier: &str) -> bool {
    replica
        .metrics()
        .await
        .value("bff_redis_connected", &[("tier", tier)])
        == Some(1.0)
}

async fn failovers(replica: &TestServer, tier: &str) -> f64 {
    replica
        .metrics()
        .await
        .value("bff_redis_failovers_total", &[("tier", tier)])
        .unwrap_or(0.0)
}

fn offset(redis: &RedisServer, field: &str) -> Option<u64> {
    redis
        .cli(&["INFO", "replication"])
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{field}:")))
        .and_then(|value| value.trim().parse().ok())
}

/// Waits until `standby` has everything `primary` wrote. The writes a shopper would miss wait
/// for a replica's acknowledgement on their own (`replicas_failover_drill.rs` proves it); the
/// sign-in failure count does not, and this test is about following the failover.
fn until_caught_up(primary: &RedisServer, standby: &RedisServer) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while offset(primary, "master_repl_offset") != offset(standby, "slave_repl_offset") {
        assert!(Instant::now() < deadline, "the standby never caught up");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_coordination_tier_follows_its_own_failover_through_the_same_sentinels() {
    let cache = RedisServer::start();
    let mut coordination = RedisServer::start();
    let standby = RedisServer::start();
    standby.replicate(&coordination);
    let sentinels: Vec<SentinelServer> = (0..3)
        .map(|_| SentinelServer::start_watching(&[(CACHE, &cache), (COORDINATION, &coordination)]))
        .collect();
    until_sentinels_agree(&sentinels, None, CACHE);
    until_sentinels_agree(&sentinels, Some(&standby), COORDINATION);
    let addresses = addresses(&sentinels);
    let replicas = Replicas::start(
        Setup {
            replicas: 3,
            // The scheme and database only: the sentinels name the servers.
            redis_url: "redis://127.0.0.1:1/0".to_owned(),
            access_token_ttl_seconds: 900,
        },
        |config| {
            config.redis.sentinel.primary_name = CACHE.to_owned();
            config.redis.sentinel.sentinels = addresses.clone();
            config.redis.coordination.url = "redis://127.0.0.1:1/0".to_owned();
            config.redis.coordination.primary_name = COORDINATION.to_owned();
            config.redis.l2_max_bytes = 0;
            config.rate_limit.sign_in_failures_per_account = FAILURES_ALLOWED;
        },
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    for replica in &replicas.replicas {
        while !(connected(replica, "cache").await && connected(replica, "coordination").await) {
            assert!(
                Instant::now() < deadline,
                "{}: never connected to both primaries",
                replica.base
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    let written = write_coordination_data(&replicas).await;
    let prefix = &replicas.key_prefix;
    assert!(
        coordination_keys(&coordination, prefix).len() >= 3,
        "the coordination data went to the coordination tier's primary"
    );
    assert!(
        coordination_keys(&cache, prefix).is_empty(),
        "and none to the cache tier's: {:?}",
        coordination_keys(&cache, prefix)
    );
    replicas.replicas[0].get("/api/pages/home").await;
    let shared = replicas.replicas[1].get("/api/pages/home").await;
    assert!(header(&shared, "cache-status").starts_with("bff-l2; hit"));

    until_caught_up(&coordination, &standby);
    coordination.stop();
    let deadline = Instant::now() + Duration::from_secs(30);
    while sentinels[0].primary_port(COORDINATION) != Some(standby.port) {
        assert!(
            Instant::now() < deadline,
            "the sentinels never promoted the coordination standby"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let promoted = Instant::now();
    for replica in &replicas.replicas {
        while !(connected(replica, "coordination").await
            && failovers(replica, "coordination").await >= 1.0)
        {
            assert!(
                promoted.elapsed() < Duration::from_secs(10),
                "{}: not on the new coordination primary within 10 s",
                replica.base
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    eprintln!(
        "coordination failover: every replica on the new primary {:?} after the promotion",
        promoted.elapsed()
    );

    assert_honoured(&replicas, &written).await;
    assert!(coordination_keys(&standby, prefix).len() >= 3);
    for replica in &replicas.replicas {
        assert_eq!(
            failovers(replica, "cache").await,
            0.0,
            "{}: the cache tier did not move",
            replica.base
        );
        assert!(connected(replica, "cache").await);
    }
    replicas.stop().await;
}
