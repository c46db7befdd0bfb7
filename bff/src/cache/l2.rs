//! The second cache tier, in Redis, shared by every replica: L1 (moka, per process) → L2 →
//! upstream. An L1 miss reads L2 before the upstream; a fill writes both. A cold key requested
//! on many replicas at once is fetched by one of them: the one that takes the key's fill lock
//! (`SET NX PX`, renewed while the fetch runs, released when it ends); the others wait for the
//! value in L2, and fetch on their own when the holder dies or gives nothing.
//!
//! Purges never scan Redis. Every stored entry records the versions of its tags and of its
//! route, read atomically when it is written; a purge increments those versions, and a read that
//! finds a recorded version out of date drops the entry. A fill also carries the purge epoch it
//! saw before fetching, and is refused when any purge happened since, so an answer already on
//! its way can never undo a purge (as the L1's own generation counter does in process).
//! A server-rendered document is stored the same way, with its parts' tags and also their keys'
//! versions (a purge by key bumps those), so a purge that names any of its parts outdates it.
//!
//! Every value carries a MAC ([`SharedTierMac`]) over its key, its bodies, its meta and the
//! versions it was recorded under: one this fleet did not write (by hand, or from an old value
//! put back after a purge) is a miss, refetched and written over.
//!
//! Every Redis failure here is a fallback, never an error: no L2 value, or a fetch of our own.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use redis::Script;

use super::entry::{CachedResponse, SharedMeta};
use super::policy::{CachePolicy, RouteKind};
use super::versions::VersionMemory;
use crate::config::duration::millis;
use crate::coordination::lease::{self, Claim, Held, Keys, Lease, OnDrop, Operations, WhenDown};
use crate::coordination::replicas::purge_bus::{Purge, PurgeBus, PurgeMode};
use crate::coordination::replicas::replication::Replication;
use crate::coordination::replicas::{Redis, Unavailable};
use crate::coordination::shared_tier_mac::{SharedTierMac, SignedKind};
use crate::observe::metrics::RedisEvent;

/// How long a fill lock lives without renewal: a holder that dies frees the key this soon. A
/// live holder renews it every third of this (every second).
const LOCK_TTL: Duration = Duration::from_secs(3);
/// How often a replica waiting on another's fill looks again.
const WAIT_POLL: Duration = Duration::from_millis(20);
/// The longest a replica waits on others' fills before fetching on its own, whatever the locks
/// say (a holder's fetch is bounded by its upstream timeout; this bounds a confused one).
const WAIT_MAX: Duration = Duration::from_secs(15);

