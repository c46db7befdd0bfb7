//! Issue 45: explain across the fleet on a real Redis. The replica asked shows every live
//! replica's L1 view of the keys (each other replica answers on the purge channel) and the
//! fleet's recent purges; `bff admin explain` prints what the API answers.

#![allow(clippy::unwrap_used)]

use crate::admin_cli::bff_admin;
use crate::common;

use common::TestServer;
use common::redis::RedisServer;
use common::replicas::{Replicas, SHARED_SECRETS, Setup, admin_purge};
use serde_json::{Value, json};

const URL: &str = "/api/pages/home";

fn admin_token() -> &'static str {
    SHARED_SECRETS
        .iter()
        .find(|(name, _)| *name == "BFF_ADMIN_TOKEN")
        .map(|(_, token)| *token)
        .unwrap()
}

async fn explain(replica: &TestServer) -> Value {
    let answer = replica
        .client
        .get(format!("{}/admin/cache/explain?url={URL}", replica.admin))
        .bearer_auth(admin_token())
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    answer.json().await.unwrap()
}

/// Each replica's L1 view of the first key, by replica id.
fn l1_by_replica(explained: &Value) -> Vec<(String, Value)> {
    explained["keys"][0]["replicas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seen| {
            (
                seen["replica"].as_str().unwrap().to_owned(),
                seen["l1"].clone(),
            )
        })
        .collect()
}

/// Whether `a` and `b` are the same answer: equal, except the windows (Unix ms from this
/// replica's clock at each call, which may round 1 ms apart) and L2's ttl (counting down).
fn same_answer(a: &Value, b: &Value, field: &str) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter().all(|(name, value)| {
                    b.get(name)
                        .is_some_and(|other| same_answer(value, other, name))
                })
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_answer(a, b, field))
        }
        (Value::Number(a), Value::Number(b))
            if field == "ttlMs" || field.ends_with("UntilUnixMs") || field == "storedAtUnixMs" =>
        {
            a.as_u64().unwrap().abs_diff(b.as_u64().unwrap()) <= 5_000
        }
        _ => a == b,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn explain_shows_each_replicas_l1_and_the_fleets_purges_and_the_cli_prints_it() {
    let redis = RedisServer::start();
    let replicas = Replicas::start(Setup::on(redis.url(), 2), |_| {}).await;
    let (a, b) = (&replicas.replicas[0], &replicas.replicas[1]);
    assert_eq!(a.get(URL).await.status(), 200);
    assert_eq!(b.get(URL).await.status(), 200);

    let seen = explain(a).await;
    let a_id = seen["replica"].as_str().unwrap().to_owned();
    let views = l1_by_replica(&seen);
    assert_eq!(views.len(), 2, "one view per replica: {seen}");
    assert_eq!(views[0].0, a_id, "the replica asked first: {seen}");
    let b_id = views[1].0.clone();
    assert_ne!(b_id, a_id);
    assert_eq!(views[0].1["present"], true, "{seen}");
    assert_eq!(
        views[1].1["present"], true,
        "B answered with its own L1: {seen}"
    );
    assert_eq!(views[1].1["state"], "fresh", "{seen}");
    assert_eq!(seen["missing"], json!([]), "{seen}");
    assert_eq!(seen["reach"], "fleet", "{seen}");
    assert_eq!(seen["purgesFrom"], "fleet", "{seen}");

    // bff admin explain prints what the API answers
    let printed = bff_admin(
        &a.admin,
        &["explain", URL],
        &[("BFF_ADMIN_TOKEN", admin_token())],
    )
    .await;
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    let printed: Value = serde_json::from_slice(&printed.stdout).unwrap();
    let direct = explain(a).await;
    assert!(
        same_answer(&printed, &direct, ""),
        "the CLI: {printed}\nthe API: {direct}"
    );
    assert_eq!(l1_by_replica(&printed).len(), 2, "{printed}");

    // a purge from B: A lists it from the fleet's purges, and both L1s name it
    let purged = admin_purge(b, &json!({"tags": ["page:home"]})).await;
    assert_eq!(purged.status(), 200);
    let purge_id = purged.json::<Value>().await.unwrap()["id"].clone();
    assert!(purge_id.is_string());
    let seen = explain(a).await;
    let purges = &seen["keys"][0]["purges"];
    assert_eq!(purges[0]["purgeId"], purge_id, "{seen}");
    assert_eq!(purges[0]["replica"], b_id.as_str(), "taken by B: {seen}");
    assert_eq!(purges[0]["mode"], "hard", "{seen}");
    assert_eq!(purges[0]["scope"]["tags"], json!(["page:home"]), "{seen}");
    let views = l1_by_replica(&seen);
    assert_eq!(views.len(), 2, "{seen}");
    for (replica, l1) in &views {
        assert_eq!(l1["present"], false, "{replica}: {seen}");
        assert_eq!(l1["missReason"], "purged", "{replica}: {seen}");
        assert_eq!(l1["purgeId"], purge_id, "{replica}: {seen}");
    }
    replicas.stop().await;
}
