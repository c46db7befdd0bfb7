//! The keys and tags that miss most, and the tags that hit most, per replica, over the last five
//! minutes, with each listed tag's hit ratio: bounded top lists. Misses are recorded on the miss
//! path; hits never touch these lists on the request path: each entry counts its own hits in one
//! relaxed atomic, and [`super::hit_fold`] adds those counts here every
//! [`super::hit_fold::FOLD_INTERVAL`] and when the entry leaves L1.
//!
//! Each list is a space-saving summary (Metwally et al.) of at most [`CAPACITY`] names, ranked
//! by one figure (misses, or hits for `hitTags`): a name not in a full list takes the place of
//! the least counted one and inherits its count as its possible over-count (`error`), so every
//! name's ranked figure is an upper bound and that minus `error` a lower bound, and any name
//! counted more than `total / CAPACITY` times is listed. The other figure of a listed name (the
//! hits of a tag listed by misses, and the other way round) is counted from the moment it was
//! listed, a lower bound. `hitRatio` is `hits / (hits + misses)` of those figures. Hits are
//! lookups answered from storage while the upstream answered (`hit`, `stale`, and remembered
//! answers on the hit path), misses those that went to the upstream (`miss`, `coalesced`); a
//! stale-if-error answer is neither (see [`super::hit_ratio`]).
//!
//! Time is five one-minute buckets, each with its own lists; reading merges the current ones.
//! Memory: 5 buckets × 3 lists × [`CAPACITY`] names, each a redacted key or a tag (under 300
//! bytes): under 300 kB. Keys carrying shopper text are recorded redacted
//! ([`super::redact::redacted`]), so the term is never even held here.
//!
//! [`TopLists`] is what a replica shows (`GET /admin/cache/top`), what its heartbeat carries,
//! and what the fleet view merges across replicas with [`TopLists::merge`].

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::miss_reason::MissReason;

/// Names kept per list.
pub const CAPACITY: usize = 64;
/// Buckets of [`BUCKET_SECONDS`] each: the window is their product.
const BUCKETS: usize = 5;
const BUCKET_SECONDS: u64 = 60;
/// The window the lists cover, in seconds.
pub const WINDOW_SECONDS: u64 = BUCKETS as u64 * BUCKET_SECONDS;

/// One listed name and its figures.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counted {
    /// A key (redacted when it carries shopper text) or a tag.
    pub name: String,
    /// Misses counted (an upper bound in a list ranked by misses).
    pub misses: u64,
    /// How many of the ranked figure (`misses`, or `hits` in `hitTags`) may belong to names
    /// this one replaced.
    pub error: u64,
    /// The misses by reason (only reasons seen).
    pub reasons: BTreeMap<String, u64>,
    /// Hits counted (an upper bound in `hitTags`, else counted since the name was listed).
    #[serde(default)]
    pub hits: u64,
    /// `hits / (hits + misses)`; `None` with neither.
    #[serde(default)]
    pub hit_ratio: Option<f64>,
}

impl Counted {
    fn named(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            misses: 0,
            error: 0,
            reasons: BTreeMap::new(),
            hits: 0,
            hit_ratio: None,
        }
    }

    /// `hits / (hits + misses)`, `None` with neither.
    pub fn ratio(&self) -> Option<f64> {
        let total = self.hits + self.misses;
        (total > 0).then(|| self.hits as f64 / total as f64)
    }
}

/// The figure a list is ranked by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Ranked {
    #[default]
    Misses,
    Hits,
}

impl Ranked {
    fn of(self, counted: &Counted) -> u64 {
        match self {
            Self::Misses => counted.misses,
            Self::Hits => counted.hits,
        }
    }

    fn of_mut(self, counted: &mut Counted) -> &mut u64 {
        match self {
            Self::Misses => &mut counted.misses,
            Self::Hits => &mut counted.hits,
        }
    }
}

/// The top lists of one replica, or of several merged.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopLists {
    /// The window covered.
    pub window_seconds: u64,
    /// The most names a list keeps.
    pub capacity: usize,
    /// The keys that missed most, most first.
    pub keys: Vec<Counted>,
    /// The tags whose entries missed most, most first, with their hits and hit ratio.
    pub tags: Vec<Counted>,
    /// The tags whose entries hit most, most first, with their misses and hit ratio.
    #[serde(default)]
    pub hit_tags: Vec<Counted>,
    /// The count a name not listed may have had at most (0 while nothing was dropped): what a
    /// merge adds to a name one side did not list.
    pub key_floor: u64,
    pub tag_floor: u64,
    #[serde(default)]
    pub hit_tag_floor: u64,
}

