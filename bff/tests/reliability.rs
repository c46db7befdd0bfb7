//! Overload and slowness get fast, explicit answers, never a hang.

#![allow(clippy::unwrap_used)]

mod common;

use common::{header, start_with, test_config};
use serde_json::{Value, json};

const SLOW_PAGE: &str = "/strapi/page/{name}";

#[tokio::test]
async fn a_request_over_the_time_limit_is_a_504_problem() {
    let mut config = test_config();
    config.server.request_timeout_ms = 200;
    let server = start_with(config, &[]).await;
    server
        .inject_fault(json!({"route": SLOW_PAGE, "latencyMs": 2000}))
        .await;
    let response = server.get("/api/pages/home").await;
    assert_eq!(response.status(), 504);
    assert_eq!(
        header(&response, "content-type"),
        "application/problem+json"
    );
    assert_eq!(header(&response, "retry-after"), "5");
    let problem: Value = response.json().await.unwrap();
    assert_eq!(problem["code"], "timeout");
    server.stop().await;
}

#[tokio::test]
async fn a_slow_upstream_past_its_own_timeout_is_a_504_upstream_timeout() {
    let mut config = test_config();
    config.upstreams.content.timeout_ms = 200;
    let server = start_with(config, &[]).await;
    server
        .inject_fault(json!({"route": SLOW_PAGE, "latencyMs": 2000}))
        .await;
    let response = server.get("/api/pages/home").await;
    assert_eq!(response.status(), 504);
    let problem: Value = response.json().await.unwrap();
    assert_eq!(problem["code"], "upstream_timeout");
    server.stop().await;
}

