//! The keys and tags that miss most, per replica, over the last five minutes: bounded top lists
//! fed on the miss path only (a hit never touches them).
//!
//! Each list is a space-saving summary (Metwally et al.) of at most [`CAPACITY`] names: a name
//! not in a full list takes the place of the least counted one and inherits its count as its
//! possible over-count (`error`), so every name's `misses` is an upper bound and
//! `misses - error` a lower bound, and any name missed more than `total / CAPACITY` times is
//! listed. Time is five one-minute buckets, each with its own lists; reading merges the current
//! ones. Memory: 5 buckets × 2 lists × [`CAPACITY`] names, each a redacted key or a tag
//! (under 300 bytes): under 200 kB. Keys carrying shopper text are recorded redacted
//! ([`super::redact::redacted`]), so the term is never even held here.
//!
//! [`TopLists`] is what a replica shows (`GET /admin/cache/top`) and what the fleet view merges
//! across replicas with [`TopLists::merge`].

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

/// One listed name and its misses.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counted {
    /// A key (redacted when it carries shopper text) or a tag.
    pub name: String,
    /// Misses counted, an upper bound.
    pub misses: u64,
    /// How many of `misses` may belong to names this one replaced.
    pub error: u64,
    /// The misses by reason (only reasons seen).
    pub reasons: BTreeMap<String, u64>,
}

/// The top lists of one replica, or of several merged.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopLists {
    /// The window covered.
    pub window_seconds: u64,
    /// The most names a list keeps.
    pub capacity: usize,
    /// The keys that missed most, most first.
    pub keys: Vec<Counted>,
    /// The tags whose entries missed most, most first.
    pub tags: Vec<Counted>,
    /// The count a name not listed may have had at most (0 while nothing was dropped): what a
    /// merge adds to a name one side did not list.
    pub key_floor: u64,
    pub tag_floor: u64,
}

impl TopLists {
    /// Adds `other`'s figures (another bucket, or another replica's lists) to these: counts of
    /// a name listed by both are summed; a name one side did not list gets that side's floor
    /// added as possible misses (and as error). The result keeps the [`CAPACITY`] largest.
    pub fn merge(&mut self, other: &TopLists) {
        self.window_seconds = self.window_seconds.max(other.window_seconds);
        self.capacity = self.capacity.max(other.capacity).max(1);
        let (keys, key_floor) = merged(
            &self.keys,
            self.key_floor,
            &other.keys,
            other.key_floor,
            self.capacity,
        );
        let (tags, tag_floor) = merged(
            &self.tags,
            self.tag_floor,
            &other.tags,
            other.tag_floor,
            self.capacity,
        );
        (self.keys, self.key_floor, self.tags, self.tag_floor) = (keys, key_floor, tags, tag_floor);
    }
}

/// `a` and `b` merged, largest first, cut to `capacity`; and the new floor.
fn merged(
    a: &[Counted],
    a_floor: u64,
    b: &[Counted],
    b_floor: u64,
    capacity: usize,
) -> (Vec<Counted>, u64) {
    let mut by_name: BTreeMap<&str, Counted> = BTreeMap::new();
    for (list, other, other_floor) in [(a, b, b_floor), (b, a, a_floor)] {
        for counted in list {
            let merged = by_name.entry(&counted.name).or_insert_with(|| Counted {
                name: counted.name.clone(),
                misses: 0,
                error: 0,
                reasons: BTreeMap::new(),
            });
            merged.misses += counted.misses;
            merged.error += counted.error;
            for (reason, count) in &counted.reasons {
                *merged.reasons.entry(reason.clone()).or_default() += count;
            }
            if !other.iter().any(|listed| listed.name == counted.name) {
                merged.misses += other_floor;
                merged.error += other_floor;
            }
        }
    }
    let mut all: Vec<Counted> = by_name.into_values().collect();
    all.sort_by(|x, y| y.misses.cmp(&x.misses).then_with(|| x.name.cmp(&y.name)));
    let dropped = all.get(capacity).map_or(0, |first| first.misses);
    all.truncate(capacity);
    (all, dropped.max(a_floor + b_floor))
}

/// One space-saving summary.
#[derive(Debug, Default)]
struct Summary {
    counted: Vec<Counted>,
    floor: u64,
}

