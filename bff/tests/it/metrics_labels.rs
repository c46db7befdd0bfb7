//! The metrics SREs' dashboards read: every name they query is exported, and no label carries a
//! value a client chose (a raw path, a title, an e-mail, an id), however hostile the traffic.
//! And `POST /api/rum`, which feeds the Web Vitals histograms from browsers.

#![allow(clippy::unwrap_used)]

use crate::common;

use axum::body::Body;
use axum::http::{Method, Request};
use common::SandboxHooks;
use common::browser::{Browser, PASSWORD, SHOPPER};
use common::in_process::{InProcess, SANDBOX_ORIGIN, json_request, start};
use serde_json::json;

/// Values a client sent; none may appear in any label.
const HOSTILE: &[&str] = &[
    "summit",
    "no-such-product-7f3a",
    "alice@example.com",
    "shopper@talonforge",
    "98765",
    "gid_",
    "wp-admin",
    "%",
];

fn origin(app: &InProcess) -> String {
    app.state.csrf.origin.clone()
}

fn beacon(app: &InProcess, body: String, headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::builder()
        .method(Method::POST)
        .uri("/api/rum")
        .header("content-type", "text/plain;charset=UTF-8")
        .header("origin", origin(app));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.body(Body::from(body)).unwrap()
}

fn is_lower_hex(value: &str) -> bool {
    value.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f'))
}

/// Whether `value` is a valid value of label `name`: each label's set is bounded by the code.
fn bounded(name: &str, value: &str) -> bool {
    let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
    let template = |value: &str| {
        value == "unmatched"
            || value.split('/').all(|segment| {
                segment.is_empty()
                    || (segment.starts_with('{') && segment.ends_with('}'))
                    || segment.starts_with(':')
                    || segment
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '*'))
            })
    };
    match name {
        "http_request_method" => methods.contains(&value),
        // Empty (absent) on an upstream call that got no answer.
        "http_response_status_code" => {
            value.is_empty() || (value.len() == 3 && value.parse::<u16>().is_ok())
        }
        "outcome" => ["error", "ok"].contains(&value),
        // An upstream call's: a 4xx or 5xx status, or the code of an error without an answer;
        // empty (absent) on success.
        "error_type" => {
            ["", "upstream_timeout", "upstream_unavailable", "overloaded"].contains(&value)
                || (value.len() == 3 && value.parse::<u16>().is_ok())
        }
        // The upstreams' configured host and port (the in-process sandbox's), never a value a
        // client sent.
        "server_address" => Some(value) == url::Url::parse(SANDBOX_ORIGIN).unwrap().host_str(),
        "server_port" => value == "80",
        "upstream" => ["commerce", "content", "tiles"].contains(&value),
        "http_route" | "url_template" => template(value),
        "route" => {
            // The cache's route kinds, or the app's route templates (Web Vitals).
            [
                "pages",
                "product",
                "collection",
                "search",
                "prices",
                "tiles",
            ]
            .contains(&value)
                || bff::routes::rum::route_label(value) == value
        }
        // A cache lookup's state, or a circuit breaker's.
        "state" => [
            "hit",
            "miss",
            "stale",
            "stale-if-error",
            "coalesced",
            "closed",
            "open",
            "half_open",
        ]
        .contains(&value),
        // A Redis tier (the shared tier's two roles).
        "tier" => bff::coordination::replicas::BOTH_TIERS.contains(&value),
        // A cause, an event or a Redis operation: a name in the code, never a client's text.
        "cause" | "event" | "operation" => value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
        // A cache miss's reason, or a render fallback's.
        "reason" => {
            bff::cache::MissReason::ALL
                .iter()
                .any(|reason| reason.as_str() == value)
                || [
                    "render_failed",
                    "failed_recently",
                    "over_budget",
                    "fill_lost",
                ]
                .contains(&value)
        }
        "limit" => ["auth", "search", "sign_in_account"].contains(&value),
        // A shared-tier value whose MAC failed: what kind of value.
        "kind" => bff::coordination::shared_tier_mac::SignedKind::ALL
            .iter()
            .any(|kind| kind.as_str() == value),
        // A content page's name: only the specs' pages are ever fetched (others are a 404 first).
        "page" => bff::content::PAGE_NAMES.contains(&value),
        "to" => ["open", "half_open", "closed"].contains(&value),
        // The build's (`bff_build_info`), or the running configuration's fingerprint
        // (`bff_config_info`): one value per process at a time.
        "version" => {
            value == env!("CARGO_PKG_VERSION") || (value.len() == 12 && is_lower_hex(value))
        }
        "hash" => value.len() == 64 && is_lower_hex(value),
        "commit" => value == bff::observe::metrics::BUILD_COMMIT,
        "le" => true,
        _ => false,
    }
}