#[tokio::test]
async fn requests_over_the_concurrency_limit_are_shed_with_retry_after() {
    let mut config = test_config();
    config.server.max_concurrent_requests = 1;
    let server = start_with(config, &[]).await;
    server
        .inject_fault(json!({"route": SLOW_PAGE, "latencyMs": 1000}))
        .await;
    let first = {
        let client = server.client.clone();
        let url = server.url("/api/pages/home");
        tokio::spawn(async move { client.get(url).send().await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        server
            .metrics()
            .await
            .value("http_server_active_requests", &[]),
        Some(1.0),
        "the slow request is in flight"
    );
    let shed = server.get("/api/pages/footer").await;
    assert_eq!(shed.status(), 503);
    assert_eq!(header(&shed, "retry-after"), "1");
    let problem: Value = shed.json().await.unwrap();
    assert_eq!(problem["code"], "overloaded");
    assert_eq!(first.await.unwrap().unwrap().status(), 200);
    let scrape = server.metrics().await;
    assert_eq!(scrape.value("bff_load_shed_total", &[]), Some(1.0));
    assert_eq!(scrape.value("http_server_active_requests", &[]), Some(0.0));
    server.stop().await;
}

#[tokio::test]
async fn calls_over_an_upstreams_concurrency_limit_wait_briefly_then_fail_fast() {
    let mut config = test_config();
    config.upstreams.content.max_concurrency = 1;
    config.upstreams.content.queue_timeout_ms = 100;
    let server = start_with(config, &[]).await;
    server
        .inject_fault(json!({"route": SLOW_PAGE, "latencyMs": 1000}))
        .await;
    let first = {
        let client = server.client.clone();
        let url = server.url("/api/pages/home");
        tokio::spawn(async move { client.get(url).send().await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let waiting = server.get("/api/pages/footer").await;
    assert_eq!(waiting.status(), 503);
    let problem: Value = waiting.json().await.unwrap();
    assert_eq!(problem["code"], "overloaded");
    assert_eq!(first.await.unwrap().unwrap().status(), 200);
    // The footer request never reached the upstream.
    let seen = server.sandbox_requests().await;
    assert!(
        seen.iter().all(|r| r["path"] != "/strapi/page/footer"),
        "{seen:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_body_over_the_limit_is_a_413_problem() {
    let mut config = test_config();
    config.server.max_body_bytes = 1024;
    let server = start_with(config, &[]).await;
    let response = server
        .client
        .post(server.url("/api/auth/login"))
        .header("x-csrf", "1")
        .header("content-type", "application/json")
        .body(format!("{{\"email\":\"{}\"}}", "a".repeat(4096)))
        .send()
        .await
        .unwrap();
    let status = response.status();
    let problem: Value = response.json().await.unwrap();
    assert_eq!(status, 413, "{problem}");
    assert_eq!(problem["code"], "payload_too_large");
    server.stop().await;
}

/// Reads `stream` until the server closes it; `None` if it is still open after `bound` (which
/// is far above the timeout under test: it only keeps a broken build from hanging the suite).
async fn closed_within(
    stream: &mut tokio::net::TcpStream,
    bound: std::time::Duration,
) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut received = Vec::new();
    let read = tokio::time::timeout(bound, async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    read.ok().map(|()| received)
}

#[tokio::test]
async fn a_client_that_trickles_its_header_or_idles_is_disconnected_after_the_header_timeout() {
    use tokio::io::AsyncWriteExt;
    let mut config = test_config();
    config.server.header_read_timeout_ms = 300;
    let server = start_with(config, &[]).await;
    let address = server.base.trim_start_matches("http://").to_owned();
    let bound = std::time::Duration::from_secs(15);

    // Half a request head, then nothing.
    let mut trickling = tokio::net::TcpStream::connect(&address).await.unwrap();
    trickling
        .write_all(b"GET /api/pages/home HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        .await
        .unwrap();
    let answered = closed_within(&mut trickling, bound).await;
    assert!(
        answered.is_some(),
        "a half-sent head is still open after {bound:?}"
    );

    // Connected, nothing sent.
    let mut silent = tokio::net::TcpStream::connect(&address).await.unwrap();
    assert!(
        closed_within(&mut silent, bound).await.is_some(),
        "a silent connection stays open"
    );

    // A whole request is answered; the idle keep-alive connection is closed afterwards.
    let mut idle = tokio::net::TcpStream::connect(&address).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let received = closed_within(&mut idle, bound)
        .await
        .expect("idle connection closed");
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");

    // The server itself is fine.
    assert_eq!(server.get("/api/pages/home").await.status(), 200);
    server.stop().await;
}

/// A POST whose body never finishes: it holds a concurrency slot while the handler waits.
async fn slow_body_request(address: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream
        .write_all(
            b"POST /api/cart/items HTTP/1.1\r\nHost: localhost\r\nX-CSRF: 1\r\n\
              Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
        )
        .await
        .unwrap();
    stream
}

#[tokio::test]
async fn slow_requests_at_the_concurrency_limit_never_block_probes_assets_or_cached_pages() {
    let mut config = test_config();
    config.server.max_concurrent_requests = 2;
    let server = start_with(config, &[]).await;
    let address = server.base.trim_start_matches("http://").to_owned();
    for _ in 0..2 {
        assert_eq!(server.get("/api/pages/home").await.status(), 200);
    }
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(slow_body_request(&address).await);
    }
    // Wait (bounded) until the slow bodies hold every slot: a cheap API request is shed.
    let mut shed = false;
    for _ in 0..100 {
        if server.get("/api/config").await.status() == 503 {
            shed = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(shed, "the slow bodies never filled the limit");
    assert_eq!(server.get("/healthz").await.status(), 200);
    assert_eq!(server.get("/readyz").await.status(), 200);
    assert_eq!(server.get(common::ASSET).await.status(), 200);
    assert_eq!(server.get("/").await.status(), 200);
    let page = server.get("/api/pages/home").await;
    assert_eq!(page.status(), 200);
    assert!(header(&page, "cache-status").contains("hit"));
    drop(held);
    server.stop().await;
}
