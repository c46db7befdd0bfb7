//! The `bff` command line: `check-config` validates, names the bad key, redacts secrets;
//! `--version` names the commit; `healthcheck` takes a duration as the configuration writes one.

#![allow(clippy::unwrap_used)]

use std::process::{Command, Output};

fn check_config(toml: &str, env: &[(&str, &str)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bff.toml");
    std::fs::write(&path, toml).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_bff"));
    command.arg("--config").arg(&path).arg("check-config");
    for (key, _) in std::env::vars() {
        if key.starts_with("BFF") {
            command.env_remove(key);
        }
    }
    command.envs(env.iter().copied());
    command.output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_valid_config_prints_the_effective_values_with_secrets_redacted() {
    let output = check_config(
        "[server]\nlisten = \"127.0.0.1:18080\"\n",
        &[
            ("BFF_ADMIN_TOKEN", "very-secret-admin-token"),
            ("BFF__ADMIN__LISTEN", "127.0.0.1:19090"),
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("listen = \"127.0.0.1:18080\""), "{stdout}");
    assert!(
        stdout.contains("listen = \"127.0.0.1:19090\""),
        "env override shown: {stdout}"
    );
    assert!(
        stdout.contains("BFF_ADMIN_TOKEN = \"[redacted]\""),
        "{stdout}"
    );
    assert!(!stdout.contains("very-secret-admin-token"));
}

#[test]
fn an_unknown_key_exits_non_zero_naming_it() {
    let output = check_config("[upstreams.content]\ntimeout_msec = 5\n", &[]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("upstreams.content.timeout_msec"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_bad_value_exits_non_zero_naming_the_key() {
    let output = check_config("[server]\nmax_body_bytes = \"lots\"\n", &[]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("server.max_body_bytes"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn production_with_the_sandbox_is_refused() {
    let output = check_config("environment = \"production\"\n", &[]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("sandbox.enabled"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn production_with_development_secrets_is_refused() {
    let toml = "environment = \"production\"\n[sandbox]\nenabled = false\n\
                [upstreams.commerce]\nbase_url = \"https://commerce.example/\"\n\
                [upstreams.content]\nbase_url = \"https://content.example/api/\"\n\
                [maps]\ntile_url = \"https://tiles.example/{z}/{x}/{y}.png?key={key}\"\n";
    let missing = check_config(toml, &[]);
    assert!(!missing.status.success());
    assert!(
        stderr(&missing).contains("BFF_ADMIN_TOKEN"),
        "{}",
        stderr(&missing)
    );

    let dev = check_config(
        toml,
        &[
            ("BFF_ADMIN_TOKEN", "a-real-admin-token"),
            ("BFF_SESSION_KEYS", "dev-insecure-bff-session-keys"),
            ("BFF_WEBHOOK_SECRET", "a-real-webhook-secret"),
        ],
    );
    assert!(!dev.status.success());
    assert!(
        stderr(&dev).contains("BFF_SESSION_KEYS"),
        "{}",
        stderr(&dev)
    );

    // Real secrets: production also wants each at least 32 bytes (issue 29).
    let real = check_config(
        toml,
        &[
            ("BFF_ADMIN_TOKEN", "a-real-admin-token-of-32-bytes-or-more"),
            ("BFF_SESSION_KEYS", "a-real-session-key-of-32-bytes-or-more"),
            (
                "BFF_WEBHOOK_SECRET",
                "a-real-webhook-secret-of-32-bytes-or-more",
            ),
        ],
    );
    assert!(real.status.success(), "{}", stderr(&real));
}

/// Issue 45: the tokens file stands in for `BFF_ADMIN_TOKEN` in production, under the same
/// rules (no stand-in, 32 bytes or more for a token given in plaintext); `check-config` names
/// its tokens and scopes, never a token.
#[test]
fn production_takes_an_admin_tokens_file_under_the_rules_of_the_single_token() {
    let toml = "environment = \"production\"\n[sandbox]\nenabled = false\n\
                [upstreams.commerce]\nbase_url = \"https://commerce.example/\"\n\
                [upstreams.content]\nbase_url = \"https://content.example/api/\"\n\
                [maps]\ntile_url = \"https://tiles.example/{z}/{x}/{y}.png?key={key}\"\n";
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens.toml");
    let with_tokens = |text: &str| {
        std::fs::write(&tokens, text).unwrap();
        check_config(
            toml,
            &[
                ("BFF_ADMIN_TOKENS_FILE", tokens.to_str().unwrap()),
                ("BFF_SESSION_KEYS", "a-real-session-key-of-32-bytes-or-more"),
                (
                    "BFF_WEBHOOK_SECRET",
                    "a-real-webhook-secret-of-32-bytes-or-more",
                ),
            ],
        )
    };
    let entry = |name: &str, token: &str| {
        format!(
            "[[tokens]]\nname = \"{name}\"\nscopes = [\"read\", \"purge\"]\ntoken = \"{token}\"\n"
        )
    };
    let stand_in = with_tokens(&entry(
        "ops",
        "dev-insecure-ops-token-long-enough-for-32-bytes",
    ));
    assert!(!stand_in.status.success());
    assert!(
        stderr(&stand_in).contains("BFF_ADMIN_TOKENS_FILE"),
        "{}",
        stderr(&stand_in)
    );
    let short = with_tokens(&entry("ops", "short-ops-token"));
    assert!(!short.status.success());
    assert!(
        stderr(&short).contains("\"ops\" is shorter than 32 bytes"),
        "{}",
        stderr(&short)
    );
    assert!(!stderr(&short).contains("short-ops-token"));
    let digest = format!("sha256:{}", "ab".repeat(32));
    let good = with_tokens(
        &(entry("ops", "an-ops-token-of-32-bytes-or-more-0123") + &entry("cms", &digest)),
    );
    assert!(good.status.success(), "{}", stderr(&good));
    let stdout = String::from_utf8_lossy(&good.stdout);
    assert!(
        stdout.contains("ops [read, purge]; cms [read, purge]"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("an-ops-token") && !stdout.contains(&digest),
        "{stdout}"
    );
}

#[test]
fn a_trusted_client_ip_header_without_trusted_proxies_is_refused_naming_both_keys() {
    let output = check_config(
        "[rate_limit]\ntrusted_client_ip_header = \"x-forwarded-for\"\n",
        &[],
    );
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("rate_limit.trusted_client_ip_header")
            && message.contains("rate_limit.trusted_proxies"),
        "{message}"
    );

    let listed = check_config(
        "[rate_limit]\ntrusted_client_ip_header = \"x-forwarded-for\"\n\
         trusted_proxies = [\"10.0.0.0/8\", \"fd00::/8\"]\n",
        &[],
    );
    assert!(listed.status.success(), "{}", stderr(&listed));
    let from_env = check_config(
        "[rate_limit]\ntrusted_client_ip_header = \"x-forwarded-for\"\n",
        &[("BFF__RATE_LIMIT__TRUSTED_PROXIES", "10.0.0.0/8,192.0.2.7")],
    );
    assert!(from_env.status.success(), "{}", stderr(&from_env));
    let stdout = String::from_utf8_lossy(&from_env.stdout);
    assert!(
        stdout.contains("trusted_proxies = [\n    \"10.0.0.0/8\",\n    \"192.0.2.7/32\",\n]"),
        "{stdout}"
    );

    let bad = check_config("[rate_limit]\ntrusted_proxies = [\"10.0.0.0/33\"]\n", &[]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("rate_limit.trusted_proxies"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn a_deprecated_duration_key_is_accepted_with_a_warning_naming_its_successor() {
    let output = check_config(
        "[cache.pages]\nttl_ms = 90000\n",
        &[("BFF__SERVER__SHUTDOWN_GRACE_MS", "2500")],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let warnings = stderr(&output);
    assert!(
        warnings.contains("warning: cache.pages.ttl_ms (from ")
            && warnings.contains("write cache.pages.ttl = \"90s\""),
        "{warnings}"
    );
    assert!(
        warnings.contains("server.shutdown_grace_ms (from BFF__SERVER__SHUTDOWN_GRACE_MS)")
            && warnings.contains("write server.shutdown_grace = \"2500ms\""),
        "{warnings}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("ttl = \"90s\""), "{stdout}");
    assert!(stdout.contains("shutdown_grace = \"2500ms\""), "{stdout}");
}

#[test]
fn a_duration_set_in_both_spellings_exits_non_zero_naming_both() {
    let output = check_config(
        "[cache.pages]\nttl = \"5m\"\n",
        &[("BFF__CACHE__PAGES__TTL_MS", "300000")],
    );
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("cache.pages.ttl_ms (from BFF__CACHE__PAGES__TTL_MS)"),
        "{message}"
    );
    assert!(message.contains("cache.pages.ttl (from "), "{message}");
    assert!(message.contains("both set"), "{message}");
}

#[test]
fn version_prints_the_package_version_and_the_commit_it_was_built_from() {
    let output = Command::new(env!("CARGO_BIN_EXE_bff"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        stdout.trim(),
        format!(
            "bff {} (commit {})",
            env!("CARGO_PKG_VERSION"),
            bff::observe::metrics::BUILD_COMMIT
        )
    );
    // Built from a git checkout without BFF_GIT_COMMIT, the commit is the checkout's HEAD.
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output();
    if let Ok(head) = head
        && head.status.success()
        && option_env!("BFF_GIT_COMMIT").is_none()
    {
        let head = String::from_utf8(head.stdout).unwrap();
        assert_eq!(bff::observe::metrics::BUILD_COMMIT, head.trim());
    }
}

#[test]
fn the_healthcheck_timeout_is_a_duration_and_a_bad_one_is_refused_naming_the_flag() {
    let probe = |timeout: &str| {
        let config = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/bff.toml");
        Command::new(env!("CARGO_BIN_EXE_bff"))
            .arg("--config")
            .arg(config)
            .args(["healthcheck", "--timeout", timeout])
            .env("BFF__ADMIN__LISTEN", "127.0.0.1:9")
            .output()
            .unwrap()
    };
    let bad = probe("2000");
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("--timeout"), "{}", stderr(&bad));
    // Nothing listens on the discard port: the probe fails (exit 1).
    let down = probe("300ms");
    assert_eq!(down.status.code(), Some(1), "{}", stderr(&down));
}
