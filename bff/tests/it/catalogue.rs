//! Catalogue composition against the sandbox, in process: product pages, collections and
//! search, each one request carrying content and live prices, following the specs' price rules.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use bff::cache::CachePolicy;
use bff::config::Config;
use common::SandboxHooks;
use common::in_process::{Answer, InProcess, start_with_secrets};
use common::test_config;
use serde_json::{Value, json};

const ADMIN_TOKEN: &str = "test-admin-token";
const SECRETS: &[(&str, &str)] = &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)];
const PRODUCT_ROUTE: &str = "/strapi/products/{title}";
const GROUP_ROUTE: &str = "/strapi/product-groups/{title}";
const SEARCH_ROUTE: &str = "/strapi/products/search/{query}";
const PRICES_ROUTE: &str = "/Products";

/// Long, jitter-free windows, so what a test sees cached stays cached until it purges.
fn config() -> Config {
    let steady = CachePolicy {
        ttl: Duration::from_millis(600_000),
        jitter: 0.0,
        ..CachePolicy::default()
    };
    let mut config = test_config();
    config.cache.product = steady.clone();
    config.cache.collection = steady.clone();
    config.cache.search = steady.clone();
    config.cache.prices = steady;
    config
}

fn start() -> InProcess {
    start_with_secrets(config(), SECRETS)
}

fn cache_state(response: &Answer) -> String {
    response
        .header("cache-status")
        .split("; ")
        .find_map(|part| part.strip_prefix("detail="))
        .unwrap_or("none")
        .to_owned()
}

async fn get_json(app: &InProcess, path: &str) -> (u16, Value) {
    let response = app.get(path).await;
    let status = response.status.as_u16();
    (
        status,
        serde_json::from_slice(&response.body).unwrap_or(Value::Null),
    )
}

/// The sandbox's own price map, read directly.
async fn sandbox_prices(app: &InProcess) -> Value {
    let map = app
        .sandbox(Request::get("/Products").body(Body::empty()).unwrap())
        .await
        .json();
    map["products"].clone()
}

async fn upstream_routes(app: &InProcess) -> Vec<String> {
    app.sandbox_requests()
        .await
        .iter()
        .map(|request| request["route"].as_str().unwrap_or_default().to_owned())
        .filter(|route| route != "/health")
        .collect()
}

fn sku<'a>(product: &'a Value, code: &str) -> &'a Value {
    product["skus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|sku| sku["sku"] == code)
        .unwrap_or_else(|| panic!("{code} not in {product}"))
}

fn card<'a>(cards: &'a Value, title: &str) -> &'a Value {
    cards
        .as_array()
        .unwrap()
        .iter()
        .find(|card| card["title"] == title)
        .unwrap_or_else(|| panic!("{title} not in the cards"))
}

async fn admin_purge(app: &InProcess, tags: &[&str]) {
    let response = app
        .admin_post("/admin/cache/purge", ADMIN_TOKEN, &json!({"tags": tags}))
        .await;
    assert_eq!(response.status, 200);
}

#[tokio::test]
async fn a_product_page_arrives_in_one_request_with_final_prices_and_discounts() {
    let app = start();
    let response = app.get("/api/products/Vanguard%2015").await;
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), "application/json");
    let surrogate = response.header("surrogate-key").to_owned();
    // Surrogate-Key is space-separated, so the space inside a title is percent-encoded.
    let keys: Vec<&str> = surrogate.split(' ').collect();
    assert!(
        keys.contains(&"product:vanguard%2015") && keys.contains(&"prices"),
        "{surrogate}"
    );
    let product: Value = response.json();
    assert_eq!(product["title"], "Vanguard 15");
    assert!(product["displayType"].is_string(), "content is camelCased");
    let discounted = sku(&product, "TF-V15-556-16-BLK");
    assert_eq!(discounted["price"], json!(1299.99));
    assert_eq!(discounted["finalPrice"], json!(1169.99));
    assert_eq!(discounted["discountPercentage"], json!(10));
    assert_eq!(discounted["inStock"], true);
    assert!(discounted["variants"].is_array(), "content fields stay");
    let plain = sku(&product, "TF-V15-556-16-FDE");
    assert_eq!(plain["finalPrice"], plain["price"]);
    assert_eq!(plain["discountPercentage"], json!(0));
    assert_eq!(sku(&product, "TF-V15-556-115-BLK")["inStock"], false);
    assert_eq!(product["noVariants"], false);
    assert_eq!(product["displayedSku"], product["skus"][0]["sku"]);
    let related = product["relatedProducts"].as_array().unwrap();
    assert!(!related.is_empty());
    assert!(
        related
            .iter()
            .all(|card| card["displayedSku"].is_string()
                && card["skus"][0]["finalPrice"].is_number())
    );

    // Every sku follows the rule against the sandbox's own price map.
    let prices = sandbox_prices(&app).await;
    for sku in product["skus"].as_array().unwrap() {
        let live = &prices[sku["sku"].as_str().unwrap()];
        assert_eq!(sku["price"].as_f64(), live["price"].as_f64());
        assert_eq!(
            sku["finalPrice"].as_f64(),
            live["bestDiscountedPrice"].as_f64()
        );
        assert_eq!(
            sku["discountPercentage"].as_f64(),
            live["bestDiscountPercentage"].as_f64()
        );
        assert_eq!(sku["inStock"], live["inStock"]);
    }
    let routes = upstream_routes(&app).await;
    assert!(
        routes.contains(&PRODUCT_ROUTE.to_owned()) && routes.contains(&PRICES_ROUTE.to_owned())
    );
}

