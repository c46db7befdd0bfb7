//! `[cache]`: the cached routes and their policies, from `[cache.<route>]` in `config/bff.toml`,
//! reloadable at run time. The tag each route gives its entries is the cache's (`crate::cache::tag`).

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The cached routes, each with its own policy and tag scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RouteKind {
    Pages,
    Product,
    Collection,
    Search,
    Prices,
    /// Map tiles, held in a cache of their own (`[cache] tile_capacity_bytes`).
    Tiles,
}

impl RouteKind {
    pub const ALL: [RouteKind; 6] = [
        RouteKind::Pages,
        RouteKind::Product,
        RouteKind::Collection,
        RouteKind::Search,
        RouteKind::Prices,
        RouteKind::Tiles,
    ];

    /// The position in [`Self::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pages => "pages",
            Self::Product => "product",
            Self::Collection => "collection",
            Self::Search => "search",
            Self::Prices => "prices",
            Self::Tiles => "tiles",
        }
    }
}

/// How long one route's answers are fresh, and how long they may be served stale.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CachePolicy {
    /// Time an answer is fresh.
    #[serde(with = "crate::config::duration")]
    pub ttl: Duration,
    /// After freshness, time a stale answer is served at once while one background refresh runs.
    #[serde(with = "crate::config::duration")]
    pub stale_while_revalidate: Duration,
    /// After freshness, time a stale answer is served when the upstream fails.
    #[serde(with = "crate::config::duration")]
    pub stale_if_error: Duration,
    /// Time a 404 is remembered.
    #[serde(with = "crate::config::duration")]
    pub negative_ttl: Duration,
    /// Larger answers are served but not cached.
    pub max_entry_bytes: usize,
    /// Random spread of the ttl (0.1 = ±10%), so entries stored together do not expire together.
    pub jitter: f64,
}

impl CachePolicy {
    /// A random factor within ±`jitter` of 1, drawn once per stored entry.
    pub fn jitter_factor(&self) -> f64 {
        if self.jitter <= 0.0 {
            return 1.0;
        }
        (1.0 + self.jitter * (fastrand::f64() * 2.0 - 1.0)).max(0.0)
    }

    pub fn validate(&self, key: &str) -> Result<(), String> {
        if !(0.0..1.0).contains(&self.jitter) {
            return Err(format!("{key}.jitter: must be at least 0 and below 1"));
        }
        if self.max_entry_bytes == 0 {
            return Err(format!("{key}.max_entry_bytes: must be at least 1"));
        }
        Ok(())
    }
}

impl Default for CachePolicy {
    /// The content pages' policy; the other routes name what they change.
    fn default() -> Self {
        Self {
            ttl: secs(300),
            stale_while_revalidate: secs(600),
            stale_if_error: secs(86_400),
            negative_ttl: secs(60),
            max_entry_bytes: 2 * 1024 * 1024,
            jitter: 0.1,
        }
    }
}

const fn secs(seconds: u64) -> Duration {
    Duration::from_secs(seconds)
}

/// `[cache]`: total size and the policy of each route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheConfig {
    /// Bytes the cache may hold for pages, products, collections and the price map: bodies,
    /// compressed variants, keys, tags and a measured per-entry overhead, so it is close to the
    /// memory the entries take (see `crate::cache::entry::ENTRY_OVERHEAD_BYTES`).
    pub capacity_bytes: u64,
    /// Bytes held for search results, counted the same way, apart from `capacity_bytes`: search
    /// terms are an unbounded key space anyone can fill, so they get a budget of their own and
    /// can never evict pages, products, collections or the price map.
    pub search_capacity_bytes: u64,
    /// Bytes held for map tiles, in a cache of their own: panning a map (or walking every tile
    /// of a zoom level) can never evict pages, products or collections.
    pub tile_capacity_bytes: u64,
    /// Bytes held for remembered 404s (made-up titles), counted the same way, apart from the
    /// other budgets: anyone can make up titles, so their 404s can never evict what exists.
    /// They never enter L2 (Redis).
    pub negative_capacity_bytes: u64,
    /// How long a request with a usable stale copy (inside stale-if-error) waits for the
    /// revalidation before it is answered with that copy; the fetch goes on in the background.
    /// A slow upstream then costs a warm cache this much, not the upstream's timeout.
    #[serde(with = "crate::config::duration")]
    pub stale_wait: Duration,
    pub pages: CachePolicy,
    pub product: CachePolicy,
    pub collection: CachePolicy,
    pub search: CachePolicy,
    pub prices: CachePolicy,
    pub tiles: CachePolicy,
}