#[tokio::test]
async fn every_label_value_comes_from_a_bounded_set_whatever_the_traffic() {
    let app = start();
    for path in [
        "/api/products/summit%20lr",
        "/api/products/summit%20lr",
        "/api/products/no-such-product-7f3a",
        "/api/collections/no-such-product-7f3a",
        "/api/pages/alice@example.com",
        "/api/search/summit",
        "/api/orders/98765",
        "/api/no/such/endpoint/98765",
        "/wp-admin/98765",
        "/product/summit-lr",
        "/assets/no-such-asset-98765.js",
    ] {
        app.get(path).await;
    }
    let mut browser = Browser::new(&app);
    browser
        .post(
            "/api/auth/login",
            json!({"email": "alice@example.com", "password": "wrong-password-1"}),
        )
        .await;
    browser
        .post(
            "/api/cart/items",
            json!({"productId": "TF-QDS", "productName": "QD Sling Mount", "quantity": 1,
                   "options": []}),
        )
        .await;
    browser.get("/api/cart").await;
    browser
        .post(
            "/api/auth/login",
            json!({"email": SHOPPER, "password": PASSWORD}),
        )
        .await;
    browser.get("/api/cart").await;
    browser.get("/api/account").await;
    browser
        .get("/api/newsletter/status?email=alice%40example.com")
        .await;
    app.send(beacon(
        &app,
        json!({"reports": [
            {"route": "/product/summit-lr", "name": "LCP", "value": 1800},
            {"route": "/product/:title", "name": "CLS", "value": 0.02}
        ]})
        .to_string(),
        &[],
    ))
    .await;

    let scrape = app.metrics().await;
    assert!(!scrape.samples().is_empty());
    for sample in scrape.samples() {
        for (name, value) in &sample.labels {
            assert!(
                bounded(name, value),
                "{}: label {name}={value:?} is not from a bounded set",
                sample.name
            );
            for hostile in HOSTILE {
                assert!(
                    !value.contains(hostile),
                    "{}: label {name}={value:?} carries a client's value",
                    sample.name
                );
            }
        }
    }
    // The traffic above reached the families checked.
    for name in [
        "http_server_request_duration_seconds_count",
        "http_client_request_duration_seconds_count",
        "bff_cache_lookups_total",
        "bff_web_vitals_lcp_seconds_count",
    ] {
        assert!(
            scrape.samples().iter().any(|sample| sample.name == name),
            "{name} missing: {:?}",
            scrape.names()
        );
    }
}

#[tokio::test]
async fn the_dashboards_metric_names_are_all_exported() {
    let app = start();
    app.get("/api/pages/home").await;
    let scrape = app.metrics().await;
    let names = scrape.names();
    for name in [
        "http_server_request_duration_seconds_bucket",
        "http_client_request_duration_seconds_bucket",
        "bff_cache_entries",
        "bff_cache_size_bytes",
        "bff_build_info",
        "http_server_active_requests",
        "bff_load_shed_total",
        "bff_idempotent_replays_total",
        "process_resident_memory_bytes",
        "process_cpu_seconds_total",
    ] {
        assert!(names.contains_key(name), "{name} missing: {names:?}");
    }
    assert_eq!(
        scrape.value(
            "bff_build_info",
            &[
                ("version", env!("CARGO_PKG_VERSION")),
                ("commit", bff::observe::metrics::BUILD_COMMIT)
            ]
        ),
        Some(1.0)
    );
    assert!(scrape.value("process_resident_memory_bytes", &[]).unwrap() > 1_000_000.0);
    assert_eq!(
        scrape.histogram_count(
            "http_client_request_duration_seconds",
            &[
                ("upstream", "content"),
                ("http_request_method", "GET"),
                ("url_template", "page/{}"),
                ("server_address", "sandbox.test"),
                ("server_port", "80"),
                ("http_response_status_code", "200"),
                ("error_type", "")
            ]
        ),
        Some(1),
        "upstream calls are labelled with their span's attributes"
    );
}

