//! The rollout window shared through a real Redis: every replica of a build counts from the
//! build's first start, and one admin call closes the window on all of them.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::redis::RedisServer;
use common::replicas::{Replicas, SHARED_SECRETS, Setup};
use serde_json::Value;

const OLD_ASSET: &str = "/assets/index-Old00000.js";

fn admin_token() -> &'static str {
    SHARED_SECRETS
        .iter()
        .find(|(key, _)| *key == "BFF_ADMIN_TOKEN")
        .map(|(_, value)| *value)
        .unwrap()
}

async fn window(replica: &common::TestServer) -> Value {
    replica
        .client
        .get(format!("{}/admin/web/rollout", replica.admin))
        .bearer_auth(admin_token())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn replicas_of_one_build_share_the_window_s_start_and_its_closing() {
    let redis = RedisServer::start();
    let previous = tempfile::TempDir::new().unwrap();
    std::fs::create_dir_all(previous.path().join("assets")).unwrap();
    std::fs::write(previous.path().join("assets/index-Old00000.js"), "old();").unwrap();
    let dirs = vec![previous.path().to_owned()];
    let first = Replicas::start(Setup::on(redis.url(), 1), |config| {
        config.web.previous_dist_dirs.clone_from(&dirs)
    })
    .await;
    // a second replica of the same build, a moment later, on the same Redis prefix
    tokio::time::sleep(Duration::from_millis(300)).await;
    let prefix = first.key_prefix.clone();
    let second = Replicas::start(Setup::on(redis.url(), 1), |config| {
        config.web.previous_dist_dirs.clone_from(&dirs);
        config.redis.key_prefix.clone_from(&prefix);
    })
    .await;
    let (a, b) = (&first.replicas[0], &second.replicas[0]);

    // the start is the first replica's, shared (polled: the start is recorded in the background)
    let deadline = Instant::now() + Duration::from_secs(10);
    let (one, two) = loop {
        let (one, two) = (window(a).await, window(b).await);
        if one["shared"] == true && two["shared"] == true {
            break (one, two);
        }
        assert!(Instant::now() < deadline, "never shared: {one} {two}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(one["started_at_ms"], two["started_at_ms"], "{one} {two}");
    assert_eq!(one["open"], true);
    for replica in [a, b] {
        assert_eq!(replica.get(OLD_ASSET).await.status(), 200);
    }

    // one call on one replica closes the window on both
    let closed = a
        .client
        .post(format!("{}/admin/web/rollout/close", a.admin))
        .bearer_auth(admin_token())
        .send()
        .await
        .unwrap();
    assert_eq!(closed.status(), 200);
    assert_eq!(a.get(OLD_ASSET).await.status(), 404);
    let deadline = Instant::now() + Duration::from_secs(10);
    while b.get(OLD_ASSET).await.status() != 404 {
        assert!(
            Instant::now() < deadline,
            "the other replica kept serving it"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(window(b).await["closed"], true);

    first.stop().await;
    second.stop().await;
}
