//! Hit ratio per tag in the top lists: a page hit N times and missed M times shows its tag (and
//! key) with those hits and misses and `hits / (hits + misses)` in `GET /admin/cache/top`, and,
//! without Redis, in `GET /admin/fleet`'s merged lists. In process, against the sandbox; the
//! lists of two replicas merged by the fleet are in `replicas_top_lists`.

#![allow(clippy::unwrap_used)]

use crate::common;

use bff::config::Config;
use common::in_process::{InProcess, get_request, start_with_secrets};
use common::test_config;
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "test-admin-token";
const PAGE: &str = "/api/pages/home";
const TAG: &str = "page:home";
const KEY: &str = "pages:home";

async fn admin_get(app: &InProcess, path: &str) -> Value {
    let bearer = format!("Bearer {ADMIN_TOKEN}");
    let answer = app
        .admin_send(get_request(path, &[("authorization", &bearer)]))
        .await;
    assert_eq!(answer.status, 200, "{path}");
    answer.json()
}

/// Requests the page `times` times, each answered from the cache.
async fn hits(app: &InProcess, times: usize) {
    for _ in 0..times {
        let answer = app.get(PAGE).await;
        assert_eq!(answer.status, 200);
        assert!(
            answer.header("cache-status").contains("hit"),
            "{}",
            answer.header("cache-status")
        );
    }
}

async fn miss(app: &InProcess) {
    let answer = app.get(PAGE).await;
    assert_eq!(answer.status, 200);
    assert!(
        answer.header("cache-status").contains("fwd="),
        "{}",
        answer.header("cache-status")
    );
}

fn named<'a>(lists: &'a Value, list: &str, name: &str) -> &'a Value {
    lists[list]
        .as_array()
        .unwrap()
        .iter()
        .find(|counted| counted["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not in {list}: {lists:#}"))
}

fn assert_figures(counted: &Value, hits: u64, misses: u64) {
    assert_eq!(counted["hits"], hits, "{counted}");
    assert_eq!(counted["misses"], misses, "{counted}");
    let ratio = counted["hitRatio"].as_f64().unwrap();
    let expected = hits as f64 / (hits + misses) as f64;
    assert!((ratio - expected).abs() < 1e-9, "{counted}");
}

#[tokio::test]
async fn a_page_hit_five_times_and_missed_twice_shows_its_tag_with_a_ratio_of_five_sevenths() {
    let mut config = test_config();
    config.redis = Config::default().redis;
    let app = start_with_secrets(config, &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)]);
    // A cold miss and three hits (the hit path's remembered answer).
    miss(&app).await;
    hits(&app, 3).await;
    // A purge: the next request misses, and two more hit the new answer.
    let purged = app
        .admin_post("/admin/cache/purge", ADMIN_TOKEN, &json!({"tags": [TAG]}))
        .await;
    assert_eq!(purged.status, 200);
    miss(&app).await;
    hits(&app, 2).await;

    // Read at once, well within the fold interval: the route folds before it answers.
    let top = admin_get(&app, "/admin/cache/top").await;
    assert_figures(named(&top, "tags", TAG), 5, 2);
    assert_figures(named(&top, "hitTags", TAG), 5, 2);
    assert_figures(named(&top, "keys", KEY), 5, 2);
    // Folded once: reading again adds nothing.
    let again = admin_get(&app, "/admin/cache/top").await;
    assert_figures(named(&again, "hitTags", TAG), 5, 2);

    // Without Redis the fleet's lists are this replica's.
    let fleet = admin_get(&app, "/admin/fleet").await;
    assert_figures(named(&fleet["topLists"], "tags", TAG), 5, 2);
}
