#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::in_process::{start, start_with_secrets, start_with_web_build};
use common::{ASSET, ASSET_BODY, test_config};
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "test-admin-token";
const OLD_ASSET: &str = "/assets/index-Old00000.js";
const OLD_BODY: &str = "console.log('previous release');";

/// A previous release's dist directory, with one hashed asset of its own.
fn previous_release() -> tempfile::TempDir {
    let dir = tempfile::TempDir::new().unwrap();
    std::fs::create_dir_all(dir.path().join("assets")).unwrap();
    std::fs::write(dir.path().join(OLD_ASSET.trim_start_matches('/')), OLD_BODY).unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<!doctype html><title>old</title>",
    )
    .unwrap();
    dir
}

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
    assert_eq!(response.header("cache-control"), "no-store");
    assert!(
        response.header("content-type").starts_with("text/plain"),
        "{}",
        response.header("content-type")
    );
    assert!(!response.text().contains("runtime-config"));
}

#[tokio::test]
async fn every_non_api_path_is_the_app_shell_with_the_status_a_crawler_must_see() {
    // the real web build: a page's document is made from the answers its render read
    let app = start_with_web_build(test_config(), &[]);
    // (path, status, made from cached content): every document revalidates on every visit
    // (a deploy must never leave a browser holding one that names chunks that are gone); those
    // made from cached content carry its strong ETag, so the revisit is a 304; what the app does
    // not know is a 404 it still renders
    for (path, status, cached) in [
        ("/", 200, true),
        ("/index.html", 200, true),
        ("/product/summit%20lr", 200, true),
        ("/profile/orders/42", 200, false),
        ("/Newsletter/verify/abc", 200, false),
        ("/no/such/page", 404, false),
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status, status, "{path}");
        assert_eq!(response.header("cache-control"), "no-cache", "{path}");
        if cached {
            assert!(
                response.header("etag").starts_with('"'),
                "{path}: a strong ETag, not {:?}",
                response.header("etag")
            );
        }
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
async fn the_builds_server_side_outputs_are_not_public() {
    let app = start();
    let dist = app.state.config.web.dist_dir.clone();
    std::fs::create_dir_all(dist.join("ssr")).unwrap();
    std::fs::create_dir_all(dist.join(".vite")).unwrap();
    let secret = "the-whole-app-as-one-script";
    std::fs::write(dist.join("ssr/render.js"), secret).unwrap();
    std::fs::write(dist.join("ssr/render.js.br"), secret).unwrap();
    std::fs::write(
        dist.join(".vite/manifest.json"),
        format!("{{\"{secret}\":1}}"),
    )
    .unwrap();
    for path in [
        "/ssr/render.js",
        "/.vite/manifest.json",
        "/%73sr/render.js",
        "/./ssr/render.js",
        "//ssr/render.js",
        "/%2Evite/manifest.json",
    ] {
        for accept in ["", "br"] {
            let response = app.get_with(path, &[("accept-encoding", accept)]).await;
            assert_eq!(response.status, 404, "{path} ({accept})");
            assert!(!response.text().contains(secret), "{path} ({accept})");
        }
    }
    // the public root files still are
    assert_eq!(app.get("/favicon.svg").await.status, 200);
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

/// A script big enough that compressing it is worth it, and its brotli (11) and gzip (9)
/// siblings as the web build writes them; returns (plain, br, gz).
fn write_precompressed(path: &std::path::Path) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let plain = "export const greeting = 'hello from the storefront';\n"
        .repeat(200)
        .into_bytes();
    let mut br = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut br, 4096, 11, 22);
        std::io::Write::write_all(&mut writer, &plain).unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(9));
    std::io::Write::write_all(&mut gz, &plain).unwrap();
    let gz = gz.finish().unwrap();
    std::fs::write(path, &plain).unwrap();
    let name = path.file_name().unwrap().to_str().unwrap();
    std::fs::write(path.with_file_name(format!("{name}.br")), &br).unwrap();
    std::fs::write(path.with_file_name(format!("{name}.gz")), &gz).unwrap();
    (plain, br, gz)
}

#[tokio::test]
async fn precompressed_assets_are_negotiated_by_accept_encoding_and_sent_as_stored() {
    let app = start();
    let dist = app.state.config.web.dist_dir.clone();
    let (plain, br, gz) = write_precompressed(&dist.join("assets/chunk-Zz99Yy88.js"));
    // (accept-encoding, expected content-encoding, expected body)
    for (accept, encoding, body) in [
        ("gzip, deflate, br, zstd", "br", &br),
        ("gzip, br", "br", &br), // a tie: brotli
        ("br;q=0.5, gzip;q=0.8", "gzip", &gz),
        ("br;q=0, gzip", "gzip", &gz), // q=0 refuses
        ("br;q=0, gzip;q=0", "", &plain),
        ("deflate", "", &plain), // nothing stored for it, and nothing compressed per request
        ("", "", &plain),
    ] {
        let headers: &[(&str, &str)] = if accept.is_empty() {
            &[]
        } else {
            &[("accept-encoding", accept)]
        };
        let response = app.get_with("/assets/chunk-Zz99Yy88.js", headers).await;
        assert_eq!(response.status, 200, "{accept}");
        assert_eq!(response.header("content-encoding"), encoding, "{accept}");
        assert!(
            response.header("content-type").contains("javascript"),
            "{accept}: {}",
            response.header("content-type")
        );
        assert_eq!(
            response.header("vary").to_ascii_lowercase(),
            "accept-encoding",
            "{accept}"
        );
        assert_eq!(
            response.header("cache-control"),
            "public, max-age=31536000, immutable",
            "{accept}"
        );
        assert_eq!(&response.body[..], &body[..], "{accept}: the stored bytes");
    }
}

