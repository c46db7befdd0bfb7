//! The hit path's side of the store: the answers remembered whole (see
//! [`crate::cache::rendered`]), handed out while current, and counted as their parts' hits when
//! served.

use std::sync::Arc;
use std::time::Instant;

use super::EdgeCache;
use crate::cache::local_versions::Epochs;
use crate::cache::rendered::Rendered;
use crate::cache::status::CacheState;

impl EdgeCache {
    /// The change counters, read before looking up the parts of an answer to remember.
    pub fn epochs(&self) -> Epochs {
        self.inner.versions.epochs()
    }

    /// The remembered answer for `key`, if it is still current at `now`. Not counted: the
    /// caller counts it with [`Self::count_served`] once it is sent.
    pub fn remembered(&self, key: &str, now: Instant) -> Option<Arc<Rendered>> {
        self.inner
            .remembered
            .current(key, &self.inner.versions, now)
    }

    /// Remembers `answer` under `key` for the hit path (see [`crate::cache::CachedAnswer`]).
    pub(in crate::cache) fn remember_answer(&self, key: String, answer: Arc<Rendered>) {
        self.inner.remembered.insert(key, answer, false);
    }

    /// Counts a remembered answer as one hit on each of its parts, as their lookups would, and
    /// once for its tags' hit ratio (folded later: see [`crate::cache::hit_fold`]).
    pub fn count_served(&self, answer: &Rendered) {
        answer.count_hit();
        for route in answer.parts() {
            self.inner.counters.count(*route, CacheState::Hit);
        }
    }
}