/// Writes an entry unless a purge happened since its fetch began; records its versions. With a
/// byte budget (ARGV 7 > 0), counts the entry's bytes and names the oldest-written values to
/// drop until the count is back within it (the caller deletes them: a script touches only the
/// keys it declares). A value that expired or was dropped by a purge stays counted until its
/// turn comes, so the count can only overstate what L2 holds.
/// The value also records who wrote it and when (`filler`, `filled`), for explain; a build
/// before these fields wrote values without them (read as unknown), and reads only the fields
/// it knows, so both builds share L2 during a rolling deploy.
/// The MAC (ARGV 10) covers the versions the writer read (ARGV 11, 12) just before: the write
/// is refused unless they are still the ones in Redis, so what is recorded is what was signed.
/// KEYS: entry, epoch, route generation, budget order (zset), budget sizes (hash), budget
/// total, tag (and, for a document, part key) versions…; ARGV: epoch seen, ttl ms, meta, body,
/// gzip, brotli, budget bytes, now (ms), the filling replica's id, the MAC, the route
/// generation and the versions (newline-separated) it covers.
/// Returns 0 when refused, else {1, values to delete…}.
const FILL: &str = r"
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[1] then return 0 end
local generation = redis.call('GET', KEYS[3]) or '0'
local versions = {}
local tag_keys = {}
for i = 7, #KEYS do
  tag_keys[#tag_keys + 1] = KEYS[i]
  versions[#versions + 1] = redis.call('GET', KEYS[i]) or '0'
end
local recorded = table.concat(versions, '\n')
if generation ~= ARGV[11] or recorded ~= ARGV[12] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'meta', ARGV[3], 'body', ARGV[4], 'gzip', ARGV[5], 'brotli', ARGV[6],
  'gen', generation, 'tagkeys', table.concat(tag_keys, '\n'),
  'tagvers', recorded, 'filler', ARGV[9], 'filled', ARGV[8], 'mac', ARGV[10])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local dropped = {1}
local budget = tonumber(ARGV[7])
if budget > 0 then
  local size = #ARGV[3] + #ARGV[4] + #ARGV[5] + #ARGV[6] + #ARGV[10]
  local before = tonumber(redis.call('HGET', KEYS[5], KEYS[1]) or '0')
  redis.call('HSET', KEYS[5], KEYS[1], size)
  redis.call('ZADD', KEYS[4], ARGV[8], KEYS[1])
  local total = redis.call('INCRBY', KEYS[6], size - before)
  while total > budget do
    local oldest = redis.call('ZPOPMIN', KEYS[4])
    if #oldest == 0 then
      redis.call('SET', KEYS[6], 0)
      break
    end
    local freed = tonumber(redis.call('HGET', KEYS[5], oldest[1]) or '0')
    redis.call('HDEL', KEYS[5], oldest[1])
    total = redis.call('DECRBY', KEYS[6], freed)
    dropped[#dropped + 1] = oldest[1]
  end
end
return dropped
";

/// The fields of a stored entry, read first (`HMGET`): the entry names its version keys, which
/// [`CURRENT`] then declares; the last is the MAC over all the others.
const ENTRY_FIELDS: [&str; 8] = [
    "meta", "body", "gzip", "brotli", "gen", "tagkeys", "tagvers", "mac",
];

/// Whether an entry read a moment ago is current: its recorded route generation and versions
/// still hold. One that a purge outdated is dropped, unless a fill replaced it since it was
/// read. A purge between the read and this check outdates it here, as it would have a moment
/// later; the read and the check need not be one step. Every key is declared (a cluster
/// needs it): KEYS: entry, route generation, the recorded version keys…, then the soft-purge
/// marks of the generation and of each version key; ARGV: the recorded generation, the
/// recorded versions as stored (newline-separated), then each version.
/// Returns 0 when outdated, else the latest soft-purge mark (Unix ms) among its keys, or 1
/// when none has one.
const CURRENT: &str = r"
local count = #ARGV - 2
local current = (redis.call('GET', KEYS[2]) or '0') == ARGV[1]
for i = 3, count + 2 do
  if current and (redis.call('GET', KEYS[i]) or '0') ~= ARGV[i] then current = false end
end
if current then
  local marked = 1
  for i = count + 3, #KEYS do
    local mark = tonumber(redis.call('GET', KEYS[i]) or '0') or 0
    if mark > marked then marked = mark end
  end
  return marked
end
local stored = redis.call('HMGET', KEYS[1], 'gen', 'tagvers')
if stored[1] == ARGV[1] and (stored[2] or '') == ARGV[2] then redis.call('DEL', KEYS[1]) end
return 0
";

/// Restores versions that went back: each key below its ARGV (from 3 on) is set to it, for
/// ARGV[1] ms. KEYS: the version keys; ARGV: ttl ms, unused, the least version of each key.
const RAISE: &str = r"
for i = 1, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') < tonumber(ARGV[i + 2]) then
    redis.call('SET', KEYS[i], ARGV[i + 2], 'PX', ARGV[1])
  end
end
return 1
";

/// Applies a purge: sets the epoch and every version key it names to one new version, above
/// the epoch, above each key's current version and above the least this replica remembers
/// (so a counter that went back, or was evicted, still moves forward); each expires after the
/// longest entry lifetime, refreshed by every purge; then deletes the entries named. KEYS:
/// epoch, ARGV[2] version keys, entries to delete; ARGV: ttl ms, how many version keys, the
/// least version remembered.
/// A soft purge (ARGV[4] `soft`, from a build that has them) moves only the epoch (fills
/// already under way are refused) and sets the soft-purge marks given in place of version
/// keys to ARGV[5] (Unix ms): entries recorded under them stay, and read as stale from then.
/// Returns the version set.
const PURGE: &str = r"
local version = redis.call('INCR', KEYS[1])
local least = tonumber(ARGV[3])
if version <= least then version = least + 1 end
local count = tonumber(ARGV[2])
if ARGV[4] == 'soft' then
  redis.call('SET', KEYS[1], version, 'PX', ARGV[1])
  for i = 2, count + 1 do
    redis.call('SET', KEYS[i], ARGV[5], 'PX', ARGV[1])
  end
  return version
end
for i = 2, count + 1 do
  local current = tonumber(redis.call('GET', KEYS[i]) or '0')
  if version <= current then version = current + 1 end
end
for i = 1, count + 1 do
  redis.call('SET', KEYS[i], version, 'PX', ARGV[1])
end
for i = count + 2, #KEYS do
  redis.call('DEL', KEYS[i])
end
return version
";

/// The fill lock's Redis commands, as `bff_redis_errors_total` names them.
const FILL_LOCK: Operations = Operations {
    claim: "cache_fill_lock",
    renew: "cache_fill_lock_renew",
    release: "cache_fill_lock_release",
    publish: "cache_fill_lock_publish",
    peek: "cache_fill_wait",
};

/// An entry's [`ENTRY_FIELDS`]: meta, body, gzip and brotli (empty: no such variant), then the
/// route generation, the tag keys and their versions (newline-separated) it was stored under,
/// and its MAC; `None` where the field (or the entry) is missing.
type StoredParts = (
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<Vec<u8>>,
);

/// [`StoredParts`], then who filled the value and when (absent when an older build wrote it).
type InspectedParts = (
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<Vec<u8>>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<Vec<u8>>,
    Option<String>,
    Option<u64>,
);

/// The fields a value's MAC covers, in order: meta, body, gzip, brotli (empty when absent),
/// the route generation, the version keys and the versions recorded (newline-separated).
fn signed_fields<'a>(
    (meta, body, gzip, brotli): (&'a [u8], &'a [u8], &'a [u8], &'a [u8]),
    generation: &'a str,
    version_keys: &'a str,
    versions: &'a str,
) -> [&'a [u8]; 7] {
    [
        meta,
        body,
        gzip,
        brotli,
        generation.as_bytes(),
        version_keys.as_bytes(),
        versions.as_bytes(),
    ]
}

/// A value read from L2: its meta, body, gzip and brotli (`None`: no such variant).
pub(super) type Stored = (Vec<u8>, Bytes, Option<Bytes>, Option<Bytes>);

/// What a read found at a key.
enum L2Value {
    /// A value whose recorded versions all hold, with the latest soft purge (Unix ms) of its
    /// keys, if any.
    Current(Stored, Option<u64>),
    /// No value.
    Absent,
    /// A value a purge has outdated (or recorded under versions that went back).
    Outdated,
}

/// What L2 holds at a key, for explain.
#[derive(Debug, Default)]
pub(super) struct Inspected {
    /// The value (meta, body, gzip, brotli), if any.
    pub value: Option<Stored>,
    /// Whether its recorded versions all hold and its MAC does (a read would serve it).
    pub current: bool,
    pub size_bytes: u64,
    /// Until Redis drops it (its last stale window's end).
    pub ttl_ms: Option<u64>,
    /// The replica that wrote it; `None` for a value an older build wrote.
    pub filled_by: Option<String>,
    pub filled_at_unix_ms: Option<u64>,
}

/// What an L2 write carries beside its key and the versions it records.
pub(super) struct Written<'a> {
    /// The purge epoch read before the fetch began (a document's: before its parts were
    /// looked up).
    pub epoch: &'a str,
    pub ttl: Duration,
    pub meta: Vec<u8>,
    pub body: &'a Bytes,
    pub gzip: Option<&'a Bytes>,
    pub brotli: Option<&'a Bytes>,
}

