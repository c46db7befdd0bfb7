//! One refresh per session across replicas, through Redis.
//!
//! Refresh tokens are single-use and rotating: a token spent twice is refused, the refusal
//! revokes the token's whole family, and the shopper is signed out. Inside one replica the
//! [`Refresher`](super::tokens::Refresher)'s single flight and rotation memory prevent that;
//! across replicas, this module does, with two keys per refresh token, both named by the
//! token's SHA-256 (never the token itself; a refresh token is random and long, so its hash
//! cannot be searched back):
//!
//! - the **lease** (`SET NX PX`, valued with the holding replica's id): whoever holds it spends
//!   the token. It expires by itself, so a holder that dies frees it.
//! - the **successor** (kept [`SUCCESSOR_MEMORY`]): what spending the token gave, new tokens or
//!   a refusal, for every replica that still meets the old token. It holds tokens, so it is
//!   sealed at rest with the session keys, under a [`Purpose`] of its own and bound to its key.
//!
//! A claim is one script: the successor if there is one, else the lease if it is free, else
//! "held". In two commands, a waiter could read "no successor", the holder publish and release,
//! and the waiter take the free lease and spend a dead token.
//!
//! Failure semantics:
//! - Redis unavailable at the first claim: this replica refreshes on its own, as a single
//!   replica does (its single flight still makes it one call per replica).
//! - The lease is held elsewhere: the claim is polled every `poll`, for at most `wait`. A
//!   successor ends the wait. A lease found free again (its holder could not reach the upstream
//!   and released it, or died and it expired) is taken, and this replica refreshes.
//! - The wait runs out with the lease still held, or Redis fails while waiting: this request
//!   fails (504, retryable) and the token is **not** spent. A held lease means a live holder
//!   that may still publish; spending the token too would be refused and would revoke the
//!   successor it is about to publish, signing the shopper out. A failed request is the lesser
//!   harm: the next one finds the successor.
//! - The lease outlives the upstream call's worst case (queue wait plus total timeout), so a
//!   live holder never loses it mid-call.

use std::future::Future;
use std::time::Duration;

use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::model::{RefreshFailure, UserTokens};
use super::seal::{Purpose, Sealer};
use crate::config::{ConfigError, UpstreamConfig};
use crate::coordination::lease::{self, Keys, Lease, OnDrop, Operations, Waited, WhenDown};
use crate::coordination::replicas::{Redis, Unavailable};
use crate::observe::metrics::RedisEvent;
use crate::upstream::UpstreamError;

/// How long a successor is kept: as long as a replica remembers its own rotations, the time a
/// request sent with the previous cookie may still arrive.
pub const SUCCESSOR_MEMORY: Duration = Duration::from_secs(60);

/// How long a waiter waits for another replica's refresh before this request gives up: a
/// refresh takes milliseconds; a holder slower than this is in trouble, and the shopper is
/// better served by a quick retryable error than by a request hanging on it.
const WAIT_FOR_HOLDER: Duration = Duration::from_secs(5);

/// How often a waiter asks again: short against a refresh's latency, and only one request per
/// replica polls (the others wait on its single flight).
const POLL_EVERY: Duration = Duration::from_millis(25);

/// Added to the upstream call's worst case: a live holder's lease never expires mid-call.
const LEASE_SLACK: Duration = Duration::from_secs(1);

/// The successors' own keys and associated data: a successor never opens as a cookie.
const SUCCESSOR: Purpose = Purpose {
    kdf_info: b"bff refresh successor aes-256-gcm",
    associated_data: b"bff.refresh-successor.v1",
};

/// What spending a refresh token gave, as the replicas share it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Successor {
    /// The new tokens.
    Rotated(UserTokens),
    /// The upstream refused the token: the session is over on every replica, and nobody
    /// spends the token again.
    Refused,
}

/// What claiming a refresh token found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The token was spent already, with this result.
    Successor(Successor),
    /// This replica now holds the lease: it spends the token.
    Lease,
    /// Another replica holds the lease (or the successor cannot be read here): do not spend.
    Held,
}