#[tokio::test]
async fn a_zero_priced_single_sku_product_has_a_final_price_of_zero() {
    let app = start();
    let (status, product) = get_json(&app, "/api/products/copperhead%20limited").await;
    assert_eq!(status, 200);
    let coming_soon = sku(&product, "TF-CPH");
    assert_eq!(coming_soon["finalPrice"], json!(0), "'Coming Soon'");
    assert_eq!(coming_soon["discountPercentage"], json!(0));
    assert_eq!(coming_soon["inStock"], false);
    assert_eq!(product["noVariants"], true);
    assert_eq!(product["displayedSku"], "TF-CPH");
}

/// The price map is looked up beside the content (concurrently), but an unknown title's answer
/// never depends on it: with the price map failing, it is still the content's cached 404.
#[tokio::test]
async fn unknown_products_and_collections_are_cached_404_problems_whatever_the_prices() {
    let app = start();
    app.inject_fault(json!({"route": PRICES_ROUTE, "errorStatus": 500}))
        .await;
    for (route, title) in [
        ("products", "no-such-rifle"),
        ("collections", "no-such-group"),
    ] {
        let path = format!("/api/{route}/{title}");
        let response = app.get(&path).await;
        assert_eq!(response.status, 404, "{path}");
        assert_eq!(cache_state(&response), "miss");
        assert_eq!(response.header("content-type"), "application/problem+json");
        let problem: Value = response.json();
        assert_eq!(problem["code"], "not_found");
        let again = app
            .get(&format!("/api/{route}/{}", title.to_uppercase()))
            .await;
        assert_eq!(
            (again.status.as_u16(), cache_state(&again)),
            (404, "hit".to_owned())
        );
    }
    let routes = upstream_routes(&app).await;
    let content_calls: Vec<&String> = routes
        .iter()
        .filter(|route| *route != PRICES_ROUTE)
        .collect();
    assert_eq!(content_calls.len(), 2, "one content call each: {routes:?}");
}

#[tokio::test]
async fn a_collection_displays_each_products_cheapest_sku_by_best_discounted_price() {
    let app = start();
    let response = app.get("/api/collections/Rifles").await;
    assert_eq!(response.status, 200);
    let surrogate = response.header("surrogate-key").to_owned();
    let keys: Vec<&str> = surrogate.split(' ').collect();
    for tag in ["collection:rifles", "product:summit%20lr", "prices"] {
        assert!(keys.contains(&tag), "{tag} not in {surrogate}");
    }
    let group: Value = response.json();
    assert_eq!(group["title"], "Rifles");
    assert!(
        group["filterCategories"].is_array(),
        "content is camelCased"
    );

    // Summit LR's cheapest list price (2149) is not its cheapest final price (1954.15).
    let summit = card(&group["products"], "Summit LR");
    assert_eq!(summit["displayedSku"], "TF-SLR-6CM-26-BLK");
    assert_eq!(
        sku(summit, "TF-SLR-6CM-26-BLK")["finalPrice"],
        json!(1954.15)
    );
    assert_eq!(summit["noVariants"], false);
    assert_eq!(
        card(&group["products"], "Summit Ultralite")["noVariants"],
        true
    );

    // Every card, against the sandbox's own price map.
    let prices = sandbox_prices(&app).await;
    for product in group["products"].as_array().unwrap() {
        let skus = product["skus"].as_array().unwrap();
        let cheapest = skus
            .iter()
            .map(|sku| sku["sku"].as_str().unwrap())
            .fold(None::<(&str, f64)>, |best, code| {
                let price = prices[code]["bestDiscountedPrice"].as_f64().unwrap();
                match best {
                    Some((_, lowest)) if lowest <= price => best,
                    _ => Some((code, price)),
                }
            })
            .map(|(code, _)| code);
        assert_eq!(
            product["displayedSku"].as_str(),
            cheapest,
            "{}",
            product["title"]
        );
        assert_eq!(
            product["noVariants"],
            skus.len() == 1,
            "{}",
            product["title"]
        );
    }
}