/// The L2 tier and the purge fan-out of one cache.
pub(super) struct SharedTier {
    redis: Redis,
    /// Signs what this replica writes, and checks what it reads.
    mac: SharedTierMac,
    pub(super) bus: PurgeBus,
    fill: Script,
    current: Script,
    raise: Script,
    purge: Script,
    /// The highest purge versions seen, to restore any that went back.
    versions: VersionMemory,
    /// The longest an entry can live: how long version keys and the memory of them last.
    lifetime: Duration,
    /// This replica's id, recorded with every value it writes.
    replica: String,
    /// One fetch per key across replicas. A fill is an upstream read, safe to redo: a holder
    /// dropped mid-fetch releases its lock at once.
    fill_lock: Lease,
}

/// The outcome of trying a key's fill lock.
pub(super) enum LockAttempt {
    Acquired(FillLock),
    /// Another replica is filling the key.
    Held,
    Unavailable,
}

/// A held fill lock: renewed in the background until released or dropped.
pub(super) type FillLock = Held;

impl SharedTier {
    /// The tier in `redis`, its values signed and checked with `mac`, for entries that live at
    /// most `lifetime`, shared by `replica`.
    pub(super) fn new(
        redis: Redis,
        mac: SharedTierMac,
        lifetime: Duration,
        replica: String,
    ) -> Self {
        Self {
            mac,
            bus: PurgeBus::new(redis.clone(), replica.clone()),
            replica,
            fill_lock: Lease::new(redis.clone(), LOCK_TTL, true, OnDrop::Release, FILL_LOCK),
            redis,
            fill: Script::new(FILL),
            current: Script::new(CURRENT),
            raise: Script::new(RAISE),
            purge: Script::new(PURGE),
            versions: VersionMemory::new(lifetime),
            lifetime,
        }
    }

    pub(super) fn redis(&self) -> &Redis {
        &self.redis
    }

