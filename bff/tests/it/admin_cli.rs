//! Issue 45: `bff admin …`, the built binary against a running replica: it prints what the
//! API answers (pretty JSON), exits 1 with the problem's detail for a refusal, reads the token
//! from the environment or a file, and has no argument for the token itself.

#![allow(clippy::unwrap_used)]

use crate::admin_tokens::{PURGER, READER, admin_call, tokens_file};
use crate::common;

use serde_json::Value;
use std::process::Output;

/// `bff admin --admin-url <admin> args…` with `envs` and no `BFF*` variable of the test's own.
pub(crate) async fn bff_admin(admin: &str, args: &[&str], envs: &[(&str, &str)]) -> Output {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_bff"));
    for (key, _) in std::env::vars() {
        if key.starts_with("BFF") {
            command.env_remove(key);
        }
    }
    command
        .arg("admin")
        .arg("--admin-url")
        .arg(admin)
        .args(args)
        .envs(envs.iter().copied())
        .kill_on_drop(true);
    tokio::time::timeout(std::time::Duration::from_secs(30), command.output())
        .await
        .unwrap()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn admin_cli_purges_reads_the_audit_log_and_takes_no_token_argument() {
    let file = tokens_file();
    let path = file.path().display().to_string();
    let server =
        common::start_with(common::test_config(), &[("BFF_ADMIN_TOKENS_FILE", &path)]).await;
    let admin = server.admin.as_str();

    // purge --tag: the API's answer, pretty-printed
    let purged = bff_admin(
        admin,
        &["purge", "--tag", "page:home"],
        &[("BFF_ADMIN_TOKEN", PURGER)],
    )
    .await;
    assert!(purged.status.success(), "{}", text(&purged.stderr));
    let stdout = text(&purged.stdout);
    let answer: Value = serde_json::from_str(&stdout).unwrap();
    assert!(answer["purged"].is_u64(), "{stdout}");
    assert!(stdout.contains("\n  \""), "pretty JSON: {stdout}");

    // audit, the token from a file: the purge above, by its token's name
    let token_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(token_file.path(), format!("{READER}\n")).unwrap();
    let token_path = token_file.path().display().to_string();
    let audit = bff_admin(
        admin,
        &["--token-file", &token_path, "audit", "--limit", "1"],
        &[],
    )
    .await;
    assert!(audit.status.success(), "{}", text(&audit.stderr));
    let audit: Value = serde_json::from_slice(&audit.stdout).unwrap();
    assert_eq!(audit["entries"][0]["actor"], "purger", "{audit}");
    assert_eq!(
        audit["entries"][0]["arguments"]["body"]["tags"][0], "page:home",
        "{audit}"
    );
    assert_eq!(audit["entries"].as_array().unwrap().len(), 1, "{audit}");

    // cache, through BFF_ADMIN_TOKEN_FILE (as the pod has it): what GET /admin/cache answers
    let cache = bff_admin(admin, &["cache"], &[("BFF_ADMIN_TOKEN_FILE", &token_path)]).await;
    assert!(cache.status.success(), "{}", text(&cache.stderr));
    let cache: Value = serde_json::from_slice(&cache.stdout).unwrap();
    let (_, direct) = admin_call(
        &server,
        reqwest::Method::GET,
        "/admin/cache",
        Some(READER),
        None,
    )
    .await;
    let keys = |value: &Value| {
        value
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&cache), keys(&direct));

    // a refusal: exit 1, the problem's detail on stderr, nothing on stdout
    let refused = bff_admin(admin, &["purge", "--all"], &[("BFF_ADMIN_TOKEN", READER)]).await;
    assert_eq!(refused.status.code(), Some(1));
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains("403") && stderr.contains("\"purge\" scope"),
        "{stderr}"
    );
    assert!(refused.stdout.is_empty());

    // no token at all: exit 2 naming where a token comes from
    let none = bff_admin(admin, &["cache"], &[]).await;
    assert_eq!(none.status.code(), Some(2));
    assert!(
        text(&none.stderr).contains("BFF_ADMIN_TOKEN"),
        "{}",
        text(&none.stderr)
    );

    // --token does not exist: clap refuses it before any call
    for args in [
        &["--token", PURGER, "cache"][..],
        &["cache", "--token", PURGER][..],
    ] {
        let refused = bff_admin(admin, args, &[]).await;
        assert_eq!(refused.status.code(), Some(2), "{args:?}");
        assert!(
            text(&refused.stderr).contains("unexpected argument '--token'"),
            "{}",
            text(&refused.stderr)
        );
    }
    server.stop().await;
}