/// Where leases and successors live: Redis ([`RedisLeases`]), or a map in the unit tests.
/// Tokens are named by their hash.
pub trait LeaseStore: Send + Sync {
    /// The successor if there is one, else the lease if it is free, atomically.
    fn claim(&self, token_hash: &str) -> impl Future<Output = Result<Claim, Unavailable>> + Send;

    /// Keeps `successor` (a successor already there stays: the first answer wins) and releases
    /// this replica's lease.
    fn publish(
        &self,
        token_hash: &str,
        successor: &Successor,
    ) -> impl Future<Output = Result<(), Unavailable>> + Send;

    /// Releases this replica's lease with no successor: the token was not (knowingly) spent,
    /// and a waiting replica may try at once instead of when the lease expires.
    fn release(&self, token_hash: &str) -> impl Future<Output = Result<(), Unavailable>> + Send;

    fn count(&self, event: RedisEvent);
}

/// How long a lease lives and how long, and how often, a waiter asks for its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseTiming {
    pub lease: Duration,
    pub wait: Duration,
    pub poll: Duration,
}

impl LeaseTiming {
    /// For refreshes through `commerce`: the lease covers a call's queue wait and total timeout.
    pub fn for_upstream(commerce: &UpstreamConfig) -> Self {
        let lease = commerce
            .queue_timeout
            .saturating_add(commerce.timeout)
            .saturating_add(LEASE_SLACK);
        Self {
            lease,
            wait: WAIT_FOR_HOLDER.min(lease),
            poll: POLL_EVERY,
        }
    }
}

/// `spend` (the upstream refresh of the token hashed `token_hash`) run by one replica only; the
/// others get its result. See the module's failure semantics.
pub async fn refresh_once<S, F>(
    store: &S,
    token_hash: &str,
    timing: LeaseTiming,
    spend: F,
) -> Result<UserTokens, RefreshFailure>
where
    S: LeaseStore,
    F: Future<Output = Result<UserTokens, RefreshFailure>>,
{
    match store.claim(token_hash).await {
        Ok(Claim::Successor(successor)) => adopt(store, successor),
        Ok(Claim::Lease) => hold(store, token_hash, spend).await,
        Ok(Claim::Held) => {
            store.count(RedisEvent::LeaseWaited);
            wait_for_holder(store, token_hash, timing, spend).await
        }
        // Nobody can be coordinated with: refresh as a single replica does.
        Err(Unavailable { .. }) => spend.await,
    }
}

/// Polls the claim until a successor comes or the lease is free to take, for at most
/// `timing.wait`; the last claim is made once the wait is over, so a successor published at
/// the last moment is still used. A claim Redis does not answer is "not yet": a successor may
/// still come, and the token is never spent on a guess.
async fn wait_for_holder<S, F>(
    store: &S,
    token_hash: &str,
    timing: LeaseTiming,
    spend: F,
) -> Result<UserTokens, RefreshFailure>
where
    S: LeaseStore,
    F: Future<Output = Result<UserTokens, RefreshFailure>>,
{
    let deadline = Instant::now() + timing.wait;
    let settled = lease::wait_until(deadline, timing.poll, WhenDown::KeepWaiting, || async {
        match store.claim(token_hash).await? {
            Claim::Held => Ok(None),
            settled => Ok(Some(settled)),
        }
    })
    .await;
    match settled {
        Waited::Ready(Claim::Successor(successor)) => adopt(store, successor),
        Waited::Ready(Claim::Lease) => hold(store, token_hash, spend).await,
        Waited::Ready(Claim::Held) | Waited::TimedOut | Waited::Unavailable => {
            tracing::warn!(
                wait_ms = timing.wait.as_millis(),
                "another replica's refresh gave no result in time; this request fails and leaves the refresh token unspent"
            );
            Err(RefreshFailure::Unavailable(UpstreamError::Timeout {
                upstream: "commerce",
            }))
        }
    }
}

