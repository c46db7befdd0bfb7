//! A failover that loses a purge. Replication is asynchronous: a primary that dies right after a
//! purge may take the purge's version write with it, and the promoted replica answers the
//! versions of before the purge, under which the purged entry is current again. The replicas
//! remember the versions they have seen and restore one that went back, so the purged entry is
//! never served as fresh.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::SandboxHooks;
use common::redis::RedisServer;
use common::replicas::{Replicas, Setup, admin_purge};
use common::{TestServer, header};
use serde_json::{Value, json};

const ABOUT: &str = "/api/pages/aboutus";

/// Whether `replica`'s About Us lists open positions (the purged content does), and its
/// Cache-Status.
async fn lists_positions(replica: &TestServer) -> (bool, String) {
    let answer = replica.get(ABOUT).await;
    assert_eq!(answer.status(), 200);
    let status = header(&answer, "cache-status").to_owned();
    let page: Value = answer.json().await.unwrap();
    let positions = page["lookingForListContent"].as_array().map_or(0, Vec::len);
    (positions > 0, status)
}

/// Every Redis error `replica` counted.
async fn redis_errors(replica: &TestServer) -> f64 {
    let scrape = replica.metrics().await;
    scrape
        .samples()
        .iter()
        .filter(|sample| sample.name == "bff_redis_errors_total")
        .map(|sample| sample.value)
        .sum()
}

/// Asks `replica` for other pages until one is answered without a Redis error (each pooled
/// connection finds the new server on its first command after the old one went away).
async fn until_redis_answers(replica: &TestServer) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut pages = bff::content::PAGE_NAMES
        .iter()
        .filter(|name| **name != "aboutus")
        .cycle();
    let mut clean = 0;
    while clean < 2 {
        assert!(
            Instant::now() < deadline,
            "{}: Redis errors go on",
            replica.base
        );
        let before = redis_errors(replica).await;
        let page = pages.next().unwrap();
        replica.get(&format!("/api/pages/{page}")).await;
        clean = if redis_errors(replica).await == before {
            clean + 1
        } else {
            0
        };
    }
}