    // Entries, their versions and the byte budget are read and written together by one
    // script (a fill records every version; a purge moves the epoch and the versions and
    // deletes entries): on a cluster they share the hash tag `{cache}`, one slot, so all of L2
    // lives on one primary. The fill locks, one key each, spread over the cluster.

    fn entry_key(&self, key: &str) -> String {
        self.redis.tagged_key(&["cache", "entry", key], 0)
    }

    fn epoch_key(&self) -> String {
        self.redis.tagged_key(&["cache", "epoch"], 0)
    }

    fn route_generation_key(&self, route: RouteKind) -> String {
        self.redis.tagged_key(&["cache", "gen", route.as_str()], 0)
    }

    fn tag_version_key(&self, tag: &str) -> String {
        self.redis.tagged_key(&["cache", "tagv", tag], 0)
    }

    /// The version of the entry `key` as a document's part: bumped by a purge of that key.
    fn key_version_key(&self, key: &str) -> String {
        self.redis.tagged_key(&["cache", "keyv", key], 0)
    }

    /// The L2 byte budget's bookkeeping: values by write time, their sizes, and the total.
    fn budget_keys(&self) -> [String; 3] {
        ["order", "sizes", "total"].map(|part| self.redis.tagged_key(&["cache", "budget", part], 0))
    }

    fn lock_keys(&self, key: &str) -> Keys {
        Keys::lease_only(self.redis.key(&["cache", "lock", key]))
    }

    /// The entry for `key` in L2, if there is a current one; counted as an L2 hit, stale or miss.
    pub(super) async fn read(
        &self,
        route: RouteKind,
        key: &str,
        policy: &CachePolicy,
    ) -> Option<Arc<CachedResponse>> {
        self.read_explained(route, key, policy).await.0
    }

    /// [`Self::read`], and whether L2 held a value for `key` that a purge had outdated (the
    /// miss reason `outdated_in_l2`).
    pub(super) async fn read_explained(
        &self,
        route: RouteKind,
        key: &str,
        policy: &CachePolicy,
    ) -> (Option<Arc<CachedResponse>>, bool) {
        let (found, outdated) = match self.read_stored(key, route, SignedKind::Entry).await {
            None => return (None, false),
            Some(L2Value::Current(stored, soft_mark)) => (Some((stored, soft_mark)), false),
            Some(L2Value::Absent) => (None, false),
            Some(L2Value::Outdated) => (None, true),
        };
        let entry = found.and_then(|((meta, body, gzip, brotli), soft_mark)| {
            let meta: SharedMeta = serde_json::from_slice(&meta).ok()?;
            let entry = CachedResponse::from_shared(meta, body, gzip, brotli, policy)?;
            if let Some(marked_at) = soft_mark.and_then(instant_of_unix_ms)
                && marked_at >= entry.stored_at
            {
                entry.mark_stale(marked_at);
            }
            Some(entry)
        });
        let event = match &entry {
            None => RedisEvent::L2Miss,
            Some(entry) if entry.freshness(policy).is_fresh(Instant::now()) => RedisEvent::L2Hit,
            Some(_) => RedisEvent::L2Stale,
        };
        self.redis.count(event);
        (entry.map(Arc::new), outdated)
    }

    /// The purge epoch, read before a fetch so the fill can tell whether a purge overtook it.
    /// An epoch that went back (a purge lost in a failover) is restored first, so a fetch
    /// begun before that purge cannot be stored.
    pub(super) async fn epoch(&self) -> Result<String, Unavailable> {
        let key = self.epoch_key();
        let epoch: Option<u64> = self
            .redis
            .query("cache_l2_epoch", redis::cmd("GET").arg(&key))
            .await?;
        let epoch = epoch.unwrap_or(0);
        let least = self.versions.least(&key);
        if epoch < least {
            self.restore(&[(key, least)]).await?;
            return Ok(least.to_string());
        }
        self.versions.remember(&key, epoch);
        Ok(epoch.to_string())
    }

    /// Sets each of `versions` (key, least version) back up where Redis answered lower.
    async fn restore(&self, versions: &[(String, u64)]) -> Result<(), Unavailable> {
        tracing::warn!(
            keys = ?versions.iter().map(|(key, _)| key).collect::<Vec<_>>(),
            "purge versions went back in Redis (a failover lost writes); restoring them"
        );
        self.redis.count(RedisEvent::VersionRestored);
        let mut invocation = self.raise.prepare_invoke();
        invocation.arg(millis(self.lifetime).max(1)).arg(0);
        for (key, least) in versions {
            invocation.key(key).arg(*least);
        }
        self.redis
            .invoke::<i64>("cache_l2_restore", &invocation)
            .await
            .map(|_| ())
    }

