//! Starts a real BFF with its embedded sandbox on free ports, with a small built web app.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod browser;
pub mod cache_stats;
pub mod coordination_data;
pub mod dashboard;
pub mod drill_load;
pub mod hooks;
pub mod in_process;
pub mod metrics;
pub mod redis;
pub mod replicas;
pub mod sentinels;
pub mod shared_tier;
pub mod shopping;
pub mod test_ca;

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use axum::http::{Method, StatusCode};
use bff::config::{Config, Secrets};
use bff::edge::server::Running;
use bytes::Bytes;
use serde_json::Value;

pub use hooks::SandboxHooks;
use tempfile::TempDir;

pub const ASSET: &str = "/assets/index-Ab12Cd34.js";
pub const ASSET_BODY: &str = "console.log('storefront');";

pub struct TestServer {
    pub running: Running,
    pub base: String,
    pub admin: String,
    pub sandbox: String,
    pub client: reqwest::Client,
    _dirs: (TempDir, TempDir),
}

/// The Redis command timeout in tests: the default 100 ms is what production wants, but on two
/// busy cores a command can take that long, and the fallback it triggers (fetch alone) would
/// make a test of coalescing count an extra upstream call. The fallbacks have tests of their
/// own, with Redis stopped.
pub const BUSY_MACHINE_REDIS_TIMEOUT: Duration = Duration::from_secs(2);

/// A configuration that binds every listener on a free port. With `BFF_TEST_REDIS_URL` set
/// (`make test` sets it for a second run of the suites where Redis applies), every server uses
/// that Redis under a key prefix of its own, so the behaviour tests hold in both modes.
pub fn test_config() -> Config {
    let mut config = Config::default();
    config.server.listen = "127.0.0.1:0".parse().unwrap();
    config.admin.listen = "127.0.0.1:0".parse().unwrap();
    config.sandbox.listen = "127.0.0.1:0".parse().unwrap();
    config.readiness.cache = Duration::ZERO;
    if let Ok(url) = std::env::var("BFF_TEST_REDIS_URL") {
        config.redis.url = url;
        config.redis.key_prefix = format!("test-{}:", uuid::Uuid::new_v4());
        config.redis.command_timeout = BUSY_MACHINE_REDIS_TIMEOUT;
    }
    config
}

pub fn write_dist(dir: &Path) {
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        r#"<!doctype html><html><head><script id="runtime-config" type="application/json">{}</script><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>"#,
    )
    .unwrap();
    std::fs::write(dir.join(ASSET.trim_start_matches('/')), ASSET_BODY).unwrap();
    std::fs::write(dir.join("favicon.svg"), "<svg/>").unwrap();
}

pub async fn start() -> TestServer {
    start_with(test_config(), &[]).await
}

/// Starts with `config` (its dist and sandbox dirs replaced by temp dirs) and secrets from
/// `secrets` (development stand-ins for the rest).
pub async fn start_with(config: Config, secrets: &[(&str, &str)]) -> TestServer {
    start_from(config, secrets, None).await
}

/// As `start_with`, reloading from `path` (on SIGHUP or `POST /admin/config/reload`).
pub async fn start_with_path(
    config: Config,
    secrets: &[(&str, &str)],
    path: std::path::PathBuf,
) -> TestServer {
    start_from(config, secrets, Some(path)).await
}

async fn start_from(
    mut config: Config,
    secrets: &[(&str, &str)],
    path: Option<std::path::PathBuf>,
) -> TestServer {
    let dist = TempDir::new().unwrap();
    let data = TempDir::new().unwrap();
    write_dist(dist.path());
    config.web.dist_dir = dist.path().to_owned();
    config.sandbox.data_dir = data.path().to_owned();
    let map: HashMap<String, String> = secrets
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let secrets = Secrets::from_lookup(&config, |name| map.get(name).cloned()).unwrap();
    let running = bff::start(config, secrets, path).await.unwrap();
    let base = format!("http://{}", running.main_addr);
    let admin = format!("http://{}", running.admin_addr);
    let sandbox = running
        .sandbox_addr
        .map(|addr| format!("http://{addr}"))
        .unwrap_or_default();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    TestServer {
        running,
        base,
        admin,
        sandbox,
        client,
        _dirs: (dist, data),
    }
}

impl TestServer {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.unwrap()
    }

    /// A conditional GET: `If-None-Match: etag`.
    pub async fn get_if_none_match(&self, path: &str, etag: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .header("if-none-match", etag)
            .send()
            .await
            .unwrap()
    }

    pub async fn stop(self) {
        self.running.shutdown();
        self.running.wait().await.unwrap();
    }
}

pub fn header<'a>(response: &'a reqwest::Response, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

impl SandboxHooks for TestServer {
    async fn sandbox_call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> (StatusCode, Bytes) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.sandbox));
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.unwrap();
        (response.status(), response.bytes().await.unwrap())
    }

    async fn admin_body(&self, path: &str) -> Bytes {
        let response = self
            .client
            .get(format!("{}{path}", self.admin))
            .send()
            .await
            .unwrap();
        response.bytes().await.unwrap()
    }
}

/// Starts a burst early in a wall-clock minute: with Redis, request limits count in fixed
/// one-minute windows, and a burst that straddles two windows is counted half in each. Past 40 s
/// into the minute, waits for the next one.
pub async fn early_in_a_rate_limit_window() {
    let into_minute = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
        % 60_000;
    if into_minute > 40_000 {
        let to_next = u64::try_from(60_000 - into_minute).unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(to_next + 100)).await;
    }
}