/// Spends the token under the lease, then shares what it gave.
async fn hold<S, F>(store: &S, token_hash: &str, spend: F) -> Result<UserTokens, RefreshFailure>
where
    S: LeaseStore,
    F: Future<Output = Result<UserTokens, RefreshFailure>>,
{
    store.count(RedisEvent::LeaseAcquired);
    let result = spend.await;
    let shared = match &result {
        Ok(tokens) => {
            store
                .publish(token_hash, &Successor::Rotated(tokens.clone()))
                .await
        }
        Err(RefreshFailure::Refused) => store.publish(token_hash, &Successor::Refused).await,
        Err(RefreshFailure::Unavailable(_)) => store.release(token_hash).await,
    };
    // A failure is counted and logged by the store already. This replica's requests still get
    // the result (its rotation memory); the others wait, then fail without spending the token.
    if shared.is_err() {
        tracing::debug!("the refresh result could not be shared with the other replicas");
    }
    result
}

fn adopt<S: LeaseStore>(store: &S, successor: Successor) -> Result<UserTokens, RefreshFailure> {
    match successor {
        Successor::Rotated(tokens) => {
            store.count(RedisEvent::SuccessorUsed);
            Ok(tokens)
        }
        Successor::Refused => Err(RefreshFailure::Refused),
    }
}

/// The sealed plaintext: the successor with the hash it is stored under, so a value moved to
/// another token's key (by someone who can write to Redis) does not open there.
#[derive(Serialize, Deserialize)]
struct Bound {
    token_hash: String,
    successor: Successor,
}

fn seal_successor(sealer: &Sealer, token_hash: &str, successor: &Successor) -> Option<String> {
    let bound = Bound {
        token_hash: token_hash.to_owned(),
        successor: successor.clone(),
    };
    sealer.seal(&serde_json::to_vec(&bound).ok()?)
}

fn open_successor(sealer: &Sealer, token_hash: &str, sealed: &str) -> Option<Successor> {
    let opened = sealer.open(sealed)?;
    let bound: Bound = serde_json::from_slice(&opened.plaintext).ok()?;
    (bound.token_hash == token_hash).then_some(bound.successor)
}

/// The refresh lease's Redis commands, as `bff_redis_errors_total` names them.
const REFRESH: Operations = Operations {
    claim: "refresh_claim",
    renew: "refresh_renew",
    release: "refresh_release",
    publish: "refresh_publish",
    peek: "refresh_peek",
};

/// Leases and successors in Redis.
pub struct RedisLeases {
    redis: Redis,
    /// Not renewed (it outlives the call it covers), and left to lapse when its holder is
    /// dropped mid-call: the token may be spent upstream already, and a waiter taking over at
    /// once would spend it again and sign the shopper out.
    lease: Lease,
    /// Seals successors at rest: they hold tokens.
    sealer: Sealer,
    /// This process's name on the leases it holds, so it releases only its own.
    owner: String,
    timing: LeaseTiming,
}

impl std::fmt::Debug for RedisLeases {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLeases")
            .field("owner", &self.owner)
            .field("timing", &self.timing)
            .finish_non_exhaustive()
    }
}

impl RedisLeases {
    /// Successors are sealed with keys derived from the session keys: every replica has them.
    pub fn new(
        redis: Redis,
        session_keys: &[SecretString],
        timing: LeaseTiming,
    ) -> Result<Self, ConfigError> {
        let sealer = Sealer::for_purpose(session_keys, SUCCESSOR).ok_or_else(|| {
            ConfigError("BFF_SESSION_KEYS: at least one key is required".to_owned())
        })?;
        Ok(Self {
            lease: Lease::new(redis.clone(), timing.lease, false, OnDrop::Lapse, REFRESH),
            redis,
            sealer,
            owner: uuid::Uuid::new_v4().to_string(),
            timing,
        })
    }

    /// [`refresh_once`] through Redis.
    pub async fn refresh_once<F>(
        &self,
        token_hash: &str,
        spend: F,
    ) -> Result<UserTokens, RefreshFailure>
    where
        F: Future<Output = Result<UserTokens, RefreshFailure>>,
    {
        refresh_once(self, token_hash, self.timing, spend).await
    }

    fn keys(&self, token_hash: &str) -> Keys {
        // One script claims and publishes both: on a cluster they share the token's slot.
        Keys::beside(
            self.redis.tagged_key(&["session", "lease", token_hash], 2),
            self.redis
                .tagged_key(&["session", "successor", token_hash], 2),
        )
    }
}

