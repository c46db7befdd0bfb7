//! One run per key across replicas, through Redis: the cross-replica twin of
//! [`single_flight`](crate::coordination::single_flight). The first replica to claim a key holds its lease and
//! does the work; the others wait (polling, until a deadline) for the value it publishes, or
//! for the lease to come free. Used by the cache's L2 fill lock, the session refresh lease and
//! the checkout idempotency keys.
//!
//! A lease is a Redis key set with `NX PX` to a token naming its holder. It expires on its own,
//! so a holder that dies (process killed, Redis partitioned away) frees it within its TTL; a
//! holder whose work may outlast the TTL renews it every third of it while it holds it.
//! Renewing, releasing and publishing act only while the key still holds the holder's token,
//! atomically in Lua: a lease that lapsed and was taken by another replica is never touched.
//!
//! Where the value goes is the caller's ([`Keys`]): nowhere the lease knows (the L2 cache
//! writes its own entries), in a key beside the lease (refresh successors: the first value
//! wins and drops the lease), or in place of the lease (idempotency answers replace their run's
//! marker).
//!
//! Redis may be down: a claim then answers [`Claim::Unavailable`] and every caller today goes
//! on alone (fail open); a wait is told by [`WhenDown`] whether a failed look ends it or counts
//! as "not yet".

use std::future::Future;
use std::sync::LazyLock;
use std::time::Duration;

use redis::Script;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::config::duration::millis;
use crate::coordination::replicas::{Redis, Unavailable};

/// Takes a free lease, unless a value is already published. KEYS: lease, [value]. ARGV: token,
/// ttl ms. Answers `{'published', value}`, `{'claimed'}` or `{'busy'}`. One script, so a waiter
/// can never read "no value", lose the race to a holder that publishes and releases, and then
/// take the free lease to redo work already done.
const CLAIM: &str = r"
if KEYS[2] then
  local value = redis.call('GET', KEYS[2])
  if value then return {'published', value} end
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {'claimed'} end
return {'busy'}
";

/// Extends the lease while it is still the holder's. KEYS: lease. ARGV: token, ttl ms.
const RENEW: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
";

/// Drops the lease while it is still the holder's (an expired one may be another's by now).
/// KEYS: lease. ARGV: token.
const RELEASE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
";

/// Publishes a value. KEYS: lease, value. ARGV: token, value, ttl ms.
/// In place (one key): the value replaces the holder's lease, or fills an empty key (after a
/// Redis restart); it never overwrites another holder's lease or value (answers 0).
/// Beside: the first value wins, and the lease is dropped if still the holder's (answers 1).
const PUBLISH: &str = r"
if KEYS[1] == KEYS[2] then
  local held = redis.call('GET', KEYS[1])
  if held == false or held == ARGV[1] then
    redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
    return 1
  end
  return 0
end
redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3])
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
";

struct Scripts {
    claim: Script,
    renew: Script,
    release: Script,
    publish: Script,
}

static SCRIPTS: LazyLock<Scripts> = LazyLock::new(|| Scripts {
    claim: Script::new(CLAIM),
    renew: Script::new(RENEW),
    release: Script::new(RELEASE),
    publish: Script::new(PUBLISH),
});

/// The names of a lease's Redis commands in `bff_redis_errors_total{operation}`: each caller
/// keeps its own, so the dashboards and alerts read as before.
#[derive(Debug, Clone, Copy)]
pub struct Operations {
    pub claim: &'static str,
    pub renew: &'static str,
    pub release: &'static str,
    pub publish: &'static str,
    /// A waiter's look at the key (`GET` of the value, or `EXISTS` of the lease).
    pub peek: &'static str,
}

/// What a holder's guard does when dropped without publishing or releasing (its task panicked
/// or was aborted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDrop {
    /// Release the lease at once: the work is safe to redo (an upstream read).
    Release,
    /// Leave the lease to lapse by its TTL: the work may have had effects upstream (an order, a
    /// spent refresh token), and a waiter that took over at once could repeat them.
    Lapse,
}

/// What a failed look does to a wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenDown {
    /// Ends the wait with [`Waited::Unavailable`]: the caller goes on alone (fail open) or
    /// refuses (fail closed), as is safe for it.
    Stop,
    /// Counts as "not yet": the wait goes on to its deadline (a holder may still publish).
    KeepWaiting,
}

