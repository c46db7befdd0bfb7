//! The hit ratio is honest: stale-if-error is reported apart from hits, and `/admin/cache`
//! computes the ratios the dashboard's queries compute over the scraped metrics (the queries are
//! read from the dashboard, so a change of meaning there fails here).

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use crate::common;

use bff::cache::CachePolicy;
use common::SandboxHooks;
use common::cache_stats::cache_stats;
use common::dashboard::{Dashboard, ratio_over};
use common::in_process::{InProcess, start_with_secrets};
use common::metrics::Scrape;
use common::test_config;
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "honest-ratio-admin-token";
const PAGE_ROUTE: &str = "/strapi/page/{name}";

fn cache_state(answer: &common::in_process::Answer) -> String {
    answer
        .header("cache-status")
        .split("; ")
        .find_map(|part| part.strip_prefix("detail="))
        .unwrap_or("none")
        .to_owned()
}

async fn get_pages(app: &InProcess, times: usize, expected: &str) {
    for page in ["home", "footer"] {
        for _ in 0..times {
            let answer = app.get(&format!("/api/pages/{page}")).await;
            assert_eq!(answer.status, 200);
            let state = cache_state(&answer);
            assert!(expected.split('|').any(|s| s == state), "{page}: {state}");
        }
    }
}

/// `/admin/cache`'s ratios against the dashboard's queries over `before`..`after`, overall and
/// per route; returns the overall hit ratio.
fn assert_same_ratios(stats: &Value, before: &Scrape, after: &Scrape) -> f64 {
    let dashboard = Dashboard::load();
    let overall = |legend: &str| {
        let query = dashboard.query("Cache hit ratio", legend);
        let values = ratio_over(&query, before, after);
        assert_eq!(values.len(), 1, "{query}: {values:?}");
        values[""]
    };
    assert_eq!(
        stats["hitRatio"].as_f64().unwrap(),
        overall("hit"),
        "{stats}"
    );
    assert_eq!(
        stats["staleIfErrorRatio"].as_f64().unwrap(),
        overall("stale-if-error"),
        "{stats}"
    );
    let per_route = ratio_over(
        &dashboard.query("Hit ratio by cache route", "{{route}}"),
        before,
        after,
    );
    assert!(!per_route.is_empty());
    for (route, ratio) in &per_route {
        let figures = stats["routes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|figures| figures["route"] == route.as_str())
            .unwrap();
        assert_eq!(figures["hitRatio"].as_f64().unwrap(), *ratio, "{route}");
    }
    overall("hit")
}

#[tokio::test]
async fn during_an_outage_the_hit_ratio_falls_as_the_dashboard_query_does() {
    let mut config = test_config();
    config.cache.pages = CachePolicy {
        ttl: Duration::from_millis(300),
        stale_while_revalidate: Duration::ZERO,
        stale_if_error: Duration::from_secs(60),
        jitter: 0.0,
        ..CachePolicy::default()
    };
    let app = start_with_secrets(config, &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)]);
    // Before any lookup: the window's start, as Prometheus's first scrape of a new replica.
    let before = app.metrics().await;

    get_pages(&app, 1, "miss").await;
    get_pages(&app, 3, "hit").await;
    let healthy = cache_stats(&app, ADMIN_TOKEN).await;
    let healthy_ratio = assert_same_ratios(&healthy, &before, &app.metrics().await);
    assert_eq!(healthy["staleIfErrorRatio"], 0.0);

    // The content upstream fails once the pages are stale: served stale-if-error.
    tokio::time::sleep(Duration::from_millis(400)).await;
    app.inject_fault(json!({"route": PAGE_ROUTE, "errorStatus": 500}))
        .await;
    get_pages(&app, 4, "stale-if-error").await;
    let outage = cache_stats(&app, ADMIN_TOKEN).await;
    let outage_ratio = assert_same_ratios(&outage, &before, &app.metrics().await);

    assert!(
        outage_ratio < healthy_ratio,
        "the hit ratio falls during the outage: {healthy_ratio} -> {outage_ratio}"
    );
    assert!(outage["staleIfErrorRatio"].as_f64().unwrap() > 0.0);
    // 2 misses, 6 hits, then 8 answers stale-if-error: 6 of 16 lookups were hits.
    assert_eq!(outage["hitRatio"], 6.0 / 16.0);
    assert_eq!(outage["staleIfErrorRatio"], 0.5);
}