#[tokio::test]
async fn a_static_file_without_a_stored_variant_is_never_compressed_per_request() {
    let app = start();
    let dist = app.state.config.web.dist_dir.clone();
    let big = "body { color: #111; }\n".repeat(500);
    std::fs::write(dist.join("assets/plain-Qq11Ww22.css"), &big).unwrap();
    std::fs::write(dist.join("manifest.webmanifest"), &big).unwrap();
    for path in ["/assets/plain-Qq11Ww22.css", "/manifest.webmanifest"] {
        let response = app.get_with(path, &[("accept-encoding", "gzip, br")]).await;
        assert_eq!(response.status, 200, "{path}");
        assert_eq!(response.header("content-encoding"), "", "{path}");
        assert_eq!(response.text(), big, "{path}");
    }
}

#[tokio::test]
async fn precompressed_root_files_are_negotiated_too() {
    let app = start();
    let dist = app.state.config.web.dist_dir.clone();
    let (plain, br, _) = write_precompressed(&dist.join("sw-helper.js"));
    let compressed = app
        .get_with("/sw-helper.js", &[("accept-encoding", "br")])
        .await;
    assert_eq!(compressed.header("content-encoding"), "br");
    assert_eq!(&compressed.body[..], &br[..]);
    assert_eq!(compressed.header("cache-control"), "public, max-age=3600");
    let identity = app.get("/sw-helper.js").await;
    assert_eq!(identity.header("content-encoding"), "");
    assert_eq!(&identity.body[..], &plain[..]);
}

#[tokio::test]
async fn a_previous_release_s_assets_are_served_until_the_admin_call_closes_the_window() {
    let previous = previous_release();
    let mut config = test_config();
    config.web.previous_dist_dirs = vec![previous.path().to_owned()];
    let app = start_with_secrets(config, &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)]);

    let old = app.get(OLD_ASSET).await;
    assert_eq!(old.status, 200);
    assert_eq!(old.text(), OLD_BODY);
    assert_eq!(
        old.header("cache-control"),
        "public, max-age=31536000, immutable"
    );
    // this build's own assets come first, and the previous release's documents are never used
    assert_eq!(app.get(ASSET).await.text(), ASSET_BODY);
    assert!(app.get("/").await.text().contains(r#"<div id="root">"#));

    let window = app.admin("/admin/web/rollout").await;
    assert_eq!(
        window.status, 401,
        "the window's state is behind the admin token"
    );
    let refused = app
        .admin_post("/admin/web/rollout/close", "wrong", &json!({}))
        .await;
    assert_eq!(refused.status, 401);
    assert_eq!(
        app.get(OLD_ASSET).await.status,
        200,
        "a refused call closes nothing"
    );

    let closed = app
        .admin_post("/admin/web/rollout/close", ADMIN_TOKEN, &json!({}))
        .await;
    assert_eq!(closed.status, 200);
    let report = closed.json();
    assert_eq!(report["closed"], true);
    assert_eq!(report["open"], false);
    assert_eq!(report["window_seconds"], 3600);

    let gone = app.get(OLD_ASSET).await;
    assert_eq!(gone.status, 404);
    assert_eq!(gone.header("cache-control"), "no-store");
    assert!(gone.header("content-type").starts_with("text/plain"));
    assert_eq!(app.get(ASSET).await.status, 200, "this build's assets stay");
}

#[tokio::test]
async fn a_zero_window_never_serves_a_previous_release() {
    let previous = previous_release();
    let mut config = test_config();
    config.web.previous_dist_dirs = vec![previous.path().to_owned()];
    config.web.previous_assets_window = Duration::ZERO;
    let app = start_with_secrets(config, &[]);
    let response = app.get(OLD_ASSET).await;
    assert_eq!(response.status, 404);
    assert_eq!(response.header("cache-control"), "no-store");
}

#[tokio::test]
async fn a_path_cannot_climb_out_of_the_assets_directories() {
    let previous = previous_release();
    let mut config = test_config();
    config.web.previous_dist_dirs = vec![previous.path().to_owned()];
    let app = start_with_secrets(config, &[]);
    for path in [
        "/assets/../index.html",
        "/assets/%2e%2e/index.html",
        "/assets/..%2findex.html",
    ] {
        let response = app.get(path).await;
        assert_ne!(response.status, 200, "{path}");
        assert!(!response.text().contains("previous"), "{path}");
    }
}