/// A lease's keys, all under the storefront's prefix (made with [`Redis::key`]). A lease and
/// its value beside it are one script's keys: on a cluster they share a hash tag (made with
/// [`Redis::tagged_key`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    lease: String,
    /// `None`: the value is not the lease's business. Equal to `lease`: in place.
    value: Option<String>,
}

impl Keys {
    /// A lease alone: waiters look for the lease to come free, then read the value elsewhere.
    pub fn lease_only(lease: String) -> Self {
        Self { lease, value: None }
    }

    /// A lease with its value in a key of its own.
    pub fn beside(lease: String, value: String) -> Self {
        Self {
            lease,
            value: Some(value),
        }
    }

    /// One key: the holder's token while it works, then the value it publishes.
    pub fn in_place(key: String) -> Self {
        Self {
            value: Some(key.clone()),
            lease: key,
        }
    }

    pub fn lease(&self) -> &str {
        &self.lease
    }
}

/// What claiming a key found.
#[derive(Debug)]
pub enum Claim {
    /// This replica holds the lease now: it does the work.
    Claimed(Held),
    /// The value key holds this. (In place, that is whatever holds the key: a published value,
    /// or another holder's token; the caller's encoding tells them apart.)
    Published(Vec<u8>),
    /// Another replica holds the lease and nothing is published yet.
    Busy,
    /// Redis did not answer (counted and logged already).
    Unavailable,
}

/// How a wait ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Waited<T> {
    /// The look found what the waiter waits for.
    Ready(T),
    /// The deadline passed; the look was made one last time at the deadline.
    TimedOut,
    /// A look failed and [`WhenDown::Stop`] ended the wait.
    Unavailable,
}

/// Looks every `every` until `look` finds something, for at most until `deadline`: the first
/// look comes after one interval (the caller has just looked), and the last one is made at the
/// deadline, so a value published at the last moment is still used. `look` answers `Ok(None)`
/// for "not yet".
pub async fn wait_until<T, F, Fut>(
    deadline: Instant,
    every: Duration,
    when_down: WhenDown,
    mut look: F,
) -> Waited<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<T>, Unavailable>>,
{
    loop {
        tokio::time::sleep_until((Instant::now() + every).min(deadline)).await;
        match look().await {
            Ok(Some(found)) => return Waited::Ready(found),
            Ok(None) => {}
            Err(Unavailable { .. }) if when_down == WhenDown::Stop => return Waited::Unavailable,
            Err(Unavailable { .. }) => {}
        }
        if Instant::now() >= deadline {
            return Waited::TimedOut;
        }
    }
}

/// One kind of lease (one caller's): its TTL, renewal, drop rule and metric names. Cheap to
/// clone.
#[derive(Clone)]
pub struct Lease {
    redis: Redis,
    ttl: Duration,
    /// Whether a holder renews its lease every third of `ttl` while it holds it.
    renew: bool,
    on_drop: OnDrop,
    operations: Operations,
    /// Whether a claim and a publish wait for a Redis replica's acknowledgement (see
    /// [`crate::coordination::replicas::replication`]): for leases whose loss in a failover a
    /// shopper would see (a checkout's marker and answer).
    acknowledged: bool,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease")
            .field("ttl", &self.ttl)
            .field("renew", &self.renew)
            .field("on_drop", &self.on_drop)
            .finish_non_exhaustive()
    }
}

impl Lease {
    pub fn new(
        redis: Redis,
        ttl: Duration,
        renew: bool,
        on_drop: OnDrop,
        operations: Operations,
    ) -> Self {
        Self {
            redis,
            ttl,
            renew,
            on_drop,
            operations,
            acknowledged: false,
        }
    }

    /// This lease, its claims and publishes waiting for a replica's acknowledgement.
    pub fn acknowledged(mut self) -> Self {
        self.acknowledged = true;
        self
    }

    /// Runs `invocation` on `keys`, acknowledged by a replica when this lease asks for it.
    async fn invoke<T: redis::FromRedisValue>(
        &self,
        operation: &'static str,
        invocation: &redis::ScriptInvocation<'_>,
        keys: &Keys,
    ) -> Result<T, Unavailable> {
        if self.acknowledged {
            let (value, _) = self
                .redis
                .invoke_replicated(operation, invocation, &keys.lease)
                .await?;
            Ok(value)
        } else {
            self.redis.invoke(operation, invocation).await
        }
    }

    pub fn redis(&self) -> &Redis {
        &self.redis
    }

