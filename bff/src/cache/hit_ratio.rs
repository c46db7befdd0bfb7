//! The hit ratio, defined once for `/admin/cache` and the dashboard (`docs/OPERATING.md`, "The hit
//! ratio"): the lookups answered from storage while the upstream answered (`hit`, and `stale`
//! served at once while one refresh runs), over all lookups. A stale-if-error answer is served
//! from storage too, but only because the upstream failed: counted in the hit ratio, an outage
//! would look like a healthy cache ("grace masking"). It has a ratio of its own.

use std::collections::HashMap;

use serde::Serialize;

use super::status::CacheState;

/// The states the hit ratio counts as hits: the dashboard's `state=~"hit|stale"`.
pub const HIT_STATES: [CacheState; 2] = [CacheState::Hit, CacheState::Stale];

/// Lookup counts by state (`CacheState::as_str`), for one route or summed over several.
pub type LookupCounts = HashMap<&'static str, u64>;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ratios {
    /// `hit` and `stale` over all lookups (0 before the first lookup).
    pub hit_ratio: f64,
    /// `stale-if-error` over all lookups: what an upstream outage costs, apart from the hits.
    pub stale_if_error_ratio: f64,
}

impl Ratios {
    pub fn of(counts: &LookupCounts) -> Self {
        let count = |state: CacheState| counts.get(state.as_str()).copied().unwrap_or(0);
        let total: u64 = counts.values().sum();
        let hits: u64 = HIT_STATES.into_iter().map(count).sum();
        let share = |part: u64| {
            if total == 0 {
                0.0
            } else {
                part as f64 / total as f64
            }
        };
        Self {
            hit_ratio: share(hits),
            stale_if_error_ratio: share(count(CacheState::StaleIfError)),
        }
    }
}

/// The counts of every route in `routes`, summed state by state.
pub fn summed<'a>(routes: impl IntoIterator<Item = &'a LookupCounts>) -> LookupCounts {
    let mut total = LookupCounts::new();
    for counts in routes {
        for (state, count) in counts {
            *total.entry(state).or_default() += count;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_if_error_is_not_a_hit() {
        let counts = LookupCounts::from([
            ("hit", 5),
            ("stale", 1),
            ("stale-if-error", 3),
            ("miss", 1),
            ("coalesced", 0),
        ]);
        let ratios = Ratios::of(&counts);
        assert!((ratios.hit_ratio - 0.6).abs() < 1e-12, "{ratios:?}");
        assert!(
            (ratios.stale_if_error_ratio - 0.3).abs() < 1e-12,
            "{ratios:?}"
        );
        assert_eq!(Ratios::of(&LookupCounts::new()).hit_ratio, 0.0);
    }
}
