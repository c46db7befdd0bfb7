#![allow(clippy::unwrap_used)]

mod common;

use axum::body::Body;
use axum::http::Request;
use common::in_process::{self, SANDBOX_ORIGIN};
use serde_json::json;

const PAGE_ROUTE: &str = "/strapi/page/{name}";

#[tokio::test]
async fn the_home_page_arrives_unwrapped_and_camel_cased() {
    let app = in_process::start();
    let response = app.get("/api/pages/home").await;
    assert_eq!(response.status, 200);
    let page = response.json();
    assert!(page.get("data").is_none(), "the Strapi envelope is removed");
    assert_eq!(page["carousel"][0]["title"], "Built for the Long Range");
    assert!(page["carousel"][0]["buttonLabel"].is_string());
    let image = page["carousel"][0]["image"]["src"].as_str().unwrap();
    let media_path = image.strip_prefix(SANDBOX_ORIGIN).unwrap_or_else(|| {
        panic!("{image} is served by the sandbox");
    });
    let media = app
        .sandbox(Request::get(media_path).body(Body::empty()).unwrap())
        .await;
    assert!(media.status.is_success(), "{image}: {}", media.status);
}

#[tokio::test]
async fn the_menus_and_footer_come_from_the_content_service() {
    let app = in_process::start();
    let menus = app.get("/api/pages/app").await.json();
    let titles: Vec<&str> = menus["menus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|menu| menu["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Rifles", "Pistols", "Apparel & Gear", "Support"]);
    assert!(menus["menus"][0]["cards"][0]["hoverImage"]["src"].is_string());
    let footer = app.get("/api/pages/footer").await.json();
    assert!(footer["navLinks"].as_array().unwrap().len() >= 3);
    assert!(footer["downloadAsset"]["url"].is_string());
}

#[tokio::test]
async fn a_page_name_outside_the_specs_list_is_a_404_without_an_upstream_call() {
    let app = in_process::start();
    let response = app.get("/api/pages/..%2Fsandbox%2Fstats").await;
    assert_eq!(response.status, 404);
    assert_eq!(response.header("content-type"), "application/problem+json");
    assert_eq!(app.upstream_calls(PAGE_ROUTE).await, 0);
}

#[tokio::test]
async fn an_upstream_failure_is_a_502_problem_without_internals() {
    let app = in_process::start();
    app.inject_fault(json!({"route": PAGE_ROUTE, "errorStatus": 500}))
        .await;
    let response = app.get("/api/pages/home").await;
    assert_eq!(response.status, 502);
    let problem = response.json();
    assert_eq!(problem["code"], "upstream_unavailable");
    assert!(!problem["detail"].as_str().unwrap().contains("sandbox.test"));
}
