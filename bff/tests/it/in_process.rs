//! The behaviour matrix in one process: the BFF's `app()` over the sandbox's `app()` (or a
//! stand-in content service), no sockets.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::assert_metric;
use crate::common;

use axum::Router;
use axum::routing::get;
use bff::edge::state::Transports;
use bff::upstream::transport::in_process;
use common::SandboxHooks;
use common::in_process::{self, capture_logs};
use serde_json::{Value, json};

const PAGE_ROUTE: &str = "/strapi/page/{name}";

#[tokio::test]
async fn a_content_page_is_fetched_once_then_served_from_the_cache() {
    let app = in_process::start();
    let first = app.get("/api/pages/home").await;
    assert_eq!(first.status, 200);
    assert!(
        first.header("cache-status").ends_with("detail=miss"),
        "{}",
        first.header("cache-status")
    );
    let etag = first.header("etag").to_owned();
    for _ in 0..2 {
        let again = app.get("/api/pages/home").await;
        assert_eq!(again.status, 200);
        assert_eq!(again.header("etag"), etag);
        assert!(
            again.header("cache-status").ends_with("detail=hit"),
            "{}",
            again.header("cache-status")
        );
    }
    assert_eq!(app.upstream_calls(PAGE_ROUTE).await, 1);
    let metrics = app.metrics().await;
    assert_metric!(metrics, "bff_cache_lookups_total", {"route" => "pages", "state" => "miss"}, 1);
    assert_metric!(metrics, "bff_cache_lookups_total", {"route" => "pages", "state" => "hit"}, 2);
    assert_metric!(metrics, "bff_cache_entries", {}, 1);
    assert_eq!(
        metrics.histogram_count(
            "http_client_request_duration_seconds",
            &[
                ("upstream", "content"),
                ("http_response_status_code", "200"),
                ("error_type", "")
            ]
        ),
        Some(1),
        "one upstream call, timed under its upstream and status, without an error type"
    );
}

/// The sandbox for commerce (prices); a stand-in content service answering every product with
/// `product`.
fn with_content_product(product: Value) -> in_process::InProcess {
    in_process::start_with(common::test_config(), move |sandbox| {
        let content = Router::new().route(
            "/strapi/products/{title}",
            get(move || {
                let product = product.clone();
                async move { axum::Json(json!([product])) }
            }),
        );
        Transports {
            commerce: Some(in_process("commerce", sandbox)),
            content: Some(in_process("content", content)),
        }
    })
}

#[tokio::test]
async fn an_answer_missing_a_required_field_is_an_upstream_contract_502_logged_once() {
    let app = with_content_product(json!({"skus": [], "brand_new": true}));
    let (logs, _guard) = capture_logs();
    let answer = app.get("/api/products/summit%20lr").await;
    assert_eq!(answer.status, 502);
    assert_eq!(answer.header("content-type"), "application/problem+json");
    let problem = answer.json();
    assert_eq!(problem["code"], "upstream_contract");
    assert!(
        !problem["detail"].as_str().unwrap().contains("title"),
        "the field path stays in the logs: {problem}"
    );
    let naming_the_field: Vec<Value> = logs
        .lines()
        .into_iter()
        .filter(|line| line.to_string().contains("upstream_contract"))
        .collect();
    assert_eq!(naming_the_field.len(), 1, "{naming_the_field:#?}");
    let line = &naming_the_field[0];
    assert_eq!(line["level"], "ERROR");
    assert!(
        line["fields"]["error"]
            .as_str()
            .unwrap()
            .contains("`title`"),
        "the log names the field path: {line}"
    );
}

#[tokio::test]
async fn unknown_upstream_fields_are_tolerated_and_relayed_camel_cased() {
    let app = with_content_product(json!({
        "title": "Summit LR",
        "skus": [],
        "brand_new_field": {"nested_value": 1}
    }));
    let answer = app.get("/api/products/summit%20lr").await;
    assert_eq!(
        answer.status,
        200,
        "{}",
        String::from_utf8_lossy(&answer.body)
    );
    let product = answer.json();
    assert_eq!(product["title"], "Summit LR");
    assert_eq!(product["brandNewField"], json!({"nestedValue": 1}));
}

#[tokio::test]
async fn an_unknown_api_path_is_a_problem_not_the_app_shell() {
    let app = in_process::start();
    let answer = app.get("/api/no-such-thing").await;
    assert_eq!(answer.status, 404);
    assert_eq!(answer.json()["code"], "not_found");
    let shell = app.get("/collection/rifles").await;
    assert_eq!(shell.status, 200);
    assert!(shell.header("content-type").starts_with("text/html"));
}
