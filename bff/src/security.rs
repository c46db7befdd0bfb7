//! Security headers on every response, and the https redirect behind a TLS-terminating proxy.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use url::Url;

use crate::config::{Config, resolve_sandbox};

/// Precomputed once at start-up: the CSP depends on configuration only.
#[derive(Debug, Clone)]
pub struct SecurityHeaders {
    headers: Vec<(HeaderName, HeaderValue)>,
    redirect_https: bool,
    public_origin: Url,
}

impl SecurityHeaders {
    pub fn new(config: &Config, sandbox_origin: Option<&str>) -> Self {
        let csp = content_security_policy(config, sandbox_origin);
        let mut headers = vec![
            (header::CONTENT_SECURITY_POLICY, csp),
            (
                header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ),
            (
                header::REFERRER_POLICY,
                HeaderValue::from_static("strict-origin-when-cross-origin"),
            ),
            // For browsers that predate `frame-ancestors`.
            (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
            (
                HeaderName::from_static("cross-origin-opener-policy"),
                HeaderValue::from_static("same-origin"),
            ),
            (
                HeaderName::from_static("permissions-policy"),
                HeaderValue::from_static("camera=(), microphone=(), geolocation=(self)"),
            ),
        ];
        if config.is_secure()
            && let Ok(value) = HeaderValue::from_str(&format!(
                "max-age={}; includeSubDomains",
                config.security.hsts_max_age_seconds
            ))
        {
            headers.push((header::STRICT_TRANSPORT_SECURITY, value));
        }
        Self {
            headers,
            redirect_https: config.server.redirect_https,
            public_origin: config.server.public_origin.clone(),
        }
    }

    /// A `308` to the https origin when the proxy says the client came over plain http.
    /// Adds every security header the answer does not set itself.
    pub fn apply_to(&self, headers: &mut HeaderMap) {
        for (name, value) in &self.headers {
            headers.entry(name.clone()).or_insert_with(|| value.clone());
        }
    }

    /// Whether `request` is answered with a redirect to https rather than served.
    pub fn redirects<B>(&self, request: &axum::http::Request<B>) -> bool {
        self.redirect_https && forwarded_plain_http(request.headers())
    }

    fn https_redirect(&self, request: &Request) -> Option<Response> {
        if !self.redirects(request) {
            return None;
        }
        // The host comes from configuration, never from the request's Host header, so a forged
        // Host cannot turn this into an open redirect.
        let host = self.public_origin.host_str()?;
        let port = self
            .public_origin
            .port()
            .filter(|port| *port != 80 && *port != 443)
            .map(|port| format!(":{port}"))
            .unwrap_or_default();
        let path = request
            .uri()
            .path_and_query()
            .map_or("/", |path| path.as_str());
        let location = HeaderValue::from_str(&format!("https://{host}{port}{path}")).ok()?;
        Some(
            (
                StatusCode::PERMANENT_REDIRECT,
                [(header::LOCATION, location)],
            )
                .into_response(),
        )
    }
}

/// A proxy in front says the shopper came over plain http.
fn forwarded_plain_http(headers: &HeaderMap) -> bool {
    headers
        .get("x-forwarded-proto")
        .and_then(|value| value.to_str().ok())
        .is_some_and(|proto| proto.trim().eq_ignore_ascii_case("http"))
}

fn origin_of(url: &str) -> Option<String> {
    let url = Url::parse(url).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| url.origin().ascii_serialization())
}

fn content_security_policy(config: &Config, sandbox_origin: Option<&str>) -> HeaderValue {
    let resolve = |values: &[String]| -> Vec<String> {
        values
            .iter()
            .map(|value| resolve_sandbox(value, sandbox_origin))
            .filter(|value| !value.contains("${"))
            .collect()
    };
    let public = &config.public;
    let mut scripts = resolve(&config.security.csp_script_src);
    scripts.extend(
        [
            &public.captcha.script_url,
            &public.payment.script_url,
            &public.reviews.script_url,
        ]
        .into_iter()
        .filter_map(|url| origin_of(&resolve_sandbox(url, sandbox_origin))),
    );
    // map tiles come from the BFF itself ('self'): the provider is never contacted by browsers
    let images = resolve(&config.security.csp_img_src);
    let mut frames = resolve(&config.security.csp_frame_src);
    frames.extend(origin_of(&resolve_sandbox(
        &public.builder.build_url,
        sandbox_origin,
    )));
    let connect = resolve(&config.security.csp_connect_src);
    let list = |extra: Vec<String>| {
        let mut all = vec!["'self'".to_owned()];
        for value in extra {
            if !all.contains(&value) {
                all.push(value);
            }
        }
        all.join(" ")
    };
    let policy = format!(
        "default-src 'self'; script-src {}; style-src 'self' 'unsafe-inline'; img-src {} data: blob:; \
         font-src 'self' data:; connect-src {}; frame-src {}; object-src 'none'; base-uri 'self'; \
         form-action 'self'; frame-ancestors 'none'",
        list(scripts),
        list(images),
        list(connect),
        list(frames),
    );
    HeaderValue::from_str(&policy).unwrap_or_else(|_| {
        tracing::error!("configured CSP origins are not valid header text; using 'self' only");
        HeaderValue::from_static("default-src 'self'; frame-ancestors 'none'")
    })
}

/// Middleware: https redirect first, then the headers on whatever the app answered.
pub async fn apply(
    State(security): State<Arc<SecurityHeaders>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(redirect) = security.https_redirect(&request) {
        return redirect;
    }
    let mut response = next.run(request).await;
    security.apply_to(response.headers_mut());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csp_allows_configured_third_party_origins() {
        let mut config = Config::default();
        config.public.captcha.script_url = "https://captcha.example/api.js?render=explicit".into();
        config.public.builder.build_url = "${sandbox}/builder/index.html".into();
        config.security.csp_frame_src = vec!["https://frames.example".into()];
        let csp = content_security_policy(&config, Some("http://127.0.0.1:8081"));
        let csp = csp.to_str().unwrap_or_default();
        let directive = |name: &str| {
            csp.split(';')
                .map(str::trim)
                .find(|part| part.starts_with(name))
                .unwrap_or_default()
                .to_owned()
        };
        let scripts = directive("script-src");
        assert!(scripts.contains("https://captcha.example"), "{csp}");
        assert!(!scripts.contains("api.js"), "origins only: {csp}");
        // The payment and reviews doubles default to the sandbox.
        assert!(scripts.contains("http://127.0.0.1:8081"), "{csp}");
        assert_eq!(
            directive("frame-src"),
            "frame-src 'self' https://frames.example http://127.0.0.1:8081"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    }

    #[test]
    fn unresolved_sandbox_origins_are_dropped() {
        let config = Config::default();
        let csp = content_security_policy(&config, None);
        assert!(!csp.to_str().unwrap_or_default().contains("${"));
    }
}
