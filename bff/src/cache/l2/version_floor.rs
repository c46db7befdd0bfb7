//! The floor under the purge versions: replication to a Redis replica is asynchronous, so a
//! failover can lose a purge's version bump, under which the purged values are current again.
//! This replica remembers every version it sets, reads or is told about
//! ([`VersionMemory`](crate::cache::versions::VersionMemory)); a version Redis answers below
//! that is raised again ([`RAISE`]) before anything recorded under it is used. The purge
//! epoch, read before every fetch, is checked the same way.

use std::sync::LazyLock;

use redis::Script;

use super::tier::SharedTier;
use crate::config::duration::millis;
use crate::coordination::replicas::Unavailable;
use crate::observe::metrics::RedisEvent;

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

static RAISE_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(RAISE));

impl SharedTier {
    /// The purge epoch, read before a fetch so the fill can tell whether a purge overtook it.
    /// An epoch that went back (a purge lost in a failover) is restored first, so a fetch
    /// begun before that purge cannot be stored.
    pub(in crate::cache) async fn epoch(&self) -> Result<String, Unavailable> {
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
        let mut invocation = RAISE_SCRIPT.prepare_invoke();
        invocation.arg(millis(self.lifetime).max(1)).arg(0);
        for (key, least) in versions {
            invocation.key(key).arg(*least);
        }
        self.redis
            .invoke::<i64>("cache_l2_restore", &invocation)
            .await
            .map(|_| ())
    }

    /// Whether an entry stored under `recorded` versions (current in Redis, or `CURRENT` would
    /// not have passed it) may be used: none is below what this replica remembers. Those
    /// below are restored (the entry is then outdated for every replica); the others are
    /// remembered.
    pub(super) async fn accepts(&self, recorded: &[(String, u64)]) -> bool {
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
}
