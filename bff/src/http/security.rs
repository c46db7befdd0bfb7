//! Security headers on every response, and the https redirect behind a TLS-terminating proxy.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use url::Url;

use crate::config::{Config, resolve_sandbox};

/// The policy of answers that are data, not documents (JSON, problem details): nothing may load
/// from them and nothing may frame them, the policy OWASP recommends for APIs (and the one
/// GitHub's API sends). The document policy, with its script, image and frame origins, only
/// means something to an HTML page.
pub const DATA_CSP: HeaderValue =
    HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'");

/// Where browsers send CSP violation reports ([`crate::routes::csp_reports`]).
pub const CSP_REPORTS_PATH: &str = "/api/csp-reports";

/// The one page that runs WebAssembly (the 3D builder): only its document's CSP allows
/// compiling it. A CSP belongs to the document, so the app reaches this page by loading a new
/// document, never by an in-app navigation that would keep the old policy.
pub const BUILDER_PATH: &str = "/3dbuilder";

/// `Reporting-Endpoints`: the `csp` endpoint of the document CSP's `report-to`.
const REPORTING_ENDPOINTS: &str = "csp=\"/api/csp-reports\"";

/// Precomputed once at start-up: the CSP depends on configuration only.
#[derive(Debug, Clone)]
pub struct SecurityHeaders {
    /// The document CSP, for everything that is not JSON.
    document_csp: HeaderValue,
    /// The same with `'wasm-unsafe-eval'`, for the builder's document only.
    builder_csp: HeaderValue,
    /// Every other security header, for every answer.
    headers: Vec<(HeaderName, HeaderValue)>,
    redirect_https: bool,
    public_origin: Url,
}

impl SecurityHeaders {
    pub fn new(config: &Config, sandbox_origin: Option<&str>) -> Self {
        let mut headers = vec![
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
            // The endpoint the document CSP's `report-to` names (the Reporting API).
            (
                HeaderName::from_static("reporting-endpoints"),
                HeaderValue::from_static(REPORTING_ENDPOINTS),
            ),
        ];
        if config.is_secure()
            && let Ok(value) = HeaderValue::from_str(&format!(
                "max-age={}; includeSubDomains",
                config.security.hsts_max_age.as_secs()
            ))
        {
            headers.push((header::STRICT_TRANSPORT_SECURITY, value));
        }
        Self {
            document_csp: content_security_policy(config, sandbox_origin, Wasm::Refused),
            builder_csp: content_security_policy(config, sandbox_origin, Wasm::Compiled),
            headers,
            redirect_https: config.server.redirect_https,
            public_origin: config.server.public_origin.clone(),
        }
    }

    /// A `308` to the https origin when the proxy says the client came over plain http.
    /// Adds every security header the answer to `path` does not set itself; the CSP is the
    /// data policy for a JSON answer, the builder's for its page, the document policy for
    /// anything else.
    pub fn apply_to(&self, headers: &mut HeaderMap, path: &str) {
        let csp = if is_json(headers) {
            DATA_CSP
        } else if path == BUILDER_PATH {
            self.builder_csp.clone()
        } else {
            self.document_csp.clone()
        };
        headers
            .entry(header::CONTENT_SECURITY_POLICY)
            .or_insert(csp);
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

/// `application/json` or a `+json` type such as `application/problem+json`.
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| {
            let essence = essence.trim();
            essence.eq_ignore_ascii_case("application/json")
                || essence
                    .get(essence.len().saturating_sub("+json".len())..)
                    .is_some_and(|tail| tail.eq_ignore_ascii_case("+json"))
        })
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

/// Whether a document may compile WebAssembly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wasm {
    Refused,
    Compiled,
}

