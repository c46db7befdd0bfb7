//! Issue 49: live overrides of the cache policies, on three replicas sharing one Redis. "Reaches
//! a replica" is checked where it counts: that replica's `/admin/config` says so, and the
//! `Cache-Control` of its fresh answer carries the overridden `stale-while-revalidate` (the
//! policy a cached answer is served under is read when it is served).

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use crate::admin_cli::bff_admin;
use crate::admin_tokens::{PURGER, READER, admin_call, tokens_file};
use crate::common;

use common::TestServer;
use common::redis::RedisServer;
use common::replicas::{Replicas, SHARED_SECRETS, Setup};
use reqwest::Method;
use serde_json::{Value, json};

const KEY: &str = "cache.pages.stale_while_revalidate";
/// `admin.override_convergence`'s default: the bound every replica is held to.
const CONVERGENCE: Duration = Duration::from_secs(2);

fn admin_token() -> &'static str {
    SHARED_SECRETS
        .iter()
        .find(|(name, _)| *name == "BFF_ADMIN_TOKEN")
        .map(|(_, token)| *token)
        .unwrap()
}

/// The `stale-while-revalidate` of `replica`'s answer for the home page, in seconds.
async fn served_swr(replica: &TestServer) -> u64 {
    let answer = replica.get("/api/pages/home").await;
    assert_eq!(answer.status(), 200);
    let control = answer.headers()["cache-control"]
        .to_str()
        .unwrap()
        .to_owned();
    control
        .split(", ")
        .find_map(|part| part.strip_prefix("stale-while-revalidate="))
        .unwrap_or_else(|| panic!("{control}"))
        .parse()
        .unwrap()
}

/// `KEY` as `replica`'s `/admin/config` shows it.
async fn config_entry(replica: &TestServer) -> Value {
    let (status, config) =
        admin_call(replica, Method::GET, "/admin/config", Some(READER), None).await;
    assert_eq!(status, 200, "{config}");
    config["values"][KEY].clone()
}

/// Whether `replica` runs `swr` for the pages, in its configuration and in what it serves.
async fn runs(replica: &TestServer, value: &str, seconds: u64) -> bool {
    config_entry(replica).await["value"] == value && served_swr(replica).await == seconds
}