impl Default for CacheConfig {
    fn default() -> Self {
        Self {
            capacity_bytes: 64 * 1024 * 1024,
            search_capacity_bytes: 8 * 1024 * 1024,
            tile_capacity_bytes: 16 * 1024 * 1024,
            negative_capacity_bytes: 1024 * 1024,
            stale_wait: Duration::from_millis(200),
            pages: CachePolicy::default(),
            product: CachePolicy {
                ttl: secs(120),
                stale_while_revalidate: secs(300),
                stale_if_error: secs(86_400),
                negative_ttl: secs(30),
                ..CachePolicy::default()
            },
            collection: CachePolicy {
                ttl: secs(120),
                stale_while_revalidate: secs(300),
                stale_if_error: secs(86_400),
                negative_ttl: secs(30),
                ..CachePolicy::default()
            },
            search: CachePolicy {
                ttl: secs(60),
                stale_while_revalidate: secs(120),
                stale_if_error: secs(3_600),
                negative_ttl: secs(30),
                ..CachePolicy::default()
            },
            prices: CachePolicy {
                ttl: secs(30),
                stale_while_revalidate: secs(30),
                stale_if_error: secs(600),
                negative_ttl: secs(10),
                ..CachePolicy::default()
            },
            tiles: CachePolicy {
                ttl: secs(86_400),
                stale_while_revalidate: secs(86_400),
                stale_if_error: secs(7 * 86_400),
                negative_ttl: secs(60),
                max_entry_bytes: 512 * 1024,
                ..CachePolicy::default()
            },
        }
    }
}

impl CacheConfig {
    /// The byte budgets' keys under `[cache]`. A cache's storages are sized once, when it is
    /// built (moka cannot resize one), so a reload does not apply them: they take effect on
    /// restart.
    pub const BUDGET_KEYS: [&'static str; 4] = [
        "capacity_bytes",
        "search_capacity_bytes",
        "tile_capacity_bytes",
        "negative_capacity_bytes",
    ];

    /// These policies with `running`'s byte budgets: what a running cache can take on reload.
    pub fn with_budgets_of(self, running: &CacheConfig) -> Self {
        Self {
            capacity_bytes: running.capacity_bytes,
            search_capacity_bytes: running.search_capacity_bytes,
            tile_capacity_bytes: running.tile_capacity_bytes,
            negative_capacity_bytes: running.negative_capacity_bytes,
            ..self
        }
    }

    /// The longest an entry of any route can live, its jitter and stale windows included:
    /// how long L2's purge versions must outlast the entries recorded under them.
    pub fn longest_entry_lifetime(&self) -> Duration {
        RouteKind::ALL
            .iter()
            .map(|route| {
                let policy = self.policy(*route);
                policy.ttl.mul_f64(1.0 + policy.jitter.max(0.0))
                    + policy.stale_while_revalidate.max(policy.stale_if_error)
            })
            .max()
            .unwrap_or_default()
    }

    pub fn policy(&self, route: RouteKind) -> &CachePolicy {
        match route {
            RouteKind::Pages => &self.pages,
            RouteKind::Product => &self.product,
            RouteKind::Collection => &self.collection,
            RouteKind::Search => &self.search,
            RouteKind::Prices => &self.prices,
            RouteKind::Tiles => &self.tiles,
        }
    }

    pub fn validate(&self) -> Vec<String> {
        let mut problems: Vec<String> = RouteKind::ALL
            .iter()
            .filter_map(|route| {
                self.policy(*route)
                    .validate(&format!("cache.{}", route.as_str()))
                    .err()
            })
            .collect();
        if self.capacity_bytes == 0 {
            problems.push("cache.capacity_bytes: must be at least 1".to_owned());
        }
        if self.search_capacity_bytes == 0 {
            problems.push("cache.search_capacity_bytes: must be at least 1".to_owned());
        }
        if self.negative_capacity_bytes == 0 {
            problems.push("cache.negative_capacity_bytes: must be at least 1".to_owned());
        }
        if self.tile_capacity_bytes == 0 {
            problems.push("cache.tile_capacity_bytes: must be at least 1".to_owned());
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_within_its_spread() {
        let policy = CachePolicy {
            jitter: 0.2,
            ..CachePolicy::default()
        };
        for _ in 0..1000 {
            let factor = policy.jitter_factor();
            assert!((0.8..=1.2).contains(&factor), "{factor}");
        }
    }

    #[test]
    fn bad_policies_name_their_key() {
        let mut config = CacheConfig::default();
        config.search.jitter = 1.5;
        assert_eq!(
            config.validate(),
            vec!["cache.search.jitter: must be at least 0 and below 1"]
        );
    }
}
