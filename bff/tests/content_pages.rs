#![allow(clippy::unwrap_used)]

mod common;

use common::{header, start};
use serde_json::{Value, json};

#[tokio::test]
async fn the_home_page_arrives_unwrapped_and_camel_cased() {
    let server = start().await;
    let response = server.get("/api/pages/home").await;
    assert_eq!(response.status(), 200);
    let page: Value = response.json().await.unwrap();
    assert!(page.get("data").is_none(), "the Strapi envelope is removed");
    assert_eq!(page["carousel"][0]["title"], "Built for the Long Range");
    assert!(page["carousel"][0]["buttonLabel"].is_string());
    let image = page["carousel"][0]["image"]["src"].as_str().unwrap();
    assert!(image.starts_with(&server.sandbox), "{image}");
    assert!(
        server
            .client
            .get(image)
            .send()
            .await
            .unwrap()
            .status()
            .is_success()
    );
    server.stop().await;
}

#[tokio::test]
async fn the_menus_and_footer_come_from_the_content_service() {
    let server = start().await;
    let app: Value = server.get("/api/pages/app").await.json().await.unwrap();
    let titles: Vec<&str> = app["menus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|menu| menu["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Rifles", "Pistols", "Apparel & Gear", "Support"]);
    assert!(app["menus"][0]["cards"][0]["hoverImage"]["src"].is_string());
    let footer: Value = server.get("/api/pages/footer").await.json().await.unwrap();
    assert!(footer["navLinks"].as_array().unwrap().len() >= 3);
    assert!(footer["downloadAsset"]["url"].is_string());
    server.stop().await;
}

#[tokio::test]
async fn a_page_name_outside_the_specs_list_is_a_404_without_an_upstream_call() {
    let server = start().await;
    let response = server.get("/api/pages/..%2Fsandbox%2Fstats").await;
    assert_eq!(response.status(), 404);
    assert_eq!(
        header(&response, "content-type"),
        "application/problem+json"
    );
    let seen = server.sandbox_requests().await;
    assert!(
        seen.iter().all(|r| r["route"] != "/strapi/page/{name}"),
        "{seen:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn an_upstream_failure_is_a_502_problem_without_internals() {
    let server = start().await;
    server
        .inject_fault(json!({"route": "/strapi/page/{name}", "errorStatus": 500}))
        .await;
    let response = server.get("/api/pages/home").await;
    assert_eq!(response.status(), 502);
    let problem: Value = response.json().await.unwrap();
    assert_eq!(problem["code"], "upstream_unavailable");
    assert!(!problem["detail"].as_str().unwrap().contains("127.0.0.1"));
    server.stop().await;
}
