//! Strapi's wire conventions: bodies with absolute media URLs, and the `{"data": null, "error"}`
//! envelope of its errors.

use axum::Json;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Value, json};

/// Fixtures write media URLs as `{{media}}/media/...`: a real CMS answers absolute upload URLs,
/// and the sandbox's origin is only known at start.
pub const MEDIA_PLACEHOLDER: &str = "{{media}}";

/// `{"data": ...}`, Strapi's success envelope.
#[derive(Debug, Serialize)]
pub struct Data<'a, T: Serialize> {
    pub data: &'a T,
}

/// Serialises `body` with every media placeholder replaced by `public_url`.
pub fn json_with_media(public_url: &str, body: &impl Serialize) -> Response {
    match serde_json::to_string(body) {
        Ok(text) => (
            [(header::CONTENT_TYPE, "application/json")],
            fill_media(&text, public_url),
        )
            .into_response(),
        Err(err) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("cannot serialise the response: {err}"),
        ),
    }
}

/// Replaces the media placeholder in serialised JSON. The origin is JSON-escaped first, so any
/// configured origin keeps the document valid.
pub fn fill_media(json_text: &str, public_url: &str) -> String {
    let escaped = serde_json::to_string(public_url).unwrap_or_default();
    let escaped = escaped
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or_default();
    json_text.replace(MEDIA_PLACEHOLDER, escaped)
}

/// A content value with its media placeholders filled, for other areas of the sandbox that embed
/// catalogue content in their own answers (a promotion's product groups, say).
pub fn with_media(value: &Value, public_url: &str) -> Value {
    serde_json::from_str(&fill_media(&value.to_string(), public_url)).unwrap_or(Value::Null)
}

/// Strapi's error envelope: `{"data": null, "error": {status, name, message, details}}`.
pub fn error(status: StatusCode, message: &str) -> Response {
    let name = match status {
        StatusCode::NOT_FOUND => "NotFoundError",
        StatusCode::BAD_REQUEST => "ValidationError",
        _ => "InternalServerError",
    };
    (
        status,
        Json(json!({
            "data": null,
            "error": {"status": status.as_u16(), "name": name, "message": message, "details": {}}
        })),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_every_placeholder_and_escapes_the_origin() {
        let text = r#"{"a":"{{media}}/media/x.svg","b":["{{media}}/media/y.pdf"]}"#;
        assert_eq!(
            fill_media(text, "http://127.0.0.1:8081"),
            r#"{"a":"http://127.0.0.1:8081/media/x.svg","b":["http://127.0.0.1:8081/media/y.pdf"]}"#
        );
        let odd: Value = serde_json::from_str(&fill_media(text, "http://x\"y")).unwrap();
        assert_eq!(odd["a"], "http://x\"y/media/x.svg");
    }

    #[test]
    fn with_media_fills_nested_values() {
        let value = json!({"image": {"src": "{{media}}/media/a.svg"}});
        assert_eq!(
            with_media(&value, "http://h")["image"]["src"],
            "http://h/media/a.svg"
        );
    }
}