    /// Stores `entry` for its remaining life, unless a purge happened since `epoch` was read.
    pub(super) async fn write(&self, key: &str, entry: &CachedResponse, epoch: &str) -> bool {
        let ttl = entry.hard_until.saturating_duration_since(Instant::now());
        if ttl.is_zero() {
            return false;
        }
        let Ok(meta) = serde_json::to_vec(&entry.shared_meta()) else {
            return false;
        };
        // Its own key's version too: a purge by key that a failover lost is then restored like
        // any other version, where the entry's deletion would just be undone.
        let versions = entry
            .tags
            .iter()
            .map(|tag| self.tag_version_key(tag))
            .chain(std::iter::once(self.key_version_key(key)));
        let written = Written {
            epoch,
            ttl,
            meta,
            body: &entry.body,
            gzip: entry.gzip.as_ref(),
            brotli: entry.brotli.as_ref(),
        };
        self.store(key, entry.route, versions, written).await
    }

    /// Stores a server-rendered document under `key` (its build id is in it) for `ttl`, unless a
    /// purge happened since `epoch` was read: `meta` names the parts it was made from, and the
    /// versions of their tags, of their keys (`part_keys`), of `route`'s generation and of the
    /// generations of the parts' other routes (`part_routes`) are recorded, so a purge of any of
    /// them outdates it as it outdates an entry.
    pub(super) async fn write_document(
        &self,
        key: &str,
        route: RouteKind,
        part_routes: &[RouteKind],
        tags: &[&str],
        part_keys: &[&str],
        written: Written<'_>,
    ) -> bool {
        let versions = tags
            .iter()
            .map(|tag| self.tag_version_key(tag))
            .chain(part_keys.iter().map(|part| self.key_version_key(part)))
            .chain(
                part_routes
                    .iter()
                    .filter(|other| **other != route)
                    .map(|other| self.route_generation_key(*other)),
            );
        self.store(key, route, versions, written).await
    }

    /// Runs `FILL` for `key`, recording `route`'s generation and the `versions` (keys of
    /// counters a purge bumps) as they are now.
    /// The versions are read first, to be signed: the script refuses the write if any moved
    /// since (as after a purge, which also moves the epoch).
    async fn store(
        &self,
        key: &str,
        route: RouteKind,
        versions: impl Iterator<Item = String>,
        written: Written<'_>,
    ) -> bool {
        let entry_key = self.entry_key(key);
        let generation_key = self.route_generation_key(route);
        let version_keys: Vec<String> = versions.collect();
        let mut read = redis::cmd("MGET");
        read.arg(&generation_key).arg(&version_keys);
        let Ok(current) = self
            .redis
            .query::<Vec<Option<String>>>("cache_l2_write_versions", &read)
            .await
        else {
            return false;
        };
        let mut current = current
            .into_iter()
            .map(|version| version.unwrap_or_else(|| "0".to_owned()));
        let generation = current.next().unwrap_or_else(|| "0".to_owned());
        let recorded = current.collect::<Vec<_>>().join("\n");
        let joined_keys = version_keys.join("\n");
        let bodies = (
            written.meta.as_slice(),
            written.body.as_ref(),
            written.gzip.map(Bytes::as_ref).unwrap_or_default(),
            written.brotli.map(Bytes::as_ref).unwrap_or_default(),
        );
        let mac = self.mac.sign(
            &entry_key,
            &signed_fields(bodies, &generation, &joined_keys, &recorded),
        );
        let mut invocation = self.fill.prepare_invoke();
        invocation
            .key(&entry_key)
            .key(self.epoch_key())
            .key(&generation_key);
        for budget_key in self.budget_keys() {
            invocation.key(budget_key);
        }
        for version in &version_keys {
            invocation.key(version);
        }
        invocation
            .arg(written.epoch)
            .arg(millis(written.ttl).max(1))
            .arg(written.meta)
            .arg(written.body.as_ref())
            .arg(written.gzip.map(Bytes::as_ref).unwrap_or_default())
            .arg(written.brotli.map(Bytes::as_ref).unwrap_or_default())
            .arg(self.redis.l2_max_bytes())
            .arg(crate::coordination::replicas::unix_ms())
            .arg(&self.replica)
            .arg(mac)
            .arg(&generation)
            .arg(&recorded);
        let answer = self
            .redis
            .invoke::<redis::Value>("cache_l2_write", &invocation)
            .await;
        let Ok(redis::Value::Array(answer)) = answer else {
            return false;
        };
        // Past the budget: the values the script took off the books, deleted here.
        let dropped: Vec<Vec<u8>> = answer
            .into_iter()
            .skip(1)
            .filter_map(|key| match key {
                redis::Value::BulkString(key) => Some(key),
                _ => None,
            })
            .collect();
        if !dropped.is_empty() {
            let mut unlink = redis::cmd("UNLINK");
            unlink.arg(dropped);
            let _ = self.redis.query::<i64>("cache_l2_evict", &unlink).await;
        }
        true
    }

