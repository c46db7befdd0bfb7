//! Map tiles through the BFF: `GET /tiles/{z}/{x}/{y}` against the embedded sandbox's tile double,
//! with the provider key injected server-side and never shown to the browser. Over TCP: the
//! tile provider is its own upstream with no pluggable transport (`state::tile_provider`), so
//! only a listening sandbox can answer it.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::SandboxHooks;
use common::{TestServer, header, in_process, start_with, test_config};
use serde_json::{Value, json};

const TILE_KEY: &str = "tile-key-5678";

async fn start_with_tiles(template: &str, key_header: &str) -> TestServer {
    let mut config = test_config();
    config.maps.tile_url = template.to_owned();
    config.maps.key_header = key_header.to_owned();
    start_with(config, &[("BFF_MAP_TILE_KEY", TILE_KEY)]).await
}

async fn tile_requests(server: &TestServer) -> Vec<String> {
    server
        .sandbox_requests()
        .await
        .iter()
        .filter_map(|request| request["path"].as_str())
        .filter(|path| path.starts_with("/3p/tiles/"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn a_tile_is_fetched_once_with_the_key_and_then_served_from_the_cache() {
    let server = start_with_tiles("${sandbox}/3p/tiles/{z}/{x}/{y}.png?key={key}", "").await;

    let first = server.get("/tiles/3/2/1").await;
    assert_eq!(first.status(), 200);
    assert_eq!(header(&first, "content-type"), "image/png");
    assert!(
        header(&first, "cache-control").contains("max-age="),
        "{:?}",
        first.headers()
    );
    assert!(
        header(&first, "cache-status").contains("detail=miss"),
        "{:?}",
        first.headers()
    );
    assert!(!format!("{:?}", first.headers()).contains(TILE_KEY));
    let etag = header(&first, "etag").to_owned();
    let body = first.bytes().await.unwrap();
    assert!(body.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG tile");

    let second = server.get("/tiles/3/2/1").await;
    assert_eq!(second.status(), 200);
    assert!(
        header(&second, "cache-status").contains("detail=hit"),
        "{:?}",
        second.headers()
    );
    assert_eq!(second.bytes().await.unwrap(), body);
    assert_eq!(
        server
            .get_if_none_match("/tiles/3/2/1", &etag)
            .await
            .status(),
        304
    );

    assert_eq!(
        tile_requests(&server).await,
        vec![format!("/3p/tiles/3/2/1.png?key={TILE_KEY}")],
        "one upstream fetch, with the key the browser never sees"
    );

    // the browser is told only the BFF's own path
    let config: Value = server.get("/api/config").await.json().await.unwrap();
    assert_eq!(config["maps"]["tileUrl"], "/tiles/{z}/{x}/{y}");
    let config_text = config.to_string();
    let html = server.get("/").await.text().await.unwrap();
    for (what, text) in [("/api/config", &config_text), ("index.html", &html)] {
        assert!(!text.contains(TILE_KEY), "{what} leaks the tile key");
        assert!(
            !text.contains("/3p/tiles"),
            "{what} names the tile provider"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_key_header_carries_the_key_when_the_provider_wants_it_there() {
    let server = start_with_tiles("${sandbox}/3p/tiles/{z}/{x}/{y}.png", "Authorization").await;

    assert_eq!(server.get("/tiles/1/1/0").await.status(), 200);

    let seen = server.sandbox_requests().await;
    let tile = seen
        .iter()
        .find(|request| request["path"] == "/3p/tiles/1/1/0.png")
        .unwrap();
    assert_eq!(tile["authorization"], TILE_KEY);
    server.stop().await;
}

#[tokio::test]
async fn tile_paths_outside_the_grid_are_refused_before_anything_is_fetched() {
    let server = start_with_tiles("${sandbox}/3p/tiles/{z}/{x}/{y}.png", "").await;

    for (path, detail) in [
        ("/tiles/20/0/0", "z must be a whole number from 0 to 19"),
        (
            "/tiles/2/4/0",
            "x must be a whole number from 0 to 3 at zoom 2",
        ),
        (
            "/tiles/2/0/4",
            "y must be a whole number from 0 to 3 at zoom 2",
        ),
        ("/tiles/a/0/0", "z must be a whole number from 0 to 19"),
        (
            "/tiles/2/01/0",
            "x must be a whole number from 0 to 3 at zoom 2",
        ),
        (
            "/tiles/2/1/-1",
            "y must be a whole number from 0 to 3 at zoom 2",
        ),
    ] {
        let response = server.get(path).await;
        assert_eq!(response.status(), 400, "{path}");
        assert_eq!(
            header(&response, "content-type"),
            "application/problem+json"
        );
        let problem: Value = response.json().await.unwrap();
        assert_eq!(problem["code"], "invalid_tile", "{path}");
        assert_eq!(problem["detail"], detail, "{path}");
    }
    assert!(tile_requests(&server).await.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn a_refused_key_is_a_502_of_its_own_and_is_not_cached() {
    let server = start_with_tiles("${sandbox}/3p/tiles/{z}/{x}/{y}.png?key={key}", "").await;
    server
        .inject_fault(json!({"route": "/3p/tiles/1/0/0.png", "errorStatus": 403}))
        .await;

    let refused = server.get("/tiles/1/0/0").await;
    assert_eq!(refused.status(), 502);
    let problem: Value = refused.json().await.unwrap();
    assert_eq!(problem["code"], "map_key_rejected");
    assert_eq!(
        problem["detail"],
        "The map provider refused the configured key."
    );
    assert!(!problem.to_string().contains(TILE_KEY));

    // an outage is told apart from a refused key
    server
        .inject_fault(json!({"route": "/3p/tiles/1/0/0.png", "errorStatus": 503}))
        .await;
    let down: Value = server.get("/tiles/1/0/0").await.json().await.unwrap();
    assert_eq!(down["code"], "upstream_unavailable");

    server.clear_faults().await;
    assert_eq!(server.get("/tiles/1/0/0").await.status(), 200);
    server.stop().await;
}

#[tokio::test]
async fn an_answer_that_is_not_an_image_is_never_cached_as_a_tile() {
    let server = start_with_tiles("${sandbox}/3p/tiles/{z}/{x}/{y}.png", "").await;
    // the sandbox answers 200 with a JSON body, as a provider's error page might
    server
        .inject_fault(json!({"route": "/3p/tiles/2/1/1.png", "errorStatus": 200}))
        .await;

    let response = server.get("/tiles/2/1/1").await;
    assert_eq!(response.status(), 502);
    assert_eq!(
        header(&response, "content-type"),
        "application/problem+json"
    );

    server.clear_faults().await;
    let tile = server.get("/tiles/2/1/1").await;
    assert_eq!(tile.status(), 200);
    assert_eq!(header(&tile, "content-type"), "image/png");
    server.stop().await;
}

#[tokio::test]
async fn tiles_live_in_their_own_cache_and_never_take_the_pages_room() {
    let server = start_with_tiles("${sandbox}/3p/tiles/{z}/{x}/{y}.png", "").await;
    assert_eq!(server.get("/api/pages/home").await.status(), 200);
    for x in 0..8 {
        assert_eq!(server.get(&format!("/tiles/3/{x}/3")).await.status(), 200);
    }

    let state = &server.running.state;
    let pages = state.cache.stats().await;
    let tiles = state.tile_cache.stats().await;
    assert_eq!(pages.entries, 1, "only the page is in the main cache");
    assert_eq!(tiles.entries, 8);
    assert_eq!(tiles.capacity_bytes, state.config.cache.tile_capacity_bytes);
    assert_ne!(tiles.capacity_bytes, pages.capacity_bytes);
    server.stop().await;
}

// In process: with no provider there is nothing to fetch, so no socket is needed.

#[tokio::test]
async fn without_a_tile_provider_the_browser_gets_no_tile_url_and_tiles_are_404() {
    let mut config = test_config();
    config.maps.tile_url = String::new();
    config.maps.key_header = String::new();
    let app = in_process::start_with_secrets(config, &[("BFF_MAP_TILE_KEY", TILE_KEY)]);
    let config = app.get("/api/config").await.json();
    assert_eq!(config["maps"]["tileUrl"], "");
    let response = app.get("/tiles/1/0/0").await;
    assert_eq!(response.status, 404);
    assert_eq!(response.header("content-type"), "application/problem+json");
}
