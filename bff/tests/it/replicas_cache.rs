//! Three replicas, one sandbox, one real Redis: the shared cache tier, cross-replica
//! coalescing and purge fan-out. Waits are bounded polls, never timing assertions.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::SandboxHooks;
use common::header;
use common::redis::RedisServer;
use common::replicas::{Replicas, Setup, admin_purge};
use common::shared_tier::{
    self, PAGE_ROUTE, events, lists_positions, secret, set_variant, until_positions, warm_about,
};
use serde_json::{Value, json};

async fn three(redis: &RedisServer) -> Replicas {
    Replicas::start(Setup::on(redis.url(), 3), |_| {}).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_replica_reports_redis_in_its_readiness() {
    let redis = RedisServer::start();
    let replicas = three(&redis).await;
    for replica in &replicas.replicas {
        let report: Value = replica.get("/readyz").await.json().await.unwrap();
        assert_eq!(report["ready"], true, "{report}");
        assert_eq!(report["redis"], true, "{report}");
    }
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_hundred_cold_requests_spread_over_three_replicas_make_one_upstream_call() {
    let redis = RedisServer::start();
    let replicas = three(&redis).await;
    shared_tier::a_cold_stampede_makes_one_upstream_call(&replicas).await;
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_entry_filled_on_one_replica_is_an_l2_hit_on_the_others() {
    let redis = RedisServer::start();
    let replicas = three(&redis).await;
    shared_tier::an_entry_filled_on_one_replica_is_an_l2_hit_on_the_others(&replicas).await;
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_purge_on_one_replica_reaches_every_replica_with_fresh_content() {
    let redis = RedisServer::start();
    let replicas = three(&redis).await;
    shared_tier::a_purge_on_one_replica_reaches_every_replica(&replicas).await;
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_publish_webhook_on_one_replica_reaches_every_replica_with_fresh_content() {
    let redis = RedisServer::start();
    let replicas = three(&redis).await;
    warm_about(&replicas).await;
    set_variant(&replicas, "no-positions").await;
    let hook = replicas.replicas[1]
        .client
        .post(format!("{}/admin/webhooks/content", replicas.replicas[1].admin))
        .bearer_auth(secret("BFF_WEBHOOK_SECRET"))
        .json(&json!({"event": "entry.publish", "model": "page", "entry": {"id": 3, "name": "aboutus"}}))
        .send()
        .await
        .unwrap();
    assert_eq!(hook.status(), 200);
    for replica in &replicas.replicas {
        until_positions(replica, false).await;
    }
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_purge_made_while_redis_was_down_reaches_l2_and_every_replica_when_it_returns() {
    let mut redis = RedisServer::start();
    let replicas = three(&redis).await;
    warm_about(&replicas).await;
    set_variant(&replicas, "no-positions").await;
    redis.stop();
    // Every replica still answers at once from its L1.
    for replica in &replicas.replicas {
        let (positions, status) = lists_positions(replica).await;
        assert!(positions, "{}: {status}", replica.base);
    }
    let purge = admin_purge(&replicas.replicas[0], &json!({"tags": ["page:aboutus"]})).await;
    // Applied here, kept for replay, and not claimed as done everywhere.
    assert_eq!(purge.status(), 202, "a purge works without Redis");
    let answer: serde_json::Value = purge.json().await.unwrap();
    assert_eq!(answer["fanOut"], "pending", "{answer}");
    assert!(!lists_positions(&replicas.replicas[0]).await.0);
    redis.resume();
    // Knowing the channel lost, the others served their copy as stale only and revalidated
    // it; on rejoining they drop L1 (they may have missed purges), and the kept purge
    // outdates the L2 copy, so none of them serves the purged page again.
    for replica in &replicas.replicas {
        until_positions(replica, false).await;
    }
    let rejoined = Instant::now();
    while events(&replicas, "purge_resubscribed").await < 3.0 {
        assert!(
            rejoined.elapsed() < Duration::from_secs(10),
            "not every replica joined the purge channel again"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for replica in &replicas.replicas {
        let (positions, status) = lists_positions(replica).await;
        assert!(!positions, "{}: {status}", replica.base);
    }
    let errors = replicas.replicas[0].metrics().await;
    assert!(
        errors
            .value("bff_redis_errors_total", &[("operation", "cache_l2_purge")])
            .unwrap_or(0.0)
            >= 1.0
    );
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_replica_that_finds_a_stale_entry_in_l2_serves_it_and_one_revalidation_runs() {
    let redis = RedisServer::start();
    let replicas = Replicas::start(Setup::on(redis.url(), 3), |config| {
        config.cache.pages = bff::cache::CachePolicy {
            ttl: Duration::from_millis(300),
            stale_while_revalidate: Duration::from_millis(60_000),
            stale_if_error: Duration::from_millis(60_000),
            jitter: 0.0,
            ..bff::cache::CachePolicy::default()
        };
    })
    .await;
    let first = replicas.replicas[0].get("/api/pages/home").await;
    assert!(header(&first, "cache-status").contains("detail=miss"));
    tokio::time::sleep(Duration::from_millis(400)).await;
    // A slow upstream keeps the revalidation running while both replicas ask.
    replicas.replicas[0]
        .inject_fault(json!({"route": PAGE_ROUTE, "latencyMs": 500}))
        .await;
    // Replicas 1 and 2 have no L1 entry: they find the stale one in L2.
    for replica in &replicas.replicas[1..] {
        let answer = replica.get("/api/pages/home").await;
        assert_eq!(answer.status(), 200);
        assert!(
            header(&answer, "cache-status").contains("detail=stale"),
            "{}",
            header(&answer, "cache-status")
        );
    }
    assert!(events(&replicas, "l2_stale").await >= 1.0);
    // One revalidation in the background, whoever ran it.
    let deadline = Instant::now() + Duration::from_secs(5);
    while replicas.replicas[0].upstream_calls(PAGE_ROUTE).await < 2 {
        assert!(Instant::now() < deadline, "no revalidation ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Past the slow revalidation: the other replica's waited for it instead of fetching.
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        replicas.replicas[0].upstream_calls(PAGE_ROUTE).await,
        2,
        "one revalidation for all replicas"
    );
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn search_answers_stay_out_of_the_shared_tier() {
    let redis = RedisServer::start();
    let replicas = three(&redis).await;
    for replica in &replicas.replicas[..2] {
        let answer = replica.get("/api/search?q=summit").await;
        assert_eq!(answer.status(), 200);
        assert!(
            header(&answer, "cache-status").starts_with("bff; fwd=uri-miss"),
            "each replica searches on its own: {}",
            header(&answer, "cache-status")
        );
    }
    let pattern = format!("{}cache:entry:search:*", replicas.key_prefix);
    assert_eq!(redis.cli(&["--scan", "--pattern", &pattern]), "");
    assert_eq!(
        events(&replicas, "fill_lock_acquired").await,
        1.0,
        "the price map"
    );
    replicas.stop().await;
}
