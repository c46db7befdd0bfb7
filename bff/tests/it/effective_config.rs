//! `GET /admin/config`: the configuration in force with each value's source; after a reload,
//! what only a restart applies shown as pending (never as in effect), and `/admin/cache`
//! reporting the budget the cache enforces; no secret anywhere; `bff_config_info` following
//! the configuration in force.

#![allow(clippy::unwrap_used)]

use crate::common;

use bff::config::Config;
use common::SandboxHooks;
use common::in_process::{InProcess, get_request, start_reloadable};
use common::test_config;
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "effective-config-admin-token-5c1e";
const SECRETS: &[(&str, &str)] = &[
    ("BFF_ADMIN_TOKEN", ADMIN_TOKEN),
    ("BFF_WEBHOOK_SECRET", "effective-config-webhook-secret-9d2a"),
    (
        "BFF_SESSION_KEYS",
        "effective-config-session-key-0000000000000000",
    ),
    (
        "BFF_CONTENT_API_TOKEN",
        "effective-config-content-token-77b4",
    ),
    ("BFF_MAP_TILE_KEY", "effective-config-tile-key-31f0"),
];
/// A credential an operator wrote into a URL of the file: redacted wherever it is shown.
const URL_PASSWORD: &str = "otlp-pass-7f3a";
const STARTED_CAPACITY: u64 = 10_000_000;
const RELOADED_CAPACITY: u64 = 1_000;

fn file(capacity: u64, pages_ttl: &str) -> String {
    let endpoint = format!("https://collector:{URL_PASSWORD}@otel.example:4318/v1/traces");
    format!(
        "[cache]\ncapacity_bytes = {capacity}\n\n\
         [cache.pages]\nttl = \"{pages_ttl}\"\njitter = 0.0\n\n\
         [telemetry]\notlp_endpoint = \"{endpoint}\"\n"
    )
}

async fn admin_get(app: &InProcess, path: &str) -> Value {
    let bearer = format!("Bearer {ADMIN_TOKEN}");
    let answer = app
        .admin_send(get_request(path, &[("authorization", &bearer)]))
        .await;
    assert_eq!(answer.status, 200, "{path}: {}", answer.text());
    let text = answer.text();
    assert_no_secret(&text);
    serde_json::from_str(&text).unwrap()
}

fn assert_no_secret(text: &str) {
    for (name, value) in SECRETS {
        assert!(!text.contains(value), "{name}'s value is in: {text}");
    }
    assert!(
        !text.contains(URL_PASSWORD),
        "the URL's password is in: {text}"
    );
}

/// `bff_config_info`'s series as (version, hash).
async fn config_info(app: &InProcess) -> Vec<(String, String)> {
    app.metrics()
        .await
        .samples()
        .iter()
        .filter(|sample| sample.name == "bff_config_info")
        .map(|sample| {
            assert_eq!(sample.value, 1.0);
            (
                sample.labels["version"].clone(),
                sample.labels["hash"].clone(),
            )
        })
        .collect()
}