    /// The document stored under `key` whose recorded versions are all current: its meta,
    /// body, gzip and brotli (`None` for a missing variant); counted as an L2 hit or miss.
    /// A document a soft purge marked is not served from here: it is rendered again from its
    /// parts, which are served stale while they refresh.
    pub(super) async fn read_document(&self, key: &str, route: RouteKind) -> Option<Stored> {
        let found = match self.read_stored(key, route, SignedKind::Document).await? {
            L2Value::Current(stored, None) => Some(stored),
            L2Value::Current(_, Some(_)) | L2Value::Absent | L2Value::Outdated => None,
        };
        self.redis.count(if found.is_some() {
            RedisEvent::L2Hit
        } else {
            RedisEvent::L2Miss
        });
        found
    }

    /// The entry for `key`, if its MAC holds and its recorded versions under `route`'s
    /// generation are current ([`ENTRY_FIELDS`], then [`CURRENT`]): `None` when Redis did not
    /// answer; with a current value, the latest soft purge (Unix ms) of its keys. A value whose
    /// MAC fails is absent, counted as a rejected `kind`.
    async fn read_stored(&self, key: &str, route: RouteKind, kind: SignedKind) -> Option<L2Value> {
        let entry_key = self.entry_key(key);
        let mut fields = redis::cmd("HMGET");
        fields.arg(&entry_key).arg(&ENTRY_FIELDS[..]);
        let found: StoredParts = self.redis.query("cache_l2_read", &fields).await.ok()?;
        let (Some(meta), body, gzip, brotli, Some(generation), tag_keys, tag_versions, mac) = found
        else {
            return Some(L2Value::Absent);
        };
        let (tag_keys, tag_versions) = (
            tag_keys.unwrap_or_default(),
            tag_versions.unwrap_or_default(),
        );
        let (body, gzip, brotli) = (
            body.unwrap_or_default(),
            gzip.unwrap_or_default(),
            brotli.unwrap_or_default(),
        );
        let bodies = (
            meta.as_slice(),
            body.as_slice(),
            gzip.as_slice(),
            brotli.as_slice(),
        );
        let signed = signed_fields(bodies, &generation, &tag_keys, &tag_versions);
        if !self.mac.check(kind, &entry_key, &signed, mac.as_deref()) {
            return Some(L2Value::Absent);
        }
        let generation_key = self.route_generation_key(route);
        let mut current = self.current.prepare_invoke();
        current
            .key(&entry_key)
            .key(&generation_key)
            .arg(&generation)
            .arg(&tag_versions);
        for (tag_key, version) in tag_keys.lines().zip(tag_versions.lines()) {
            current.key(tag_key).arg(version);
        }
        current.key(soft_mark_key(&self.redis, &generation_key));
        for tag_key in tag_keys.lines().take(tag_versions.lines().count()) {
            current.key(soft_mark_key(&self.redis, tag_key));
        }
        let answer: i64 = self
            .redis
            .invoke("cache_l2_read_check", &current)
            .await
            .ok()?;
        if answer < 1 {
            return Some(L2Value::Outdated);
        }
        let soft_mark = u64::try_from(answer).ok().filter(|mark| *mark > 1);
        let recorded = std::iter::once((generation_key, generation))
            .chain(
                tag_keys
                    .lines()
                    .map(str::to_owned)
                    .zip(tag_versions.lines().map(str::to_owned)),
            )
            .map(|(key, version)| (key, version.parse::<u64>().unwrap_or(0)))
            .collect::<Vec<_>>();
        if !self.accepts(&recorded).await {
            return Some(L2Value::Outdated);
        }
        let variant = |bytes: Vec<u8>| (!bytes.is_empty()).then(|| Bytes::from(bytes));
        Some(L2Value::Current(
            (meta, Bytes::from(body), variant(gzip), variant(brotli)),
            soft_mark,
        ))
    }

