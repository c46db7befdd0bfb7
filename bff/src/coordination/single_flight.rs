//! One run per key: the first caller for a key starts the work in its own task, every caller
//! that arrives while it runs joins that run, and all of them get its outcome. Used by the edge
//! cache (one upstream fetch per entry), the token refresher (one refresh per refresh token)
//! and checkout idempotency (one order per key).
//!
//! The work runs in a spawned task, so a caller that goes away (client disconnect, timeout)
//! never cancels it for the others. A guard owned by the task releases the key when the task
//! ends, however it ends: completed, panicked or aborted. A dead leader can never strand a key
//! (Pingora's lock has the same rule: a dropped permit reads as `Dangling`).

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use tokio::task::AbortHandle;
use tracing::Instrument;

/// How a run ended, as every caller of the run sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome<V> {
    /// The work finished with this value.
    Completed(V),
    /// The work panicked; its key is free again.
    Panicked,
    /// The work was aborted (shutdown, or [`SingleFlight::cancel`]); its key is free again.
    Cancelled,
}

/// Whether this caller started the run or joined one already running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Leader,
    Follower,
}

/// A run's outcome, awaitable by any number of callers.
pub type Flight<V> = Shared<BoxFuture<'static, Outcome<V>>>;

struct Running<V, M> {
    id: u64,
    flight: Flight<V>,
    abort: AbortHandle,
    /// What the starter said about this run (checkout keeps the request's fingerprint here).
    meta: M,
}

/// Runs in flight by key. `M` is per-run data callers can read while the run is in flight.
pub struct SingleFlight<K, V, M = ()> {
    /// A std `Mutex`: held only to look up, register or release a run, never across an await.
    running: Arc<Mutex<HashMap<K, Running<V, M>>>>,
    next_id: AtomicU64,
}

impl<K, V, M> std::fmt::Debug for SingleFlight<K, V, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SingleFlight")
    }
}

