//! The content service's publish webhook: which cache tags a changed entry affects.

use serde::Deserialize;

use crate::cache::CacheTag;

/// Strapi's webhook payload (v4 and v5): `event`, `model` and the `entry` that changed.
#[derive(Debug, Deserialize)]
pub struct Webhook {
    pub event: String,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub entry: WebhookEntry,
}

/// What the tags are read from; every other field of the entry is ignored.
#[derive(Debug, Default, Deserialize)]
pub struct WebhookEntry {
    #[serde(default)]
    name: Text,
    #[serde(default)]
    slug: Text,
    #[serde(default)]
    title: Text,
}

/// A string field, or nothing when the model's field is absent or not a string (an unknown
/// model's `name` may be anything).
#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
enum Text {
    Some(String),
    #[default]
    #[serde(skip)]
    None,
    Other(serde::de::IgnoredAny),
}

impl Text {
    fn normalised(&self) -> Option<String> {
        match self {
            Self::Some(text) => Some(crate::cache::normalise(text)),
            Self::None | Self::Other(_) => None,
        }
    }
}

/// The cache tags an entry of a content `model` affects; `None` when the model is unknown,
/// which the webhook ignores (and logs): it purges nothing.
pub fn affected_tags(model: &str, entry: &WebhookEntry) -> Option<Vec<CacheTag>> {
    match model {
        "page" => Some(
            match entry.name.normalised().or_else(|| entry.slug.normalised()) {
                Some(name) => vec![CacheTag::Page(name)],
                None => crate::content::PAGE_NAMES
                    .iter()
                    .map(|name| CacheTag::Page((*name).to_owned()))
                    .collect(),
            },
        ),
        "product" => entry
            .title
            .normalised()
            .map(|title| vec![CacheTag::Product(title), CacheTag::Search]),
        "product-group" | "collection" => entry
            .title
            .normalised()
            .map(|title| vec![CacheTag::Collection(title)]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_map_to_their_tags() {
        let entry: WebhookEntry =
            serde_json::from_str(r#"{"name": "Home", "title": "Summit LR", "id": 7}"#).unwrap();
        let rendered = |model: &str| {
            affected_tags(model, &entry)
                .map(|tags| tags.iter().map(ToString::to_string).collect::<Vec<_>>())
        };
        assert_eq!(rendered("page"), Some(vec!["page:home".to_owned()]));
        assert_eq!(
            rendered("product"),
            Some(vec!["product:summit lr".to_owned(), "search".to_owned()])
        );
        assert_eq!(
            rendered("product-group"),
            Some(vec!["collection:summit lr".to_owned()])
        );
        assert_eq!(rendered("dealer"), None);
        let odd: WebhookEntry =
            serde_json::from_str(r#"{"name": {"a": 1}, "slug": "faq"}"#).unwrap();
        assert_eq!(
            affected_tags("page", &odd)
                .map(|tags| tags.iter().map(ToString::to_string).collect::<Vec<_>>()),
            Some(vec!["page:faq".to_owned()]),
            "a name that is not text is no name"
        );
    }
}
