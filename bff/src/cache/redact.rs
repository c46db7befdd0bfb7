//! Shopper-typed text (search terms) in cache keys, shown to operators as the key's route and a
//! short hash, never as the text: the same term always gives the same hash, in explain, the top
//! lists and the audit log alike, so an operator can follow one key from one to the other
//! without reading what anyone searched.

use crate::observe::shopper_text;

/// The path prefix of search pages, whose documents' keys carry the term in their path.
const SEARCH_PAGE: &str = "/search/";

/// `key` as an operator may see it: unchanged, unless it carries shopper text; then its route
/// and the term's hash as the audit log writes it ([`shopper_text::term_hash`]:
/// `search:sha256:3f9a…`). A document key (`document:build:path`) of a search page keeps its
/// build and the page's prefix (`document:build:/search/sha256:…`).
pub fn redacted(key: &str) -> String {
    if let Some(at) = key
        .find(SEARCH_PAGE)
        .filter(|_| key.starts_with("document:"))
    {
        let (kept, path) = key.split_at(at);
        return format!("{kept}{}", shopper_text::redact(path));
    }
    shopper_text::redact(key).into_owned()
}

/// `key` as [`redacted`] shows it, written only when displayed: for a span's field, which a
/// span that is not recorded never formats, so a lookup pays no hash unless it is traced.
pub struct Shown<'a>(pub &'a str);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&redacted(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_key_shows_its_route_and_a_stable_hash_never_the_term() {
        let shown = redacted("search:red rifle");
        assert!(shown.starts_with("search:sha256:"), "{shown}");
        assert!(!shown.contains("red"), "{shown}");
        assert_eq!(shown, redacted("search:red rifle"));
        assert_ne!(shown, redacted("search:blue rifle"));
    }

    #[test]
    fn a_search_page_document_keeps_its_build_and_prefix() {
        let shown = redacted("document:b1:/search/red rifle");
        assert!(shown.starts_with("document:b1:/search/sha256:"), "{shown}");
        assert!(!shown.contains("red"), "{shown}");
    }

    #[test]
    fn shown_writes_what_redacted_returns() {
        let key = "search:red rifle";
        assert_eq!(Shown(key).to_string(), redacted(key));
    }

    #[test]
    fn other_keys_are_shown_as_they_are() {
        for key in [
            "product:summit lr",
            "pages:home",
            "document:b1:/product/summit lr",
        ] {
            assert_eq!(redacted(key), key);
        }
    }
}
