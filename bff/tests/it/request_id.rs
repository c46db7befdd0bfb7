#![allow(clippy::unwrap_used)]

use crate::common;

use common::SandboxHooks;
use common::in_process::{get_request, start};

#[tokio::test]
async fn a_request_without_an_id_gets_one_and_the_upstream_sees_it() {
    let app = start();
    let response = app.get("/api/pages/home").await;
    assert_eq!(response.status, 200);
    let id = response.header("x-request-id").to_owned();
    assert_eq!(id.len(), 36, "a generated UUID, got {id:?}");

    let seen = app.sandbox_requests().await;
    let upstream = seen
        .iter()
        .find(|r| r["route"] == "/strapi/page/{name}")
        .expect("the sandbox saw the page request");
    assert_eq!(upstream["requestId"], id.as_str());
}

#[tokio::test]
async fn a_well_formed_id_is_kept_echoed_and_propagated() {
    let app = start();
    let response = app
        .get_with(
            "/api/pages/footer",
            &[("x-request-id", "checkout-7f3a:retry.2")],
        )
        .await;
    assert_eq!(response.header("x-request-id"), "checkout-7f3a:retry.2");
    let seen = app.sandbox_requests().await;
    assert!(
        seen.iter().any(
            |r| r["requestId"] == "checkout-7f3a:retry.2" && r["path"] == "/strapi/page/footer"
        ),
        "{seen:?}"
    );
}

#[tokio::test]
async fn a_malformed_id_is_replaced_everywhere() {
    let app = start();
    let hostile = "x\" injected=1 ".repeat(3);
    let response = app
        .get_with("/api/pages/home", &[("x-request-id", hostile.as_str())])
        .await;
    let echoed = response.header("x-request-id").to_owned();
    assert_ne!(echoed, hostile);
    assert_eq!(echoed.len(), 36);
    let seen = app.sandbox_requests().await;
    assert!(seen.iter().all(|r| r["requestId"] != hostile.as_str()));
    assert!(seen.iter().any(|r| r["requestId"] == echoed.as_str()));
}

#[tokio::test]
async fn the_admin_listener_echoes_ids_too() {
    let app = start();
    let response = app
        .admin_send(get_request("/healthz", &[("x-request-id", "probe-1")]))
        .await;
    assert_eq!(response.header("x-request-id"), "probe-1");
}