    pub fn ttl(&self) -> Duration {
        self.ttl
    }

    /// A fresh random token, for a holder that needs nothing else in it.
    pub fn new_token() -> Vec<u8> {
        uuid::Uuid::new_v4().to_string().into_bytes()
    }

    /// The published value if there is one, else the lease if it is free (as `token`'s),
    /// atomically.
    pub async fn claim(&self, keys: &Keys, token: &[u8]) -> Claim {
        let mut invocation = SCRIPTS.claim.prepare_invoke();
        invocation.key(&keys.lease);
        if let Some(value) = &keys.value {
            invocation.key(value);
        }
        invocation.arg(token).arg(millis(self.ttl));
        let reply: Vec<Vec<u8>> = match self.invoke(self.operations.claim, &invocation, keys).await
        {
            Ok(reply) => reply,
            Err(Unavailable { .. }) => return Claim::Unavailable,
        };
        match reply.as_slice() {
            [kind] if kind == b"claimed" => Claim::Claimed(self.held(keys.clone(), token.to_vec())),
            [kind, value] if kind == b"published" => Claim::Published(value.clone()),
            _ => Claim::Busy,
        }
    }

    /// What the value key holds (`None`: nothing; for a lease alone, always `None`).
    pub async fn peek(&self, keys: &Keys) -> Result<Option<Vec<u8>>, Unavailable> {
        let Some(value) = &keys.value else {
            return Ok(None);
        };
        self.redis
            .query(self.operations.peek, redis::cmd("GET").arg(value))
            .await
    }

    /// Whether anyone holds the lease.
    pub async fn is_held(&self, keys: &Keys) -> Result<bool, Unavailable> {
        self.redis
            .query(self.operations.peek, redis::cmd("EXISTS").arg(&keys.lease))
            .await
    }

    /// Publishes `value` for `ttl` as the holder `token` (see [`Held::publish`]); for a holder
    /// that keeps its token rather than a guard (one token per process).
    pub async fn publish_as(
        &self,
        keys: &Keys,
        token: &[u8],
        value: &[u8],
        ttl: Duration,
    ) -> Result<bool, Unavailable> {
        let Some(value_key) = &keys.value else {
            return Ok(false);
        };
        let mut invocation = SCRIPTS.publish.prepare_invoke();
        invocation
            .key(&keys.lease)
            .key(value_key)
            .arg(token)
            .arg(value)
            .arg(millis(ttl));
        let stored: i64 = self
            .invoke(self.operations.publish, &invocation, keys)
            .await?;
        Ok(stored == 1)
    }

    /// Releases the lease if `token` still holds it; `Ok(false)` when it did not.
    pub async fn release_as(&self, keys: &Keys, token: &[u8]) -> Result<bool, Unavailable> {
        let mut invocation = SCRIPTS.release.prepare_invoke();
        invocation.key(&keys.lease).arg(token);
        let released: i64 = self
            .redis
            .invoke(self.operations.release, &invocation)
            .await?;
        Ok(released == 1)
    }

    fn held(&self, keys: Keys, token: Vec<u8>) -> Held {
        let renewal = self
            .renew
            .then(|| tokio::spawn(renew_while_held(self.clone(), keys.clone(), token.clone())));
        Held {
            lease: self.clone(),
            keys,
            token,
            renewal,
            settled: false,
        }
    }
}

/// Renews the lease every third of its TTL until the guard stops it, or the lease turns out to
/// be someone else's. A renewal Redis does not answer is tried again at the next period (the
/// lease outlives two missed renewals).
async fn renew_while_held(lease: Lease, keys: Keys, token: Vec<u8>) {
    let period = lease.ttl / 3;
    let mut renewals = tokio::time::interval_at(Instant::now() + period, period);
    loop {
        renewals.tick().await;
        let mut invocation = SCRIPTS.renew.prepare_invoke();
        invocation
            .key(&keys.lease)
            .arg(&token)
            .arg(millis(lease.ttl));
        if let Ok(0) = lease
            .redis
            .invoke::<i64>(lease.operations.renew, &invocation)
            .await
        {
            tracing::warn!(
                operation = lease.operations.renew,
                "a lease lapsed while its holder worked; another replica may do the same work"
            );
            return;
        }
    }
}

