//! The shared tier over TLS with an ACL user, as managed Redis offerings run it: a TLS-only
//! `redis-server` whose `default` user is off, its certificate from a CA the test makes. Three
//! replicas share cache entries, purges and sign-outs through it, and take a rotated password
//! from its file without a restart. A wrong CA, a wrong password or a plain `redis://` URL is
//! named at start-up (one ERROR line with the key and the cause, the connection gauge at 0,
//! `bff check-config --connect` exiting non-zero) while the replica serves on its own.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::SandboxHooks;
use common::browser::Browser;
use common::redis::{Options, RedisServer, ServerTls};
use common::replicas::{Replicas, Setup, admin_purge};
use common::test_ca::TestCa;
use common::{TestServer, header};
use serde_json::{Value, json};

const USER: &str = "bff-storefront";
const PASSWORD: &str = "first-password-0123456789";

/// A TLS-only server with the ACL user `USER`, its certificate signed by `ca`.
fn tls_server(ca: &TestCa) -> RedisServer {
    RedisServer::start_with(Options {
        tls: Some(ServerTls {
            cert: ca.server_cert.clone(),
            key: ca.server_key.clone(),
            ca: ca.ca_cert.clone(),
        }),
        user: Some((USER.to_owned(), PASSWORD.to_owned())),
        args: Vec::new(),
    })
}

/// Polls for up to 10 s until `replica` reports `tier`'s Redis as `connected`.
async fn until_connected(replica: &TestServer, connected: f64) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let scrape = replica.metrics().await;
        let cache = scrape.value("bff_redis_connected", &[("tier", "cache")]);
        let coordination = scrape.value("bff_redis_connected", &[("tier", "coordination")]);
        if cache == Some(connected) && coordination == Some(connected) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{}: bff_redis_connected is {cache:?}/{coordination:?}, not {connected}",
            replica.base
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn purge(replica: &TestServer, tag: &str) {
    let answer = admin_purge(replica, &json!({"tags": [tag]})).await;
    let status = answer.status();
    assert_eq!(status, 200, "{}", answer.text().await.unwrap_or_default());
}

