//! Cache tags: what a purge names. Every entry carries its route's tag for its key, plus any
//! its fetch adds (a collection is also tagged with each of its products).

use std::fmt;

use crate::config::RouteKind;

/// One tag. Rendered as the purge API spells it: `page:home`, `product:summit lr`,
/// `collection:rifles`, `search`, `prices`, `tiles`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CacheTag {
    Page(String),
    Product(String),
    Collection(String),
    /// Every search answer (a product change can change any of them).
    Search,
    Prices,
    Tiles,
}

impl fmt::Display for CacheTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Page(name) => write!(f, "page:{name}"),
            Self::Product(title) => write!(f, "product:{title}"),
            Self::Collection(title) => write!(f, "collection:{title}"),
            Self::Search => f.write_str("search"),
            Self::Prices => f.write_str("prices"),
            Self::Tiles => f.write_str("tiles"),
        }
    }
}

impl From<CacheTag> for String {
    fn from(tag: CacheTag) -> Self {
        tag.to_string()
    }
}

/// Each cached route's tag scheme: the cache's, beside its tags, while the routes and their
/// policies are configuration (`crate::config::cache`).
impl RouteKind {
    /// The tag every entry of this route carries for `key` (`page:home`, `product:summit lr`…).
    pub fn tag(self, key: &str) -> CacheTag {
        match self {
            Self::Pages => CacheTag::Page(key.to_owned()),
            Self::Product => CacheTag::Product(key.to_owned()),
            Self::Collection => CacheTag::Collection(key.to_owned()),
            Self::Search => CacheTag::Search,
            Self::Prices => CacheTag::Prices,
            Self::Tiles => CacheTag::Tiles,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_render_as_the_purge_api_spells_them() {
        assert_eq!(CacheTag::Page("home".into()).to_string(), "page:home");
        assert_eq!(
            CacheTag::Product("summit lr".into()).to_string(),
            "product:summit lr"
        );
        assert_eq!(
            CacheTag::Collection("rifles".into()).to_string(),
            "collection:rifles"
        );
        assert_eq!(CacheTag::Search.to_string(), "search");
        assert_eq!(CacheTag::Prices.to_string(), "prices");
    }
}