#[tokio::test]
async fn purging_a_product_drops_the_collections_that_list_it() {
    let app = start();
    assert_eq!(
        cache_state(&app.get("/api/collections/rifles").await),
        "miss"
    );
    assert_eq!(
        cache_state(&app.get("/api/collections/rifles").await),
        "hit"
    );
    admin_purge(&app, &["product:summit lr"]).await;
    assert_eq!(
        cache_state(&app.get("/api/collections/rifles").await),
        "miss"
    );
}

#[tokio::test]
async fn search_results_are_sorted_by_title_ignoring_case_with_prices() {
    let app = start();
    let response = app.get("/api/search?q=Falcon").await;
    assert_eq!(response.status, 200);
    assert_eq!(cache_state(&response), "miss");
    let answer: Value = response.json();
    assert_eq!(answer["query"], "falcon");
    let results = answer["results"].as_array().unwrap();
    let titles: Vec<&str> = results
        .iter()
        .map(|r| r["title"].as_str().unwrap())
        .collect();
    assert!(
        titles.contains(&"Falcon 9") && titles.contains(&"Falcon Compensator"),
        "{titles:?}"
    );
    let mut sorted = titles.clone();
    sorted.sort_by_key(|title| title.to_lowercase());
    assert_eq!(titles, sorted);
    for result in results {
        let displayed = result["displayedSku"].as_str().unwrap();
        let shown = sku(result, displayed)["finalPrice"].as_f64().unwrap();
        assert!(
            result["skus"]
                .as_array()
                .unwrap()
                .iter()
                .all(|sku| sku["finalPrice"].as_f64().unwrap() >= shown)
        );
        assert!(result["noVariants"].is_boolean());
    }
    let again = app.get("/api/search?q=%20FALCON").await;
    assert_eq!(cache_state(&again), "hit", "one entry per normalised query");
}

#[tokio::test]
async fn a_search_query_shorter_than_two_characters_is_a_422_without_an_upstream_call() {
    let app = start();
    for path in ["/api/search?q=f", "/api/search?q=%20", "/api/search"] {
        let response = app.get(path).await;
        assert_eq!(response.status, 422, "{path}");
        assert_eq!(response.header("content-type"), "application/problem+json");
        let problem: Value = response.json();
        assert!(problem["errors"]["q"].is_string(), "{problem}");
    }
    let problem: Value = app.get("/api/search?q=f").await.json();
    assert_eq!(
        problem["errors"]["q"],
        "Search query must be at least 2 characters"
    );
    assert!(upstream_routes(&app).await.is_empty());
}

/// Issue 22 (defect 7): a search during a content outage is an error the page can show and
/// monitoring can count, not `200 {"results": []}` ("no products match").
#[tokio::test]
async fn a_search_during_an_outage_is_a_503_problem_and_the_failure_is_not_cached() {
    let app = start();
    for route in [SEARCH_ROUTE, PRICES_ROUTE] {
        app.inject_fault(json!({"route": route, "errorStatus": 503}))
            .await;
        let response = app.get("/api/search?q=falcon").await;
        assert_eq!(response.status, 503, "{route}: {}", response.text());
        assert_eq!(
            response.header("content-type"),
            "application/problem+json",
            "{route}"
        );
        assert!(
            response.header("retry-after").parse::<u64>().unwrap() >= 1,
            "{route}"
        );
        let problem: Value = response.json();
        assert_eq!(problem["code"], "search_unavailable", "{route}");
        assert_eq!(
            problem["detail"],
            "Search is unavailable; please try again in a moment."
        );
        app.clear_faults().await;
    }
    let (status, answer) = get_json(&app, "/api/search?q=falcon").await;
    assert_eq!(status, 200);
    assert!(
        !answer["results"].as_array().unwrap().is_empty(),
        "the failure was not cached"
    );
}

#[tokio::test]
async fn an_unavailable_price_map_is_a_502_problem_for_a_product_page() {
    let app = start();
    app.inject_fault(json!({"route": PRICES_ROUTE, "errorStatus": 500}))
        .await;
    let response = app.get("/api/products/vanguard%2015").await;
    assert_eq!(response.status, 502);
    let problem: Value = response.json();
    assert_eq!(problem["code"], "upstream_unavailable");
}

