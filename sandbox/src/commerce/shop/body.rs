//! Request-body helpers that answer in the sandbox's one error shape.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer};

use crate::error::SandboxError;

/// A JSON body. Unlike `axum::Json`, a malformed body is a 400 `{message}`, and an empty body
/// reads as `{}` (clients send `POST /Cart/merge?guestId=` with or without one).
#[derive(Debug)]
pub struct Body<T>(pub T);

impl<S, T> FromRequest<S> for Body<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = SandboxError;

    async fn from_request(request: Request, state: &S) -> Result<Self, SandboxError> {
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|err| SandboxError::BadRequest(err.body_text()))?;
        let text: &[u8] = if bytes.iter().all(u8::is_ascii_whitespace) {
            b"{}"
        } else {
            &bytes
        };
        serde_json::from_slice(text)
            .map(Body)
            .map_err(|err| SandboxError::BadRequest(format!("Invalid request body: {err}")))
    }
}

/// An id that clients send as a number or as a numeric string (form selects hold strings).
/// `null`, a missing field, an empty string or a non-number read as `None`.
pub fn loose_id<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(deserializer)?;
    Ok(match value {
        Some(serde_json::Value::Number(number)) => number.as_i64(),
        Some(serde_json::Value::String(text)) => text.trim().parse().ok(),
        _ => None,
    })
}

/// A non-empty, trimmed text field.
pub fn present(field: &Option<String>) -> Option<&str> {
    field
        .as_deref()
        .map(str::trim)
        .filter(|text| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Payload {
        #[serde(default, deserialize_with = "loose_id")]
        id: Option<i64>,
    }

    fn id(json: &str) -> Option<i64> {
        serde_json::from_str::<Payload>(json)
            .ok()
            .and_then(|payload| payload.id)
    }

    #[test]
    fn ids_read_from_numbers_and_numeric_strings() {
        assert_eq!(id(r#"{"id": 3}"#), Some(3));
        assert_eq!(id(r#"{"id": " 3 "}"#), Some(3));
        assert_eq!(id(r#"{"id": ""}"#), None);
        assert_eq!(id(r#"{"id": null}"#), None);
        assert_eq!(id("{}"), None);
    }

    #[test]
    fn present_trims_and_drops_blank_text() {
        assert_eq!(present(&Some("  x ".to_owned())), Some("x"));
        assert_eq!(present(&Some("   ".to_owned())), None);
        assert_eq!(present(&None), None);
    }
}
