//! The hit path: a remembered fresh answer is served before the router, with exactly the
//! headers the router would give it, counted in the same metrics, and never after anything it
//! was made from has changed.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::SandboxHooks;
use common::in_process::{Answer, InProcess, capture_logs, get_request, start_with_secrets};
use common::test_config;
use serde_json::json;

const ADMIN_TOKEN: &str = "test-admin-token";
const PAGE: &str = "/api/pages/home";
const PRODUCT: &str = "/api/products/summit%20lr";
const COLLECTION: &str = "/api/collections/pistols";
const HIT_PATH_LINE: &str = "answered from the edge cache's hit path";

fn start() -> InProcess {
    start_with_secrets(test_config(), &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)])
}

fn detail(answer: &Answer) -> String {
    answer
        .header("cache-status")
        .rsplit("detail=")
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// Requests `path` until the cache remembers its answer (a miss stores it, the next hit is
/// rendered and remembered).
async fn warm(app: &InProcess, path: &str) {
    for _ in 0..2 {
        assert_eq!(app.get(path).await.status, 200, "{path}");
    }
}

/// How many times the hit path answered while `work` ran.
async fn hit_path_answers<F: Future<Output = ()>>(work: F) -> usize {
    let (logs, _guard) = capture_logs();
    work.await;
    logs.lines()
        .iter()
        .filter(|line| line["fields"]["message"] == HIT_PATH_LINE)
        .count()
}

/// The headers as a comparable list; the per-second figures (`max-age`, `ttl`) with their
/// digits blanked, since two answers a few microseconds apart may straddle a second.
/// `Content-Length` is left to hyper, which writes it from the body on the wire (the bodies are
/// compared whole).
fn comparable(answer: &Answer) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = answer
        .headers
        .iter()
        .filter(|(name, _)| {
            !matches!(
                name.as_str(),
                "x-request-id" | "date" | "age" | "content-length"
            )
        })
        .map(|(name, value)| {
            let value = value.to_str().unwrap();
            let value = if matches!(name.as_str(), "cache-control" | "cache-status") {
                value.replace(|c: char| c.is_ascii_digit(), "#")
            } else {
                value.to_owned()
            };
            (name.as_str().to_owned(), value)
        })
        .collect();
    headers.sort();
    headers
}

#[tokio::test]
async fn a_remembered_answer_is_served_before_the_router_exactly_as_the_router_serves_it() {
    let app = start();
    for path in [PAGE, PRODUCT, COLLECTION] {
        warm(&app, path).await;
        let cases: [&[(&str, &str)]; 4] = [
            &[],
            &[("accept-encoding", "gzip")],
            &[("accept-encoding", "gzip, deflate, br")],
            &[("x-request-id", "support-ticket-42")],
        ];
        for headers in cases {
            let mut fast = None;
            let answered = hit_path_answers(async {
                fast = Some(app.get_with(path, headers).await);
            })
            .await;
            let fast = fast.unwrap();
            assert_eq!(
                answered, 1,
                "{path} {headers:?}: not answered by the hit path"
            );
            let routed = app.send_to_router(get_request(path, headers)).await;
            assert_eq!(fast.status, 200);
            assert_eq!(detail(&fast), "hit");
            assert_eq!(fast.status, routed.status, "{path} {headers:?}");
            assert_eq!(fast.body, routed.body, "{path} {headers:?}");
            assert_eq!(comparable(&fast), comparable(&routed), "{path} {headers:?}");
            assert!(!fast.header("x-request-id").is_empty());
            assert!(!fast.header("content-security-policy").is_empty());
        }
        assert_eq!(
            app.get_with(path, &[("x-request-id", "support-ticket-42")])
                .await
                .header("x-request-id"),
            "support-ticket-42"
        );
        let etag = app.get(path).await.header("etag").to_owned();
        let mut not_modified = None;
        let answered = hit_path_answers(async {
            not_modified = Some(app.get_if_none_match(path, &etag).await);
        })
        .await;
        let not_modified = not_modified.unwrap();
        assert_eq!((answered, not_modified.status.as_u16()), (1, 304), "{path}");
        assert!(not_modified.body.is_empty());
        let routed = app
            .send_to_router(get_request(path, &[("if-none-match", &etag)]))
            .await;
        assert_eq!(comparable(&not_modified), comparable(&routed), "{path}");
    }
}