impl TopLists {
    /// Adds `other`'s figures (another bucket, or another replica's lists) to these: figures of
    /// a name listed by both are summed; a name one side did not list gets that side's floor
    /// added to its ranked figure (and to its error). The result keeps the [`CAPACITY`]
    /// largest, with each name's hit ratio over the summed figures.
    pub fn merge(&mut self, other: &TopLists) {
        self.window_seconds = self.window_seconds.max(other.window_seconds);
        self.capacity = self.capacity.max(other.capacity).max(1);
        let capacity = self.capacity;
        let merge = |a: &[Counted], a_floor, b: &[Counted], b_floor, ranked| {
            merged(a, a_floor, b, b_floor, capacity, ranked)
        };
        let (keys, key_floor) = merge(
            &self.keys,
            self.key_floor,
            &other.keys,
            other.key_floor,
            Ranked::Misses,
        );
        let (tags, tag_floor) = merge(
            &self.tags,
            self.tag_floor,
            &other.tags,
            other.tag_floor,
            Ranked::Misses,
        );
        let (hit_tags, hit_tag_floor) = merge(
            &self.hit_tags,
            self.hit_tag_floor,
            &other.hit_tags,
            other.hit_tag_floor,
            Ranked::Hits,
        );
        (self.keys, self.key_floor) = (keys, key_floor);
        (self.tags, self.tag_floor) = (tags, tag_floor);
        (self.hit_tags, self.hit_tag_floor) = (hit_tags, hit_tag_floor);
        self.cross_fill();
    }

    /// A tag in both tag lists: each list's other figure is at least what the list ranked by it
    /// surely counted (its figure less its error), as that list may have listed it sooner (or,
    /// merged, on more replicas).
    fn cross_fill(&mut self) {
        for tag in &mut self.tags {
            if let Some(hit) = self.hit_tags.iter().find(|c| c.name == tag.name) {
                tag.hits = tag.hits.max(hit.hits.saturating_sub(hit.error));
                tag.hit_ratio = tag.ratio();
            }
        }
        for tag in &mut self.hit_tags {
            if let Some(missed) = self.tags.iter().find(|c| c.name == tag.name) {
                tag.misses = tag.misses.max(missed.misses.saturating_sub(missed.error));
                if tag.reasons.values().sum::<u64>() < missed.reasons.values().sum::<u64>() {
                    tag.reasons.clone_from(&missed.reasons);
                }
                tag.hit_ratio = tag.ratio();
            }
        }
    }
}

/// `a` and `b` merged, largest `ranked` first, cut to `capacity`; and the new floor.
fn merged(
    a: &[Counted],
    a_floor: u64,
    b: &[Counted],
    b_floor: u64,
    capacity: usize,
    ranked: Ranked,
) -> (Vec<Counted>, u64) {
    let mut by_name: BTreeMap<&str, Counted> = BTreeMap::new();
    for (list, other, other_floor) in [(a, b, b_floor), (b, a, a_floor)] {
        for counted in list {
            let merged = by_name
                .entry(&counted.name)
                .or_insert_with(|| Counted::named(&counted.name));
            merged.misses += counted.misses;
            merged.hits += counted.hits;
            merged.error += counted.error;
            for (reason, count) in &counted.reasons {
                *merged.reasons.entry(reason.clone()).or_default() += count;
            }
            if !other.iter().any(|listed| listed.name == counted.name) {
                *ranked.of_mut(merged) += other_floor;
                merged.error += other_floor;
            }
        }
    }
    let mut all: Vec<Counted> = by_name.into_values().collect();
    sort(&mut all, ranked);
    let dropped = all.get(capacity).map_or(0, |first| ranked.of(first));
    all.truncate(capacity);
    (all, dropped.max(a_floor + b_floor))
}

/// Largest `ranked` first (ties by name), each with its hit ratio.
fn sort(counted: &mut [Counted], ranked: Ranked) {
    counted.sort_by(|x, y| {
        ranked
            .of(y)
            .cmp(&ranked.of(x))
            .then_with(|| x.name.cmp(&y.name))
    });
    for one in counted {
        one.hit_ratio = one.ratio();
    }
}

/// One space-saving summary, ranked by one figure.
#[derive(Debug, Default)]
struct Summary {
    ranked: Ranked,
    counted: Vec<Counted>,
    floor: u64,
}

impl Summary {
    fn ranked_by(ranked: Ranked) -> Self {
        Self {
            ranked,
            ..Self::default()
        }
    }

    /// `name`'s place: found, added, or taken from the least counted (which gives its count as
    /// the newcomer's ranked figure and error).
    fn place(&mut self, name: &str) -> usize {
        if let Some(index) = self.counted.iter().position(|c| c.name == name) {
            return index;
        }
        if self.counted.len() < CAPACITY {
            self.counted.push(Counted::named(name));
            return self.counted.len() - 1;
        }
        let ranked = self.ranked;
        let (index, least) = self
            .counted
            .iter()
            .enumerate()
            .min_by_key(|(_, c)| ranked.of(c))
            .map(|(index, c)| (index, ranked.of(c)))
            .unwrap_or((0, 0));
        self.floor = self.floor.max(least);
        let mut newcomer = Counted::named(name);
        *ranked.of_mut(&mut newcomer) = least;
        newcomer.error = least;
        self.counted[index] = newcomer;
        index
    }

