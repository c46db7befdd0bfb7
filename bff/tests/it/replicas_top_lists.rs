//! The top lists in the fleet, on a real Redis: each replica's heartbeat carries its lists, and
//! `GET /admin/fleet` merges those of the live replicas (this one's as of now).

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use crate::common;

use common::TestServer;
use common::redis::RedisServer;
use common::replicas::{Replicas, Setup};
use common::shared_tier::secret;
use serde_json::Value;

const PAGE: &str = "/api/pages/home";
const TAG: &str = "page:home";

async fn fleet(replica: &TestServer) -> Value {
    replica
        .client
        .get(format!("{}/admin/fleet", replica.admin))
        .bearer_auth(secret("BFF_ADMIN_TOKEN"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// `(hits, misses)` of `TAG` in `list` of `lists`, if listed.
fn figures(lists: &Value, list: &str) -> Option<(u64, u64)> {
    let counted = lists[list]
        .as_array()?
        .iter()
        .find(|counted| counted["name"] == TAG)?;
    Some((counted["hits"].as_u64()?, counted["misses"].as_u64()?))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_fleet_merges_the_top_lists_of_two_replicas() {
    let redis = RedisServer::start();
    let replicas = Replicas::start(Setup::on(redis.url(), 2), |config| {
        config.fleet.heartbeat_interval = Duration::from_millis(200)
    })
    .await;
    let (first, second) = (&replicas.replicas[0], &replicas.replicas[1]);
    // The first misses (cold) and hits twice; the second finds it in L2 (a hit) and hits once.
    for replica in [first, first, first, second, second] {
        assert_eq!(replica.get(PAGE).await.status(), 200);
    }

    // The second's lists reach the first through its heartbeats.
    let deadline = Instant::now() + Duration::from_secs(15);
    let view = loop {
        let view = fleet(first).await;
        if figures(&view["topLists"], "hitTags") == Some((4, 1)) {
            break view;
        }
        assert!(
            Instant::now() < deadline,
            "the fleet never merged both replicas' lists: {:#}",
            view["topLists"]
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let merged = &view["topLists"];
    assert_eq!(figures(merged, "tags"), Some((4, 1)), "{merged:#}");
    let tag = merged["hitTags"]
        .as_array()
        .unwrap()
        .iter()
        .find(|counted| counted["name"] == TAG)
        .unwrap();
    assert_eq!(tag["hitRatio"], 0.8, "{merged:#}");
    // Each replica's own lists are in its entry.
    let own: Vec<Option<(u64, u64)>> = view["replicas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|member| figures(&member["topLists"], "hitTags"))
        .collect();
    assert_eq!(own.len(), 2, "{view:#}");
    assert!(
        own.contains(&Some((2, 1))) && own.contains(&Some((2, 0))),
        "{own:?}"
    );
    replicas.stop().await;
}
