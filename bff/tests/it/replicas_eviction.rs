//! Cache pressure never evicts what a shopper would miss. With two tiers, the cache tier runs
//! `allkeys-lru` and is filled far past its `maxmemory`; with one Redis, L2 writes run past
//! `redis.l2_max_bytes`. Either way every sign-out revocation, sign-in failure count and
//! checkout idempotency key written before the fill is still honoured, on another replica.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::coordination_data::{
    FAILURES_ALLOWED, assert_honoured, coordination_keys, write_coordination_data,
};
use common::header;
use common::redis::{Options, RedisServer};
use common::replicas::{Replicas, Setup};

fn info_number(redis: &RedisServer, field: &str) -> u64 {
    let info = redis.cli(&["INFO", "all"]);
    info.lines()
        .find_map(|line| line.strip_prefix(&format!("{field}:")))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in INFO"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_two_tiers_a_cache_tier_filled_past_maxmemory_evicts_no_coordination_data() {
    let cache = RedisServer::start_with(Options {
        args: ["--maxmemory", "4mb", "--maxmemory-policy", "allkeys-lru"]
            .map(str::to_owned)
            .to_vec(),
        ..Options::default()
    });
    let coordination = RedisServer::start();
    let coordination_url = coordination.url();
    let replicas = Replicas::start(Setup::on(cache.url(), 3), |config| {
        config.redis.coordination.url = coordination_url.clone();
        config.redis.l2_max_bytes = 0;
        config.rate_limit.sign_in_failures_per_account = FAILURES_ALLOWED;
    })
    .await;
    let written = write_coordination_data(&replicas).await;
    let prefix = &replicas.key_prefix;
    assert!(
        coordination_keys(&cache, prefix).is_empty(),
        "no coordination data in the cache tier: {:?}",
        coordination_keys(&cache, prefix)
    );
    assert!(coordination_keys(&coordination, prefix).len() >= 3);
    // L2 is the cache tier's.
    replicas.replicas[0].get("/api/pages/home").await;
    let shared = replicas.replicas[1].get("/api/pages/home").await;
    assert!(header(&shared, "cache-status").starts_with("bff-l2; hit"));
    assert_eq!(
        cache.cli(&["EXISTS", &format!("{prefix}cache:entry:pages:home")]),
        "1"
    );

    // Three times maxmemory of cold values, one command at a time, as a busy cache tier sees.
    let filler = "x".repeat(1024);
    let commands: String = (0..12_000)
        .map(|index| format!("SET filler:{index} {filler}\r\n"))
        .collect();
    cache.pipe(&commands);
    assert!(
        info_number(&cache, "evicted_keys") > 1_000,
        "the cache tier evicted"
    );

    assert_honoured(&replicas, &written).await;
    replicas.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn with_one_redis_l2_writes_past_the_budget_evict_only_l2_values() {
    const BUDGET: u64 = 12 * 1024;
    let redis = RedisServer::start();
    let replicas = Replicas::start(Setup::on(redis.url(), 3), |config| {
        config.redis.l2_max_bytes = BUDGET;
        config.rate_limit.sign_in_failures_per_account = FAILURES_ALLOWED;
    })
    .await;
    let written = write_coordination_data(&replicas).await;
    let prefix = replicas.key_prefix.clone();
    let coordination_before = coordination_keys(&redis, &prefix);
    assert!(coordination_before.len() >= 3, "{coordination_before:?}");

    // Every content page, filled once: more than the budget in all.
    let mut stored_bytes = 0;
    for name in bff::content::PAGE_NAMES {
        let answer = replicas.replicas[0]
            .get(&format!("/api/pages/{name}"))
            .await;
        if answer.status() == 200 {
            stored_bytes += answer.bytes().await.unwrap().len();
        }
    }
    assert!(
        stored_bytes as u64 > BUDGET * 2,
        "the pages outweigh the budget ({stored_bytes} bytes)"
    );
    let entries = redis.cli(&["--scan", "--pattern", &format!("{prefix}cache:entry:*")]);
    let entries: Vec<&str> = entries.lines().filter(|key| !key.is_empty()).collect();
    let held: u64 = entries
        .iter()
        .map(|key| {
            let fields = ["meta", "body", "gzip", "brotli"];
            fields
                .iter()
                .map(|field| redis.cli(&["HSTRLEN", key, field]).parse::<u64>().unwrap())
                .sum::<u64>()
        })
        .sum();
    assert!(
        held <= BUDGET,
        "L2 holds {held} bytes, over its budget {BUDGET}"
    );
    assert!(!entries.is_empty(), "the newest values stay");
    assert_eq!(
        redis.cli(&["EXISTS", &format!("{prefix}cache:entry:pages:app")]),
        "0",
        "the oldest value went first"
    );
    let counted: u64 = redis
        .cli(&["GET", &format!("{prefix}cache:budget:total")])
        .parse()
        .unwrap();
    assert!(
        held <= counted && counted <= BUDGET,
        "{held} <= {counted} <= {BUDGET}"
    );

    let coordination_after = coordination_keys(&redis, &prefix);
    for key in &coordination_before {
        assert!(coordination_after.contains(key), "{key} was evicted");
    }
    assert_honoured(&replicas, &written).await;
    replicas.stop().await;
}
