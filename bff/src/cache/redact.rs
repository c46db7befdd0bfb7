//! Shopper-typed text (search terms) in cache keys, shown to operators as the key's route and a
//! short hash, never as the text: the same term always gives the same hash, so an operator can
//! still follow one key from explain to the top lists, without reading what anyone searched.

use sha2::{Digest, Sha256};

/// The routes whose keys carry what a shopper typed.
const TYPED_PREFIXES: [&str; 1] = ["search:"];

/// The path prefix of search pages, whose documents' keys carry the term in their path.
const SEARCH_PAGE: &str = "/search/";

/// `key` as an operator may see it: unchanged, unless it carries shopper text; then its route
/// and a 12-hex-digit hash of the rest (`search:#3f9a…`). A document key (`document:build:path`)
/// of a search page keeps its build and the page's prefix (`document:build:/search/#…`).
pub fn redacted(key: &str) -> String {
    for prefix in TYPED_PREFIXES {
        if let Some(term) = key.strip_prefix(prefix) {
            return format!("{prefix}#{}", short_hash(term));
        }
    }
    if let Some(at) = key
        .find(SEARCH_PAGE)
        .filter(|_| key.starts_with("document:"))
    {
        let (kept, term) = key.split_at(at + SEARCH_PAGE.len());
        return format!("{kept}#{}", short_hash(term));
    }
    key.to_owned()
}

/// The first 48 bits of the SHA-256 of `text`, in hex.
fn short_hash(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..6])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_key_shows_its_route_and_a_stable_hash_never_the_term() {
        let shown = redacted("search:red rifle");
        assert!(shown.starts_with("search:#"), "{shown}");
        assert!(!shown.contains("red"), "{shown}");
        assert_eq!(shown, redacted("search:red rifle"));
        assert_ne!(shown, redacted("search:blue rifle"));
    }

    #[test]
    fn a_search_page_document_keeps_its_build_and_prefix() {
        let shown = redacted("document:b1:/search/red rifle");
        assert!(shown.starts_with("document:b1:/search/#"), "{shown}");
        assert!(!shown.contains("red"), "{shown}");
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