#[tokio::test]
async fn what_the_hit_path_cannot_answer_goes_to_the_router() {
    let app = start();
    warm(&app, PAGE).await;
    let answered = hit_path_answers(async {
        // Not remembered yet, not a GET, or not one of its routes.
        assert_eq!(detail(&app.get("/api/pages/footer").await), "miss");
        let head = app
            .send(
                axum::http::Request::head(PAGE)
                    .header("host", "localhost:8080")
                    .body(axum::body::Body::empty())
                    .unwrap(),
            )
            .await;
        assert_eq!(head.status, 200);
        assert_eq!(app.get("/api/pages/home/").await.status, 404);
        assert_eq!(app.get("/api/pages/nope").await.status, 404);
        assert_eq!(app.get("/api/config").await.status, 200);
    })
    .await;
    assert_eq!(answered, 0);
}

#[tokio::test]
async fn a_redirect_to_https_wins_over_a_remembered_answer() {
    let mut config = test_config();
    config.server.redirect_https = true;
    let app = start_with_secrets(config, &[("BFF_ADMIN_TOKEN", ADMIN_TOKEN)]);
    warm(&app, PAGE).await;
    let answer = app.get_with(PAGE, &[("x-forwarded-proto", "http")]).await;
    assert_eq!(answer.status, 308);
}

#[tokio::test]
async fn a_purge_or_a_new_price_map_ends_the_remembered_answers_made_from_it() {
    let app = start();
    for path in [PAGE, PRODUCT] {
        warm(&app, path).await;
    }
    let purge = |tags: serde_json::Value| {
        let app = &app;
        async move {
            let answer = app
                .admin_post("/admin/cache/purge", ADMIN_TOKEN, &json!({ "tags": tags }))
                .await;
            assert_eq!(answer.status, 200);
        }
    };
    purge(json!(["prices"])).await;
    let answered = hit_path_answers(async {
        let product = app.get(PRODUCT).await;
        assert_eq!(detail(&product), "miss", "the price map is fetched again");
    })
    .await;
    assert_eq!(answered, 0);
    // The next request is remembered again and answered by the hit path.
    app.get(PRODUCT).await;
    assert_eq!(
        hit_path_answers(async {
            app.get(PRODUCT).await;
        })
        .await,
        1
    );

    purge(json!(["page:home"])).await;
    let answered = hit_path_answers(async {
        assert_eq!(detail(&app.get(PAGE).await), "miss");
    })
    .await;
    assert_eq!(answered, 0);
}

#[tokio::test]
async fn hit_path_answers_are_counted_like_the_routers() {
    let app = start();
    warm(&app, PRODUCT).await;
    let before = app.metrics().await;
    let answered = hit_path_answers(async {
        for _ in 0..5 {
            app.get(PRODUCT).await;
        }
    })
    .await;
    assert_eq!(answered, 5);
    let after = app.metrics().await;
    let delta = |name: &str, labels: &[(&str, &str)]| {
        after.value(name, labels).unwrap_or(0.0) - before.value(name, labels).unwrap_or(0.0)
    };
    let hits = |route| {
        delta(
            "bff_cache_lookups_total",
            &[("route", route), ("state", "hit")],
        )
    };
    assert_eq!((hits("product"), hits("prices")), (5.0, 5.0));
    assert_eq!(
        delta(
            "http_server_request_duration_seconds_count",
            &[
                ("http_route", "/api/products/{title}"),
                ("http_request_method", "GET"),
                ("http_response_status_code", "200"),
            ],
        ),
        5.0
    );
}
