#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use bff::edge::server::StopError;
use common::SandboxHooks;
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
    config.server.shutdown_grace = Duration::from_millis(200);
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

/// SIGTERM (`terminate`) first takes the replica out of rotation: for `shutdown_delay` its
/// readiness fails on both listeners while pages, the API and liveness are still served; only
/// then does it drain and stop listening.
#[tokio::test]
async fn terminate_fails_readiness_for_the_delay_while_still_serving_then_drains() {
    let mut config = test_config();
    config.server.shutdown_delay = Some(Duration::from_millis(1_500));
    let server = start_with(config, &[]).await;
    let ready = |base: String| {
        let client = server.client.clone();
        async move {
            client
                .get(format!("{base}/readyz"))
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(ready(server.admin.clone()).await, 200);

    let terminated = std::time::Instant::now();
    server.running.terminate();
    assert_eq!(ready(server.admin.clone()).await, 503);
    assert_eq!(ready(server.base.clone()).await, 503);
    for path in ["/healthz", "/api/pages/home", "/", common::ASSET] {
        let response = server.get(path).await;
        assert_eq!(
            response.status(),
            200,
            "{path} is still served during the delay"
        );
    }
    assert!(
        terminated.elapsed() < Duration::from_millis(1_500),
        "the checks above ran inside the delay ({:?}); the machine is too slow for this test",
        terminated.elapsed()
    );

    let base = server.base.clone();
    let client = server.client.clone();
    tokio::time::timeout(Duration::from_secs(15), server.running.wait())
        .await
        .expect("drained after the delay")
        .unwrap();
    assert!(
        terminated.elapsed() >= Duration::from_millis(1_500),
        "stopped before the delay was over ({:?})",
        terminated.elapsed()
    );
    assert!(client.get(format!("{base}/healthz")).send().await.is_err());
}
