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
use common::replicas::{Replicas, SHARED_SECRETS, Setup};
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
    let replicas = Replicas::start(
        Setup {
            replicas: 2,
            redis_url: primary.url(),
            access_token_ttl_seconds: 900,
        },
        |_| {},
    )
    .await;
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
    let purge = replicas.replicas[0]
        .client
        .post(format!("{}/admin/cache/purge", replicas.replicas[0].admin))
        .bearer_auth(SHARED_SECRETS[1].1)
        .json(&json!({"tags": ["page:aboutus"]}))
        .send()
        .await
        .unwrap();
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
        let errors = redis_errors(replica).await;
        let (positions, status) = lists_positions(replica).await;
        assert!(!status.starts_with("bff; hit"), "read past L1: {status}");
        assert_eq!(redis_errors(replica).await, errors, "L2 answered the read");
        assert!(
            !positions,
            "{}: the purged page served ({status})",
            replica.base
        );
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
