//! Stand-ins for the embedded third parties without server state: the reviews widget script
//! and the page that takes the place of the 3D experience.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use super::script_response;
use crate::SandboxState;

const REVIEWS_SCRIPT: &str = include_str!("../../assets/3p/reviews.js");
const BUILDER_PAGE: &str = include_str!("../../assets/3p/builder.html");

/// `GET /3p/reviews/widget.js`
pub async fn reviews_script(State(state): State<Arc<SandboxState>>) -> Response {
    script_response(REVIEWS_SCRIPT, state.public_url())
}

/// `GET /3p/builder/index.html`: framed by the storefront, so no `frame-ancestors` here. The
/// storefront's origin is the page's fallback for where to post bridge messages when the
/// browser sends no referrer.
pub async fn builder_page(State(state): State<Arc<SandboxState>>) -> Response {
    let page = BUILDER_PAGE.replace(
        "\"__STOREFRONT_ORIGIN__\"",
        &super::js_string(state.storefront_url()),
    );
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        page,
    )
        .into_response()
}
