//! Reading the shared tier: an entry (on an L1 miss, before the upstream) or a server-rendered
//! document. Purges never scan Redis: every value records the versions of its tags and of its
//! route as they were when it was written, and a read that finds one out of date drops the
//! value ([`CURRENT`]). A value whose MAC fails is a miss, refetched and written over; one
//! recorded under versions that went back (a failover lost a purge) is outdated (see
//! [`super::version_floor`]). Every Redis failure here is a miss, never an error.

use std::sync::{Arc, LazyLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use redis::Script;

use super::keys::soft_mark_key;
use super::tier::SharedTier;
use super::wire::{ENTRY_FIELDS, Stored, StoredParts, signed_fields};
use crate::cache::entry::{CachedResponse, SharedMeta};
use crate::cache::policy::{CachePolicy, RouteKind};
use crate::coordination::shared_tier_mac::SignedKind;
use crate::observe::metrics::RedisEvent;

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

static CURRENT_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(CURRENT));

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

impl SharedTier {
    /// The entry for `key` in L2, if there is a current one; counted as an L2 hit, stale or miss.
    pub(in crate::cache) async fn read(
        &self,
        route: RouteKind,
        key: &str,
        policy: &CachePolicy,
    ) -> Option<Arc<CachedResponse>> {
        self.read_explained(route, key, policy).await.0
    }

    /// [`Self::read`], and whether L2 held a value for `key` that a purge had outdated (the
    /// miss reason `outdated_in_l2`).
    pub(in crate::cache) async fn read_explained(
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

    /// The document stored under `key` whose recorded versions are all current: its meta,
    /// body, gzip and brotli (`None` for a missing variant); counted as an L2 hit or miss.
    /// A document a soft purge marked is not served from here: it is rendered again from its
    /// parts, which are served stale while they refresh.
    pub(in crate::cache) async fn read_document(
        &self,
        key: &str,
        route: RouteKind,
    ) -> Option<Stored> {
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
        let mut current = CURRENT_SCRIPT.prepare_invoke();
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
}

/// The instant of this process's clock at the Unix time `unix_ms` (`None` before what the
/// monotonic clock can say).
fn instant_of_unix_ms(unix_ms: u64) -> Option<Instant> {
    let ago = crate::coordination::replicas::unix_ms().saturating_sub(unix_ms);
    Instant::now().checked_sub(Duration::from_millis(ago))
}
