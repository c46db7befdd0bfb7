//! The operators' console on the admin listener: its files load without a token, under a
//! strict policy, and the admin API behind it still wants one.

#![allow(clippy::unwrap_used)]

use axum::body::Body;
use axum::http::{Request, StatusCode};
use tempfile::TempDir;

use crate::common;

use common::in_process::{InProcess, get_request, start_with_secrets};
use common::test_config;

const TOKEN: &str = "console-test-admin-token";
const SCRIPT: &str = "/admin/console/assets/console-Ab12Cd34.js";

/// A console build as `npm run build:console` lays it out, beside a file that is not its own.
fn console_build() -> (TempDir, std::path::PathBuf) {
    let root = TempDir::new().unwrap();
    let dir = root.path().join("dist-console");
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        format!(
            r#"<!doctype html><title>Console</title><script type="module" src="{SCRIPT}"></script>"#
        ),
    )
    .unwrap();
    std::fs::write(dir.join("assets/console-Ab12Cd34.js"), "export {};").unwrap();
    std::fs::write(root.path().join("secret.txt"), "not the console's").unwrap();
    (root, dir)
}

fn console(dir: &std::path::Path) -> InProcess {
    let mut config = test_config();
    config.web.console_dir = dir.to_owned();
    start_with_secrets(config, &[("BFF_ADMIN_TOKEN", TOKEN)])
}

#[tokio::test]
async fn the_console_loads_without_a_token_under_a_strict_policy() {
    let (_root, dir) = console_build();
    let app = console(&dir);

    let document = app.admin("/admin/console/").await;
    assert_eq!(document.status, StatusCode::OK);
    assert!(document.text().contains(SCRIPT), "{}", document.text());
    let csp = document.header("content-security-policy");
    for directive in [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "frame-ancestors 'none'",
        "object-src 'none'",
        "base-uri 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} missing: {csp}");
    }
    assert!(!csp.contains("unsafe"), "{csp}");
    assert_eq!(document.header("cache-control"), "no-cache");
    assert_eq!(document.header("x-frame-options"), "DENY");
    assert_eq!(document.header("x-content-type-options"), "nosniff");
    assert_eq!(document.header("referrer-policy"), "no-referrer");

    let script = app.admin(SCRIPT).await;
    assert_eq!(script.status, StatusCode::OK);
    assert_eq!(
        script.header("cache-control"),
        "public, max-age=31536000, immutable"
    );
    assert!(
        script
            .header("content-security-policy")
            .contains("default-src 'self'")
    );

    let bare = app.admin("/admin/console").await;
    assert_eq!(bare.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(bare.header("location"), "/admin/console/");
}

#[tokio::test]
async fn only_the_console_s_own_files_are_served_and_the_api_still_wants_a_token() {
    let (_root, dir) = console_build();
    let app = console(&dir);

    for path in [
        "/admin/console/assets/missing.js",
        "/admin/console/../secret.txt",
        "/admin/console/%2e%2e/secret.txt",
    ] {
        let answer = app.admin(path).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
        assert!(!answer.text().contains("not the console's"), "{path}");
    }
    let post = app
        .admin_send(
            Request::post("/admin/console/")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(post.status, StatusCode::METHOD_NOT_ALLOWED);

    // Loading the console opens nothing: every call it makes carries the bearer token.
    assert_eq!(
        app.admin("/admin/fleet").await.status,
        StatusCode::UNAUTHORIZED
    );
    let fleet = app
        .admin_send(get_request(
            "/admin/fleet",
            &[("authorization", &format!("Bearer {TOKEN}"))],
        ))
        .await;
    assert_eq!(fleet.status, StatusCode::OK);
}

#[tokio::test]
async fn without_a_console_build_its_path_is_a_404_and_the_rest_is_unchanged() {
    let root = TempDir::new().unwrap();
    let app = console(&root.path().join("not-built"));
    assert_eq!(
        app.admin("/admin/console/").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(app.admin("/healthz").await.status, StatusCode::OK);
}