impl Summary {
    fn record(&mut self, name: &str, reason: MissReason) {
        let index = match self.counted.iter().position(|c| c.name == name) {
            Some(index) => index,
            None if self.counted.len() < CAPACITY => {
                self.counted.push(Counted {
                    name: name.to_owned(),
                    misses: 0,
                    error: 0,
                    reasons: BTreeMap::new(),
                });
                self.counted.len() - 1
            }
            None => {
                // the least counted gives its place, and its count as the newcomer's error
                let (index, least) = self
                    .counted
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, c)| c.misses)
                    .map(|(index, c)| (index, c.misses))
                    .unwrap_or((0, 0));
                self.floor = self.floor.max(least);
                self.counted[index] = Counted {
                    name: name.to_owned(),
                    misses: least,
                    error: least,
                    reasons: BTreeMap::new(),
                };
                index
            }
        };
        let counted = &mut self.counted[index];
        counted.misses += 1;
        *counted
            .reasons
            .entry(reason.as_str().to_owned())
            .or_default() += 1;
    }
}

/// One minute's lists.
#[derive(Debug, Default)]
struct Bucket {
    /// The minute (Unix seconds / 60) the bucket holds; older ones are cleared on reuse.
    minute: u64,
    keys: Summary,
    tags: Summary,
}

impl Bucket {
    fn lists(&self) -> TopLists {
        let sorted = |summary: &Summary| {
            let mut counted = summary.counted.clone();
            counted.sort_by(|x, y| y.misses.cmp(&x.misses).then_with(|| x.name.cmp(&y.name)));
            counted
        };
        TopLists {
            window_seconds: WINDOW_SECONDS,
            capacity: CAPACITY,
            keys: sorted(&self.keys),
            tags: sorted(&self.tags),
            key_floor: self.keys.floor,
            tag_floor: self.tags.floor,
        }
    }
}

/// This replica's top lists, written on misses.
#[derive(Debug, Default)]
pub struct TopListRecorder {
    /// A std `Mutex`: held for one summary update on a miss, never across an await.
    buckets: Mutex<[Bucket; BUCKETS]>,
}

impl TopListRecorder {
    /// Counts one miss of `key` (already redacted), whose entry carries `tags`, at `now_secs`.
    pub fn record_miss(&self, key: &str, tags: &[String], reason: MissReason, now_secs: u64) {
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
        bucket.keys.record(key, reason);
        for tag in tags {
            bucket.tags.record(&super::redact::redacted(tag), reason);
        }
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
mod tests {
    use super::*;

    const NOW: u64 = 1_700_000_000;

    fn tags(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn a_list_keeps_its_bound_and_the_names_that_miss_most() {
        let recorder = TopListRecorder::default();
        for _ in 0..50 {
            recorder.record_miss(
                "product:hot",
                &tags(&["product:hot"]),
                MissReason::Evicted,
                NOW,
            );
        }
        for index in 0..1_000 {
            recorder.record_miss(&format!("product:{index}"), &[], MissReason::Cold, NOW);
        }
        let lists = recorder.lists(NOW);
        assert_eq!(lists.keys.len(), CAPACITY);
        assert_eq!(lists.keys[0].name, "product:hot");
        assert!(lists.keys[0].misses >= 50);
        assert_eq!(lists.keys[0].reasons.get("evicted"), Some(&50));
        assert!(lists.key_floor > 0, "names were dropped");
        assert_eq!(lists.tags[0].name, "product:hot");
    }

    #[test]
    fn misses_older_than_the_window_are_gone() {
        let recorder = TopListRecorder::default();
        recorder.record_miss("pages:home", &[], MissReason::Cold, NOW);
        assert_eq!(recorder.lists(NOW + 60).keys.len(), 1);
        assert!(recorder.lists(NOW + WINDOW_SECONDS + 60).keys.is_empty());
    }

    #[test]
    fn merging_sums_shared_names_and_keeps_the_bound() {
        let a = TopListRecorder::default();
        let b = TopListRecorder::default();
        for _ in 0..3 {
            a.record_miss("pages:home", &[], MissReason::Cold, NOW);
        }
        b.record_miss("pages:home", &[], MissReason::Purged, NOW);
        b.record_miss("pages:about", &[], MissReason::Cold, NOW);
        let mut merged = a.lists(NOW);
        merged.merge(&b.lists(NOW));
        let home = merged.keys.iter().find(|c| c.name == "pages:home").unwrap();
        assert_eq!(home.misses, 4);
        assert_eq!(home.error, 0);
        assert_eq!(home.reasons.get("purged"), Some(&1));
        assert_eq!(merged.keys.len(), 2);

        let full = TopListRecorder::default();
        for index in 0..(CAPACITY * 3) {
            full.record_miss(&format!("product:{index}"), &[], MissReason::Cold, NOW);
        }
        merged.merge(&full.lists(NOW));
        assert!(merged.keys.len() <= CAPACITY);
        let home = merged.keys.iter().find(|c| c.name == "pages:home").unwrap();
        assert!(home.misses >= 4 && home.error >= full.lists(NOW).key_floor);
    }
}