impl LeaseStore for RedisLeases {
    async fn claim(&self, token_hash: &str) -> Result<Claim, Unavailable> {
        let claim = self
            .lease
            .claim(&self.keys(token_hash), self.owner.as_bytes())
            .await;
        Ok(match claim {
            lease::Claim::Published(sealed) => {
                let opened = std::str::from_utf8(&sealed)
                    .ok()
                    .and_then(|sealed| open_successor(&self.sealer, token_hash, sealed));
                match opened {
                    Some(successor) => Claim::Successor(successor),
                    None => {
                        // Spent, so never to be spent again; but unreadable here (sealed with
                        // a key this replica lacks): wait as for a holder, then fail.
                        tracing::warn!("a refresh successor in Redis does not open here");
                        Claim::Held
                    }
                }
            }
            // Held by this process's name, not by a guard: published or released by it.
            lease::Claim::Claimed(held) => {
                held.detach();
                Claim::Lease
            }
            lease::Claim::Busy => Claim::Held,
            lease::Claim::Unavailable => {
                return Err(Unavailable {
                    operation: REFRESH.claim,
                });
            }
        })
    }

    async fn publish(&self, token_hash: &str, successor: &Successor) -> Result<(), Unavailable> {
        let Some(sealed) = seal_successor(&self.sealer, token_hash, successor) else {
            return self.release(token_hash).await;
        };
        self.lease
            .publish_as(
                &self.keys(token_hash),
                self.owner.as_bytes(),
                sealed.as_bytes(),
                SUCCESSOR_MEMORY,
            )
            .await
            .map(drop)
    }

    async fn release(&self, token_hash: &str) -> Result<(), Unavailable> {
        self.lease
            .release_as(&self.keys(token_hash), self.owner.as_bytes())
            .await
            .map(drop)
    }

    fn count(&self, event: RedisEvent) {
        self.redis.count(event);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use super::*;

    fn tokens(refresh_token: &str) -> UserTokens {
        UserTokens::for_test(refresh_token)
    }

    const FAST: LeaseTiming = LeaseTiming {
        lease: Duration::from_secs(10),
        wait: Duration::from_millis(500),
        poll: Duration::from_millis(5),
    };

    /// Redis for one token, in memory: what the scripts do, atomically under one lock.
    #[derive(Default)]
    struct Shared {
        state: Mutex<State>,
        events: Mutex<Vec<RedisEvent>>,
    }

    #[derive(Default)]
    struct State {
        lease_held: bool,
        successor: Option<Successor>,
        /// Claims from now on fail, as with Redis down.
        down: bool,
        /// Claims answered so far.
        claims: usize,
    }

    impl Shared {
        fn state(&self) -> std::sync::MutexGuard<'_, State> {
            self.state.lock().unwrap()
        }

        fn count_of(&self, event: RedisEvent) -> usize {
            self.events
                .lock()
                .unwrap()
                .iter()
                .filter(|e| **e == event)
                .count()
        }
    }

    impl LeaseStore for Shared {
        async fn claim(&self, _: &str) -> Result<Claim, Unavailable> {
            let mut state = self.state();
            if state.down {
                return Err(Unavailable {
                    operation: "refresh_claim",
                });
            }
            state.claims += 1;
            Ok(match (&state.successor, state.lease_held) {
                (Some(successor), _) => Claim::Successor(successor.clone()),
                (None, false) => {
                    state.lease_held = true;
                    Claim::Lease
                }
                (None, true) => Claim::Held,
            })
        }

        async fn publish(&self, _: &str, successor: &Successor) -> Result<(), Unavailable> {
            let mut state = self.state();
            state.successor.get_or_insert_with(|| successor.clone());
            state.lease_held = false;
            Ok(())
        }

        async fn release(&self, _: &str) -> Result<(), Unavailable> {
            self.state().lease_held = false;
            Ok(())
        }

        fn count(&self, event: RedisEvent) {
            self.events.lock().unwrap().push(event);
        }
    }