#[tokio::test]
async fn web_vitals_beacons_are_counted_by_route_template() {
    let app = start();
    let body = json!({"reports": [
        {"route": "/product/:title", "name": "LCP", "value": 2300},
        {"route": "/product/:title", "name": "INP", "value": 180},
        {"route": "/", "name": "CLS", "value": 0.3},
        {"route": "/product/summit-lr", "name": "LCP", "value": 900}
    ]});
    let answer = app.send(beacon(&app, body.to_string(), &[])).await;
    assert_eq!(answer.status, 204, "{}", answer.text());
    assert!(answer.headers.get("set-cookie").is_none(), "no session");
    let scrape = app.metrics().await;
    let count = |name: &str, route: &str| scrape.histogram_count(name, &[("route", route)]);
    assert_eq!(
        count("bff_web_vitals_lcp_seconds", "/product/:title"),
        Some(1)
    );
    assert_eq!(
        scrape.value(
            "bff_web_vitals_lcp_seconds_sum",
            &[("route", "/product/:title")]
        ),
        Some(2.3)
    );
    assert_eq!(
        count("bff_web_vitals_inp_seconds", "/product/:title"),
        Some(1)
    );
    assert_eq!(count("bff_web_vitals_cls", "/"), Some(1));
    assert_eq!(
        count("bff_web_vitals_lcp_seconds", "unmatched"),
        Some(1),
        "a path is not a template"
    );
    // As JSON, with the header the app's fetch would send, it counts too.
    let answer = app
        .send(json_request(
            Method::POST,
            "/api/rum",
            &json!({"reports": [{"route": "/", "name": "LCP", "value": 1000}]}),
            &[("origin", &origin(&app)), ("x-csrf", "1")],
        ))
        .await;
    assert_eq!(answer.status, 204);
}

#[tokio::test]
async fn web_vitals_beacons_from_elsewhere_too_large_or_malformed_are_refused() {
    let app = start();
    let one = json!({"reports": [{"route": "/", "name": "LCP", "value": 1000}]}).to_string();
    let no_origin = Request::builder()
        .method(Method::POST)
        .uri("/api/rum")
        .header("content-type", "text/plain")
        .body(Body::from(one.clone()))
        .unwrap();
    assert_eq!(app.send(no_origin).await.status, 403);
    let cross_site = beacon(&app, one.clone(), &[("sec-fetch-site", "cross-site")]);
    assert_eq!(app.send(cross_site).await.status, 403);

    let large = json!({"reports": [{"route": "x".repeat(9 * 1024), "name": "LCP", "value": 1}]});
    let answer = app.send(beacon(&app, large.to_string(), &[])).await;
    assert_eq!(answer.status, 413);
    assert_eq!(answer.header("content-type"), "application/problem+json");

    for bad in [
        "not json".to_owned(),
        json!({"reports": [{"route": "/", "name": "FID", "value": 10}]}).to_string(),
        json!({"reports": [{"route": "/", "name": "LCP", "value": -5}]}).to_string(),
        json!({"reports": [{"route": "/", "name": "LCP", "value": 10, "email": "a@b.c"}]})
            .to_string(),
    ] {
        let answer = app.send(beacon(&app, bad.clone(), &[])).await;
        assert_eq!(answer.status, 400, "{bad}");
    }
    let scrape = app.metrics().await;
    assert_eq!(
        scrape.histogram_count("bff_web_vitals_lcp_seconds", &[("route", "/")]),
        None,
        "nothing refused was counted"
    );
}

/// Issue 46, finding 5: `/api/rum` accepted forged reports without limit. From one client,
/// reports past `rate_limit.rum_reports_per_minute` get 429 with `Retry-After`, and a report
/// whose `Sec-Fetch-Site` is `cross-site` gets 403.
#[tokio::test]
async fn web_vitals_beacons_past_the_clients_budget_get_429_and_cross_site_ones_403() {
    let mut config = common::test_config();
    config.rate_limit.rum_reports_per_minute = 3;
    let app = common::in_process::start_with_secrets(config, &[]);
    let one = json!({"reports": [{"route": "/", "name": "LCP", "value": 1000}]}).to_string();
    let cross_site = beacon(&app, one.clone(), &[("sec-fetch-site", "cross-site")]);
    assert_eq!(app.send(cross_site).await.status, 403);
    let mut statuses = Vec::new();
    for _ in 0..3 {
        statuses.push(
            app.send(beacon(&app, one.clone(), &[]))
                .await
                .status
                .as_u16(),
        );
    }
    let refused = app.send(beacon(&app, one, &[])).await;
    // The cross-site report counted against the budget too: the third is the budget's last.
    assert_eq!(statuses, [204, 204, 429]);
    assert_eq!(refused.status, 429);
    assert!(refused.header("retry-after").parse::<u64>().unwrap() >= 1);
}