/// Buys the last Range Mat (stock 1) straight from the sandbox, as another shopper would.
async fn buy_the_last_range_mat(app: &InProcess) {
    let guest = app
        .sandbox(Request::post("/Auth/guest").body(Body::empty()).unwrap())
        .await
        .json();
    let guest = guest["token"].as_str().unwrap();
    let cart = app
        .sandbox_post(
            &format!("/Cart/guest/{guest}/items"),
            &json!({"productId": "TF-MAT", "quantity": 1}),
            &[],
        )
        .await
        .json();
    // A card valid through a couple of years from now (the tokenizer refuses far-off years).
    let year = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        / 31_556_952
        + 1972;
    let token = app
        .sandbox_post(
            "/3p/accept/v1/tokens",
            &json!({
                "authData": {"clientKey": "sandbox-public-client-key", "apiLoginID": "sandbox-login-id"},
                "cardData": {"cardNumber": "4111111111111111", "month": "12", "year": year.to_string(), "cardCode": "123"}
            }),
            &[],
        )
        .await
        .json();
    let order = app
        .sandbox_post(
            "/Checkout/simplified",
            &json!({
                "cartId": cart["id"],
                "customerInfo": {
                    "email": "jane@example.com", "name": "Jane Doe", "address": "100 Congress Ave",
                    "city": "Austin", "state": "TX", "zip": "78701", "country": "United States",
                    "shippingSameAsBilling": true, "shippingMethodId": 1
                },
                "paymentToken": token["opaqueData"]["dataValue"]
            }),
            &[("x-guest-id", guest)],
        )
        .await;
    assert_eq!(order.status, 200, "{}", order.text());
}

#[tokio::test]
async fn a_stock_change_shows_with_a_new_etag_once_prices_are_purged() {
    let app = start();
    let first = app.get("/api/products/range%20mat").await;
    let etag = first.header("etag").to_owned();
    assert!(etag.starts_with('"'), "strong ETag: {etag}");
    let product: Value = first.json();
    assert_eq!(sku(&product, "TF-MAT")["inStock"], true);

    let unchanged = app
        .get_if_none_match("/api/products/range%20mat", &etag)
        .await;
    assert_eq!(unchanged.status, 304);
    assert_eq!(cache_state(&unchanged), "hit");

    buy_the_last_range_mat(&app).await;
    let cached: Value = app.get("/api/products/range%20mat").await.json();
    assert_eq!(
        sku(&cached, "TF-MAT")["inStock"],
        true,
        "the price map is still cached"
    );

    admin_purge(&app, &["prices"]).await;
    let changed = app
        .get_if_none_match("/api/products/range%20mat", &etag)
        .await;
    assert_eq!(changed.status, 200, "the old ETag no longer matches");
    assert_ne!(changed.header("etag"), etag);
    assert_eq!(
        cache_state(&changed),
        "miss",
        "the price map was fetched again"
    );
    let product: Value = changed.json();
    assert_eq!(sku(&product, "TF-MAT")["inStock"], false);
}

#[tokio::test]
async fn hostile_titles_and_queries_stay_inside_one_encoded_segment() {
    let app = start();
    let cases = [
        (
            "/api/collections/..%2F..%2Fsandbox%2Fstats",
            "/strapi/product-groups/..%2F..%2Fsandbox%2Fstats",
        ),
        (
            "/api/collections/what%3Fq=1%23frag",
            "/strapi/product-groups/what%3Fq%3D1%23frag",
        ),
        (
            "/api/products/..%2FProduct-Groups%2FRifles",
            "/strapi/products/..%2Fproduct-groups%2Frifles",
        ),
        (
            "/api/search?q=..%2F..%2FSandbox%2Fstats",
            "/strapi/products/search/..%2F..%2Fsandbox%2Fstats",
        ),
        (
            "/api/search?q=a%3Fb%23c%26d%252F",
            "/strapi/products/search/a%3Fb%23c%26d%252f",
        ),
    ];
    for (path, _) in cases {
        let status = app.get(path).await.status;
        assert!(status == 200 || status == 404, "{path}: {status}");
    }
    let seen: Vec<String> = app
        .sandbox_requests()
        .await
        .iter()
        .map(|request| request["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    for (_, expected) in cases {
        assert!(
            seen.contains(&expected.to_owned()),
            "{expected} not in {seen:?}"
        );
    }
    let routes = upstream_routes(&app).await;
    assert!(
        routes.iter().all(
            |route| [PRODUCT_ROUTE, GROUP_ROUTE, SEARCH_ROUTE, PRICES_ROUTE]
                .contains(&route.as_str())
        ),
        "{routes:?}"
    );
}