fn content_security_policy(
    config: &Config,
    sandbox_origin: Option<&str>,
    wasm: Wasm,
) -> HeaderValue {
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
    // the 3D experience runs in the page (its build from this origin's /Build/), never framed
    let frames = resolve(&config.security.csp_frame_src);
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
    // 'wasm-unsafe-eval', on the builder's document only: the 3D build compiles its WebAssembly
    // (and it allows nothing else: no 'unsafe-eval', so no eval() or new Function()). Trusted
    // Types (`require-trusted-types-for 'script'`) are not required: our four loaders (captcha,
    // reviews, card tokenizer, 3D build) could take a policy, but the code they load is not
    // ours and writes to the same sinks with strings (the 3D build's loader sets `script.src`
    // for its framework; the widgets build their own elements). Enforced, that breaks checkout
    // and the builder in production; a `default` policy that accepts any string would keep
    // them working and protect nothing.
    // Styles: the app's stylesheets only, no
    // 'unsafe-inline' (no inline style attribute or element is left in the web app or the server
    // render; scripts setting `element.style` are CSSOM, which CSP does not govern). Violations
    // are reported (report-uri for older browsers, report-to for the Reporting API).
    let policy = format!(
        "default-src 'self'; script-src {}{}; style-src 'self'; img-src {} data: blob:; \
         font-src 'self' data:; connect-src {}; frame-src {}; object-src 'none'; base-uri 'self'; \
         form-action 'self'; frame-ancestors 'none'; report-uri {CSP_REPORTS_PATH}; report-to csp",
        list(scripts),
        if wasm == Wasm::Compiled {
            " 'wasm-unsafe-eval'"
        } else {
            ""
        },
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
    let path = request.uri().path().to_owned();
    let mut response = next.run(request).await;
    security.apply_to(response.headers_mut(), &path);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csp_allows_configured_third_party_origins() {
        let mut config = Config::default();
        config.public.captcha.script_url = "https://captcha.example/api.js?render=explicit".into();
        config.security.csp_frame_src = vec!["https://frames.example".into()];
        let csp = content_security_policy(&config, Some("http://127.0.0.1:8081"), Wasm::Compiled);
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
        assert!(scripts.ends_with(" 'wasm-unsafe-eval'"), "{csp}");
        assert!(!csp.contains("'unsafe-eval'"), "nothing wider: {csp}");
        assert_eq!(
            directive("frame-src"),
            "frame-src 'self' https://frames.example",
            "the 3D experience is not framed"
        );
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    }

    #[test]
    fn json_answers_are_data_and_everything_else_a_document() {
        let security = SecurityHeaders::new(&Config::default(), None);
        let csp_for = |content_type: Option<&'static str>| {
            let mut headers = HeaderMap::new();
            if let Some(content_type) = content_type {
                headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
            }
            security.apply_to(&mut headers, "/");
            headers[header::CONTENT_SECURITY_POLICY].clone()
        };
        for data in [
            "application/json",
            "application/problem+json",
            "Application/JSON; charset=utf-8",
        ] {
            assert_eq!(csp_for(Some(data)), DATA_CSP, "{data}");
        }
        for document in [
            Some("text/html; charset=utf-8"),
            Some("image/svg+xml"),
            Some("text/javascript"),
            Some("application/x+jsonp"),
            None,
        ] {
            assert_eq!(csp_for(document), security.document_csp, "{document:?}");
        }
    }

    /// Issue 46, finding 5: `'wasm-unsafe-eval'` was on every document; only the builder
    /// compiles WebAssembly.
    #[test]
    fn wasm_unsafe_eval_is_in_the_builders_csp_only() {
        let security = SecurityHeaders::new(&Config::default(), None);
        let csp_of = |path: &str, content_type: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
            security.apply_to(&mut headers, path);
            headers[header::CONTENT_SECURITY_POLICY]
                .to_str()
                .unwrap_or_default()
                .to_owned()
        };
        let html = "text/html; charset=utf-8";
        for path in [
            "/",
            "/product/summit-lr",
            "/3dbuilder/x",
            "/search/3dbuilder",
        ] {
            assert!(!csp_of(path, html).contains("wasm"), "{path}");
        }
        assert_eq!(
            csp_of(BUILDER_PATH, "application/json"),
            DATA_CSP.to_str().unwrap_or_default()
        );
        let builder = csp_of(BUILDER_PATH, html);
        assert!(builder.contains("'self' 'wasm-unsafe-eval';"), "{builder}");
        assert!(!builder.contains("'unsafe-eval'"), "{builder}");
    }

    #[test]
    fn unresolved_sandbox_origins_are_dropped() {
        let config = Config::default();
        let csp = content_security_policy(&config, None, Wasm::Refused);
        assert!(!csp.to_str().unwrap_or_default().contains("${"));
    }
}
