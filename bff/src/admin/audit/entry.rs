//! One audit record: who did what, with which arguments, with what result, when.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::observe::shopper_text;

/// An admin action as the audit log keeps it (JSON, camelCase).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    /// When the answer was given, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// The token's name (`admin` for `BFF_ADMIN_TOKEN`), or `content-webhook`.
    pub actor: String,
    /// The replica that served it (see [`crate::coordination::replica_identity`]).
    pub replica: String,
    pub method: String,
    /// The route template (`/admin/cache/purge`), never a path with its values.
    pub route: String,
    /// `{"query": {...}, "body": ...}`, each present when the request had one, shopper-typed
    /// text replaced by its hash (see [`redact_arguments`]).
    pub arguments: Value,
    pub status: u16,
    /// A summary of the answer: its top-level scalar members (a purge's `id` and counts, a
    /// problem's `code` and `detail`).
    pub result: Value,
}

/// The longest string a summary keeps (a problem's detail fits).
const MAX_SUMMARY_STRING: usize = 300;
/// The most members a summary keeps.
const MAX_SUMMARY_MEMBERS: usize = 16;

/// `arguments` as recorded: a string under `q` becomes its term's hash, any other string goes
/// through [`shopper_text::redact`] (a `url` with a search term, a search cache key).
pub fn redact_arguments(arguments: Value) -> Value {
    redact_value(None, arguments)
}

fn redact_value(name: Option<&str>, value: Value) -> Value {
    match value {
        Value::String(text) if name == Some("q") => Value::String(shopper_text::term_hash(&text)),
        Value::String(text) => match shopper_text::redact(&text) {
            std::borrow::Cow::Borrowed(_) => Value::String(text),
            std::borrow::Cow::Owned(redacted) => Value::String(redacted),
        },
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| redact_value(name, item))
                .collect(),
        ),
        Value::Object(members) => Value::Object(
            members
                .into_iter()
                .map(|(key, value)| {
                    let value = redact_value(Some(&key), value);
                    (key, value)
                })
                .collect(),
        ),
        other => other,
    }
}

/// A query string as an object of its parameters (a repeated one as an array), redacted.
pub fn query_arguments(query: &str) -> Value {
    let mut members = Map::new();
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        let value = Value::String(value.into_owned());
        match members.get_mut(name.as_ref()) {
            Some(Value::Array(values)) => values.push(value),
            Some(first) => *first = Value::Array(vec![first.take(), value]),
            None => {
                members.insert(name.into_owned(), value);
            }
        }
    }
    redact_arguments(Value::Object(members))
}

/// The most bytes a request's arguments take in a record as they were sent; larger ones (a
/// CMS's whole entry in its webhook) are kept as their top-level scalars.
const MAX_ARGUMENT_BYTES: usize = 4_096;

/// A request body's arguments as recorded: redacted, and cut down to its top-level scalars
/// (with `"truncated": true`) when larger than 4 KiB.
pub fn body_arguments(body: Value) -> Value {
    let redacted = redact_arguments(body);
    if redacted.to_string().len() <= MAX_ARGUMENT_BYTES {
        return redacted;
    }
    let mut scalars = scalars(redacted);
    if let Value::Object(members) = &mut scalars {
        members.insert("truncated".to_owned(), Value::Bool(true));
    }
    scalars
}

/// The answer's top-level scalars (strings shortened), or `{}` for an answer that is not a
/// JSON object.
pub fn summarise(body: &[u8]) -> Value {
    serde_json::from_slice::<Value>(body).map_or_else(|_| Value::Object(Map::new()), scalars)
}

/// An object's top-level scalars (strings redacted and shortened); `{}` for anything else.
fn scalars(value: Value) -> Value {
    let Value::Object(members) = value else {
        return Value::Object(Map::new());
    };
    let summary = members
        .into_iter()
        .filter_map(|(key, value)| match value {
            Value::String(text) => {
                let text = shopper_text::redact(&text).into_owned();
                let cut = (0..=MAX_SUMMARY_STRING.min(text.len()))
                    .rev()
                    .find(|at| text.is_char_boundary(*at))
                    .unwrap_or(0);
                Some((key, Value::String(text[..cut].to_owned())))
            }
            Value::Number(_) | Value::Bool(_) => Some((key, value)),
            _ => None,
        })
        .take(MAX_SUMMARY_MEMBERS)
        .collect();
    Value::Object(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn search_terms_in_arguments_are_hashed_and_the_rest_kept() {
        let hash = shopper_text::term_hash("red boots");
        assert_eq!(
            redact_arguments(json!({
                "url": "/search/red%20boots",
                "q": "Red Boots",
                "keys": ["search:red boots", "product:summit lr"],
                "tags": ["page:home"],
                "all": false,
            })),
            json!({
                "url": format!("/search/{hash}"),
                "q": hash,
                "keys": [format!("search:{hash}"), "product:summit lr"],
                "tags": ["page:home"],
                "all": false,
            })
        );
        assert_eq!(
            query_arguments("url=%2Fapi%2Fsearch%3Fq%3Dred%2Bboots&limit=5&tag=a&tag=b"),
            json!({"url": format!("/api/search?q={hash}"), "limit": "5", "tag": ["a", "b"]})
        );
    }

    #[test]
    fn a_summary_keeps_the_answer_s_scalars() {
        let body = br#"{"id": "p-1", "purged": 3, "replicas": [{"id": "a"}], "detail": "ok"}"#;
        assert_eq!(
            summarise(body),
            json!({"id": "p-1", "purged": 3, "detail": "ok"})
        );
        assert_eq!(summarise(b"not json"), json!({}));
        let large =
            json!({"event": "entry.update", "model": "page", "entry": {"body": "x".repeat(5_000)}});
        assert_eq!(
            body_arguments(large),
            json!({"event": "entry.update", "model": "page", "truncated": true})
        );
    }
}