    /// What L2 holds at `key`, for explain: read only (an outdated value is reported, not
    /// dropped). `None` when Redis did not answer.
    pub(super) async fn inspect(&self, key: &str, route: RouteKind) -> Option<Inspected> {
        let entry_key = self.entry_key(key);
        let mut fields = redis::cmd("HMGET");
        fields
            .arg(&entry_key)
            .arg(&ENTRY_FIELDS[..])
            .arg("filler")
            .arg("filled");
        let (meta, body, gzip, brotli, generation, tag_keys, tag_versions, mac, filler, filled): InspectedParts =
            self.redis.query("cache_l2_explain", &fields).await.ok()?;
        let (Some(meta), Some(generation)) = (meta, generation) else {
            return Some(Inspected::default());
        };
        let ttl_ms: i64 = self
            .redis
            .query("cache_l2_explain", redis::cmd("PTTL").arg(&entry_key))
            .await
            .ok()?;
        // the recorded versions against the current ones, without the read path's cleanup
        let tag_keys = tag_keys.unwrap_or_default();
        let mut version_keys = vec![self.route_generation_key(route)];
        version_keys.extend(tag_keys.lines().map(str::to_owned));
        let current: Vec<Option<String>> = self
            .redis
            .query("cache_l2_explain", redis::cmd("MGET").arg(&version_keys))
            .await
            .ok()?;
        let tag_versions = tag_versions.unwrap_or_default();
        let recorded = std::iter::once(generation.as_str()).chain(tag_versions.lines());
        let versions_hold = current
            .into_iter()
            .zip(recorded)
            .all(|(now, then)| now.as_deref().unwrap_or("0") == then);
        // checked, not counted: explain only looks
        fn bytes(field: &Option<Vec<u8>>) -> &[u8] {
            field.as_deref().unwrap_or_default()
        }
        let bodies = (meta.as_slice(), bytes(&body), bytes(&gzip), bytes(&brotli));
        let signed = signed_fields(bodies, &generation, &tag_keys, &tag_versions);
        let mac_holds = mac.is_some_and(|mac| self.mac.verify(&entry_key, &signed, &mac));
        let size = |bytes: &Option<Vec<u8>>| bytes.as_ref().map_or(0, Vec::len);
        let variant =
            |bytes: Option<Vec<u8>>| bytes.filter(|bytes| !bytes.is_empty()).map(Bytes::from);
        let size_bytes = meta.len() + size(&body) + size(&gzip) + size(&brotli);
        Some(Inspected {
            value: Some((
                meta,
                Bytes::from(body.unwrap_or_default()),
                variant(gzip),
                variant(brotli),
            )),
            current: versions_hold && mac_holds,
            size_bytes: u64::try_from(size_bytes).unwrap_or(u64::MAX),
            ttl_ms: u64::try_from(ttl_ms).ok(),
            filled_by: filler.filter(|filler| !filler.is_empty()),
            filled_at_unix_ms: filled,
        })
    }

    /// Whether an entry stored under `recorded` versions (current in Redis, or `CURRENT` would
    /// not have passed it) may be used: none is below what this replica remembers. Those
    /// below are restored (the entry is then outdated for every replica); the others are
    /// remembered.
    async fn accepts(&self, recorded: &[(String, u64)]) -> bool {
        let went_back: Vec<(String, u64)> = recorded
            .iter()
            .filter_map(|(key, version)| {
                let least = self.versions.least(key);
                (*version < least).then(|| (key.clone(), least))
            })
            .collect();
        if went_back.is_empty() {
            for (key, version) in recorded {
                self.versions.remember(key, *version);
            }
            return true;
        }
        let _ = self.restore(&went_back).await;
        false
    }

    /// Remembers the versions another replica's purge set (from the purge channel). A soft
    /// purge moved only the epoch.
    pub(super) fn remember_purge(&self, purge: &Purge, mode: PurgeMode, version: u64) {
        self.versions.remember(&self.epoch_key(), version);
        if mode == PurgeMode::Soft {
            return;
        }
        for key in self.purge_version_keys(purge) {
            self.versions.remember(&key, version);
        }
    }

    /// The version keys `purge` moves.
    fn purge_version_keys(&self, purge: &Purge) -> Vec<String> {
        match purge {
            Purge::Tags(tags) => tags.iter().map(|tag| self.tag_version_key(tag)).collect(),
            Purge::Keys(keys) => keys.iter().map(|key| self.key_version_key(key)).collect(),
            Purge::All => RouteKind::ALL
                .iter()
                .map(|route| self.route_generation_key(*route))
                .collect(),
            Purge::AllExceptTags(kept) => {
                // By route: a route whose every entry carries a kept tag (the price map's
                // `prices`) keeps its entries; every other route's are outdated. This may drop
                // more than the L1 purge does (a collection tagged with a kept product), never
                // less.
                RouteKind::ALL
                    .iter()
                    .filter(|route| {
                        let route_wide_tag = match route {
                            RouteKind::Search | RouteKind::Prices | RouteKind::Tiles => {
                                Some(route.tag("").to_string())
                            }
                            RouteKind::Pages | RouteKind::Product | RouteKind::Collection => None,
                        };
                        !route_wide_tag.is_some_and(|tag| kept.contains(&tag))
                    })
                    .map(|route| self.route_generation_key(*route))
                    .collect()
            }
        }
    }

