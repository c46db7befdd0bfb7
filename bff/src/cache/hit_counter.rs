//! One entry's hits not yet folded into the top lists (see [`super::hit_fold`]): what a hit
//! pays for the per-tag hit ratio.

use std::sync::atomic::{AtomicU64, Ordering};

/// One entry's hits not yet folded.
#[derive(Debug, Default)]
pub struct HitCounter(AtomicU64);

impl HitCounter {
    /// Counts one hit: the only cost a hit pays for the per-tag figures.
    #[inline]
    pub fn bump(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    /// The hits since the last take, and 0 from now on: each hit is taken once, whichever fold
    /// (the periodic one, or the removal's) comes first.
    pub fn take(&self) -> u64 {
        self.0.swap(0, Ordering::Relaxed)
    }
}
