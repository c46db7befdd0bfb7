//! Purge receipts and the fleet across real processes: three `bff` binaries on one Redis and one
//! sandbox (in this process). A tag purge answers with a receipt from every replica; with one
//! replica stopped (SIGSTOP) it answers within the deadline with the other two and names the
//! stopped one, which the fleet later flags silent. A replica started with another
//! configuration shows as config drift.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use bff::config::SANDBOX_PLACEHOLDER;
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::process::{Child, Command};
use tokio_util::sync::CancellationToken;

use crate::common::redis::RedisServer;
use crate::common::{self, test_config, write_dist};

const ADMIN_TOKEN: &str = "receipts-test-admin-token";
/// How long a purge waits for receipts here (the default is 2 s).
const DEADLINE: Duration = Duration::from_millis(1_000);
const SILENT_AFTER: Duration = Duration::from_millis(3_000);

struct Replica {
    main: String,
    admin: String,
    child: Child,
}

impl Replica {
    fn pid(&self) -> String {
        self.child
            .id()
            .map(|pid| pid.to_string())
            .unwrap_or_default()
    }

    fn signal(&self, signal: &str) {
        let sent = std::process::Command::new("kill")
            .args([signal, &self.pid()])
            .status()
            .unwrap();
        assert!(sent.success(), "kill {signal} {}", self.pid());
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap()
}

/// Starts the `bff` binary with `config` and `extra` environment; waits until it is ready.
async fn start_replica(
    config: &Path,
    dir: &Path,
    redis: &str,
    prefix: &str,
    extra: &[(&str, &str)],
) -> Replica {
    let (main, admin) = (free_port(), free_port());
    let log = dir.join(format!("bff-{main}.log"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_bff"));
    command
        .current_dir(dir)
        .env("BFF_CONFIG", config)
        .env("BFF__SERVER__LISTEN", format!("127.0.0.1:{main}"))
        .env("BFF__ADMIN__LISTEN", format!("127.0.0.1:{admin}"))
        .env("BFF__REDIS__URL", redis)
        .env("BFF__REDIS__KEY_PREFIX", prefix)
        .env("BFF__FLEET__HEARTBEAT_INTERVAL", "200ms")
        .env(
            "BFF__FLEET__SILENT_AFTER",
            bff::config::duration::format(SILENT_AFTER),
        )
        .env(
            "BFF__FLEET__PURGE_RECEIPT_DEADLINE",
            bff::config::duration::format(DEADLINE),
        )
        .env("BFF__LOG__FILTER", "warn")
        .env(
            "BFF_SESSION_KEYS",
            "receipts-test-session-key-0123456789abcdef",
        )
        .env("BFF_ADMIN_TOKEN", ADMIN_TOKEN)
        .env("BFF_WEBHOOK_SECRET", "receipts-test-webhook-secret")
        .env("POD_NAME", format!("bff-{main}"))
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .kill_on_drop(true);
    for (name, value) in extra {
        command.env(name, value);
    }
    let mut child = command.spawn().unwrap();
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ready = client
            .get(format!("http://127.0.0.1:{admin}/readyz"))
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .is_ok_and(|response| response.status() == 200);
        if ready {
            break;
        }
        let exited = child.try_wait().ok().flatten();
        assert!(
            exited.is_none() && Instant::now() < deadline,
            "replica did not become ready ({exited:?}): {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Replica {
        main: format!("http://127.0.0.1:{main}"),
        admin: format!("http://127.0.0.1:{admin}"),
        child,
    }
}

async fn admin_get(replica: &Replica, path: &str) -> Value {
    reqwest::Client::new()
        .get(format!("{}{path}", replica.admin))
        .bearer_auth(ADMIN_TOKEN)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn purge(replica: &Replica, body: &Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}/admin/cache/purge", replica.admin))
        .bearer_auth(ADMIN_TOKEN)
        .json(body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

/// The fleet as `replica` sees it, once `until` holds (bounded wait).
async fn fleet_until(replica: &Replica, until: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let fleet = admin_get(replica, "/admin/fleet").await;
        if until(&fleet) {
            return fleet;
        }
        assert!(
            Instant::now() < deadline,
            "the fleet never came to that: {fleet:#}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The replica's own id, as its fleet answer names it.
async fn id_of(replica: &Replica) -> String {
    let fleet = fleet_until(replica, |fleet| {
        fleet["replicas"]
            .as_array()
            .is_some_and(|all| all.iter().any(|member| member["self"] == true))
    })
    .await;
    fleet["replicas"]
        .as_array()
        .and_then(|all| all.iter().find(|member| member["self"] == true))
        .and_then(|member| member["id"].as_str())
        .unwrap()
        .to_owned()
}

fn replica_count(fleet: &Value) -> usize {
    fleet["replicas"].as_array().map_or(0, Vec::len)
}

fn receipts_by_replica(answer: &Value) -> Vec<(String, u64)> {
    let mut receipts: Vec<(String, u64)> = answer["receipts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|receipt| {
            (
                receipt["replica"].as_str().unwrap().to_owned(),
                receipt["l1Dropped"].as_u64().unwrap(),
            )
        })
        .collect();
    receipts.sort();
    receipts
}

#[tokio::test]
async fn three_replicas_confirm_a_tag_purge_and_a_stopped_one_is_named_within_the_deadline() {
    let redis = RedisServer::start();
    let dir = TempDir::new().unwrap();
    // The sandbox, in this process, over real HTTP.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = sandbox::default_public_url(listener.local_addr().unwrap());
    let state = sandbox::SandboxState::new(sandbox::SandboxOptions::new(
        dir.path().join("sandbox"),
        origin.clone(),
    ))
    .unwrap();
    let stop_sandbox = CancellationToken::new();
    let stop = stop_sandbox.clone();
    tokio::spawn(sandbox::serve(listener, state, async move {
        stop.cancelled().await
    }));
    let dist = dir.path().join("dist");
    write_dist(&dist);
    let mut config = test_config();
    config.sandbox.enabled = false;
    config.web.dist_dir = dist;
    config.readiness.cache = Duration::ZERO;
    config.redis.command_timeout = common::BUSY_MACHINE_REDIS_TIMEOUT;
    let toml = config
        .to_toml()
        .unwrap()
        .replace(SANDBOX_PLACEHOLDER, origin.trim_end_matches('/'));
    let config_path = dir.path().join("bff.toml");
    std::fs::write(&config_path, toml).unwrap();
    let prefix = format!("receipts-{}:", uuid::Uuid::new_v4());
    let redis_url = redis.url();
    let start = |extra: &'static [(&'static str, &'static str)]| {
        start_replica(&config_path, dir.path(), &redis_url, &prefix, extra)
    };

    // Two replicas: both listed, no drift.
    let mut replicas = vec![start(&[]).await, start(&[]).await];
    let fleet = fleet_until(&replicas[0], |fleet| replica_count(fleet) == 2).await;
    assert_eq!(fleet["coordination"], "redis");
    assert_eq!(fleet["drift"]["config"], false, "{fleet:#}");
    assert_eq!(fleet["drift"]["build"], false);
    assert!(
        fleet["replicas"][0]["pod"]
            .as_str()
            .is_some_and(|pod| pod.starts_with("bff-"))
    );
    // A third with another configuration: config drift.
    replicas.push(start(&[("BFF__CACHE__PAGES__TTL", "61s")]).await);
    let fleet = fleet_until(&replicas[0], |fleet| replica_count(fleet) == 3).await;
    assert_eq!(fleet["drift"]["config"], true, "{fleet:#}");
    assert_eq!(
        fleet["drift"]["configHashes"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(fleet["drift"]["build"], false);
    let mut ids = Vec::new();
    for replica in &replicas {
        ids.push(id_of(replica).await);
    }

    // Every replica holds the home page in L1 (the first from the upstream, the others from L2).
    let client = reqwest::Client::new();
    for replica in &replicas {
        let page = client
            .get(format!("{}/api/pages/home", replica.main))
            .send()
            .await
            .unwrap();
        assert_eq!(page.status(), 200);
    }
    let (status, answer) = purge(&replicas[0], &json!({"tags": ["page:home"]})).await;
    assert_eq!(status, 200, "{answer:#}");
    assert_eq!(answer["fanOut"], "complete");
    assert_eq!(answer["mode"], "hard");
    assert!(answer["id"].as_str().is_some_and(|id| !id.is_empty()));
    let mut expected: Vec<(String, u64)> = ids.iter().map(|id| (id.clone(), 1)).collect();
    expected.sort();
    assert_eq!(receipts_by_replica(&answer), expected, "{answer:#}");
    assert_eq!(answer["missing"], json!([]));
    assert_eq!(answer["purged"], 1, "the old field: this replica's L1");
    // The purge is in the recent purges, with its counts.
    let recent = admin_get(&replicas[1], "/admin/cache/purges?tag=page:home").await;
    assert_eq!(recent["purges"][0]["id"], answer["id"]);
    assert_eq!(recent["purges"][0]["l1Dropped"], 3);

    // From purge to the last receipt, over 100 purges on loopback.
    let mut last_receipts: Vec<u64> = Vec::new();
    for _ in 0..100 {
        let (status, answer) = purge(&replicas[1], &json!({"tags": ["page:home"]})).await;
        assert_eq!(status, 200, "{answer:#}");
        assert_eq!(answer["receipts"].as_array().map(Vec::len), Some(3));
        let last = answer["receipts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|receipt| receipt["confirmedAfterMs"].as_u64())
            .max()
            .unwrap();
        last_receipts.push(last);
    }
    last_receipts.sort_unstable();
    let percentile = |p: f64| {
        last_receipts[((last_receipts.len() as f64 * p).ceil() as usize).saturating_sub(1)]
    };
    println!(
        "purge to last receipt over {} purges on loopback: p50 {} ms, p99 {} ms, max {} ms",
        last_receipts.len(),
        percentile(0.50),
        percentile(0.99),
        last_receipts.last().unwrap()
    );

    // One replica stopped: the other two confirm, and the answer names it within the deadline.
    replicas[2].signal("-STOP");
    let started = Instant::now();
    let (status, answer) = purge(&replicas[0], &json!({"tags": ["page:home"]})).await;
    let took = started.elapsed();
    assert_eq!(status, 202, "{answer:#}");
    assert_eq!(answer["fanOut"], "partial");
    assert_eq!(answer["missing"], json!([ids[2]]));
    let confirmed: Vec<String> = receipts_by_replica(&answer)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let mut live = vec![ids[0].clone(), ids[1].clone()];
    live.sort();
    assert_eq!(confirmed, live);
    assert!(
        took < DEADLINE + Duration::from_millis(1_500),
        "answered after {took:?}"
    );
    // Explain, asked meanwhile, shows the two live replicas' L1 and names the stopped one
    // within its own deadline (`fleet.explain_deadline`, 1 s).
    let started = Instant::now();
    let explained = admin_get(&replicas[0], "/admin/cache/explain?url=/api/pages/home").await;
    let took = started.elapsed();
    assert_eq!(explained["reach"], "fleet", "{explained:#}");
    assert_eq!(explained["missing"], json!([ids[2]]), "{explained:#}");
    let mut seen: Vec<String> = explained["keys"][0]["replicas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|view| view["replica"].as_str().unwrap().to_owned())
        .collect();
    seen.sort();
    assert_eq!(seen, live, "{explained:#}");
    assert!(
        took < Duration::from_millis(1_000 + 1_500),
        "explained after {took:?}"
    );
    // Silent past `fleet.silent_after`: flagged, and no longer expected to confirm.
    let fleet = fleet_until(&replicas[0], |fleet| fleet["silent"] == json!([ids[2]])).await;
    assert_eq!(replica_count(&fleet), 3, "a silent replica is still listed");
    let (status, answer) = purge(&replicas[0], &json!({"tags": ["page:home"]})).await;
    assert_eq!(
        (status, answer["fanOut"].as_str()),
        (200, Some("complete")),
        "{answer:#}"
    );
    replicas[2].signal("-CONT");

    for replica in &replicas {
        replica.signal("-TERM");
    }
    for mut replica in replicas {
        let _ = tokio::time::timeout(Duration::from_secs(20), replica.child.wait()).await;
    }
    stop_sandbox.cancel();
}
