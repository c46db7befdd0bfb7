#![allow(clippy::unwrap_used)]

use crate::common;

use axum::body::Body;
use axum::http::Request;
use common::SandboxHooks;
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

const VIOLATIONS: &str = "bff_upstream_contract_violations_total";

/// Every page the content service serves reads as the shape the API documents for its name
/// (`content::page_shapes`): the runtime types and the schema are one.
#[tokio::test]
async fn every_page_reads_as_its_documented_shape() {
    let app = in_process::start();
    for name in bff::content::PAGE_NAMES {
        let response = app.get(&format!("/api/pages/{name}")).await;
        assert_eq!(response.status, 200, "{name}");
    }
    let scrape = app.metrics().await;
    for name in bff::content::PAGE_NAMES {
        // every page's series exists from the start, at 0, so the first break is an increase
        assert_eq!(
            scrape.value(VIOLATIONS, &[("page", name)]),
            Some(0.0),
            "{name} breaks its shape"
        );
    }
}

/// A CMS edit that renames a required field is counted once per fill, by page, and the page is
/// still served as the CMS sent it: a broken contract is an alert, never an outage.
#[tokio::test]
async fn a_page_that_breaks_its_shape_is_counted_and_served_as_sent() {
    let app = in_process::start();
    let chosen = app
        .sandbox(in_process::json_request(
            axum::http::Method::PUT,
            "/sandbox/pages/faq/variant",
            &json!({"variant": "items-renamed"}),
            &[],
        ))
        .await;
    assert!(chosen.status.is_success(), "{}", chosen.status);

    let first = app.get("/api/pages/faq").await;
    assert_eq!(first.status, 200);
    let page = first.json();
    assert!(page["questions"].is_array(), "served as sent: {page}");
    assert!(page.get("items").is_none());
    let again = app.get("/api/pages/faq").await;
    assert_eq!(again.status, 200);
    assert!(
        again.header("cache-status").contains("hit"),
        "{}",
        again.header("cache-status")
    );

    let scrape = app.metrics().await;
    assert_eq!(scrape.value(VIOLATIONS, &[("page", "faq")]), Some(1.0));
    assert_eq!(scrape.value(VIOLATIONS, &[("page", "home")]), Some(0.0));
}
