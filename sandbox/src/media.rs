//! Generated product and content images: every `/media/{name}.svg` is a labelled placeholder,
//! so the demo needs no binary assets and every image URL in the fixtures resolves.

use std::sync::Arc;

use axum::Router;
use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::SandboxState;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new().route("/media/{file}", get(media))
}

async fn media(Path(file): Path<String>) -> Response {
    let Some(name) = file.strip_suffix(".svg") else {
        return (StatusCode::NOT_FOUND, "only generated .svg media exist").into_response();
    };
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        placeholder_svg(name),
    )
        .into_response()
}

/// A 16:9 placeholder whose colour is derived from the name, so neighbouring images differ.
fn placeholder_svg(name: &str) -> String {
    let hue = name.bytes().fold(7u32, |acc, b| {
        acc.wrapping_mul(31).wrapping_add(u32::from(b))
    }) % 360;
    let label: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect();
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="900" viewBox="0 0 1600 900" role="img"><rect width="1600" height="900" fill="hsl({hue},28%,30%)"/><text x="800" y="470" font-family="sans-serif" font-size="72" fill="#f4f1ea" text-anchor="middle">{label}</text></svg>"##
    )
}

#[cfg(test)]
mod tests {
    use super::placeholder_svg;

    #[test]
    fn placeholder_escapes_markup_in_names() {
        let svg = placeholder_svg("<script>");
        assert!(!svg.contains("<script>"));
        assert!(svg.starts_with("<svg"));
    }
}