fn fingerprint(view: &Value) -> (String, String) {
    (
        view["fingerprint"]["version"].as_str().unwrap().to_owned(),
        view["fingerprint"]["hash"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test]
async fn a_reloaded_capacity_is_pending_restart_and_the_cache_reports_the_one_it_enforces() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bff.toml");
    std::fs::write(&path, file(STARTED_CAPACITY, "1m")).unwrap();
    let env = [("BFF__CACHE__PAGES__JITTER".to_owned(), "0.0".to_owned())];
    let mut config = Config::load_with_env(&path, env).unwrap();
    let defaults = test_config();
    config.server = defaults.server;
    config.admin = defaults.admin;
    config.sandbox = defaults.sandbox;
    config.redis = defaults.redis;
    let app = start_reloadable(config, SECRETS, path.clone());

    let started = admin_get(&app, "/admin/config").await;
    let values = &started["values"];
    assert_eq!(
        values["cache.pages.jitter"]["source"], "environment",
        "{values}"
    );
    assert_eq!(
        values["cache.pages.jitter"]["variable"],
        "BFF__CACHE__PAGES__JITTER"
    );
    assert_eq!(values["cache.capacity_bytes"]["source"], "file");
    assert_eq!(values["cache.capacity_bytes"]["value"], STARTED_CAPACITY);
    assert_eq!(values["cache.capacity_bytes"]["reloadable"], false);
    assert_eq!(values["cache.pages.ttl"]["reloadable"], true);
    assert_eq!(values["log.filter"]["source"], "default");
    assert!(
        values["telemetry.otlp_endpoint"]["value"]
            .as_str()
            .unwrap()
            .contains("redacted")
    );
    assert_eq!(started["pendingRestart"], json!([]));
    assert_eq!(started["lastReloadUnixMs"], Value::Null);
    assert_eq!(started["secrets"]["BFF_ADMIN_TOKEN"], "set");
    assert_eq!(started["secrets"]["BFF_GEOCODER_KEY"], "unset");
    assert_eq!(config_info(&app).await, [fingerprint(&started)]);

    // More than the reloaded budget in the cache.
    for page in ["home", "footer", "aboutus", "contactus"] {
        assert_eq!(app.get(&format!("/api/pages/{page}")).await.status, 200);
    }

    std::fs::write(&path, file(RELOADED_CAPACITY, "2m")).unwrap();
    let reloaded = app
        .admin_post("/admin/config/reload", ADMIN_TOKEN, &json!({}))
        .await;
    assert_eq!(reloaded.status, 200, "{}", reloaded.text());
    assert_no_secret(&reloaded.text());
    let detail = reloaded.json()["detail"].as_str().unwrap().to_owned();
    assert!(detail.contains("cache.capacity_bytes"), "{detail}");

    let after = admin_get(&app, "/admin/config").await;
    let capacity = &after["values"]["cache.capacity_bytes"];
    assert_eq!(capacity["value"], STARTED_CAPACITY, "{capacity}");
    assert_eq!(capacity["pendingRestart"]["value"], RELOADED_CAPACITY);
    assert_eq!(capacity["pendingRestart"]["source"], "file");
    assert!(
        after["pendingRestart"]
            .as_array()
            .unwrap()
            .contains(&json!("cache.capacity_bytes")),
        "{}",
        after["pendingRestart"]
    );
    // A policy is applied: in effect, from the file now, nothing pending.
    let ttl = &after["values"]["cache.pages.ttl"];
    assert_ne!(ttl["value"], started["values"]["cache.pages.ttl"]["value"]);
    assert_eq!(ttl["source"], "file");
    assert_eq!(ttl.get("pendingRestart"), None);
    assert!(after["lastReloadUnixMs"].as_u64().unwrap() > 0);

    let cache = admin_get(&app, "/admin/cache").await;
    assert_eq!(cache["capacityBytes"], STARTED_CAPACITY);
    assert!(
        cache["mainBytes"].as_u64().unwrap() > RELOADED_CAPACITY,
        "the cache still holds more than the reloaded budget: {cache}"
    );

    // bff_config_info: the configuration in force now, and only it.
    assert_ne!(fingerprint(&after), fingerprint(&started));
    assert_eq!(config_info(&app).await, [fingerprint(&after)]);
}

#[tokio::test]
async fn a_reload_that_applies_nothing_keeps_the_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bff.toml");
    std::fs::write(&path, file(STARTED_CAPACITY, "1m")).unwrap();
    let mut config = Config::load_with_env(&path, []).unwrap();
    let defaults = test_config();
    config.server = defaults.server;
    config.admin = defaults.admin;
    config.sandbox = defaults.sandbox;
    config.redis = defaults.redis;
    let app = start_reloadable(config, SECRETS, path.clone());
    let started = admin_get(&app, "/admin/config").await;

    // Only a budget changes: nothing the process runs with does.
    std::fs::write(&path, file(RELOADED_CAPACITY, "1m")).unwrap();
    let reloaded = app
        .admin_post("/admin/config/reload", ADMIN_TOKEN, &json!({}))
        .await;
    assert_eq!(reloaded.status, 200);
    let after = admin_get(&app, "/admin/config").await;
    assert_eq!(fingerprint(&after), fingerprint(&started));
    assert_eq!(config_info(&app).await, [fingerprint(&started)]);
}
