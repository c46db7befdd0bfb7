//! Doubles of the third parties the browser talks to: the card tokenizer (Accept.js API), the
//! captcha widget (reCAPTCHA v2 API), the identity-verification service, an e-mail outbox, map
//! tiles, a reviews widget and a stand-in for the embedded 3D experience.
//!
//! Storage-level functions (`captcha`, `payment`, `outbox`, `idv`) are what the commerce API
//! calls; the rest is the browser-facing HTTP surface, documented in `README-thirdparty.md`.

mod accept;
pub mod captcha;
pub mod card;
mod embeds;
mod html;
pub mod idv;
pub mod outbox;
pub mod payment;
mod recaptcha;
mod tiles;

use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use crate::SandboxState;

pub use accept::{API_LOGIN_ID, CLIENT_KEY};

/// The doubles' browser-facing routes, under `/3p/`.
pub fn routes() -> Router<Arc<SandboxState>> {
    // Loaded or called by scripts running on the storefront's origin: open to any origin (nothing
    // here is credentialed), preflights answered.
    let cross_origin = Router::new()
        .route("/accept/Accept.js", get(accept::script))
        .route("/accept/v1/tokens", post(accept::tokenize))
        .route("/recaptcha/api.js", get(recaptcha::script))
        .route("/recaptcha/api/token", post(recaptcha::token))
        .route("/recaptcha/api/siteverify", post(recaptcha::siteverify))
        .route("/tiles/{z}/{x}/{file}", get(tiles::tile))
        .route("/reviews/widget.js", get(embeds::reviews_script))
        .layer(middleware::from_fn(allow_any_origin));
    // The sandbox's own origin only: top-level pages, and the outbox's JSON (every e-mail the
    // sandbox sent, verification and reset links included: no other origin's script may read
    // it; tests and tools read it directly, where CORS does not apply).
    let pages = Router::new()
        .route("/idv/authorize", get(idv::authorize_page).post(idv::decide))
        .route("/outbox", get(outbox::page))
        .route("/outbox.json", get(outbox::list_json))
        .route("/builder/index.html", get(embeds::builder_page));
    cross_origin.merge(pages)
}

/// CORS for the cross-origin routes: `*` on every answer, and preflights answered here.
async fn allow_any_origin(request: Request, next: Next) -> Response {
    if request.method() == Method::OPTIONS {
        let requested_headers = request
            .headers()
            .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
            .cloned()
            .unwrap_or(HeaderValue::from_static("content-type"));
        return (
            StatusCode::NO_CONTENT,
            [
                (
                    header::ACCESS_CONTROL_ALLOW_ORIGIN,
                    HeaderValue::from_static("*"),
                ),
                (
                    header::ACCESS_CONTROL_ALLOW_METHODS,
                    HeaderValue::from_static("GET, POST, OPTIONS"),
                ),
                (header::ACCESS_CONTROL_ALLOW_HEADERS, requested_headers),
                (
                    header::ACCESS_CONTROL_MAX_AGE,
                    HeaderValue::from_static("600"),
                ),
            ],
        )
            .into_response();
    }
    let mut response = next.run(request).await;
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

/// A browser script. Scripts find the sandbox's origin from their own `src`; the configured
/// public URL replaces the `"__SANDBOX_ORIGIN__"` placeholder as a fallback.
fn script_response(source: &str, public_url: &str) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/javascript; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        source.replace("\"__SANDBOX_ORIGIN__\"", &js_string(public_url)),
    )
        .into_response()
}

/// `value` as a JavaScript string literal that is also safe inside an inline `<script>`.
fn js_string(value: &str) -> String {
    serde_json::Value::from(value)
        .to_string()
        .replace('<', "\\u003c")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::js_string;

    #[test]
    fn js_strings_cannot_close_a_script_element() {
        assert_eq!(js_string("a\"</script>"), r#""a\"\u003c/script>""#);
    }
}
