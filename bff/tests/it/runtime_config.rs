#![allow(clippy::unwrap_used)]

use crate::common;

use common::SandboxHooks;
use common::{header, start, start_with, test_config};
use serde_json::Value;

const SECRETS: &[(&str, &str)] = &[
    ("BFF_ADMIN_TOKEN", "admin-token-0b6f1e"),
    ("BFF_CONTENT_API_TOKEN", "content-token-9c2d4a"),
    (
        "BFF_SESSION_KEYS",
        "session-key-new-71aa,session-key-old-83bb",
    ),
    ("BFF_WEBHOOK_SECRET", "webhook-secret-5e5e"),
    ("BFF_GEOCODER_KEY", "geocoder-key-1234"),
    ("BFF_MAP_TILE_KEY", "tile-key-5678"),
];

fn assert_no_secret(text: &str, what: &str) {
    for (name, value) in SECRETS {
        for part in value.split(',') {
            assert!(!text.contains(part), "{what} leaks {name}");
        }
    }
}

#[tokio::test]
async fn the_runtime_config_holds_public_values_and_no_secret() {
    let server = start_with(test_config(), SECRETS).await;

    let response = server.get("/api/config").await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    assert_no_secret(&text, "/api/config");
    let config: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(config["captcha"]["siteKey"], "sandbox-site-key");
    assert_eq!(config["payment"]["clientKey"], "sandbox-public-client-key");
    assert_eq!(config["brandName"], "Talonforge Arms");
    assert_eq!(
        config["payment"]["scriptUrl"],
        format!("{}/3p/accept/Accept.js", server.sandbox)
    );

    let html = server.get("/").await.text().await.unwrap();
    assert_no_secret(&html, "index.html");
    let start = html
        .find(r#"<script id="runtime-config" type="application/json">"#)
        .unwrap();
    let json_start = html[start..].find('>').unwrap() + start + 1;
    let json_end = html[json_start..].find("</script>").unwrap() + json_start;
    let injected: Value = serde_json::from_str(&html[json_start..json_end]).unwrap();
    assert_eq!(
        injected, config,
        "index.html carries the same config as /api/config"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_content_token_is_sent_upstream_but_never_to_the_browser() {
    let server = start_with(test_config(), SECRETS).await;
    let response = server.get("/api/pages/home").await;
    assert_eq!(response.status(), 200);
    let headers = format!("{:?}", response.headers());
    assert_no_secret(&headers, "response headers");
    assert_no_secret(&response.text().await.unwrap(), "page body");
    let seen = server.sandbox_requests().await;
    let page = seen
        .iter()
        .find(|r| r["path"] == "/strapi/page/home")
        .unwrap();
    assert_eq!(page["authorization"], "Bearer content-token-9c2d4a");
    server.stop().await;
}

#[tokio::test]
async fn the_runtime_config_revalidates_to_a_304() {
    let server = start().await;
    let first = server.get("/api/config").await;
    assert_eq!(header(&first, "cache-control"), "no-cache");
    let etag = header(&first, "etag").to_owned();
    assert!(etag.starts_with('"'), "{etag}");
    let again = server.get_if_none_match("/api/config", &etag).await;
    assert_eq!(again.status(), 304);
    assert_eq!(header(&again, "etag"), etag);
    assert!(again.bytes().await.unwrap().is_empty());
    let stale = server.get_if_none_match("/api/config", "\"another\"").await;
    assert_eq!(stale.status(), 200);
    server.stop().await;
}
