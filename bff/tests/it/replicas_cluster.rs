//! Redis Cluster mode: three replicas on a three-primary cluster (real `redis-server`s made
//! one with `redis-cli --cluster create`) pass the replicas' suite's focused subset: stampede,
//! L2, purge fan-out, checkout idempotency and sign-out revocation. Each check gets replicas of
//! its own (their own key prefix) on the one cluster. Scripts declaring keys of two slots, or
//! a command sent to the wrong node, would answer an error: each check also wants none in
//! `bff_redis_errors_total`.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::SandboxHooks;
use common::redis::ClusterServer;
use common::replicas::{Replicas, Setup};
use common::shared_tier;

async fn three(cluster: &ClusterServer) -> Replicas {
    Replicas::start(Setup::on(cluster.url(), 3), |config| {
        config.redis.cluster.enabled = true
    })
    .await
}

/// No Redis command failed on any replica (a `CROSSSLOT` or a misrouted command would).
async fn without_redis_errors(replicas: &Replicas) {
    for replica in &replicas.replicas {
        let errors = replica.metrics().await.value("bff_redis_errors_total", &[]);
        assert_eq!(errors, None, "{}: Redis errors on a cluster", replica.base);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_a_three_primary_cluster_the_replicas_share_fills_purges_orders_and_sign_outs() {
    let started = std::time::Instant::now();
    let cluster = ClusterServer::start();
    eprintln!("cluster: 3 primaries ok after {:?}", started.elapsed());

    let replicas = three(&cluster).await;
    shared_tier::a_cold_stampede_makes_one_upstream_call(&replicas).await;
    without_redis_errors(&replicas).await;
    replicas.stop().await;

    let replicas = three(&cluster).await;
    shared_tier::an_entry_filled_on_one_replica_is_an_l2_hit_on_the_others(&replicas).await;
    without_redis_errors(&replicas).await;
    // L2's keys (entries, versions) share the `{cache}` hash tag: one slot, one primary.
    let cache_keys = cluster.keys(&format!("{}{{cache}}:*", replicas.key_prefix));
    assert!(
        cache_keys.iter().any(|(_, key)| key.contains(":entry:")),
        "{cache_keys:?}"
    );
    let holder = cluster
        .node_of(&format!("{}{{cache}}:epoch", replicas.key_prefix))
        .port;
    assert!(
        cache_keys.iter().all(|(port, _)| *port == holder),
        "L2 spread over several primaries: {cache_keys:?}"
    );
    replicas.stop().await;

    let replicas = three(&cluster).await;
    shared_tier::a_purge_on_one_replica_reaches_every_replica(&replicas).await;
    without_redis_errors(&replicas).await;
    replicas.stop().await;

    let replicas = three(&cluster).await;
    shared_tier::a_checkout_retried_on_other_replicas_places_one_order(&replicas).await;
    without_redis_errors(&replicas).await;
    // One answer, on the primary that owns its key's slot, kept for 10 minutes.
    let keys = cluster.keys(&format!("{}idempotency:*", replicas.key_prefix));
    assert_eq!(keys.len(), 1, "{keys:?}");
    let node = cluster.node_of(&keys[0].1);
    assert_eq!(node.port, keys[0].0);
    let ttl_ms: u64 = node.cli(&["PTTL", &keys[0].1]).parse().unwrap();
    assert!((590_000..=600_000).contains(&ttl_ms), "{ttl_ms}");
    replicas.stop().await;

    let replicas = three(&cluster).await;
    shared_tier::a_cookie_replayed_after_sign_out_is_signed_out_everywhere(&replicas).await;
    let revoked = cluster.keys(&format!("{}session:revoked:*", replicas.key_prefix));
    assert_eq!(revoked.len(), 1, "{revoked:?}");
    replicas.stop().await;
    eprintln!("cluster test: {:?} in all", started.elapsed());
}
