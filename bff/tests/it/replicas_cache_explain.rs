//! Explain across replicas on a real Redis: an L2 value names the replica that filled it, and
//! a replica that never held a key a purge outdated in L2 misses it as `outdated_in_l2`.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::TestServer;
use common::metrics::Scrape;
use common::redis::RedisServer;
use common::replicas::{Replicas, Setup, admin_purge};
use common::shared_tier::secret;
use serde_json::{Value, json};

async fn explain(replica: &TestServer, url: &str) -> Value {
    replica
        .client
        .get(format!("{}/admin/cache/explain?url={url}", replica.admin))
        .bearer_auth(secret("BFF_ADMIN_TOKEN"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn outdated_misses(replica: &TestServer) -> f64 {
    let text = replica
        .client
        .get(format!("{}/metrics", replica.admin))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    Scrape::parse(&text)
        .value(
            "bff_cache_misses_total",
            &[("route", "pages"), ("reason", "outdated_in_l2")],
        )
        .unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_l2_value_names_its_filler_and_a_purge_outdates_it_for_the_replica_that_never_held_it() {
    let redis = RedisServer::start();
    let replicas = Replicas::start(Setup::on(redis.url(), 2), |_| {}).await;
    let (filler, other) = (&replicas.replicas[0], &replicas.replicas[1]);
    assert_eq!(filler.get("/api/pages/home").await.status(), 200);
    let filler_id = explain(filler, "/api/pages/home").await["replica"].clone();

    let seen = explain(other, "/api/pages/home").await;
    let key = &seen["keys"][0];
    assert_eq!(key["replicas"][0]["l1"]["missReason"], "cold", "{seen}");
    assert_eq!(key["l2"]["present"], true, "{seen}");
    assert_eq!(key["l2"]["current"], true, "{seen}");
    assert_eq!(key["l2"]["filledBy"], filler_id, "{seen}");
    assert!(key["l2"]["filledAtUnixMs"].as_u64().unwrap() > 0, "{seen}");
    assert!(
        key["l2"]["tags"]
            .as_array()
            .unwrap()
            .contains(&json!("page:home")),
        "{seen}"
    );

    assert_eq!(
        admin_purge(filler, &json!({"tags": ["page:home"]}))
            .await
            .status(),
        200
    );
    let seen = explain(other, "/api/pages/home").await;
    assert_eq!(seen["keys"][0]["l2"]["current"], false, "{seen}");
    let before = outdated_misses(other).await;
    assert_eq!(other.get("/api/pages/home").await.status(), 200);
    assert_eq!(outdated_misses(other).await, before + 1.0);
    replicas.stop().await;
}
