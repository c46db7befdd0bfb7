#![allow(clippy::unwrap_used)]

mod common;

use common::{header, start, start_with, test_config};

#[tokio::test]
async fn pages_and_api_answers_carry_the_security_headers() {
    let server = start().await;
    for path in ["/", "/product/anything", "/api/pages/home", "/api/nope"] {
        let response = server.get(path).await;
        let csp = header(&response, "content-security-policy");
        assert!(csp.contains("default-src 'self'"), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(csp.contains("object-src 'none'"), "{path}: {csp}");
        // The captcha and payment doubles are scripts from the sandbox's origin.
        assert!(
            csp.contains(&format!("script-src 'self' {}", server.sandbox)),
            "{path}: {csp}"
        );
        assert_eq!(
            header(&response, "x-content-type-options"),
            "nosniff",
            "{path}"
        );
        assert_eq!(
            header(&response, "referrer-policy"),
            "strict-origin-when-cross-origin",
            "{path}"
        );
        assert_eq!(header(&response, "x-frame-options"), "DENY", "{path}");
        // Plain-http development origin: no HSTS.
        assert_eq!(header(&response, "strict-transport-security"), "", "{path}");
    }
    server.stop().await;
}

#[tokio::test]
async fn hsts_is_sent_when_the_public_origin_is_https() {
    let mut config = test_config();
    config.server.public_origin = "https://shop.example".parse().unwrap();
    let server = start_with(config, &[]).await;
    let response = server.get("/").await;
    assert_eq!(
        header(&response, "strict-transport-security"),
        "max-age=63072000; includeSubDomains"
    );
    server.stop().await;
}

#[tokio::test]
async fn plain_http_behind_a_proxy_is_redirected_to_the_public_https_origin() {
    let mut config = test_config();
    config.server.public_origin = "https://shop.example".parse().unwrap();
    config.server.redirect_https = true;
    let server = start_with(config, &[]).await;
    let response = server
        .client
        .get(server.url("/collection/rifles?activeFilter=bolt"))
        .header("x-forwarded-proto", "http")
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 308);
    assert_eq!(
        header(&response, "location"),
        "https://shop.example/collection/rifles?activeFilter=bolt"
    );

    let already_https = server
        .client
        .get(server.url("/"))
        .header("x-forwarded-proto", "https")
        .send()
        .await
        .unwrap();
    assert_eq!(already_https.status(), 200);
    server.stop().await;
}

#[tokio::test]
async fn no_redirect_when_redirect_https_is_off() {
    let server = start().await;
    let response = server
        .client
        .get(server.url("/"))
        .header("x-forwarded-proto", "http")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    server.stop().await;
}