/// Waits (at most `bound`) until every replica runs `value`; answers how long it took.
async fn converged(
    replicas: &[TestServer],
    value: &str,
    seconds: u64,
    bound: Duration,
) -> Duration {
    let started = Instant::now();
    loop {
        let mut all = true;
        for replica in replicas {
            all &= config_entry(replica).await["value"] == value;
        }
        if all {
            break;
        }
        assert!(
            started.elapsed() <= bound,
            "{KEY} = {value} did not reach every replica within {bound:?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let took = started.elapsed();
    for replica in replicas {
        assert_eq!(served_swr(replica).await, seconds, "{value}");
    }
    took
}

async fn call(
    replica: &TestServer,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> (u16, Value) {
    admin_call(replica, method, path, Some(admin_token()), body).await
}

/// `POST /admin/config/reload` on every replica, as a fleet-wide reload does.
async fn reload_all(replicas: &[TestServer]) {
    for replica in replicas {
        let (status, reloaded) = call(replica, Method::POST, "/admin/config/reload", None).await;
        assert_eq!(status, 200, "{reloaded}");
    }
}

/// This replica's id, as `/admin/fleet` names it.
async fn replica_id(replica: &TestServer) -> String {
    let (_, fleet) = call(replica, Method::GET, "/admin/fleet", None).await;
    fleet["replicas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|member| member["self"] == true)
        .map(|member| member["id"].as_str().unwrap().to_owned())
        .unwrap_or_else(|| panic!("{fleet}"))
}

/// Each live replica's `overrideVersion` in the fleet view, by id, once they all report
/// `wanted` (waiting at most the convergence bound for their heartbeats).
async fn fleet_versions(replica: &TestServer, wanted: &[(String, u64)]) -> Value {
    let started = Instant::now();
    loop {
        let (_, fleet) = call(replica, Method::GET, "/admin/fleet", None).await;
        let reported = |id: &str| {
            fleet["replicas"]
                .as_array()
                .unwrap()
                .iter()
                .find(|member| member["id"] == id)
                .map(|member| member["overrideVersion"].clone())
        };
        if wanted
            .iter()
            .all(|(id, version)| reported(id) == Some(json!(version)))
        {
            return fleet;
        }
        assert!(started.elapsed() <= CONVERGENCE, "{wanted:?}: {fleet}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn replicas_overrides_reach_the_fleet_with_canary_rollback_expiry_and_audit() {
    let redis = RedisServer::start();
    let tokens = tokens_file();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bff.toml");
    std::fs::write(&file, "[cache.pages]\nstale_while_revalidate = \"10m\"\n").unwrap();
    let mut fleet = Replicas::start_with_file(
        Setup::on(redis.url(), 3),
        &[("BFF_ADMIN_TOKENS_FILE", tokens.path().display().to_string())],
        Some(file.clone()),
        |_| {},
    )
    .await;
    let ids = [
        replica_id(&fleet.replicas[0]).await,
        replica_id(&fleet.replicas[1]).await,
        replica_id(&fleet.replicas[2]).await,
    ];
    // the replicas' configuration is built in code: a reload makes the file's layer theirs
    for replica in &fleet.replicas {
        let (status, _) = call(replica, Method::POST, "/admin/config/reload", None).await;
        assert_eq!(status, 200);
        assert_eq!(served_swr(replica).await, 600);
    }
    let path = "/admin/config/overrides";

    // a bad value, a bad key: 422 naming each, and nothing changes on any replica
    let (status, problem) = call(
        &fleet.replicas[0],
        Method::POST,
        path,
        Some(&json!({"set": {KEY: "soon", "cache.pages.jitter": 0.5}})),
    )
    .await;
    assert_eq!(status, 422, "{problem}");
    assert!(problem["errors"][KEY].is_string(), "{problem}");
    assert!(
        problem["errors"]["cache.pages.jitter"].is_string(),
        "{problem}"
    );
    let (status, problem) = call(
        &fleet.replicas[0],
        Method::POST,
        path,
        Some(&json!({"set": {KEY: "45s"}, "canary": "no-such-replica"})),
    )
    .await;
    assert_eq!(status, 422, "{problem}");
    assert!(problem["errors"]["canary"].is_string(), "{problem}");
    for replica in &fleet.replicas {
        assert!(runs(replica, "10m", 600).await);
        assert_eq!(config_entry(replica).await["source"], "file");
    }
    let (_, overview) = call(&fleet.replicas[1], Method::GET, path, None).await;
    assert_eq!(overview["version"], 0, "{overview}");
    assert_eq!(overview["storage"], "redis", "{overview}");

    // a token without the config scope is refused, whatever its other scopes
    for token in [READER, PURGER] {
        let (status, refused) = admin_call(
            &fleet.replicas[0],
            Method::POST,
            path,
            Some(token),
            Some(&json!({"set": {KEY: "45s"}})),
        )
        .await;
        assert_eq!(status, 403, "{refused}");
        assert_eq!(refused["requiredScope"], "config", "{refused}");
    }

    // a dry run: the diff and the routes, and nothing changes
    let (status, dry) = call(
        &fleet.replicas[0],
        Method::POST,
        path,
        Some(&json!({"set": {KEY: "45s"}, "dryRun": true})),
    )
    .await;
    assert_eq!(status, 200, "{dry}");
    assert_eq!(dry["version"], Value::Null, "{dry}");
    assert_eq!(
        dry["diff"],
        json!([{"key": KEY, "from": null, "to": "45s"}]),
        "{dry}"
    );
    assert_eq!(dry["routes"], json!(["pages"]), "{dry}");
    assert!(runs(&fleet.replicas[0], "10m", 600).await);

    // a good value reaches all three within the convergence bound
    let (status, set) = call(
        &fleet.replicas[0],
        Method::POST,
        path,
        Some(&json!({"set": {KEY: "45s"}})),
    )
    .await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["version"], 1, "{set}");
    let took = converged(&fleet.replicas, "45s", 45, CONVERGENCE).await;
    eprintln!("version 1 reached every replica in {took:?}");
    let entry = config_entry(&fleet.replicas[2]).await;
    assert_eq!(entry["source"], "override", "{entry}");
    assert_eq!(entry["version"], 1, "{entry}");
    assert_eq!(
        entry["belowOverride"],
        json!({"value": "10m", "source": "file"})
    );

    // it differs from the file: drift, in /admin/config/overrides, /admin/config and the
    // fleet, and the export is the patch that would end it
    let (_, overview) = call(&fleet.replicas[1], Method::GET, path, None).await;
    assert_eq!(
        overview["drift"],
        json!([{"key": KEY, "file": "10m", "override": "45s"}]),
        "{overview}"
    );
    let (_, config) = call(&fleet.replicas[1], Method::GET, "/admin/config", None).await;
    assert_eq!(config["overrides"]["drift"][0]["key"], KEY, "{config}");
    let view = fleet_versions(
        &fleet.replicas[1],
        &ids.iter().map(|id| (id.clone(), 1)).collect::<Vec<_>>(),
    )
    .await;
    assert_eq!(view["drift"]["overrideKeys"], json!([KEY]), "{view}");
    let export = fleet.replicas[2]
        .client
        .get(format!("{}{path}/export", fleet.replicas[2].admin))
        .bearer_auth(READER)
        .send()
        .await
        .unwrap();
    assert_eq!(
        export.headers()["content-type"],
        "text/plain; charset=utf-8"
    );
    let patch = export.text().await.unwrap();
    assert!(
        patch.contains("[cache.pages]\nstale_while_revalidate = \"45s\""),
        "{patch}"
    );

    // a canary reaches only the named replica until it is promoted
    let (status, canary) = call(
        &fleet.replicas[0],
        Method::POST,
        path,
        Some(&json!({"set": {KEY: "90s"}, "canary": ids[1]})),
    )
    .await;
    assert_eq!(status, 200, "{canary}");
    assert_eq!(
        (canary["version"].clone(), canary["canary"].clone()),
        (json!(2), json!(ids[1]))
    );
    converged(&fleet.replicas[1..2], "90s", 90, CONVERGENCE).await;
    let view = fleet_versions(
        &fleet.replicas[0],
        &[
            (ids[0].clone(), 1),
            (ids[1].clone(), 2),
            (ids[2].clone(), 1),
        ],
    )
    .await;
    assert_eq!(view["drift"]["overrides"], true, "{view}");
    // the others heard the same announcement; a tick later they still run the fleet's version
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(runs(&fleet.replicas[0], "45s", 45).await);
    assert!(runs(&fleet.replicas[2], "45s", 45).await);
    let (_, overview) = call(&fleet.replicas[2], Method::GET, path, None).await;
    assert_eq!(overview["version"], 1, "{overview}");
    assert_eq!(overview["canary"]["replica"], ids[1], "{overview}");
    assert_eq!(overview["canary"]["version"], 2, "{overview}");
    let (status, promoted) = call(
        &fleet.replicas[2],
        Method::POST,
        &format!("{path}/promote"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{promoted}");
    assert_eq!(promoted["version"], 2, "{promoted}");
    converged(&fleet.replicas, "90s", 90, CONVERGENCE).await;
    fleet_versions(
        &fleet.replicas[0],
        &ids.iter().map(|id| (id.clone(), 2)).collect::<Vec<_>>(),
    )
    .await;

    // a restarted replica starts with the override
    fleet.restart(0).await;
    assert!(runs(&fleet.replicas[0], "90s", 90).await);

    // a reload of the file keeps it, and /admin/config shows both layers
    std::fs::write(&file, "[cache.pages]\nstale_while_revalidate = \"20m\"\n").unwrap();
    reload_all(&fleet.replicas).await;
    assert!(runs(&fleet.replicas[1], "90s", 90).await);
    let entry = config_entry(&fleet.replicas[1]).await;
    assert_eq!(entry["source"], "override", "{entry}");
    assert_eq!(
        entry["belowOverride"],
        json!({"value": "20m", "source": "file"})
    );

    // rollback (to the previous version) restores it on every replica; the diff names the key
    let (status, rolled) = call(
        &fleet.replicas[1],
        Method::POST,
        &format!("{path}/rollback"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{rolled}");
    assert_eq!(rolled["version"], 3, "{rolled}");
    assert_eq!(
        rolled["diff"],
        json!([{"key": KEY, "from": "90s", "to": "45s"}]),
        "{rolled}"
    );
    converged(&fleet.replicas, "45s", 45, CONVERGENCE).await;
    let (status, diff) = call(
        &fleet.replicas[2],
        Method::GET,
        &format!("{path}/diff?version=2"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{diff}");
    assert_eq!(
        (diff["from"].clone(), diff["to"].clone()),
        (json!(2), json!(3))
    );
    assert_eq!(
        diff["diff"],
        json!([{"key": KEY, "from": "90s", "to": "45s"}]),
        "{diff}"
    );

    // once the file says what the override says, the drift is gone
    std::fs::write(&file, "[cache.pages]\nstale_while_revalidate = \"45s\"\n").unwrap();
    reload_all(&fleet.replicas).await;
    let (_, overview) = call(&fleet.replicas[0], Method::GET, path, None).await;
    assert_eq!(overview["drift"], json!([]), "{overview}");

    // an override with an expiry is gone on every replica once it expires (a new version): the
    // file's value applies again
    let (status, expiring) = call(
        &fleet.replicas[2],
        Method::POST,
        path,
        Some(&json!({"set": {KEY: "30s"}, "expiresIn": "2s"})),
    )
    .await;
    assert_eq!(status, 200, "{expiring}");
    converged(&fleet.replicas, "30s", 30, CONVERGENCE).await;
    converged(
        &fleet.replicas,
        "45s",
        45,
        Duration::from_secs(2) + CONVERGENCE,
    )
    .await;
    for replica in &fleet.replicas {
        assert_eq!(config_entry(replica).await["source"], "file");
    }
    let (_, overview) = call(&fleet.replicas[0], Method::GET, path, None).await;
    assert_eq!(overview["history"][0]["action"], "expire", "{overview}");
    assert_eq!(overview["history"][0]["layer"], json!({}), "{overview}");
    let actions: Vec<&str> = overview["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|version| version["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        ["expire", "set", "rollback", "promote", "set"],
        "{overview}"
    );

    // the audit log names the token of each step, the refused ones included
    let (_, audit) = call(
        &fleet.replicas[2],
        Method::GET,
        "/admin/audit?limit=50",
        None,
    )
    .await;
    let steps: Vec<(String, String, u64)> = audit["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["route"].as_str().unwrap().starts_with(path))
        .map(|entry| {
            (
                entry["route"].as_str().unwrap().to_owned(),
                entry["actor"].as_str().unwrap().to_owned(),
                entry["status"].as_u64().unwrap(),
            )
        })
        .rev()
        .collect();
    let step = |route: &str, actor: &str, status: u64| {
        (format!("{path}{route}"), actor.to_owned(), status)
    };
    assert_eq!(
        steps,
        [
            step("", "admin", 422),
            step("", "admin", 422),
            step("", "reader", 403),
            step("", "purger", 403),
            step("", "admin", 200),
            step("", "admin", 200),
            step("", "admin", 200),
            step("/promote", "admin", 200),
            step("/rollback", "admin", 200),
            step("", "admin", 200),
        ],
        "{audit}"
    );
    fleet.stop().await;
    drop(redis);
}

/// Without Redis the overrides live in the process, and every answer says they are lost on
/// restart.
#[tokio::test]
async fn replicas_overrides_without_redis_live_in_the_process_and_say_so() {
    let mut config = common::test_config();
    config.redis.url = String::new();
    let server = common::start_with(config, &[("BFF_ADMIN_TOKEN", admin_token())]).await;
    let (status, set) = call(
        &server,
        Method::POST,
        "/admin/config/overrides",
        Some(&json!({"set": {KEY: "45s"}})),
    )
    .await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["storage"], "process", "{set}");
    assert!(
        set["note"].as_str().unwrap().contains("lost on restart"),
        "{set}"
    );
    assert_eq!(served_swr(&server).await, 45);
    let (_, overview) = call(&server, Method::GET, "/admin/config/overrides", None).await;
    assert_eq!(overview["storage"], "process", "{overview}");
    assert_eq!(overview["layer"], json!({KEY: "45s"}), "{overview}");

    // the same through `bff admin config`: a bad value exits 1 naming the key, a dry run
    // prints the diff, export the TOML patch
    let token = [("BFF_ADMIN_TOKEN", admin_token())];
    let admin = server.admin.as_str();
    let bad = bff_admin(admin, &["config", "set", &format!("{KEY}=soon")], &token).await;
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains(KEY));
    let dry = bff_admin(
        admin,
        &["config", "set", "cache.product.ttl=30s", "--dry-run"],
        &token,
    )
    .await;
    assert!(dry.status.success());
    let dry: Value = serde_json::from_slice(&dry.stdout).unwrap();
    assert_eq!(dry["diff"][0]["key"], "cache.product.ttl", "{dry}");
    let export = bff_admin(admin, &["config", "export"], &token).await;
    assert!(export.status.success());
    let patch = String::from_utf8_lossy(&export.stdout).into_owned();
    assert!(
        patch.contains("[cache.pages]\nstale_while_revalidate = \"45s\""),
        "{patch}"
    );
    server.stop().await;
}
