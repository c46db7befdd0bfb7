//! Tests of the top lists: their bound, their window, their merge across replicas and each
//! tag's hits, misses and ratio. Beside `top_lists.rs` to keep that file short.

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

#[test]
fn a_tag_shows_its_hits_misses_and_ratio() {
    let recorder = TopListRecorder::default();
    let page = tags(&["pages:home"]);
    recorder.record_miss("pages:home", &page, MissReason::Cold, NOW);
    recorder.record_hits(Some("pages:home"), &page, 3, NOW);
    recorder.record_hits(None, &tags(&["product:only-hits"]), 7, NOW);
    let lists = recorder.lists(NOW);
    let missed = lists.tags.iter().find(|c| c.name == "pages:home").unwrap();
    assert_eq!((missed.hits, missed.misses), (3, 1));
    assert_eq!(missed.hit_ratio, Some(0.75));
    let key = lists.keys.iter().find(|c| c.name == "pages:home").unwrap();
    assert_eq!((key.hits, key.misses, key.hit_ratio), (3, 1, Some(0.75)));
    // the tags that hit most, by hits, with their misses
    assert_eq!(lists.hit_tags[0].name, "product:only-hits");
    assert_eq!(lists.hit_tags[0].hit_ratio, Some(1.0));
    let hit = lists
        .hit_tags
        .iter()
        .find(|c| c.name == "pages:home")
        .unwrap();
    assert_eq!((hit.hits, hit.misses, hit.hit_ratio), (3, 1, Some(0.75)));
    // a tag that only hit is not among the tags that missed
    assert!(!lists.tags.iter().any(|c| c.name == "product:only-hits"));
}

#[test]
fn hits_before_a_tag_first_missed_count_through_the_hit_list() {
    let recorder = TopListRecorder::default();
    let page = tags(&["pages:about"]);
    recorder.record_hits(None, &page, 9, NOW);
    recorder.record_miss("pages:about", &page, MissReason::Evicted, NOW);
    let lists = recorder.lists(NOW);
    let missed = lists.tags.iter().find(|c| c.name == "pages:about").unwrap();
    assert_eq!((missed.hits, missed.misses), (9, 1));
    assert_eq!(missed.hit_ratio, Some(0.9));
}

#[test]
fn the_hit_list_keeps_its_bound_and_the_tags_that_hit_most() {
    let recorder = TopListRecorder::default();
    recorder.record_hits(None, &tags(&["product:hot"]), 500, NOW);
    for index in 0..(CAPACITY * 4) {
        recorder.record_hits(None, &tags(&[&format!("product:{index}")]), 2, NOW);
    }
    let lists = recorder.lists(NOW);
    assert_eq!(lists.hit_tags.len(), CAPACITY);
    assert_eq!(lists.hit_tags[0].name, "product:hot");
    assert_eq!(lists.hit_tags[0].hits, 500);
    assert!(lists.hit_tag_floor > 0);
    assert!(lists.tags.is_empty(), "no tag missed");
}

#[test]
fn merging_sums_hits_and_rates_the_sum() {
    let a = TopListRecorder::default();
    let b = TopListRecorder::default();
    let page = tags(&["pages:home"]);
    a.record_miss("pages:home", &page, MissReason::Cold, NOW);
    a.record_hits(Some("pages:home"), &page, 1, NOW);
    b.record_miss("pages:home", &page, MissReason::Cold, NOW);
    b.record_hits(Some("pages:home"), &page, 6, NOW);
    let mut merged = a.lists(NOW);
    merged.merge(&b.lists(NOW));
    let tag = merged.tags.iter().find(|c| c.name == "pages:home").unwrap();
    assert_eq!((tag.hits, tag.misses), (7, 2));
    assert_eq!(tag.hit_ratio, Some(7.0 / 9.0));
    let hit = merged
        .hit_tags
        .iter()
        .find(|c| c.name == "pages:home")
        .unwrap();
    assert_eq!((hit.hits, hit.misses), (7, 2));
    // what a heartbeat carries reads back the same
    let json = serde_json::to_string(&merged).unwrap();
    let back: TopLists = serde_json::from_str(&json).unwrap();
    assert_eq!(back, merged);
}

#[test]
fn hits_older_than_the_window_are_gone() {
    let recorder = TopListRecorder::default();
    recorder.record_hits(None, &tags(&["pages:home"]), 4, NOW);
    assert_eq!(recorder.lists(NOW + 60).hit_tags[0].hits, 4);
    assert!(
        recorder
            .lists(NOW + WINDOW_SECONDS + 60)
            .hit_tags
            .is_empty()
    );
}

#[test]
fn merged_tag_lists_agree_on_a_tag_one_replica_only_hit() {
    let missed_and_hit = TopListRecorder::default();
    let only_hit = TopListRecorder::default();
    let page = tags(&["pages:home"]);
    missed_and_hit.record_miss("pages:home", &page, MissReason::Cold, NOW);
    missed_and_hit.record_hits(None, &page, 2, NOW);
    only_hit.record_hits(None, &page, 2, NOW);
    let mut merged = missed_and_hit.lists(NOW);
    merged.merge(&only_hit.lists(NOW));
    for list in [&merged.tags, &merged.hit_tags] {
        let tag = list.iter().find(|c| c.name == "pages:home").unwrap();
        assert_eq!((tag.hits, tag.misses, tag.hit_ratio), (4, 1, Some(0.8)));
    }
}
