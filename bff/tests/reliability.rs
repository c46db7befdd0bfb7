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
    let shed = server.get("/api/pages/footer").await;
    assert_eq!(shed.status(), 503);
    assert_eq!(header(&shed, "retry-after"), "1");
    let problem: Value = shed.json().await.unwrap();
    assert_eq!(problem["code"], "overloaded");
    assert_eq!(first.await.unwrap().unwrap().status(), 200);
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
