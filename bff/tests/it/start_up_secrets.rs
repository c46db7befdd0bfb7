//! Issue 29: the real binary refuses, before it listens, the public development stand-ins on an
//! instance others can reach, and short secrets in production; the message names the variable,
//! never the value. Each case has a control that starts, so a refusal is the rule's doing.

#![allow(clippy::unwrap_used)]

use std::net::TcpListener as StdListener;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const LONG_ADMIN_TOKEN: &str = "admin-token-with-more-than-thirty-two-bytes";
const LONG_WEBHOOK_SECRET: &str = "webhook-secret-with-more-than-thirty-two-bytes";
const LONG_SESSION_KEY: &str = "session-key-with-more-than-thirty-two-bytes";
const SHORT_ADMIN_TOKEN: &str = "six-ch";

fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Kills the child if the test fails before it exits.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// How a start-up attempt ended within the time allowed.
enum Outcome {
    /// Exited with this status and stderr.
    Exited(ExitStatus, String),
    /// Still running and answering `/healthz` on the admin listener.
    Serving,
}

/// Starts the binary with the repository's `config/bff.toml`, free ports on `host`, and `envs`
/// on top (nothing `BFF*` from the test's own environment); waits up to 20 s for it to exit or
/// to answer `/healthz`.
async fn start(host: &str, envs: &[(&str, &str)]) -> Outcome {
    let (main, admin, sandbox) = (free_port(), free_port(), free_port());
    let data = tempfile::tempdir().unwrap();
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
        .env("BFF__SERVER__LISTEN", format!("{host}:{main}"))
        .env("BFF__ADMIN__LISTEN", format!("{host}:{admin}"))
        .env("BFF__SANDBOX__LISTEN", format!("127.0.0.1:{sandbox}"))
        .env("BFF__SANDBOX__DATA_DIR", data.path())
        .envs(envs.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = Guard(command.spawn().unwrap());
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Some(status) = child.0.try_wait().unwrap() {
            let mut stderr = String::new();
            std::io::Read::read_to_string(&mut child.0.stderr.take().unwrap(), &mut stderr)
                .unwrap();
            return Outcome::Exited(status, stderr);
        }
        let health = format!("http://127.0.0.1:{admin}/healthz");
        if let Ok(response) = client.get(health).send().await
            && response.status() == 200
        {
            return Outcome::Serving;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the bff neither exited nor became healthy within 20 s");
}

/// The refusal's stderr; fails when the binary started instead, or exited otherwise than 2.
fn refusal(outcome: Outcome) -> String {
    match outcome {
        Outcome::Exited(status, stderr) => {
            assert_eq!(status.code(), Some(2), "{stderr}");
            stderr
        }
        Outcome::Serving => panic!("the bff started; it should have refused"),
    }
}

fn assert_serving(outcome: Outcome) {
    if let Outcome::Exited(status, stderr) = outcome {
        panic!("the bff should have started, but exited ({status}): {stderr}");
    }
}

#[tokio::test]
async fn development_stand_ins_are_refused_on_a_listener_others_can_reach() {
    let stderr = refusal(start("0.0.0.0", &[]).await);
    for name in ["BFF_ADMIN_TOKEN", "BFF_SESSION_KEYS", "BFF_WEBHOOK_SECRET"] {
        assert!(stderr.contains(name), "{name}: {stderr}");
    }
    assert!(stderr.contains("server.listen = 0.0.0.0:"), "{stderr}");
    assert!(stderr.contains("admin.listen = 0.0.0.0:"), "{stderr}");
    assert!(
        !stderr.contains("dev-insecure-"),
        "never the value: {stderr}"
    );

    // Control: the same reachable listeners with secrets of the operator's own start.
    assert_serving(
        start(
            "0.0.0.0",
            &[
                ("BFF_ADMIN_TOKEN", LONG_ADMIN_TOKEN),
                ("BFF_WEBHOOK_SECRET", LONG_WEBHOOK_SECRET),
                ("BFF_SESSION_KEYS", LONG_SESSION_KEY),
            ],
        )
        .await,
    );
    // Control: loopback listeners and the embedded sandbox may use the stand-ins.
    assert_serving(start("127.0.0.1", &[]).await);
}

#[tokio::test]
async fn development_stand_ins_are_refused_with_an_upstream_off_loopback() {
    let upstream = [(
        "BFF__UPSTREAMS__COMMERCE__BASE_URL",
        "https://commerce.example.com/",
    )];
    let stderr = refusal(start("127.0.0.1", &upstream).await);
    assert!(stderr.contains("BFF_ADMIN_TOKEN"), "{stderr}");
    assert!(
        stderr.contains("upstreams.commerce.base_url (host commerce.example.com)"),
        "{stderr}"
    );
}

/// Production, with external upstreams (nothing answers there; the bff starts regardless and
/// reports them unready).
const PRODUCTION: &[(&str, &str)] = &[
    ("BFF__ENVIRONMENT", "production"),
    ("BFF__SANDBOX__ENABLED", "false"),
    (
        "BFF__UPSTREAMS__COMMERCE__BASE_URL",
        "https://commerce.invalid/",
    ),
    (
        "BFF__UPSTREAMS__CONTENT__BASE_URL",
        "https://content.invalid/api/",
    ),
    (
        "BFF__MAPS__TILE_URL",
        "https://tiles.invalid/{z}/{x}/{y}.png?key={key}",
    ),
];

fn production_with(secrets: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    PRODUCTION.iter().chain(secrets).copied().collect()
}

#[tokio::test]
async fn production_refuses_short_secrets_naming_the_key_never_the_value() {
    let short_admin = production_with(&[
        ("BFF_ADMIN_TOKEN", SHORT_ADMIN_TOKEN),
        ("BFF_WEBHOOK_SECRET", LONG_WEBHOOK_SECRET),
        ("BFF_SESSION_KEYS", LONG_SESSION_KEY),
    ]);
    let stderr = refusal(start("127.0.0.1", &short_admin).await);
    assert!(
        stderr.contains("BFF_ADMIN_TOKEN is shorter than 32 bytes"),
        "{stderr}"
    );
    assert!(
        !stderr.contains(SHORT_ADMIN_TOKEN),
        "never the value: {stderr}"
    );
    assert!(!stderr.contains("BFF_WEBHOOK_SECRET"), "{stderr}");

    let short_sealing_key = production_with(&[
        ("BFF_ADMIN_TOKEN", LONG_ADMIN_TOKEN),
        ("BFF_WEBHOOK_SECRET", LONG_WEBHOOK_SECRET),
        (
            "BFF_SESSION_KEYS",
            "short-new-key, session-key-with-more-than-thirty-two-bytes",
        ),
    ]);
    let stderr = refusal(start("127.0.0.1", &short_sealing_key).await);
    assert!(
        stderr.contains("BFF_SESSION_KEYS: the sealing (first) key is shorter than 32 bytes"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("short-new-key"),
        "never the value: {stderr}"
    );

    // Control: long secrets start; a short older key (kept to open cookies) only warns.
    assert_serving(
        start(
            "0.0.0.0",
            &production_with(&[
                ("BFF_ADMIN_TOKEN", LONG_ADMIN_TOKEN),
                ("BFF_WEBHOOK_SECRET", LONG_WEBHOOK_SECRET),
                (
                    "BFF_SESSION_KEYS",
                    "session-key-with-more-than-thirty-two-bytes, old-key",
                ),
            ]),
        )
        .await,
    );
}
