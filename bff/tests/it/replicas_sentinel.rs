//! Redis Sentinel: the replicas find the primary through three sentinels, follow a failover
//! without a restart, and never write to the old primary once it is back.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::SandboxHooks;
use common::redis::{RedisServer, SentinelServer};
use common::replicas::{Replicas, Setup, admin_purge};
use common::sentinels::{addresses, until_sentinels_agree};
use common::{TestServer, header};
use serde_json::json;

const NAME: &str = "storefront";

async fn connected(replica: &TestServer) -> bool {
    replica
        .metrics()
        .await
        .value("bff_redis_connected", &[("tier", "cache")])
        == Some(1.0)
}

/// Whether a page filled on `replicas[0]` is an L2 hit on `replicas[1]` (a fresh page each
/// time: `attempt` names it).
async fn shared(replicas: &Replicas, attempt: usize) -> bool {
    let pages = bff::content::PAGE_NAMES;
    let page = format!("/api/pages/{}", pages[attempt % pages.len()]);
    let filled = replicas.replicas[0].get(&page).await;
    let filled = header(&filled, "cache-status").contains("stored");
    let elsewhere = replicas.replicas[1].get(&page).await;
    let hit = header(&elsewhere, "cache-status").starts_with("bff-l2; hit");
    if !(filled && hit) {
        // Not stored while the connections moved: outdate it everywhere and try another.
        admin_purge(&replicas.replicas[0], &json!({"all": true})).await;
    }
    filled && hit
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn through_sentinel_the_replicas_follow_a_failover_without_a_restart() {
    let mut primary = RedisServer::start();
    let standby = RedisServer::start();
    standby.replicate(&primary);
    let sentinels: Vec<SentinelServer> = (0..3)
        .map(|_| SentinelServer::start(NAME, &primary))
        .collect();
    until_sentinels_agree(&sentinels, Some(&standby), NAME);
    let addresses = addresses(&sentinels);
    let replicas = Replicas::start(
        Setup {
            replicas: 2,
            // The scheme and database only: the sentinels name the server.
            redis_url: "redis://127.0.0.1:1/0".to_owned(),
            access_token_ttl_seconds: 900,
        },
        |config| {
            config.redis.sentinel.primary_name = NAME.to_owned();
            config.redis.sentinel.sentinels = addresses.clone();
        },
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut attempt = 0;
    while !(connected(&replicas.replicas[0]).await && shared(&replicas, attempt).await) {
        assert!(
            Instant::now() < deadline,
            "never shared through the primary"
        );
        attempt += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    primary.stop();
    let deadline = Instant::now() + Duration::from_secs(30);
    while sentinels[0].primary_port(NAME) != Some(standby.port) {
        assert!(
            Instant::now() < deadline,
            "the sentinels never promoted the standby"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let promoted = Instant::now();
    loop {
        attempt += 1;
        let both = connected(&replicas.replicas[0]).await && connected(&replicas.replicas[1]).await;
        if both && shared(&replicas, attempt).await {
            break;
        }
        assert!(
            promoted.elapsed() < Duration::from_secs(10),
            "L2 not back within 10 s of the promotion"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!(
        "sentinel failover: connected and L2 hits again {:?} after the promotion",
        promoted.elapsed()
    );
    for replica in &replicas.replicas {
        let failovers = replica
            .metrics()
            .await
            .value("bff_redis_failovers_total", &[("tier", "cache")]);
        assert!(failovers >= Some(1.0), "{}: {failovers:?}", replica.base);
    }

    // The old primary comes back (empty, as a primary, until the sentinels demote it): no
    // replica connects to it, so it receives no write.
    primary.resume();
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    attempt += 1;
    shared(&replicas, attempt).await;
    let clients = primary.cli(&["CLIENT", "LIST"]);
    let ours: Vec<&str> = clients
        .lines()
        // Leaving out its replication link, the sentinels' own connections and this one.
        .filter(|line| {
            !line.contains("flags=M")
                && !line.contains("name=sentinel-")
                && !line.contains("cmd=client")
        })
        .collect();
    assert!(ours.is_empty(), "connections to the old primary: {ours:?}");
    replicas.stop().await;
}