    /// The place of `name` if listed, or a new one when the list is ranked by `figure`.
    fn place_for(&mut self, name: &str, figure: Ranked) -> Option<usize> {
        if self.ranked == figure {
            Some(self.place(name))
        } else {
            self.counted.iter().position(|c| c.name == name)
        }
    }

    fn record_miss(&mut self, name: &str, reason: MissReason) {
        if let Some(index) = self.place_for(name, Ranked::Misses) {
            let counted = &mut self.counted[index];
            counted.misses += 1;
            *counted
                .reasons
                .entry(reason.as_str().to_owned())
                .or_default() += 1;
        }
    }

    fn record_hits(&mut self, name: &str, hits: u64) {
        if let Some(index) = self.place_for(name, Ranked::Hits) {
            self.counted[index].hits += hits;
        }
    }

    fn sorted(&self) -> Vec<Counted> {
        let mut counted = self.counted.clone();
        sort(&mut counted, self.ranked);
        counted
    }
}

/// One minute's lists.
#[derive(Debug)]
struct Bucket {
    /// The minute (Unix seconds / 60) the bucket holds; older ones are cleared on reuse.
    minute: u64,
    keys: Summary,
    tags: Summary,
    hit_tags: Summary,
}

impl Default for Bucket {
    fn default() -> Self {
        Self {
            minute: 0,
            keys: Summary::ranked_by(Ranked::Misses),
            tags: Summary::ranked_by(Ranked::Misses),
            hit_tags: Summary::ranked_by(Ranked::Hits),
        }
    }
}

impl Bucket {
    fn lists(&self) -> TopLists {
        let mut lists = TopLists {
            window_seconds: WINDOW_SECONDS,
            capacity: CAPACITY,
            keys: self.keys.sorted(),
            tags: self.tags.sorted(),
            hit_tags: self.hit_tags.sorted(),
            key_floor: self.keys.floor,
            tag_floor: self.tags.floor,
            hit_tag_floor: self.hit_tags.floor,
        };
        lists.cross_fill();
        lists
    }
}

/// This replica's top lists, written on misses and by the hit fold.
#[derive(Debug, Default)]
pub struct TopListRecorder {
    /// A std `Mutex`: held for one summary update on a miss or a fold, never across an await.
    buckets: Mutex<[Bucket; BUCKETS]>,
}

impl TopListRecorder {
    /// The bucket of `now_secs` (cleared when it held an older minute), under the lock.
    fn with_bucket(&self, now_secs: u64, update: impl FnOnce(&mut Bucket)) {
        let minute = now_secs / BUCKET_SECONDS;
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let bucket = &mut buckets[(minute % BUCKETS as u64) as usize];
        if bucket.minute != minute {
            *bucket = Bucket {
                minute,
                ..Bucket::default()
            };
        }
        update(bucket);
    }

    /// Counts one miss of `key` (already redacted), whose entry carries `tags`, at `now_secs`.
    pub fn record_miss(&self, key: &str, tags: &[String], reason: MissReason, now_secs: u64) {
        self.with_bucket(now_secs, |bucket| {
            bucket.keys.record_miss(key, reason);
            for tag in tags {
                let tag = super::redact::redacted(tag);
                bucket.tags.record_miss(&tag, reason);
                bucket.hit_tags.record_miss(&tag, reason);
            }
        });
    }

    /// Counts `hits` of an entry carrying `tags` (and of `key`, already redacted, when the
    /// hits were an L1 entry's: a listed key gets them), at `now_secs`: a fold's delta.
    pub fn record_hits(&self, key: Option<&str>, tags: &[String], hits: u64, now_secs: u64) {
        if hits == 0 {
            return;
        }
        self.with_bucket(now_secs, |bucket| {
            if let Some(key) = key {
                bucket.keys.record_hits(key, hits);
            }
            for tag in tags {
                let tag = super::redact::redacted(tag);
                bucket.tags.record_hits(&tag, hits);
                bucket.hit_tags.record_hits(&tag, hits);
            }
        });
    }

    /// The lists over the window ending at `now_secs`.
    pub fn lists(&self, now_secs: u64) -> TopLists {
        let minute = now_secs / BUCKET_SECONDS;
        let buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut lists = TopLists {
            window_seconds: WINDOW_SECONDS,
            capacity: CAPACITY,
            ..TopLists::default()
        };
        for bucket in buckets.iter() {
            if bucket.minute + (BUCKETS as u64) > minute && bucket.minute <= minute {
                lists.merge(&bucket.lists());
            }
        }
        lists
    }
}

#[cfg(test)]
mod tests;