    /// A refresh that counts its calls and takes a little while, as the upstream does.
    fn counted_spend(
        calls: &Arc<AtomicUsize>,
        result: Result<UserTokens, RefreshFailure>,
    ) -> impl Future<Output = Result<UserTokens, RefreshFailure>> + use<> {
        let calls = calls.clone();
        async move {
            calls.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(30)).await;
            result
        }
    }

    async fn must_not_spend() -> Result<UserTokens, RefreshFailure> {
        panic!("the refresh token must not be spent here")
    }

    #[tokio::test]
    async fn one_replica_spends_the_token_and_the_others_use_its_successor() {
        let store = Shared::default();
        let calls = Arc::new(AtomicUsize::new(0));
        let replicas = (0..3)
            .map(|_| refresh_once(&store, "h", FAST, counted_spend(&calls, Ok(tokens("r2")))));
        let results = futures::future::join_all(replicas).await;
        assert_eq!(calls.load(Ordering::SeqCst), 1, "one upstream refresh");
        for result in results {
            assert_eq!(result.map(|t| t.refresh_token).ok().as_deref(), Some("r2"));
        }
        assert_eq!(store.count_of(RedisEvent::LeaseAcquired), 1);
        assert_eq!(store.count_of(RedisEvent::LeaseWaited), 2);
        assert_eq!(store.count_of(RedisEvent::SuccessorUsed), 2);
        assert!(!store.state().lease_held, "released with the successor");
    }

    #[tokio::test]
    async fn a_replica_meeting_a_spent_token_uses_its_successor_without_spending() {
        let store = Shared::default();
        store.state().successor = Some(Successor::Rotated(tokens("r2")));
        let result = refresh_once(&store, "h", FAST, must_not_spend()).await;
        assert_eq!(result.map(|t| t.refresh_token).ok().as_deref(), Some("r2"));
        assert_eq!(store.count_of(RedisEvent::SuccessorUsed), 1);
    }

    #[tokio::test]
    async fn a_waiter_takes_over_when_the_holders_lease_expires() {
        let store = Arc::new(Shared::default());
        // A holder that died: nothing but its lease's expiry frees the token.
        store.state().lease_held = true;
        let expiry = {
            let store = store.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(40)).await;
                store.state().lease_held = false;
            })
        };
        let calls = Arc::new(AtomicUsize::new(0));
        let result = refresh_once(
            store.as_ref(),
            "h",
            FAST,
            counted_spend(&calls, Ok(tokens("r2"))),
        )
        .await;
        expiry.await.unwrap();
        assert_eq!(result.map(|t| t.refresh_token).ok().as_deref(), Some("r2"));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(store.count_of(RedisEvent::LeaseWaited), 1);
        assert_eq!(store.count_of(RedisEvent::LeaseAcquired), 1);
        assert_eq!(
            store.state().successor,
            Some(Successor::Rotated(tokens("r2"))),
            "published for the others"
        );
    }

    #[tokio::test]
    async fn a_waiter_whose_holder_is_still_busy_gives_up_without_spending() {
        let store = Shared::default();
        store.state().lease_held = true;
        let started = Instant::now();
        let result = refresh_once(&store, "h", FAST, must_not_spend()).await;
        assert!(matches!(
            result,
            Err(RefreshFailure::Unavailable(UpstreamError::Timeout { .. }))
        ));
        assert!(started.elapsed() >= FAST.wait, "waited the whole wait");
        assert!(
            started.elapsed() < FAST.wait * 2,
            "and no longer: {:?}",
            started.elapsed()
        );
        let claims = store.state().claims;
        assert!(claims > 2, "polled the successor ({claims} claims)");
    }

    #[tokio::test]
    async fn a_successor_published_as_the_wait_ends_is_still_used() {
        let store = Arc::new(Shared::default());
        store.state().lease_held = true;
        let timing = LeaseTiming {
            poll: Duration::from_secs(60),
            ..FAST
        };
        let holder = {
            let store = store.clone();
            tokio::spawn(async move {
                tokio::time::sleep(FAST.wait - Duration::from_millis(50)).await;
                store.state().successor = Some(Successor::Rotated(tokens("r2")));
            })
        };
        // The poll is longer than the wait: the only claim after the first is the one made
        // when the wait is over.
        let result = refresh_once(store.as_ref(), "h", timing, must_not_spend()).await;
        holder.await.unwrap();
        assert_eq!(result.map(|t| t.refresh_token).ok().as_deref(), Some("r2"));
        assert_eq!(store.state().claims, 2);
    }

    #[tokio::test]
    async fn with_redis_down_a_replica_refreshes_on_its_own() {
        let store = Shared::default();
        store.state().down = true;
        let calls = Arc::new(AtomicUsize::new(0));
        let result = refresh_once(&store, "h", FAST, counted_spend(&calls, Ok(tokens("r2")))).await;
        assert!(result.is_ok());
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn redis_failing_while_a_replica_waits_never_makes_it_spend() {
        let store = Arc::new(Shared::default());
        store.state().lease_held = true;
        let outage = {
            let store = store.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                store.state().down = true;
            })
        };
        let result = refresh_once(store.as_ref(), "h", FAST, must_not_spend()).await;
        outage.await.unwrap();
        assert!(matches!(result, Err(RefreshFailure::Unavailable(_))));
    }

    #[tokio::test]
    async fn a_refusal_is_shared_so_no_other_replica_spends_the_token() {
        let store = Shared::default();
        let calls = Arc::new(AtomicUsize::new(0));
        let refused = refresh_once(
            &store,
            "h",
            FAST,
            counted_spend(&calls, Err(RefreshFailure::Refused)),
        )
        .await;
        assert!(matches!(refused, Err(RefreshFailure::Refused)));
        let later = refresh_once(&store, "h", FAST, must_not_spend()).await;
        assert!(matches!(later, Err(RefreshFailure::Refused)));
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_holder_that_cannot_reach_the_upstream_frees_the_lease_at_once() {
        let store = Shared::default();
        let calls = Arc::new(AtomicUsize::new(0));
        let unreachable = RefreshFailure::Unavailable(UpstreamError::Timeout {
            upstream: "commerce",
        });
        let failed = refresh_once(&store, "h", FAST, counted_spend(&calls, Err(unreachable))).await;
        assert!(matches!(failed, Err(RefreshFailure::Unavailable(_))));
        assert!(!store.state().lease_held);
        assert_eq!(store.state().successor, None, "nothing to share");
        let retried =
            refresh_once(&store, "h", FAST, counted_spend(&calls, Ok(tokens("r2")))).await;
        assert!(retried.is_ok());
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_successor_is_sealed_for_its_token_only_and_never_opens_as_a_cookie() {
        let keys = [SecretString::from("session-key-one")];
        let sealer = Sealer::for_purpose(&keys, SUCCESSOR).unwrap();
        let successor = Successor::Rotated(tokens("refresh-token-in-clear"));
        let sealed = seal_successor(&sealer, "hash-a", &successor).unwrap();
        assert!(!sealed.contains("refresh-token-in-clear"));
        assert_eq!(
            open_successor(&sealer, "hash-a", &sealed),
            Some(successor.clone())
        );
        assert_eq!(open_successor(&sealer, "hash-b", &sealed), None, "moved");
        assert!(Sealer::new(&keys).unwrap().open(&sealed).is_none());
        // The next key set, during a rotation, still opens it.
        let rotated = [SecretString::from("session-key-two"), keys[0].clone()];
        let rotated = Sealer::for_purpose(&rotated, SUCCESSOR).unwrap();
        assert_eq!(open_successor(&rotated, "hash-a", &sealed), Some(successor));
    }

    #[test]
    fn the_lease_outlives_the_slowest_refresh_call_and_the_wait_is_short() {
        let commerce = UpstreamConfig {
            base_url: String::new(),
            health_path: String::new(),
            connect_timeout: Duration::from_millis(2000),
            timeout: Duration::from_millis(10_000),
            max_concurrency: 256,
            queue_timeout: Duration::from_millis(1000),
            breaker_failure_threshold: 5,
            breaker_cool_off: Duration::from_millis(10_000),
        };
        let timing = LeaseTiming::for_upstream(&commerce);
        assert!(timing.lease > Duration::from_millis(11_000));
        assert_eq!(timing.wait, WAIT_FOR_HOLDER);
    }
}