/// A held lease: renewed in the background (if its kind renews) until published, released or
/// dropped. Dropped otherwise, it is released or left to lapse as its kind's [`OnDrop`] says.
#[derive(Debug)]
pub struct Held {
    lease: Lease,
    keys: Keys,
    token: Vec<u8>,
    renewal: Option<JoinHandle<()>>,
    /// Published or released: nothing left to do on drop.
    settled: bool,
}

impl Held {
    pub fn token(&self) -> &[u8] {
        &self.token
    }

    /// Stops renewing: the lease now lapses by its TTL unless published or released.
    pub fn stop_renewing(&mut self) {
        if let Some(renewal) = self.renewal.take() {
            renewal.abort();
        }
    }

    /// Publishes `value` for `ttl` (and ends the lease: replaced in place, or dropped beside).
    /// `Ok(false)`: another holder's lease or value was there (in place) and nothing was
    /// written. `Err`: Redis did not answer; the guard still holds, so the caller may try again.
    pub async fn publish(&mut self, value: &[u8], ttl: Duration) -> Result<bool, Unavailable> {
        let published = self
            .lease
            .publish_as(&self.keys, &self.token, value, ttl)
            .await?;
        self.stop_renewing();
        self.settled = true;
        Ok(published)
    }

    /// Releases the lease now (if still ours), so a waiter may take it at once. When Redis does
    /// not answer, the lease lapses by its TTL.
    pub async fn release(mut self) -> Result<bool, Unavailable> {
        self.stop_renewing();
        self.settled = true;
        self.lease.release_as(&self.keys, &self.token).await
    }

    /// Gives up the guard but not the lease: it stays until published or released by token
    /// ([`Lease::publish_as`], [`Lease::release_as`]) or until it lapses.
    pub fn detach(mut self) {
        self.stop_renewing();
        self.settled = true;
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.stop_renewing();
        if self.settled || self.lease.on_drop == OnDrop::Lapse {
            return;
        }
        // Dropped mid-work (a panic, an abort): release in a task of its own, if a runtime is
        // still there to run it (at shutdown it may not be; the lease then lapses).
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (lease, keys, token) = (
                self.lease.clone(),
                self.keys.clone(),
                std::mem::take(&mut self.token),
            );
            runtime.spawn(async move {
                let _ = lease.release_as(&keys, &token).await;
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_wait_looks_once_more_at_the_deadline() {
        let looks = Arc::new(AtomicUsize::new(0));
        let started = Instant::now();
        let deadline = started + Duration::from_millis(100);
        let waited = wait_until(deadline, Duration::from_secs(60), WhenDown::Stop, || {
            let looks = looks.clone();
            async move {
                let n = looks.fetch_add(1, Ordering::SeqCst);
                Ok((Instant::now() >= deadline).then_some(n))
            }
        })
        .await;
        assert_eq!(waited, Waited::Ready(0), "the one look, at the deadline");
        let elapsed = started.elapsed();
        assert!(elapsed >= Duration::from_millis(100) && elapsed < Duration::from_secs(1));
    }

    #[tokio::test]
    async fn a_wait_times_out_after_its_deadline_and_no_later() {
        let started = Instant::now();
        let deadline = started + Duration::from_millis(100);
        let looks = AtomicUsize::new(0);
        let waited: Waited<()> =
            wait_until(deadline, Duration::from_millis(10), WhenDown::Stop, || {
                looks.fetch_add(1, Ordering::SeqCst);
                async { Ok(None) }
            })
            .await;
        assert_eq!(waited, Waited::TimedOut);
        let elapsed = started.elapsed();
        assert!(elapsed >= Duration::from_millis(100) && elapsed < Duration::from_millis(200));
        assert!(looks.load(Ordering::SeqCst) >= 5, "polled");
    }

    #[tokio::test]
    async fn a_failed_look_stops_a_wait_or_counts_as_not_yet() {
        let deadline = Instant::now() + Duration::from_millis(60);
        let down = || async {
            Err::<Option<()>, _>(Unavailable {
                operation: "test_peek",
            })
        };
        let stopped = wait_until(deadline, Duration::from_millis(5), WhenDown::Stop, down).await;
        assert_eq!(stopped, Waited::Unavailable);
        assert!(Instant::now() < deadline, "at the first failure");
        let kept = wait_until(
            deadline,
            Duration::from_millis(5),
            WhenDown::KeepWaiting,
            down,
        )
        .await;
        assert_eq!(kept, Waited::TimedOut);
        assert!(Instant::now() >= deadline);
    }
}
