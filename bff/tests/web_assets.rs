#![allow(clippy::unwrap_used)]

mod common;

use common::in_process::start;
use common::{ASSET, ASSET_BODY};
use serde_json::Value;

#[tokio::test]
async fn hashed_assets_are_immutable() {
    let app = start();
    let response = app.get(ASSET).await;
    assert_eq!(response.status, 200);
    assert_eq!(
        response.header("cache-control"),
        "public, max-age=31536000, immutable"
    );
    assert!(response.header("content-type").contains("javascript"));
    assert_eq!(response.text(), ASSET_BODY);
}

#[tokio::test]
async fn a_missing_asset_is_a_404_that_is_not_cached_and_not_the_app() {
    let app = start();
    let response = app.get("/assets/index-Gone0000.js").await;
    assert_eq!(response.status, 404);
    assert_eq!(response.header("cache-control"), "no-cache");
    assert!(!response.text().contains("runtime-config"));
}

#[tokio::test]
async fn every_non_api_path_is_the_app_shell_with_the_status_a_crawler_must_see() {
    let app = start();
    // (path, status, cache-control): pages made from cached content carry its caching, the
    // others revalidate every time; what the app does not know is a 404 it still renders
    for (path, status, cache_control) in [
        ("/", 200, "public, max-age="),
        ("/index.html", 200, "public, max-age="),
        ("/product/summit%20lr", 200, "public, max-age="),
        ("/profile/orders/42", 200, "no-cache"),
        ("/Newsletter/verify/abc", 200, "no-cache"),
        ("/no/such/page", 404, "no-cache"),
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status, status, "{path}");
        assert!(
            response.header("cache-control").starts_with(cache_control),
            "{path}: {}",
            response.header("cache-control")
        );
        assert!(
            response.header("content-type").starts_with("text/html"),
            "{path}"
        );
        let html = response.text();
        assert!(html.contains(r#"<div id="root">"#), "{path}");
        assert!(
            !html.contains(r#"type="application/json">{}</script>"#),
            "{path}: placeholder left"
        );
    }
}

#[tokio::test]
async fn unhashed_root_files_are_served_with_a_short_cache() {
    let app = start();
    let response = app.get("/favicon.svg").await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("cache-control"), "public, max-age=3600");
}

#[tokio::test]
async fn unknown_api_paths_are_problem_json_404s() {
    let app = start();
    for path in [
        "/api/nope",
        "/api/pages",
        "/api/pages/home/extra",
        "/api/",
        "/api",
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status, 404, "{path}");
        assert_eq!(
            response.header("content-type"),
            "application/problem+json",
            "{path}"
        );
        let problem: Value = response.json();
        assert_eq!(problem["status"], 404, "{path}");
        assert_eq!(problem["code"], "not_found", "{path}");
        assert!(
            problem["title"].is_string() && problem["type"].is_string(),
            "{path}"
        );
    }
}

#[tokio::test]
async fn text_answers_are_compressed_when_asked() {
    let app = start();
    let response = app
        .get_with("/api/pages/app", &[("accept-encoding", "br")])
        .await;
    assert_eq!(response.header("content-encoding"), "br");
}

#[tokio::test]
async fn a_prebuilt_webgl_build_is_served_as_what_its_files_contain() {
    let app = start();
    let build = app.state.config.web.dist_dir.join("Build");
    std::fs::create_dir_all(&build).unwrap();
    let compress = |bytes: &[u8]| {
        let mut out = Vec::new();
        let mut writer = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
        std::io::Write::write_all(&mut writer, bytes).unwrap();
        drop(writer);
        out
    };
    let wasm = compress(b"\0asm\x01\0\0\0 a tiny module");
    let js = compress(b"var unityFramework = function () {};");
    let data = compress(&[7_u8; 2048]);
    std::fs::write(build.join("game.wasm.br"), &wasm).unwrap();
    std::fs::write(build.join("game.framework.js.br"), &js).unwrap();
    std::fs::write(build.join("game.data.br"), &data).unwrap();

    for (path, content_type, body) in [
        ("/Build/game.wasm.br", "application/wasm", &wasm),
        ("/Build/game.framework.js.br", "text/javascript", &js),
        ("/Build/game.data.br", "application/octet-stream", &data),
    ] {
        let response = app.get_with(path, &[("accept-encoding", "br")]).await;
        assert_eq!(response.status, 200, "{path}");
        assert_eq!(response.header("content-encoding"), "br", "{path}");
        assert_eq!(response.header("content-type"), content_type, "{path}");
        assert_eq!(&response.body[..], &body[..], "{path}: sent as stored");
    }

    // a build file that is not there is the app shell, never labelled as compressed
    let missing = app.get("/Build/missing.wasm.br").await;
    assert_eq!(missing.header("content-encoding"), "");
    assert!(missing.header("content-type").starts_with("text/html"));
}
