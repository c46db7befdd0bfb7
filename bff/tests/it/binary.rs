//! The `bff` binary end to end: start-up from config and environment, OTLP trace export, and a
//! clean exit on SIGTERM (exit 1 when the drain drops requests).

#![allow(clippy::unwrap_used)]

use std::net::TcpListener as StdListener;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::http::HeaderMap;
use axum::routing::post;

/// A port nothing listens on right now.
fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Kills the child if the test fails before it is stopped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
    }
}

#[derive(Clone, Default)]
struct Collector {
    exports: Arc<Mutex<Vec<(String, usize)>>>,
    bodies: Arc<Mutex<Vec<Bytes>>>,
}

impl Collector {
    /// The resource attributes of every exported batch (string values), in order.
    fn resources(&self) -> Vec<std::collections::HashMap<String, String>> {
        use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
        use opentelemetry_proto::tonic::common::v1::any_value::Value;
        use prost::Message;
        let bodies = self.bodies.lock().unwrap().clone();
        bodies
            .into_iter()
            .flat_map(|body| {
                ExportTraceServiceRequest::decode(body)
                    .unwrap()
                    .resource_spans
            })
            .map(|spans| {
                spans
                    .resource
                    .unwrap_or_default()
                    .attributes
                    .into_iter()
                    .filter_map(|attribute| match attribute.value?.value? {
                        Value::StringValue(text) => Some((attribute.key, text)),
                        _ => None,
                    })
                    .collect()
            })
            .collect()
    }
}

