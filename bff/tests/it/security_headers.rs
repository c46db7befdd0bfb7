#![allow(clippy::unwrap_used)]

use crate::common;

use common::in_process::{SANDBOX_ORIGIN, start, start_with_secrets};
use common::test_config;

#[tokio::test]
async fn pages_and_api_answers_carry_the_security_headers() {
    let app = start();
    for path in ["/", "/product/anything", "/api/pages/home", "/api/nope"] {
        let response = app.get(path).await;
        let csp = response.header("content-security-policy");
        if path.starts_with("/api/") {
            // Data, not a document: nothing may load from it or frame it.
            assert_eq!(csp, "default-src 'none'; frame-ancestors 'none'", "{path}");
        } else {
            assert!(csp.contains("default-src 'self'"), "{path}: {csp}");
            assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
            assert!(csp.contains("object-src 'none'"), "{path}: {csp}");
            // The captcha and payment doubles are scripts from the sandbox's origin.
            assert!(
                csp.contains(&format!("script-src 'self' {SANDBOX_ORIGIN}")),
                "{path}: {csp}"
            );
        }
        assert_eq!(
            response.header("x-content-type-options"),
            "nosniff",
            "{path}"
        );
        assert_eq!(
            response.header("referrer-policy"),
            "strict-origin-when-cross-origin",
            "{path}"
        );
        assert_eq!(response.header("x-frame-options"), "DENY", "{path}");
        // Plain-http development origin: no HSTS.
        assert_eq!(response.header("strict-transport-security"), "", "{path}");
    }
}

#[tokio::test]
async fn hsts_is_sent_when_the_public_origin_is_https() {
    let mut config = test_config();
    config.server.public_origin = "https://shop.example".parse().unwrap();
    let app = start_with_secrets(config, &[]);
    let response = app.get("/").await;
    assert_eq!(
        response.header("strict-transport-security"),
        "max-age=63072000; includeSubDomains"
    );
}

#[tokio::test]
async fn plain_http_behind_a_proxy_is_redirected_to_the_public_https_origin() {
    let mut config = test_config();
    config.server.public_origin = "https://shop.example".parse().unwrap();
    config.server.redirect_https = true;
    let app = start_with_secrets(config, &[]);
    let response = app
        .get_with(
            "/collection/rifles?activeFilter=bolt",
            &[("x-forwarded-proto", "http"), ("host", "evil.example")],
        )
        .await;
    assert_eq!(response.status, 308);
    assert_eq!(
        response.header("location"),
        "https://shop.example/collection/rifles?activeFilter=bolt"
    );

    let already_https = app.get_with("/", &[("x-forwarded-proto", "https")]).await;
    assert_eq!(already_https.status, 200);
}

#[tokio::test]
async fn no_redirect_when_redirect_https_is_off() {
    let app = start();
    let response = app.get_with("/", &[("x-forwarded-proto", "http")]).await;
    assert_eq!(response.status, 200);
}