    /// Tries to become the one replica that fills `key`.
    pub(super) async fn try_lock(&self, key: &str) -> LockAttempt {
        match self
            .fill_lock
            .claim(&self.lock_keys(key), &Lease::new_token())
            .await
        {
            Claim::Claimed(lock) => LockAttempt::Acquired(lock),
            // A lock alone publishes nothing: its value is the entry the holder writes.
            Claim::Busy | Claim::Published(_) => LockAttempt::Held,
            Claim::Unavailable => LockAttempt::Unavailable,
        }
    }

    pub(super) async fn release(&self, lock: FillLock) {
        let _ = lock.release().await;
    }

    /// Waits while another replica holds `key`'s fill lock, then reads what it stored.
    /// `None`: the holder stored nothing (it failed, or the answer was not cacheable), Redis
    /// went away, or the wait hit its bound; the caller tries the lock again or fetches.
    pub(super) async fn wait_for_fill(
        &self,
        route: RouteKind,
        key: &str,
        policy: &CachePolicy,
        deadline: Instant,
    ) -> Option<Arc<CachedResponse>> {
        let keys = self.lock_keys(key);
        let deadline = tokio::time::Instant::from_std(deadline);
        let freed = lease::wait_until(deadline, WAIT_POLL, WhenDown::Stop, || async {
            Ok((!self.fill_lock.is_held(&keys).await?).then_some(()))
        })
        .await;
        match freed {
            lease::Waited::Ready(()) => self.read(route, key, policy).await,
            lease::Waited::TimedOut | lease::Waited::Unavailable => None,
        }
    }

    /// The deadline for waiting on other replicas' fills, from now.
    pub(super) fn wait_deadline() -> Instant {
        Instant::now() + WAIT_MAX
    }

    /// Applies `purge` to L2: outdates the entries it names (they are dropped when next read,
    /// or expire), and moves the epoch so fills already under way are refused. The version it
    /// set and whether a replica acknowledged it, or `None` when Redis did not take it.
    /// A soft purge outdates nothing: it marks the entries the version keys cover as stale
    /// from now (see [`PURGE`]).
    pub(super) async fn purge(&self, purge: &Purge, mode: PurgeMode) -> Option<(u64, Replication)> {
        let version_keys = self.purge_version_keys(purge);
        let epoch_key = self.epoch_key();
        let least = std::iter::once(&epoch_key)
            .chain(&version_keys)
            .map(|key| self.versions.least(key))
            .max()
            .unwrap_or(0);
        let mut invocation = self.purge.prepare_invoke();
        invocation.key(&epoch_key);
        match mode {
            PurgeMode::Hard => {
                for key in &version_keys {
                    invocation.key(key);
                }
                if let Purge::Keys(keys) = purge {
                    for key in keys {
                        invocation.key(self.entry_key(key));
                    }
                }
            }
            PurgeMode::Soft => {
                for key in &version_keys {
                    invocation.key(soft_mark_key(&self.redis, key));
                }
            }
        }
        invocation
            .arg(millis(self.lifetime).max(1))
            .arg(version_keys.len())
            .arg(least)
            .arg(mode.as_str())
            .arg(crate::coordination::replicas::unix_ms());
        let (version, replication): (u64, Replication) = self
            .redis
            .invoke_replicated("cache_l2_purge", &invocation, &epoch_key)
            .await
            .ok()?;
        self.remember_purge(purge, mode, version);
        Some((version, replication))
    }

    /// How many L2 version counters `purge` moves (a tag's, a key's or a route's generation):
    /// each outdates (hard) or marks stale (soft) every L2 entry recorded under it. L2 is
    /// never scanned, so this is what an L2 purge can count.
    pub(super) fn purge_scope(&self, purge: &Purge) -> u64 {
        u64::try_from(self.purge_version_keys(purge).len()).unwrap_or(u64::MAX)
    }
}

/// The soft-purge mark beside the version key `version_key` (in its slot: `{cache}`): the
/// Unix ms of the last soft purge of what the key covers.
fn soft_mark_key(redis: &Redis, version_key: &str) -> String {
    redis.tagged_key(&["cache", "soft", version_key], 0)
}

/// The instant of this process's clock at the Unix time `unix_ms` (`None` before what the
/// monotonic clock can say).
fn instant_of_unix_ms(unix_ms: u64) -> Option<Instant> {
    let ago = crate::coordination::replicas::unix_ms().saturating_sub(unix_ms);
    Instant::now().checked_sub(Duration::from_millis(ago))
}
