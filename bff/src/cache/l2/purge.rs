//! Purging the shared tier, which is never scanned: a purge moves the version counters it
//! names (a tag's, a key's or a route's generation) and the purge epoch ([`PURGE`]), and every
//! value recorded under an older version is outdated, dropped when next read or left to
//! expire. A soft purge moves only the epoch and marks what the counters cover as stale from
//! now. The purges other replicas made arrive on the purge channel, and their versions are
//! remembered here (see [`super::version_floor`]).

use std::sync::LazyLock;

use redis::Script;

use super::keys::soft_mark_key;
use super::tier::SharedTier;
use crate::cache::policy::RouteKind;
use crate::config::duration::millis;
use crate::coordination::replicas::purge_bus::{Purge, PurgeMode};
use crate::coordination::replicas::replication::Replication;

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

static PURGE_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(PURGE));

impl SharedTier {
    /// Remembers the versions another replica's purge set (from the purge channel). A soft
    /// purge moved only the epoch.
    pub(in crate::cache) fn remember_purge(&self, purge: &Purge, mode: PurgeMode, version: u64) {
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

    /// Applies `purge` to L2: outdates the entries it names (they are dropped when next read,
    /// or expire), and moves the epoch so fills already under way are refused. The version it
    /// set and whether a replica acknowledged it, or `None` when Redis did not take it.
    /// A soft purge outdates nothing: it marks the entries the version keys cover as stale
    /// from now (see [`PURGE`]).
    pub(in crate::cache) async fn purge(
        &self,
        purge: &Purge,
        mode: PurgeMode,
    ) -> Option<(u64, Replication)> {
        let version_keys = self.purge_version_keys(purge);
        let epoch_key = self.epoch_key();
        let least = std::iter::once(&epoch_key)
            .chain(&version_keys)
            .map(|key| self.versions.least(key))
            .max()
            .unwrap_or(0);
        let mut invocation = PURGE_SCRIPT.prepare_invoke();
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
    pub(in crate::cache) fn purge_scope(&self, purge: &Purge) -> u64 {
        u64::try_from(self.purge_version_keys(purge).len()).unwrap_or(u64::MAX)
    }
}