impl<K, V, M> Default for SingleFlight<K, V, M> {
    fn default() -> Self {
        Self {
            running: Arc::new(Mutex::new(HashMap::new())),
            next_id: AtomicU64::new(0),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The runs, locked: look up and start under one lock, so a caller that also keeps finished
/// answers elsewhere (see [`Runs::start`]'s `settle`) can check both without a gap.
pub struct Runs<'a, K, V, M> {
    owner: &'a SingleFlight<K, V, M>,
    running: MutexGuard<'a, HashMap<K, Running<V, M>>>,
}

impl<K, V, M> SingleFlight<K, V, M>
where
    K: Hash + Eq + Clone + Send + 'static,
    V: Clone + Send + Sync + 'static,
    M: Send + 'static,
{
    /// Locks the runs for a look-up followed by a start.
    pub fn lock(&self) -> Runs<'_, K, V, M> {
        Runs {
            owner: self,
            running: lock(&self.running),
        }
    }

    /// How many runs are in flight.
    pub fn len(&self) -> usize {
        lock(&self.running).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Aborts the run for `key`, if any: its callers get [`Outcome::Cancelled`].
    pub fn cancel(&self, key: &K) -> bool {
        lock(&self.running)
            .get(key)
            .map(|running| running.abort.abort())
            .is_some()
    }
}

impl<K, V> SingleFlight<K, V, ()>
where
    K: Hash + Eq + Clone + Send + 'static,
    V: Clone + Send + Sync + 'static,
{
    /// Joins the run for `key`, or starts `work` as its run.
    pub fn join_or_start<Fut>(&self, key: K, work: Fut) -> (Flight<V>, Role)
    where
        Fut: Future<Output = V> + Send + 'static,
    {
        let mut runs = self.lock();
        if let Some((flight, ())) = runs.get(&key) {
            return (flight, Role::Follower);
        }
        (runs.start(key, (), work, |_| {}), Role::Leader)
    }

    /// Joins or starts the run for `key` and waits for its outcome.
    pub async fn run<Fut>(&self, key: K, work: Fut) -> (Outcome<V>, Role)
    where
        Fut: Future<Output = V> + Send + 'static,
    {
        let (flight, role) = self.join_or_start(key, work);
        (flight.await, role)
    }
}

impl<K, V, M> Runs<'_, K, V, M>
where
    K: Hash + Eq + Clone + Send + 'static,
    V: Clone + Send + Sync + 'static,
    M: Send + 'static,
{
    /// The run in flight for `key`, with its per-run data.
    pub fn get(&self, key: &K) -> Option<(Flight<V>, &M)> {
        self.running
            .get(key)
            .map(|running| (running.flight.clone(), &running.meta))
    }

    /// Starts `work` as the run for `key`, in its own task (in the current span). When the work
    /// completes, `settle` sees its value under the runs' lock, before the key is released: a
    /// caller that keeps answers after their run (checkout) stores them there, so no look-up
    /// can fall between "kept" and "in flight".
    pub fn start<Fut, S>(&mut self, key: K, meta: M, work: Fut, settle: S) -> Flight<V>
    where
        Fut: Future<Output = V> + Send + 'static,
        S: FnOnce(&V) + Send + 'static,
    {
        let id = self.owner.next_id.fetch_add(1, Ordering::Relaxed);
        let mut release = Release {
            running: self.owner.running.clone(),
            key: key.clone(),
            id,
            settle: Some(Box::new(settle)),
            value: None,
        };
        let task = tokio::spawn(
            async move {
                let value = work.await;
                release.value = Some(value.clone());
                drop(release);
                value
            }
            .in_current_span(),
        );
        let abort = task.abort_handle();
        let flight: Flight<V> = async move {
            match task.await {
                Ok(value) => Outcome::Completed(value),
                Err(error) if error.is_panic() => {
                    tracing::error!("a single-flight run panicked; its key is released");
                    Outcome::Panicked
                }
                Err(_) => Outcome::Cancelled,
            }
        }
        .boxed()
        .shared();
        // Registered before this lock is released, and the task's `Release` takes the same
        // lock: the entry always exists before anything can remove it.
        self.running.insert(
            key,
            Running {
                id,
                flight: flight.clone(),
                abort,
                meta,
            },
        );
        flight
    }
}

type Settle<V> = Box<dyn FnOnce(&V) + Send>;

/// Owned by the run's task: dropped when the task ends, however it ends.
struct Release<K: Hash + Eq, V, M> {
    running: Arc<Mutex<HashMap<K, Running<V, M>>>>,
    key: K,
    id: u64,
    settle: Option<Settle<V>>,
    value: Option<V>,
}

impl<K: Hash + Eq, V, M> Drop for Release<K, V, M> {
    fn drop(&mut self) {
        let mut running = lock(&self.running);
        if let (Some(settle), Some(value)) = (self.settle.take(), self.value.as_ref()) {
            settle(value);
        }
        // Only this run's entry: a newer run for the key is not ours to remove.
        if running
            .get(&self.key)
            .is_some_and(|entry| entry.id == self.id)
        {
            running.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn concurrent_callers_share_one_completed_run() {
        let flights = Arc::new(SingleFlight::<&str, u32>::default());
        let runs = Arc::new(AtomicUsize::new(0));
        let mut callers = Vec::new();
        for _ in 0..10 {
            let (flights, runs) = (flights.clone(), runs.clone());
            callers.push(tokio::spawn(async move {
                flights
                    .run("k", async move {
                        runs.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(30)).await;
                        7
                    })
                    .await
            }));
        }
        let mut leaders = 0;
        for caller in callers {
            let (outcome, role) = caller.await.unwrap();
            assert_eq!(outcome, Outcome::Completed(7));
            leaders += usize::from(role == Role::Leader);
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert_eq!(leaders, 1);
        assert!(flights.is_empty(), "the key is released after the run");
    }

    #[tokio::test]
    async fn a_panicking_leader_releases_its_key() {
        let flights = SingleFlight::<&str, u32>::default();
        let (outcome, role) = flights
            .run("k", async {
                panic!("the upstream client blew up");
            })
            .await;
        assert_eq!((outcome, role), (Outcome::Panicked, Role::Leader));
        assert!(flights.is_empty());
        let (outcome, role) = flights.run("k", async { 2 }).await;
        assert_eq!((outcome, role), (Outcome::Completed(2), Role::Leader));
    }

    #[tokio::test]
    async fn followers_of_a_panicking_run_see_the_panic() {
        let flights = SingleFlight::<&str, u32>::default();
        let (leader, _) = flights.join_or_start("k", async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            panic!("boom");
        });
        let (follower, role) = flights.join_or_start("k", async { 9 });
        assert_eq!(role, Role::Follower);
        assert_eq!(follower.await, Outcome::Panicked);
        assert_eq!(leader.await, Outcome::Panicked);
        assert!(flights.is_empty());
    }

    #[tokio::test]
    async fn a_cancelled_run_releases_its_key() {
        let flights = SingleFlight::<&str, u32>::default();
        let (flight, _) = flights.join_or_start("k", async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            1
        });
        assert!(flights.cancel(&"k"));
        assert_eq!(flight.await, Outcome::Cancelled);
        assert!(flights.is_empty());
        assert!(!flights.cancel(&"k"));
    }

    #[tokio::test]
    async fn a_caller_that_goes_away_does_not_cancel_the_run() {
        let flights = SingleFlight::<&str, u32>::default();
        let (leader, _) = flights.join_or_start("k", async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            5
        });
        drop(leader);
        let (follower, role) = flights.join_or_start("k", async { 6 });
        assert_eq!(role, Role::Follower);
        assert_eq!(follower.await, Outcome::Completed(5));
    }

    #[tokio::test]
    async fn settle_runs_under_the_lock_before_the_key_is_released() {
        let flights = SingleFlight::<&str, u32, &str>::default();
        let kept = Arc::new(Mutex::new(None));
        let flight = {
            let mut runs = flights.lock();
            let kept = kept.clone();
            runs.start("k", "fingerprint", async { 3 }, move |value| {
                *lock(&kept) = Some(*value);
            })
        };
        {
            let runs = flights.lock();
            // Either still running (with its data) or settled: never neither.
            let running = runs.get(&"k").map(|(_, meta)| *meta);
            assert!(running == Some("fingerprint") || lock(&kept).is_some());
        }
        assert_eq!(flight.await, Outcome::Completed(3));
        assert_eq!(*lock(&kept), Some(3));
        assert!(flights.lock().get(&"k").is_none());
    }
}
