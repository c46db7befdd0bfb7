//! Issue 30, finding 9: the document CSP allows no inline styles and reports violations to
//! `POST /api/csp-reports` (`report-uri`, and `report-to` through `Reporting-Endpoints`), which
//! takes both report formats without `X-CSRF`, caps bodies at 16 KiB, limits each client, and
//! counts reports by directive only. The server-rendered first screens carry no style attribute.

#![allow(clippy::unwrap_used)]

use crate::assert_metric;
use crate::common;

use common::SandboxHooks;
use common::in_process::start_with_web_build;
use common::test_config;
use serde_json::json;

#[tokio::test]
async fn the_csp_allows_no_inline_styles_and_reports_to_the_bff() {
    let server = common::start().await;
    let document = server.get("/").await;
    let csp = common::header(&document, "content-security-policy").to_owned();
    assert!(!csp.contains("'unsafe-inline'"), "{csp}");
    assert!(csp.contains("style-src 'self';"), "{csp}");
    assert!(csp.contains("report-uri /api/csp-reports"), "{csp}");
    assert!(csp.contains("report-to csp"), "{csp}");
    assert_eq!(
        common::header(&document, "reporting-endpoints"),
        "csp=\"/api/csp-reports\""
    );
    server.stop().await;
}

#[tokio::test]
async fn csp_reports_are_counted_by_directive_capped_and_limited_per_client() {
    let mut config = test_config();
    config.rate_limit.csp_reports_per_minute = 6;
    let server = common::start_with(config, &[]).await;
    let post = |content_type: &str, body: String| {
        server
            .client
            .post(server.url("/api/csp-reports"))
            .header("content-type", content_type)
            .body(body)
            .send()
    };
    // Level 2, as `report-uri` sends it: no X-CSRF, no Origin.
    let level2 = json!({"csp-report": {
        "document-uri": "http://shop.example/product/summit",
        "violated-directive": "style-src-attr",
        "effective-directive": "style-src-attr",
        "blocked-uri": "inline"
    }});
    let answer = post("application/csp-report", level2.to_string())
        .await
        .unwrap();
    assert_eq!(answer.status(), 204);
    // The Reporting API's batch; only csp-violation reports count, unknown directives are
    // `other`.
    let batch = json!([
        {"type": "csp-violation", "age": 1, "url": "http://shop.example/",
         "body": {"effectiveDirective": "script-src-elem", "blockedURL": "https://evil.example/x.js"}},
        {"type": "csp-violation", "body": {"effectiveDirective": "alice@example.com"}},
        {"type": "deprecation", "body": {"id": "x"}}
    ]);
    let answer = post("application/reports+json", batch.to_string())
        .await
        .unwrap();
    assert_eq!(answer.status(), 204);
    let metrics = server.metrics().await;
    assert_metric!(metrics, "bff_csp_violations_total", {"directive" => "style-src-attr"}, 1);
    assert_metric!(metrics, "bff_csp_violations_total", {"directive" => "script-src-elem"}, 1);
    assert_metric!(metrics, "bff_csp_violations_total", {"directive" => "other"}, 1);

    let answer = post("text/plain", level2.to_string()).await.unwrap();
    assert_eq!(answer.status(), 415);
    let huge = json!({"csp-report": {"effective-directive": "img-src",
        "blocked-uri": "x".repeat(17 * 1024)}});
    let answer = post("application/csp-report", huge.to_string())
        .await
        .unwrap();
    assert_eq!(answer.status(), 413);
    let answer = post("application/csp-report", "{not json".to_owned())
        .await
        .unwrap();
    assert_eq!(answer.status(), 400);
    // Five counted against the client by now: the sixth is its last.
    let answer = post("application/csp-report", level2.to_string())
        .await
        .unwrap();
    assert_eq!(answer.status(), 204);
    let answer = post("application/csp-report", level2.to_string())
        .await
        .unwrap();
    assert_eq!(answer.status(), 429);
    assert!(
        common::header(&answer, "retry-after")
            .parse::<u64>()
            .unwrap()
            >= 1
    );
    server.stop().await;
}

/// React's server render of the first screens (home, a product, a collection) carries no style
/// attribute, so the CSP needs no 'unsafe-inline' for styles.
#[tokio::test]
async fn the_server_rendered_first_screens_carry_no_style_attribute() {
    let app = start_with_web_build(test_config(), &[]);
    for path in ["/", "/product/summit%20lr", "/collection/rifles"] {
        let answer = app.get(path).await;
        assert_eq!(answer.status, 200, "{path}");
        let html = answer.text();
        assert!(html.contains(r#"<div id="root">"#), "{path}");
        let root = &html[html.find(r#"<div id="root">"#).unwrap()..];
        assert!(root.len() > 500, "{path}: a first screen was rendered");
        let styled: Vec<&str> = html
            .match_indices("style=")
            .map(|(at, _)| html[at.saturating_sub(60)..].get(..120).unwrap_or_default())
            .collect();
        assert!(styled.is_empty(), "{path}: {styled:?}");
        assert!(!html.contains("<style"), "{path}: no style element");
    }
}
