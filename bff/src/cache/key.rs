//! Cache keys: one normalised form per title, so `Summit LR`, `summit lr ` and `SUMMIT%20LR`
//! share an entry and no title can name another key or another upstream path.

use super::policy::RouteKind;

/// The longest title (in bytes, once normalised) a product or collection may have: any longer
/// is answered 404 at once, with no upstream call and no cache entry.
pub const MAX_TITLE_BYTES: usize = 200;

/// The normalised title: trimmed and lower-cased, as the shopper's text is hashed for operators.
pub use crate::observe::shopper_text::normalise;

/// The cache key of the title a request names (`raw`, decoded, not yet normalised) on
/// `route`: `cache_key(route, &normalise(raw))` in one allocation.
pub fn request_key(route: RouteKind, raw: &str) -> String {
    let prefix = route.as_str();
    let title = raw.trim();
    let mut key = String::with_capacity(prefix.len() + 1 + title.len());
    key.push_str(prefix);
    key.push(':');
    key.extend(title.chars().flat_map(char::to_lowercase));
    key
}

/// The cache key of `title` on `route`. The route prefix keeps routes apart; the title is the
/// rest, whatever it holds, so no title can collide with another route's key.
pub fn cache_key(route: RouteKind, normalised_title: &str) -> String {
    format!("{}:{normalised_title}", route.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equivalent_titles_share_a_key() {
        let keys: Vec<String> = ["Summit LR", " summit lr ", "SUMMIT LR"]
            .iter()
            .map(|t| cache_key(RouteKind::Product, &normalise(t)))
            .collect();
        assert!(keys.iter().all(|k| k == "product:summit lr"), "{keys:?}");
    }

    #[test]
    fn a_request_key_is_the_key_of_the_normalised_title() {
        for raw in [
            "Summit LR",
            " summit lr ",
            "ÜBER ΑΛΦΑ",
            "İstanbul",
            "a%2Fb",
            "",
        ] {
            assert_eq!(
                request_key(RouteKind::Product, raw),
                cache_key(RouteKind::Product, &normalise(raw)),
                "{raw}"
            );
        }
    }

    #[test]
    fn hostile_titles_stay_titles() {
        assert_eq!(normalise("../Admin"), "../admin");
        assert_eq!(normalise("a%2Fb"), "a%2fb");
        assert_eq!(normalise("a?b#c"), "a?b#c");
        assert_eq!(normalise("Über"), "über");
    }
}
