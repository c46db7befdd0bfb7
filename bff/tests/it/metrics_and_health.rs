#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use bff::config::{Config, SANDBOX_PLACEHOLDER};
use common::SandboxHooks;
use common::{start, start_with, test_config};

async fn metrics(server: &common::TestServer) -> String {
    let response = server
        .client
        .get(format!("{}/metrics", server.admin))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

/// A document the hit path does not remember is answered by the router's fallback, which has no
/// template of its own: it is still counted as a document, never as unmatched.
#[tokio::test]
async fn a_document_miss_is_counted_under_the_documents_template() {
    let server = start().await;
    assert_eq!(server.get("/product/summit%20lr").await.status(), 200);
    assert_eq!(server.get("/no-such-page").await.status(), 404);
    let text = metrics(&server).await;
    let scrape = common::metrics::Scrape::parse(&text);
    let requests = |route, status| {
        scrape.histogram_count(
            "http_server_request_duration_seconds",
            &[
                ("http_route", route),
                ("http_request_method", "GET"),
                ("http_response_status_code", status),
            ],
        )
    };
    assert_eq!(requests("/{*path}", "200"), Some(1), "{text}");
    assert_eq!(requests("/{*path}", "404"), Some(1), "{text}");
    assert_eq!(requests("unmatched", "200"), None, "{text}");
    assert_eq!(requests("unmatched", "404"), None, "{text}");
    server.stop().await;
}

#[tokio::test]
async fn request_durations_are_labelled_by_route_template() {
    let server = start().await;
    for _ in 0..3 {
        assert_eq!(server.get("/api/pages/home").await.status(), 200);
    }
    assert_eq!(server.get("/api/pages/unknownpage").await.status(), 404);
    let text = metrics(&server).await;
    let scrape = common::metrics::Scrape::parse(&text);
    let requests = |status| {
        scrape.histogram_count(
            "http_server_request_duration_seconds",
            &[
                ("http_route", "/api/pages/{name}"),
                ("http_request_method", "GET"),
                ("http_response_status_code", status),
            ],
        )
    };
    assert_eq!(requests("200"), Some(3));
    assert_eq!(requests("404"), Some(1));
    assert!(
        !text.contains("/api/pages/home"),
        "raw paths never become labels"
    );
    // Three page views, one upstream call: the other two were cache hits.
    assert_eq!(
        scrape.histogram_count(
            "http_client_request_duration_seconds",
            &[
                ("upstream", "content"),
                ("http_request_method", "GET"),
                ("http_response_status_code", "200"),
                ("error_type", "")
            ]
        ),
        Some(1)
    );
    server.stop().await;
}

/// `bff_upstream_breaker_state` is one series per state, not a code: each upstream has a
/// `closed`, an `open` and a `half_open` series, exactly one of them at 1 (closed, at start; the
/// transitions are in tests/it/slow_upstreams.rs).
#[tokio::test]
async fn each_breaker_exposes_one_series_per_state_with_exactly_one_at_one() {
    let server = start().await;
    let text = metrics(&server).await;
    let scrape = common::metrics::Scrape::parse(&text);
    for upstream in ["commerce", "content"] {
        let series = scrape.by_label(
            "bff_upstream_breaker_state",
            &[("upstream", upstream)],
            "state",
        );
        assert_eq!(
            series.into_iter().collect::<Vec<_>>(),
            [("closed", 1.0), ("half_open", 0.0), ("open", 0.0)],
            "{upstream}: {text}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn liveness_answers_on_both_listeners() {
    let server = start().await;
    assert_eq!(server.get("/healthz").await.status(), 200);
    let admin = server
        .client
        .get(format!("{}/healthz", server.admin))
        .send()
        .await
        .unwrap();
    assert_eq!(admin.status(), 200);
    server.stop().await;
}

#[tokio::test]
async fn ready_when_the_upstreams_answer() {
    let server = start().await;
    let response = server
        .client
        .get(format!("{}/readyz", server.admin))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let report: serde_json::Value = response.json().await.unwrap();
    assert_eq!(report["commerce"], true);
    assert_eq!(report["content"], true);
    server.stop().await;
}

/// An address nothing listens on, for as long as the returned socket lives: it is bound but not
/// listening, so a connection is refused, and no other test (nor the sandbox) can be given the
/// port meanwhile. (A listener bound and dropped freed the port for the next test that asked
/// for one, and the "down" upstream then sometimes answered.)
fn closed_port() -> (socket2::Socket, String) {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).unwrap();
    let any_port = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    socket.bind(&any_port.into()).unwrap();
    let addr = socket.local_addr().unwrap().as_socket().unwrap();
    (socket, format!("http://{addr}/"))
}

#[tokio::test]
async fn not_ready_when_an_upstream_is_down_and_the_verdict_is_cached() {
    let mut config: Config = test_config();
    let (_closed, url) = closed_port();
    config.upstreams.commerce.base_url = url;
    config.readiness.cache = Duration::from_millis(60_000);
    assert!(
        config
            .upstreams
            .content
            .base_url
            .starts_with(SANDBOX_PLACEHOLDER)
    );
    let server = start_with(config, &[]).await;
    let response = server.get("/readyz").await;
    assert_eq!(response.status(), 503);
    let report: serde_json::Value = response.json().await.unwrap();
    assert_eq!(report["commerce"], false);
    assert_eq!(report["content"], true);

    // The second probe reuses the verdict: the content upstream is not asked again.
    let before = server.sandbox_requests().await.len();
    assert_eq!(server.get("/readyz").await.status(), 503);
    assert_eq!(server.sandbox_requests().await.len(), before);
    server.stop().await;
}
