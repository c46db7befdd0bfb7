//! Content pages, Strapi-shaped: `GET /strapi/page/{name}` answers `{"data": {...}}`.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use crate::SandboxState;

/// Page fixtures, embedded so the binary runs from anywhere. `{{media}}` stands for the
/// sandbox's public origin, filled in per request.
const PAGES: &[(&str, &str)] = &[
    ("app", include_str!("../../fixtures/pages/app.json")),
    ("footer", include_str!("../../fixtures/pages/footer.json")),
    ("home", include_str!("../../fixtures/pages/home.json")),
];

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new().route("/strapi/page/{name}", get(page))
}

async fn page(State(state): State<Arc<SandboxState>>, Path(name): Path<String>) -> Response {
    let Some((_, raw)) = PAGES.iter().find(|(page, _)| *page == name) else {
        return not_found(&name);
    };
    let filled = raw.replace("{{media}}", state.public_url());
    match serde_json::from_str::<Value>(&filled) {
        Ok(body) => Json(body).into_response(),
        Err(err) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({"data": null, "error": {"status": 500, "name": "InternalServerError", "message": err.to_string()}})),
        )
            .into_response(),
    }
}

/// Strapi's not-found shape.
fn not_found(name: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({
            "data": null,
            "error": {"status": 404, "name": "NotFoundError", "message": format!("page '{name}' not found")}
        })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::PAGES;

    #[test]
    fn every_fixture_is_json_with_a_data_object() {
        for (name, raw) in PAGES {
            let value: serde_json::Value = serde_json::from_str(raw)
                .unwrap_or_else(|err| panic!("fixture {name} is not JSON: {err}"));
            assert!(
                value["data"].is_object(),
                "fixture {name} lacks a data object"
            );
        }
    }
}
