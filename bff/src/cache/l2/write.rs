//! Writing the shared tier: an entry after a fetch, or a server-rendered document. A fill
//! carries the purge epoch it saw before fetching and is refused when any purge happened since
//! ([`FILL`]), so an answer already on its way can never undo a purge (as the L1's own
//! generation counter does in process). The value records the versions it was written under,
//! read just before and signed with it; with a byte budget, the oldest-written values are
//! dropped to make room. A write that fails is dropped: the value is fetched again later.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use bytes::Bytes;
use redis::Script;

use super::tier::SharedTier;
use super::wire::signed_fields;
use crate::cache::entry::CachedResponse;
use crate::cache::policy::RouteKind;
use crate::config::duration::millis;

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

static FILL_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(FILL));

/// What an L2 write carries beside its key and the versions it records.
pub(in crate::cache) struct Written<'a> {
    /// The purge epoch read before the fetch began (a document's: before its parts were
    /// looked up).
    pub epoch: &'a str,
    pub ttl: Duration,
    pub meta: Vec<u8>,
    pub body: &'a Bytes,
    pub gzip: Option<&'a Bytes>,
    pub brotli: Option<&'a Bytes>,
}

impl SharedTier {
    /// Stores `entry` for its remaining life, unless a purge happened since `epoch` was read.
    pub(in crate::cache) async fn write(
        &self,
        key: &str,
        entry: &CachedResponse,
        epoch: &str,
    ) -> bool {
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
    pub(in crate::cache) async fn write_document(
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
        let mut invocation = FILL_SCRIPT.prepare_invoke();
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
}