async fn event(replica: &TestServer, event: &str) -> f64 {
    replica
        .metrics()
        .await
        .value("bff_redis_events_total", &[("event", event)])
        .unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_purge_whose_version_write_a_failover_lost_never_lets_the_purged_entry_be_served_fresh() {
    let mut primary = RedisServer::start();
    let standby = RedisServer::start();
    standby.replicate(&primary);
    let replicas = Replicas::start(Setup::on(primary.url(), 2), |_| {}).await;
    let entry = format!("{}cache:entry:pages:aboutus", replicas.key_prefix);
    for replica in &replicas.replicas {
        lists_positions(replica).await;
        let (positions, status) = lists_positions(replica).await;
        assert!(positions && status.contains("detail=hit"), "{status}");
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while standby.cli(&["EXISTS", &entry]) != "1" {
        assert!(
            Instant::now() < deadline,
            "the entry never reached the standby"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // From here the standby takes nothing more: the purge below lives on the primary alone.
    assert_eq!(standby.cli(&["REPLICAOF", "NO", "ONE"]), "OK");
    let variant = reqwest::Client::new()
        .put(format!(
            "{}/sandbox/pages/aboutus/variant",
            replicas.sandbox
        ))
        .json(&json!({"variant": "no-positions"}))
        .send()
        .await
        .unwrap();
    assert!(variant.status().is_success());
    let purge = admin_purge(&replicas.replicas[0], &json!({"tags": ["page:aboutus"]})).await;
    assert_eq!(purge.status(), 200);
    for replica in &replicas.replicas {
        let deadline = Instant::now() + Duration::from_secs(5);
        while lists_positions(replica).await.0 {
            assert!(
                Instant::now() < deadline,
                "{}: purge not applied",
                replica.base
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let resubscribed_before = [
        event(&replicas.replicas[0], "purge_resubscribed").await,
        event(&replicas.replicas[1], "purge_resubscribed").await,
    ];

    // The primary dies before replicating the purge; its address comes back holding the
    // standby's copy, promoted (as a managed Redis moves its primary endpoint).
    primary.stop();
    let standby_port = standby.port.to_string();
    primary.set_args(&["--replicaof", "127.0.0.1", &standby_port]);
    primary.resume();
    primary.until_in_sync();
    assert_eq!(primary.cli(&["REPLICAOF", "NO", "ONE"]), "OK");
    let tag_version = format!("{}cache:tagv:page:aboutus", replicas.key_prefix);
    assert_eq!(
        primary.cli(&["GET", &tag_version]),
        "",
        "the purge's version is lost"
    );
    assert_eq!(
        primary.cli(&["EXISTS", &entry]),
        "1",
        "the purged entry is back"
    );

    // Each replica rejoins the purge channel and drops its L1: its next reads go to L2, where
    // the purged entry is current under the versions Redis now answers.
    for (index, replica) in replicas.replicas.iter().enumerate() {
        let deadline = Instant::now() + Duration::from_secs(10);
        while event(replica, "purge_resubscribed").await <= resubscribed_before[index] {
            assert!(Instant::now() < deadline, "{} never rejoined", replica.base);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        until_redis_answers(replica).await;
        // L1 is dropped within a second of rejoining (jitter): until then it serves the page
        // it had, without positions; the first answer past it reads L2.
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let errors = redis_errors(replica).await;
            let (positions, status) = lists_positions(replica).await;
            assert!(
                !positions,
                "{}: the purged page served ({status})",
                replica.base
            );
            if !status.starts_with("bff; hit") {
                assert_eq!(redis_errors(replica).await, errors, "L2 answered the read");
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{}: L1 never dropped",
                replica.base
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for _ in 0..10 {
            let (positions, status) = lists_positions(replica).await;
            assert!(
                !positions,
                "{}: the purged page served ({status})",
                replica.base
            );
        }
    }
    let restored = event(&replicas.replicas[0], "version_restored").await
        + event(&replicas.replicas[1], "version_restored").await;
    assert!(restored >= 1.0, "a replica restored the version");
    let keys = primary.cli(&[
        "--scan",
        "--pattern",
        &format!("{}cache:*", replicas.key_prefix),
    ]);
    let version: u64 = primary
        .cli(&["GET", &tag_version])
        .parse()
        .unwrap_or_else(|_| panic!("{keys}"));
    assert!(version >= 1, "the version is back up: {version}");
    replicas.stop().await;
}

/// `POST /admin/cache/purge` of `tag` on `replica`: its answer's `replication`, and how long
/// the purge took.
async fn purge(replica: &TestServer, tag: &str) -> (String, Duration) {
    let started = Instant::now();
    let answer = admin_purge(replica, &json!({"tags": [tag]})).await;
    assert_eq!(answer.status(), 200);
    let body: Value = answer.json().await.unwrap();
    (
        body["replication"].as_str().unwrap_or_default().to_owned(),
        started.elapsed(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_purge_waits_for_a_replica_and_says_when_none_acknowledged_it() {
    let primary = RedisServer::start();
    let replicas = Replicas::start(Setup::on(primary.url(), 1), |_| {}).await;
    let replica = &replicas.replicas[0];
    assert_eq!(purge(replica, "page:home").await.0, "no_replicas");

    let standby = RedisServer::start();
    standby.replicate(&primary);
    // The replica learns of the standby within a second (it asks INFO replication).
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (replication, _) = purge(replica, "page:home").await;
        if replication == "acknowledged" {
            break;
        }
        // Until the replica knows of the standby, or while the standby's sync finishes.
        assert!(
            ["no_replicas", "unacknowledged"].contains(&replication.as_str()),
            "{replication}"
        );
        assert!(
            Instant::now() < deadline,
            "never acknowledged: {}",
            primary.cli(&["INFO", "replication"])
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The p99 of a purge with its acknowledgement, on loopback, through the admin API.
    let mut took: Vec<Duration> = Vec::new();
    for _ in 0..100 {
        let (replication, elapsed) = purge(replica, "page:faq").await;
        assert_eq!(replication, "acknowledged");
        took.push(elapsed);
    }
    took.sort();
    let observed = replica.metrics().await.histogram_count(
        "bff_redis_command_duration_seconds",
        &[("operation", "cache_l2_purge")],
    );
    assert!(
        observed >= Some(100),
        "each purge's command timed: {observed:?}"
    );
    eprintln!(
        "purge with WAIT on loopback: p50 {:?}, p99 {:?}",
        took[49], took[98]
    );

    // A stalled standby acknowledges nothing: the purge stands, and says so.
    let unacknowledged = |scrape: &common::metrics::Scrape| {
        scrape
            .value(
                "bff_redis_unacknowledged_writes_total",
                &[("operation", "cache_l2_purge")],
            )
            .unwrap_or(0.0)
    };
    let before = unacknowledged(&replica.metrics().await);
    standby.freeze(true);
    let (replication, _) = purge(replica, "page:warranty").await;
    standby.freeze(false);
    assert_eq!(replication, "unacknowledged");
    assert_eq!(unacknowledged(&replica.metrics().await), before + 1.0);
    let version = primary.cli(&[
        "GET",
        &format!("{}cache:tagv:page:warranty", replicas.key_prefix),
    ]);
    assert!(!version.is_empty(), "the purge was applied all the same");
    replicas.stop().await;
}