async fn start_collector() -> (String, Collector) {
    let collector = Collector::default();
    let recorded = collector.clone();
    let app = Router::new().route(
        "/v1/traces",
        post(move |headers: HeaderMap, body: Bytes| {
            let recorded = recorded.clone();
            async move {
                let kind = headers
                    .get("content-type")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                recorded.exports.lock().unwrap().push((kind, body.len()));
                recorded.bodies.lock().unwrap().push(body);
                ""
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, collector)
}

async fn wait_until_healthy(client: &reqwest::Client, base: &str) {
    for _ in 0..200 {
        if let Ok(response) = client.get(format!("{base}/healthz")).send().await
            && response.status() == 200
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("bff did not become healthy");
}

/// The binary on free ports with the repository's `config/bff.toml`, `envs` on top, its
/// stdout to `stdout`; no `BFF*`/`OTEL*`/`RUST_LOG` from the test's own environment.
fn spawn_bff(data: &std::path::Path, envs: &[(&str, String)], stdout: Stdio) -> (Guard, String) {
    let (main, admin, sandbox) = (free_port(), free_port(), free_port());
    let config = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/bff.toml");
    let mut command = Command::new(env!("CARGO_BIN_EXE_bff"));
    for (key, _) in std::env::vars() {
        if key.starts_with("BFF") || key.starts_with("OTEL") || key == "RUST_LOG" {
            command.env_remove(key);
        }
    }
    command
        .arg("--config")
        .arg(config)
        .env("BFF__SERVER__LISTEN", format!("127.0.0.1:{main}"))
        .env("BFF__ADMIN__LISTEN", format!("127.0.0.1:{admin}"))
        .env("BFF__SANDBOX__LISTEN", format!("127.0.0.1:{sandbox}"))
        .env("BFF__SANDBOX__DATA_DIR", data);
    for (key, value) in envs {
        command.env(key, value);
    }
    let child = command
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    (Guard(child), format!("http://127.0.0.1:{main}"))
}

/// Waits until the binary is healthy, then asks it for the home page.
async fn serve_the_home_page(base: &str) {
    let client = reqwest::Client::new();
    wait_until_healthy(&client, base).await;
    let response = client
        .get(format!("{base}/api/pages/home"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

/// Sends SIGTERM and asserts a clean exit.
async fn terminate(child: Guard) {
    let pid = child.0.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let mut child = child;
    let status = tokio::task::spawn_blocking(move || child.0.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "bff exits 0 on SIGTERM, got {status}");
}

#[tokio::test]
async fn sigterm_stops_the_binary_cleanly_after_exporting_traces_over_otlp() {
    let (otlp, collector) = start_collector().await;
    let data = tempfile::tempdir().unwrap();
    let (child, base) = spawn_bff(
        data.path(),
        &[
            ("BFF__TELEMETRY__OTLP_ENDPOINT", otlp.clone()),
            ("BFF__LOG__FORMAT", "json".to_owned()),
        ],
        Stdio::null(),
    );
    serve_the_home_page(&base).await;
    terminate(child).await;

    let exports = collector.exports.lock().unwrap().clone();
    assert!(!exports.is_empty(), "spans were exported before exit");
    assert!(
        exports
            .iter()
            .all(|(kind, len)| kind == "application/x-protobuf" && *len > 0),
        "{exports:?}"
    );
}

/// With no `telemetry.otlp_endpoint` configured, the standard variables apply: the exporter
/// appends `/v1/traces` to `OTEL_EXPORTER_OTLP_ENDPOINT`, and the SDK's resource detectors take
/// `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. A process of its own, so the test's own
/// environment is never changed.
#[tokio::test]
async fn the_otel_variables_name_the_endpoint_and_the_resource_when_the_config_does_not() {
    let (otlp, collector) = start_collector().await;
    let base_endpoint = otlp.strip_suffix("/v1/traces").unwrap().to_owned();
    let data = tempfile::tempdir().unwrap();
    let (child, base) = spawn_bff(
        data.path(),
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", base_endpoint),
            ("OTEL_SERVICE_NAME", "storefront-bff-from-env".to_owned()),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment.name=otel-env-test".to_owned(),
            ),
        ],
        Stdio::null(),
    );
    serve_the_home_page(&base).await;
    terminate(child).await;

    let resources = collector.resources();
    assert!(
        !resources.is_empty(),
        "spans were exported to the variable's endpoint"
    );
    for resource in &resources {
        assert_eq!(
            (
                resource.get("service.name").map(String::as_str),
                resource
                    .get("deployment.environment.name")
                    .map(String::as_str)
            ),
            (Some("storefront-bff-from-env"), Some("otel-env-test")),
            "{resource:?}"
        );
    }
}

/// `OTEL_SDK_DISABLED=true` turns the export off: the same variables as the test above, which
/// exports, plus that one.
#[tokio::test]
async fn otel_sdk_disabled_exports_nothing() {
    let (otlp, collector) = start_collector().await;
    let base_endpoint = otlp.strip_suffix("/v1/traces").unwrap().to_owned();
    let data = tempfile::tempdir().unwrap();
    let (child, base) = spawn_bff(
        data.path(),
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", base_endpoint),
            ("OTEL_SDK_DISABLED", "true".to_owned()),
        ],
        Stdio::null(),
    );
    serve_the_home_page(&base).await;
    terminate(child).await;
    assert_eq!(collector.exports.lock().unwrap().len(), 0);
}

#[tokio::test]
async fn logs_written_to_a_file_carry_no_terminal_escape_codes() {
    let data = tempfile::tempdir().unwrap();
    let log_path = data.path().join("bff.log");
    let log_file = std::fs::File::create(&log_path).unwrap();
    // The readable format, the one that used to colour its output.
    let (child, base) = spawn_bff(
        &data.path().join("sandbox"),
        &[("BFF__LOG__FORMAT", "pretty".to_owned())],
        Stdio::from(log_file),
    );
    serve_the_home_page(&base).await;
    terminate(child).await;
    let logs = std::fs::read_to_string(&log_path).unwrap();
    assert!(
        logs.contains("listening") && logs.contains("shutdown requested"),
        "the log lines reached the file, the last ones flushed at exit: {logs}"
    );
    assert!(!logs.contains('\u{1b}'), "no ANSI escape codes: {logs:?}");
}

/// A drain whose grace runs out with a request unanswered is not a clean stop: the binary logs
/// how many requests it dropped and exits 1 (an orchestrator, or a deploy script, sees it).
#[tokio::test]
async fn a_drain_that_drops_requests_logs_how_many_and_exits_non_zero() {
    let data = tempfile::tempdir().unwrap();
    let log_path = data.path().join("bff.log");
    let log_file = std::fs::File::create(&log_path).unwrap();
    let sandbox = format!("127.0.0.1:{}", free_port());
    let (child, base) = spawn_bff(
        &data.path().join("sandbox"),
        &[
            ("BFF__LOG__FORMAT", "json".to_owned()),
            ("BFF__SANDBOX__LISTEN", sandbox.clone()),
            ("BFF__SERVER__SHUTDOWN_GRACE", "300ms".to_owned()),
        ],
        Stdio::from(log_file),
    );
    let client = reqwest::Client::new();
    wait_until_healthy(&client, &base).await;
    let fault = client
        .post(format!("http://{sandbox}/sandbox/faults"))
        .json(&serde_json::json!({"route": "/strapi/page/{name}", "latencyMs": 10_000}))
        .send()
        .await
        .unwrap();
    assert!(fault.status().is_success());
    let in_flight = tokio::spawn({
        let client = client.clone();
        let url = format!("{base}/api/pages/home");
        async move { client.get(url).send().await }
    });
    // Wait (bounded) until the request has reached the slowed upstream.
    let mut reached = false;
    for _ in 0..100 {
        let stats: serde_json::Value = client
            .get(format!("http://{sandbox}/sandbox/stats"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if stats["routes"]["/strapi/page/{name}"].as_u64().unwrap_or(0) > 0 {
            reached = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(reached, "the request never reached the upstream");

    let mut child = child;
    let pid = child.0.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let status = tokio::task::spawn_blocking(move || child.0.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        status.code(),
        Some(1),
        "a drain that dropped a request: {status}"
    );
    let logs = std::fs::read_to_string(&log_path).unwrap();
    let grace_line = logs
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|line| {
            line["message"]
                .as_str()
                .is_some_and(|message| message.starts_with("shutdown grace elapsed"))
        })
        .unwrap_or_else(|| panic!("no grace line in {logs}"));
    assert_eq!(grace_line["level"], "WARN", "{grace_line}");
    assert_eq!(grace_line["dropped"], 1, "{grace_line}");
    in_flight.abort();
}

/// `bff healthcheck` against `admin` (the image's HEALTHCHECK): whether it exited 0.
async fn healthcheck_passes(admin: &str) -> bool {
    let config = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/bff.toml");
    let mut command = Command::new(env!("CARGO_BIN_EXE_bff"));
    for (key, _) in std::env::vars() {
        if key.starts_with("BFF") {
            command.env_remove(key);
        }
    }
    command
        .arg("--config")
        .arg(config)
        .args(["healthcheck", "--timeout", "2s"])
        .env("BFF__ADMIN__LISTEN", admin)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let status = tokio::task::spawn_blocking(move || command.status())
        .await
        .unwrap()
        .unwrap();
    assert!(
        status.code().is_some_and(|code| code == 0 || code == 1),
        "{status}"
    );
    status.success()
}

#[tokio::test]
async fn the_healthcheck_subcommand_passes_while_ready_and_fails_once_stopped() {
    let data = tempfile::tempdir().unwrap();
    let admin = format!("127.0.0.1:{}", free_port());
    let (child, base) = spawn_bff(
        data.path(),
        &[("BFF__ADMIN__LISTEN", admin.clone())],
        Stdio::null(),
    );
    wait_until_healthy(&reqwest::Client::new(), &base).await;
    let mut ready = false;
    for _ in 0..100 {
        if healthcheck_passes(&admin).await {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(ready, "bff healthcheck never passed against a running bff");
    terminate(child).await;
    assert!(
        !healthcheck_passes(&admin).await,
        "bff healthcheck passed with nothing listening"
    );
}
