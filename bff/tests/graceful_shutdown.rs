#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use bff::server::StopError;
use common::{start, start_with, test_config};
use serde_json::json;

#[tokio::test]
async fn shutdown_completes_an_in_flight_request_then_stops_listening() {
    let server = start().await;
    server
        .inject_fault(json!({"route": "/strapi/page/{name}", "latencyMs": 800}))
        .await;
    let in_flight = {
        let client = server.client.clone();
        let url = server.url("/api/pages/home");
        tokio::spawn(async move { client.get(url).send().await })
    };
    // Let the request reach the (slowed) upstream before shutdown starts.
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.running.shutdown();

    let readiness = server
        .client
        .get(format!("{}/readyz", server.admin))
        .send()
        .await;
    if let Ok(readiness) = readiness {
        assert_eq!(readiness.status(), 503, "not ready while draining");
    }

    let response = in_flight
        .await
        .unwrap()
        .expect("the in-flight request completes");
    assert_eq!(response.status(), 200);
    let page: serde_json::Value = response.json().await.unwrap();
    assert!(page["carousel"].is_array());

    let base = server.base.clone();
    let client = server.client.clone();
    server.running.wait().await.unwrap();
    let after = client.get(format!("{base}/healthz")).send().await;
    assert!(after.is_err(), "the listener is closed after shutdown");
}

/// A drain that ran out of grace with a request unanswered is no clean stop: `wait` says how
/// many were dropped (the binary logs it and exits non-zero).
#[tokio::test]
async fn a_request_outliving_the_grace_does_not_hold_shutdown_and_is_counted_as_dropped() {
    let mut config = test_config();
    config.server.shutdown_grace_ms = 200;
    let server = start_with(config, &[]).await;
    server
        .inject_fault(json!({"route": "/strapi/page/{name}", "latencyMs": 5000}))
        .await;
    let in_flight = {
        let client = server.client.clone();
        let url = server.url("/api/pages/home");
        tokio::spawn(async move { client.get(url).send().await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    server.running.shutdown();
    let stopped = tokio::time::timeout(Duration::from_secs(4), server.running.wait())
        .await
        .expect("shutdown ends once the grace is over, before the slow request would");
    assert!(
        matches!(stopped, Err(StopError::Dropped { dropped: 1 })),
        "{stopped:?}"
    );
    // Shutdown returned while the slow request was still unanswered: the grace bounds the wait.
    // (In the binary, returning from `main` then drops the connection.)
    assert!(
        !in_flight.is_finished(),
        "the slow request cannot have finished yet"
    );
    in_flight.abort();
}
