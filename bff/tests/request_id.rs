#![allow(clippy::unwrap_used)]

mod common;

use common::{header, start};

#[tokio::test]
async fn a_request_without_an_id_gets_one_and_the_upstream_sees_it() {
    let server = start().await;
    let response = server.get("/api/pages/home").await;
    assert_eq!(response.status(), 200);
    let id = header(&response, "x-request-id").to_owned();
    assert_eq!(id.len(), 36, "a generated UUID, got {id:?}");

    let seen = server.sandbox_requests().await;
    let upstream = seen
        .iter()
        .find(|r| r["route"] == "/strapi/page/{name}")
        .expect("the sandbox saw the page request");
    assert_eq!(upstream["requestId"], id.as_str());
    server.stop().await;
}

#[tokio::test]
async fn a_well_formed_id_is_kept_echoed_and_propagated() {
    let server = start().await;
    let response = server
        .client
        .get(server.url("/api/pages/footer"))
        .header("x-request-id", "checkout-7f3a:retry.2")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&response, "x-request-id"), "checkout-7f3a:retry.2");
    let seen = server.sandbox_requests().await;
    assert!(
        seen.iter().any(
            |r| r["requestId"] == "checkout-7f3a:retry.2" && r["path"] == "/strapi/page/footer"
        ),
        "{seen:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_malformed_id_is_replaced_everywhere() {
    let server = start().await;
    let hostile = "x\" injected=1 ".repeat(3);
    let response = server
        .client
        .get(server.url("/api/pages/home"))
        .header("x-request-id", hostile.as_str())
        .send()
        .await
        .unwrap();
    let echoed = header(&response, "x-request-id").to_owned();
    assert_ne!(echoed, hostile);
    assert_eq!(echoed.len(), 36);
    let seen = server.sandbox_requests().await;
    assert!(seen.iter().all(|r| r["requestId"] != hostile.as_str()));
    assert!(seen.iter().any(|r| r["requestId"] == echoed.as_str()));
    server.stop().await;
}

#[tokio::test]
async fn the_admin_listener_echoes_ids_too() {
    let server = start().await;
    let response = server
        .client
        .get(format!("{}/healthz", server.admin))
        .header("x-request-id", "probe-1")
        .send()
        .await
        .unwrap();
    assert_eq!(header(&response, "x-request-id"), "probe-1");
    server.stop().await;
}
