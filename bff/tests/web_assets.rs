#![allow(clippy::unwrap_used)]

mod common;

use common::{ASSET, ASSET_BODY, header, start};
use serde_json::Value;

#[tokio::test]
async fn hashed_assets_are_immutable() {
    let server = start().await;
    let response = server.get(ASSET).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        header(&response, "cache-control"),
        "public, max-age=31536000, immutable"
    );
    assert!(header(&response, "content-type").contains("javascript"));
    assert_eq!(response.text().await.unwrap(), ASSET_BODY);
    server.stop().await;
}

#[tokio::test]
async fn a_missing_asset_is_a_404_that_is_not_cached_and_not_the_app() {
    let server = start().await;
    let response = server.get("/assets/index-Gone0000.js").await;
    assert_eq!(response.status(), 404);
    assert_eq!(header(&response, "cache-control"), "no-cache");
    assert!(!response.text().await.unwrap().contains("runtime-config"));
    server.stop().await;
}

#[tokio::test]
async fn every_non_api_path_falls_back_to_the_app_with_no_cache() {
    let server = start().await;
    for path in [
        "/",
        "/index.html",
        "/product/summit%20lr",
        "/profile/orders/42",
        "/Newsletter/verify/abc",
        "/no/such/page",
    ] {
        let response = server.get(path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(header(&response, "cache-control"), "no-cache", "{path}");
        assert!(
            header(&response, "content-type").starts_with("text/html"),
            "{path}"
        );
        let html = response.text().await.unwrap();
        assert!(html.contains(r#"<div id="root">"#), "{path}");
        assert!(
            !html.contains(r#"type="application/json">{}</script>"#),
            "{path}: placeholder left"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn unhashed_root_files_are_served_with_a_short_cache() {
    let server = start().await;
    let response = server.get("/favicon.svg").await;
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "cache-control"), "public, max-age=3600");
    server.stop().await;
}

#[tokio::test]
async fn unknown_api_paths_are_problem_json_404s() {
    let server = start().await;
    for path in [
        "/api/nope",
        "/api/pages",
        "/api/pages/home/extra",
        "/api/",
        "/api",
    ] {
        let response = server.get(path).await;
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(
            header(&response, "content-type"),
            "application/problem+json",
            "{path}"
        );
        let problem: Value = response.json().await.unwrap();
        assert_eq!(problem["status"], 404, "{path}");
        assert_eq!(problem["code"], "not_found", "{path}");
        assert!(
            problem["title"].is_string() && problem["type"].is_string(),
            "{path}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn text_answers_are_compressed_when_asked() {
    let server = start().await;
    let response = server
        .client
        .get(server.url("/api/pages/app"))
        .header("accept-encoding", "br")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&response, "content-encoding"), "br");
    server.stop().await;
}

#[tokio::test]
async fn a_prebuilt_webgl_build_is_served_as_what_its_files_contain() {
    let server = start().await;
    let build = server.running.state.config.web.dist_dir.join("Build");
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
        let response = server
            .client
            .get(server.url(path))
            .header("accept-encoding", "br")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(header(&response, "content-encoding"), "br", "{path}");
        assert_eq!(header(&response, "content-type"), content_type, "{path}");
        assert_eq!(
            &response.bytes().await.unwrap()[..],
            &body[..],
            "{path}: sent as stored"
        );
    }

    // a build file that is not there is the app shell, never labelled as compressed
    let missing = server.get("/Build/missing.wasm.br").await;
    assert_eq!(header(&missing, "content-encoding"), "");
    assert!(header(&missing, "content-type").starts_with("text/html"));
    server.stop().await;
}
