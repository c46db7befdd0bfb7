//! Soft and hard purges: after a soft purge the next requests are served stale
//! (`Cache-Status: ...; detail=stale`) while exactly one refresh reaches the upstream, in L1 and
//! through L2 on another replica; after a hard purge the next request is a miss.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use bff::cache::CachePolicy;
use bff::config::Config;
use serde_json::{Value, json};

use crate::common::SandboxHooks;
use crate::common::in_process::{Answer, InProcess, start_with_secrets};
use crate::common::redis::RedisServer;
use crate::common::test_config;

const PAGE_ROUTE: &str = "/strapi/page/{name}";
const ADMIN_TOKEN: &str = "soft-purge-admin-token";
const SECRETS: &[(&str, &str)] = &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)];

fn config(redis: &str, prefix: &str) -> Config {
    let mut config = test_config();
    config.cache.pages = CachePolicy {
        ttl: Duration::from_secs(60),
        stale_while_revalidate: Duration::from_secs(60),
        stale_if_error: Duration::ZERO,
        jitter: 0.0,
        ..CachePolicy::default()
    };
    config.redis.url = redis.to_owned();
    config.redis.key_prefix = prefix.to_owned();
    config.redis.command_timeout = crate::common::BUSY_MACHINE_REDIS_TIMEOUT;
    config
}

fn detail(answer: &Answer) -> String {
    answer
        .header("cache-status")
        .split("; ")
        .find_map(|part| part.strip_prefix("detail="))
        .unwrap_or("none")
        .to_owned()
}

async fn purge(app: &InProcess, body: Value) -> Value {
    let answer = app
        .admin_post("/admin/cache/purge", ADMIN_TOKEN, &body)
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text());
    answer.json()
}

/// The upstream calls for pages once they stop moving (the refresh runs in the background):
/// after `at_least`, and long enough for a second refresh, were one to start.
async fn settled_calls(app: &InProcess, at_least: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(5);
    while app.upstream_calls(PAGE_ROUTE).await < at_least && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    app.upstream_calls(PAGE_ROUTE).await
}

#[tokio::test]
async fn a_soft_purge_serves_stale_while_one_refresh_runs_and_a_hard_purge_misses() {
    let redis = RedisServer::start();
    let prefix = format!("soft-{}:", uuid::Uuid::new_v4());
    let first = start_with_secrets(config(&redis.url(), &prefix), SECRETS);
    let second = start_with_secrets(config(&redis.url(), &prefix), SECRETS);
    assert_eq!(detail(&first.get("/api/pages/home").await), "miss");
    assert_eq!(detail(&first.get("/api/pages/home").await), "hit");
    assert_eq!(first.upstream_calls(PAGE_ROUTE).await, 1);

    let answer = purge(&first, json!({"tags": ["page:home"], "mode": "soft"})).await;
    assert_eq!(answer["mode"], "soft");
    assert_eq!(answer["purged"], 1, "{answer:#}");
    // Another replica that never held it reads L2's copy, marked stale there too.
    let from_l2 = second.get("/api/pages/home").await;
    assert_eq!(
        detail(&from_l2),
        "stale",
        "{}",
        from_l2.header("cache-status")
    );
    assert_eq!(from_l2.status, 200);
    // Here: every request at once is served stale, and one refresh goes upstream.
    let answers = futures::future::join_all((0..5).map(|_| first.get("/api/pages/home"))).await;
    for answer in &answers {
        assert_eq!(detail(answer), "stale", "{}", answer.header("cache-status"));
    }
    // One refresh for the fleet: whichever replica takes the fill lock fetches, the other
    // reads its answer from L2 (each replica has an upstream of its own here).
    let refreshes = settled_calls(&second, 1).await + settled_calls(&first, 1).await - 1;
    assert_eq!(refreshes, 1, "exactly one refresh");
    assert_eq!(detail(&first.get("/api/pages/home").await), "hit");
    assert_eq!(detail(&second.get("/api/pages/home").await), "hit");
    let before_hard = first.upstream_calls(PAGE_ROUTE).await;

    let answer = purge(&first, json!({"tags": ["page:home"], "mode": "hard"})).await;
    assert_eq!(answer["mode"], "hard");
    assert_eq!(detail(&first.get("/api/pages/home").await), "miss");
    assert_eq!(first.upstream_calls(PAGE_ROUTE).await, before_hard + 1);

    let refused = first
        .admin_post(
            "/admin/cache/purge",
            ADMIN_TOKEN,
            &json!({"all": true, "mode": "gentle"}),
        )
        .await;
    assert_eq!(refused.status, 400);
    assert!(refused.text().contains("mode"), "{}", refused.text());
}
