//! Where each configuration value came from: the built-in default, the TOML file, a `BFF__`
//! environment variable (named), or a live override (its version, see [`super::overrides`]). Recorded by the loader (`layers.rs`) key by key as the layers
//! merge, shown by `GET /admin/config`.

use std::collections::BTreeMap;

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "source", rename_all = "lowercase")]
pub enum Origin {
    Default,
    File,
    /// A `BFF__SECTION__KEY` variable; its name (never its value) is shown.
    Environment {
        variable: String,
    },
    /// A live override, of the override version named.
    Override {
        version: u64,
    },
}

/// The origin of every key a layer set, by dotted key (`cache.pages.ttl`); a key none set (nor
/// any table above it) has its default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origins(BTreeMap<String, Origin>);

impl Origins {
    pub(super) fn insert(&mut self, key: String, origin: Origin) {
        self.0.insert(key, origin);
    }

    /// Where `key`'s value came from: its own entry or that of the nearest table above it
    /// (a variable may set a whole table), else the default.
    pub fn of(&self, key: &str) -> &Origin {
        let mut candidate = key;
        loop {
            if let Some(origin) = self.0.get(candidate) {
                return origin;
            }
            match candidate.rfind('.') {
                Some(end) => candidate = &candidate[..end],
                None => return &Origin::Default,
            }
        }
    }

    /// `self`, with the origins of the keys `taken` picks replaced by `other`'s: after a reload
    /// applied those keys of a freshly loaded configuration.
    pub fn with_keys_from(&self, other: &Origins, taken: impl Fn(&str) -> bool) -> Origins {
        let kept = self.0.iter().filter(|(key, _)| !taken(key));
        let replaced = other.0.iter().filter(|(key, _)| taken(key));
        Origins(
            kept.chain(replaced)
                .map(|(key, origin)| (key.clone(), origin.clone()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_takes_the_origin_of_the_nearest_table_that_has_one() {
        let mut origins = Origins::default();
        origins.insert("server".to_owned(), Origin::File);
        origins.insert(
            "cache.pages.ttl".to_owned(),
            Origin::Environment {
                variable: "BFF__CACHE__PAGES__TTL".to_owned(),
            },
        );
        assert_eq!(origins.of("server.listen"), &Origin::File);
        assert_eq!(origins.of("admin.listen"), &Origin::Default);
        assert!(matches!(
            origins.of("cache.pages.ttl"),
            Origin::Environment { .. }
        ));
        assert_eq!(origins.of("cache.pages.jitter"), &Origin::Default);
    }
}
