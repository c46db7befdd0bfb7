//! Secrets that ride in configuration values: a URL's user and password
//! (`redis://user:pass@host`), and query parameters named like credentials (`?key=…`,
//! `?access_token=…`). Secrets proper live in [`super::secrets`], never in [`super::Config`];
//! these are what an operator may still have written into a URL. Whatever shows or hashes the
//! configuration (`GET /admin/config`, the fingerprint in `bff_config_info`) goes through here.

use serde_json::Value;
use url::Url;

/// What stands in for a redacted part.
pub const REDACTED: &str = "redacted";

/// Parts of a query parameter's name that make it a credential (compared in lower case).
const SECRET_PARAMETER_PARTS: [&str; 7] = [
    "key",
    "token",
    "secret",
    "pass",
    "sig",
    "auth",
    "credential",
];

/// `text` with its URL's credentials replaced by [`REDACTED`]; unchanged when it is not a URL
/// or carries none.
pub fn redact_text(text: &str) -> String {
    let Ok(mut url) = Url::parse(text) else {
        return text.to_owned();
    };
    if url.cannot_be_a_base() {
        return text.to_owned();
    }
    let mut changed = false;
    if !url.username().is_empty() {
        changed |= url.set_username(REDACTED).is_ok();
    }
    if url.password().is_some() {
        changed |= url.set_password(Some(REDACTED)).is_ok();
    }
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(name, value)| (name.into_owned(), value.into_owned()))
        .collect();
    if pairs.iter().any(|(name, value)| is_secret(name, value)) {
        let mut query = url.query_pairs_mut();
        query.clear();
        for (name, value) in &pairs {
            let shown = if is_secret(name, value) {
                REDACTED
            } else {
                value
            };
            query.append_pair(name, shown);
        }
        drop(query);
        changed = true;
    }
    if changed {
        url.to_string()
    } else {
        text.to_owned()
    }
}

/// A credential-named parameter with a value; a `{key}` placeholder (filled in per request from
/// a secret) is not one.
fn is_secret(name: &str, value: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let placeholder = value.starts_with('{') && value.ends_with('}');
    !value.is_empty()
        && !placeholder
        && SECRET_PARAMETER_PARTS
            .iter()
            .any(|part| name.contains(part))
}

/// Every string in `value` through [`redact_text`].
pub fn redact_json(value: &mut Value) {
    match value {
        Value::String(text) => {
            let redacted = redact_text(text);
            if redacted != *text {
                *text = redacted;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_json),
        Value::Object(fields) => fields.values_mut().for_each(redact_json),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_in_urls_are_redacted_and_nothing_else_changes() {
        assert_eq!(
            redact_text("redis://app:s3cret@redis:6379/0"),
            "redis://redacted:redacted@redis:6379/0"
        );
        assert_eq!(
            redact_text("rediss://:s3cret@redis:6380"),
            "rediss://:redacted@redis:6380"
        );
        assert_eq!(
            redact_text("https://tiles.example/{z}/{x}/{y}.png?access_token=abc&style=dark"),
            "https://tiles.example/%7Bz%7D/%7Bx%7D/%7By%7D.png?access_token=redacted&style=dark"
        );
        for untouched in [
            "https://tiles.example/{z}/{x}/{y}.png?key={key}",
            "${sandbox}/strapi/",
            "http://commerce:8080/",
            "info,bff=debug",
            "",
        ] {
            assert_eq!(redact_text(untouched), untouched);
        }
    }

    #[test]
    fn every_string_of_a_document_is_redacted() {
        let mut document = serde_json::json!({
            "redis": {"url": "redis://u:p@h:1", "nodes": ["redis://:p@n:2"]},
            "cache": {"capacity_bytes": 1}
        });
        redact_json(&mut document);
        assert_eq!(document["redis"]["url"], "redis://redacted:redacted@h:1");
        assert_eq!(document["redis"]["nodes"][0], "redis://:redacted@n:2");
        assert_eq!(document["cache"]["capacity_bytes"], 1);
    }
}
