//! What a shopper typed (search terms) never reaches operators' tools as text: the audit log,
//! explain and the top lists show a search's route and a short hash of its term instead.
//!
//! The term is normalised as the cache key normalises it (trimmed, lower-cased) before it is
//! hashed, so `/search/Red%20Boots`, `/api/search?q=red boots` and the key `search:red boots`
//! show the same hash and can be matched with one another, yet not read.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;
use sha2::{Digest, Sha256};

/// A shopper's text as the cache names it: trimmed and lower-cased. The cache keys of titles and
/// terms are made with it (`crate::cache::key` re-exports it), so a term's hash matches its key's.
/// The router has URL-decoded the path segment exactly once; decoding again would let `a%2Fb`
/// and `a/b` name one entry.
pub fn normalise(title: &str) -> String {
    title.trim().to_lowercase()
}

/// How a hashed term is written: `sha256:` and the first 12 hex digits (48 bits: enough to
/// tell terms apart in an operator's view, too few to look a term up in a table of them).
pub fn term_hash(term: &str) -> String {
    let digest = Sha256::digest(normalise(term).as_bytes());
    format!("sha256:{}", &hex::encode(digest)[..12])
}

/// `text` with any search term in it replaced by [`term_hash`]; anything else unchanged. It
/// takes a URL (absolute or a path, with a query), or a cache key:
///
/// - a `q` query parameter: `/api/search?q=boots&page=2` → `/api/search?q=sha256:…&page=2`;
/// - a search page's path segment: `/search/red%20boots` → `/search/sha256:…`;
/// - a search cache key: `search:red boots` → `search:sha256:…`.
pub fn redact(text: &str) -> Cow<'_, str> {
    if let Some(term) = text.strip_prefix("search:") {
        return Cow::Owned(format!("search:{}", term_hash(term)));
    }
    let (before_query, query) = match text.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (text, None),
    };
    let path = redact_search_path(before_query);
    let query = query.map(redact_query);
    match (path, query) {
        (Cow::Borrowed(_), None | Some(Cow::Borrowed(_))) => Cow::Borrowed(text),
        (path, None) => Cow::Owned(path.into_owned()),
        (path, Some(query)) => Cow::Owned(format!("{path}?{query}")),
    }
}

/// A path (or an absolute URL up to its query) whose `/search/<term>` segment is hashed.
fn redact_search_path(url: &str) -> Cow<'_, str> {
    // After the scheme and authority, if any: the path is from the first `/` past `//`.
    let path_start = url.find("://").map_or(0, |scheme| {
        url[scheme + 3..]
            .find('/')
            .map_or(url.len(), |slash| scheme + 3 + slash)
    });
    let path = &url[path_start..];
    let Some(rest) = path.strip_prefix("/search/") else {
        return Cow::Borrowed(url);
    };
    let (term, tail) = rest
        .split_once('/')
        .map_or((rest, ""), |(term, tail)| (term, tail));
    if term.is_empty() {
        return Cow::Borrowed(url);
    }
    let term = percent_decode_str(term).decode_utf8_lossy();
    let mut redacted = format!("{}/search/{}", &url[..path_start], term_hash(&term));
    if !tail.is_empty() {
        redacted.push('/');
        redacted.push_str(tail);
    }
    Cow::Owned(redacted)
}

/// A query string whose `q` parameters are hashed (the other parameters as they were).
fn redact_query(query: &str) -> Cow<'_, str> {
    let mut changed = false;
    let pairs: Vec<Cow<'_, str>> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some(("q", value)) => {
                changed = true;
                let term = percent_decode_str(&value.replace('+', " "))
                    .decode_utf8_lossy()
                    .into_owned();
                Cow::Owned(format!("q={}", term_hash(&term)))
            }
            _ => Cow::Borrowed(pair),
        })
        .collect();
    if changed {
        Cow::Owned(pairs.join("&"))
    } else {
        Cow::Borrowed(query)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_term_is_hashed_wherever_it_is_written() {
        let hash = term_hash("red boots");
        assert_eq!(hash.len(), "sha256:".len() + 12);
        assert_eq!(
            redact("/api/search?q=Red+Boots&page=2"),
            format!("/api/search?q={hash}&page=2")
        );
        assert_eq!(redact("/search/red%20boots"), format!("/search/{hash}"));
        assert_eq!(
            redact("https://shop.example/search/RED%20BOOTS?utm=x"),
            format!("https://shop.example/search/{hash}?utm=x")
        );
        assert_eq!(redact("search: red boots"), format!("search:{hash}"));
    }

    #[test]
    fn text_without_a_search_term_is_unchanged() {
        for text in [
            "/products/summit%20lr",
            "product:summit lr",
            "/api/pages/home?preview=1",
            "https://shop.example/search",
        ] {
            assert!(matches!(redact(text), Cow::Borrowed(_)), "{text}");
        }
    }
}