/// `page` filled on `replicas[0]` is an L2 hit on the others, polled for up to 10 s (a page that
/// was not stored, while connections came back, is purged and tried again).
async fn until_shared(replicas: &Replicas, page: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let filled = replicas.replicas[0].get(page).await;
        let filled = header(&filled, "cache-status").to_owned();
        let elsewhere = replicas.replicas[1].get(page).await;
        let elsewhere = header(&elsewhere, "cache-status").to_owned();
        if filled.contains("stored") && elsewhere.starts_with("bff-l2; hit") {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "L2 not shared: {filled} / {elsewhere}"
        );
        // While connections come back, Redis may not take the purge: it is then answered 202
        // (`fanOut: pending`, kept for replay), and this loop tries again.
        let tag = format!("page:{}", page.rsplit('/').next().unwrap());
        let answer = admin_purge(&replicas.replicas[0], &json!({"tags": [tag]})).await;
        assert!(
            [200, 202].contains(&answer.status().as_u16()),
            "{}",
            answer.text().await.unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn over_tls_with_an_acl_user_three_replicas_share_entries_purges_and_sign_outs() {
    let ca = TestCa::new("bff-test-ca");
    let mut redis = tls_server(&ca);
    let secrets_dir = tempfile::tempdir().unwrap();
    let password_file = secrets_dir.path().join("BFF_REDIS_PASSWORD");
    std::fs::write(&password_file, format!("{PASSWORD}\n")).unwrap();
    let ca_file = ca.ca_cert.clone();
    let replicas = Replicas::start_with_secrets(
        Setup::on(redis.tls_url(), 3),
        &[
            ("BFF_REDIS_USERNAME", USER.to_owned()),
            (
                "BFF_REDIS_PASSWORD_FILE",
                password_file.display().to_string(),
            ),
        ],
        |config| config.redis.tls.ca_file = Some(ca_file.clone()),
    )
    .await;
    for replica in &replicas.replicas {
        until_connected(replica, 1.0).await;
    }

    // Cache entries: filled once, an L2 hit elsewhere, stored in the TLS server.
    let first = replicas.replicas[0].get("/api/pages/home").await;
    assert!(header(&first, "cache-status").contains("stored"));
    for replica in &replicas.replicas[1..] {
        let answer = replica.get("/api/pages/home").await;
        let status = header(&answer, "cache-status");
        assert!(status.starts_with("bff-l2; hit; ttl="), "{status}");
    }
    let stored = redis.cli(&[
        "EXISTS",
        &format!("{}cache:entry:pages:home", replicas.key_prefix),
    ]);
    assert_eq!(stored, "1", "the entry is in the TLS server");

    // Purges: one replica's purge reaches the others' L1 through the channel.
    for replica in &replicas.replicas {
        let again = replica.get("/api/pages/home").await;
        assert!(header(&again, "cache-status").starts_with("bff; hit;"));
    }
    purge(&replicas.replicas[2], "page:home").await;
    for replica in &replicas.replicas[..2] {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let answer = replica.get("/api/pages/home").await;
            let status = header(&answer, "cache-status").to_owned();
            if !status.starts_with("bff; hit;") {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{}: still {status}",
                replica.base
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    // Sessions: a sign-out on one replica is honoured by the others.
    let mut browser = Browser::new(&replicas.replicas[0]);
    browser.login().await;
    let copy = browser.cookie.clone().unwrap();
    let signed_out = browser.post("/api/auth/logout", json!({})).await;
    assert_eq!(signed_out.status, 204, "{}", signed_out.text);
    for replica in &replicas.replicas[1..] {
        let answer = replica
            .client
            .get(replica.url("/api/session"))
            .header("cookie", &copy)
            .send()
            .await
            .unwrap();
        assert_eq!(
            answer.status(),
            401,
            "{}: the copied cookie works",
            replica.base
        );
    }
    for replica in &replicas.replicas {
        let scrape = replica.metrics().await;
        assert_eq!(
            scrape.value("bff_redis_errors_total", &[]),
            None,
            "{}",
            replica.base
        );
    }

    // A rotated password: added to the user, written to the file, the old one removed and every
    // connection dropped. Connections come back with the new one, read from the file.
    let second = "second-password-9876543210";
    assert_eq!(
        redis.cli(&["ACL", "SETUSER", USER, &format!(">{second}")]),
        "OK"
    );
    std::fs::write(&password_file, second).unwrap();
    let stale = redis.cli(&["ACL", "SETUSER", USER, &format!("<{PASSWORD}")]);
    assert_eq!(stale, "OK");
    redis.set_password(second);
    let killed: u32 = redis
        .cli(&["CLIENT", "KILL", "USER", USER])
        .parse()
        .unwrap();
    assert!(
        killed >= 3,
        "every replica's connections dropped ({killed})"
    );
    for replica in &replicas.replicas {
        until_connected(replica, 1.0).await;
    }
    until_shared(&replicas, "/api/pages/faq").await;
    replicas.stop().await;
}

/// A TLS-only server, and the replica's view of it through `url` and `ca_file` with
/// `password`: the cause it names.
struct Misconfigured<'a> {
    url: String,
    ca_file: &'a Path,
    password: &'a str,
    key: &'a str,
    cause: &'a str,
}

/// `bff check-config --connect` for `case`: exits 1 naming the key and the cause.
fn check_config_connect(config: &Path, case: &Misconfigured<'_>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bff"));
    for (key, _) in std::env::vars() {
        if key.starts_with("BFF") {
            command.env_remove(key);
        }
    }
    let output = command
        .args([
            "--config",
            config.to_str().unwrap(),
            "check-config",
            "--connect",
        ])
        .env("BFF_REDIS_USERNAME", USER)
        .env("BFF_REDIS_PASSWORD", case.password)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{}: {stderr}", case.url);
    assert!(
        stderr.contains(case.key) && stderr.contains(case.cause),
        "{}: {stderr}",
        case.url
    );
    assert!(!stderr.contains(case.password), "no password in {stderr}");
}

/// The binary started with `case`: it serves on its own, its gauge says 0, and its log has one
/// ERROR line naming the key and the cause.
async fn start_alone(config: &Path, case: &Misconfigured<'_>, logs: &Path) {
    let (main, admin, sandbox) = (free_port(), free_port(), free_port());
    let mut command = Command::new(env!("CARGO_BIN_EXE_bff"));
    for (key, _) in std::env::vars() {
        if key.starts_with("BFF") || key.starts_with("OTEL") || key == "RUST_LOG" {
            command.env_remove(key);
        }
    }
    let data = tempfile::tempdir().unwrap();
    let child = command
        .args(["--config", config.to_str().unwrap()])
        .env("BFF__SERVER__LISTEN", format!("127.0.0.1:{main}"))
        .env("BFF__ADMIN__LISTEN", format!("127.0.0.1:{admin}"))
        .env("BFF__SANDBOX__LISTEN", format!("127.0.0.1:{sandbox}"))
        .env("BFF__SANDBOX__DATA_DIR", data.path())
        .env("BFF__LOG__FORMAT", "json")
        .env("BFF_REDIS_USERNAME", USER)
        .env("BFF_REDIS_PASSWORD", case.password)
        .stdout(Stdio::from(std::fs::File::create(logs).unwrap()))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let child = Guard(child);
    let client = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{main}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let page = loop {
        if let Ok(answer) = client.get(format!("{base}/api/pages/home")).send().await {
            break answer;
        }
        assert!(Instant::now() < deadline, "{}: never served", case.url);
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(page.status(), 200, "{}: serves on its own", case.url);
    let metrics = client
        .get(format!("http://127.0.0.1:{admin}/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let scrape = common::metrics::Scrape::parse(&metrics);
    for tier in ["cache", "coordination"] {
        assert_eq!(
            scrape.value("bff_redis_connected", &[("tier", tier)]),
            Some(0.0),
            "{}: {tier}",
            case.url
        );
    }
    // The monitor has looked again since (every second): the same cause is not repeated.
    tokio::time::sleep(Duration::from_millis(2_200)).await;
    drop(child);
    let text = std::fs::read_to_string(logs).unwrap();
    let errors: Vec<Value> = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["level"] == "ERROR")
        .collect();
    assert_eq!(errors.len(), 1, "{}: one ERROR line: {errors:#?}", case.url);
    let line = errors[0].to_string();
    assert!(
        line.contains(case.key) && line.contains(case.cause),
        "{}: {line}",
        case.url
    );
    assert!(!text.contains(case.password), "no password in the log");
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Kills the child by PID when dropped.
struct Guard(std::process::Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_ca_a_wrong_password_or_a_plain_url_is_named_at_start_and_the_replica_serves_alone()
{
    let ca = TestCa::new("bff-test-ca");
    let other = TestCa::new("another-ca");
    let redis = tls_server(&ca);
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        Misconfigured {
            url: redis.tls_url(),
            ca_file: &other.ca_cert,
            password: PASSWORD,
            key: "redis.tls.ca_file",
            cause: "certificate not trusted",
        },
        Misconfigured {
            url: redis.tls_url(),
            ca_file: &ca.ca_cert,
            password: "not-the-password",
            key: "BFF_REDIS_PASSWORD",
            cause: "authentication failed",
        },
        Misconfigured {
            url: redis.url(),
            ca_file: &ca.ca_cert,
            password: PASSWORD,
            key: "redis.url",
            cause: "connection closed by the server before it answered: a TLS-only server?",
        },
    ];
    for (index, case) in cases.iter().enumerate() {
        let tls = if case.url.starts_with("rediss://") {
            format!("[redis.tls]\nca_file = {:?}\n", case.ca_file)
        } else {
            String::new()
        };
        let repository = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/bff.toml"),
        )
        .unwrap();
        let config = dir.path().join(format!("bff-{index}.toml"));
        let redis_section = format!(
            "[redis]\nurl = {:?}\nconnect_timeout = \"2s\"\n{tls}",
            case.url
        );
        let text = replace_section(&repository, "redis", &redis_section);
        std::fs::write(&config, text).unwrap();
        check_config_connect(&config, case);
        start_alone(&config, case, &dir.path().join(format!("bff-{index}.log"))).await;
    }
    // The right settings connect: the refusals above were the settings', not the server's.
    let right = Misconfigured {
        url: redis.tls_url(),
        ca_file: &ca.ca_cert,
        password: PASSWORD,
        key: "",
        cause: "",
    };
    let config = dir.path().join("right.toml");
    std::fs::write(
        &config,
        format!(
            "[redis]\nurl = {:?}\n[redis.tls]\nca_file = {:?}\n",
            right.url, right.ca_file
        ),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_bff"))
        .args([
            "--config",
            config.to_str().unwrap(),
            "check-config",
            "--connect",
        ])
        .env("BFF_REDIS_USERNAME", USER)
        .env("BFF_REDIS_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("# redis: connected"));
}

/// `toml` with its `[name]` section and its subsections (up to the next other top-level
/// section) replaced by `section`.
fn replace_section(toml: &str, name: &str, section: &str) -> String {
    let start = toml.find(&format!("\n[{name}]\n")).unwrap() + 1;
    let mut end = toml.len();
    let mut at = start + 1;
    while let Some(offset) = toml[at..].find("\n[") {
        let header = at + offset + 2;
        if !toml[header..].starts_with(&format!("{name}.")) {
            end = at + offset + 1;
            break;
        }
        at = header;
    }
    format!("{}{section}{}", &toml[..start], &toml[end..])
}
