//! Password hashing as a service can afford it: argon2id, off the async workers, at most one
//! hash per core at a time, and the same work whether or not the account exists.
//!
//! - **Bounded.** Each argon2 run holds its memory cost (19 MiB with the default parameters)
//!   for its whole duration. Unbounded, a burst of sign-ins runs one hash per blocking thread
//!   (tokio allows 512) and the allocator keeps the peak: the process sat at ≈3 GB after a
//!   burst. A semaphore sized to the cores caps the runs (and so that memory); the rest wait
//!   in line, costing a parked future each. The permit moves into the blocking task, so a
//!   request cancelled while its hash runs does not free a slot for another hash to start
//!   beside it.
//! - **Uniform.** A sign-in for an unknown e-mail spends one hash like a known one (see
//!   [`Passwords::verify`]), so response time does not tell which e-mails have accounts.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use argon2::Argon2;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::SandboxError;

/// An argon2id PHC string of `password` with a fresh random salt, computed on this thread.
/// Slow by design: request handlers use [`Passwords::hash`]; the seed uses this directly.
pub fn hash_now(password: &str) -> Result<String, SandboxError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|err| SandboxError::Internal(format!("password hashing: {err}")))
}

/// The hashing of one sandbox: the concurrency bound and its counters.
#[derive(Debug)]
pub struct Passwords {
    permits: Arc<Semaphore>,
    /// How many hashes may run at once.
    limit: usize,
    stats: Arc<Counters>,
}

#[derive(Debug, Default)]
struct Counters {
    /// Hashes run (new hashes, checks against a stored hash and stand-in checks).
    runs: AtomicU64,
    /// Hashes running now.
    in_flight: AtomicUsize,
    /// The most that ever ran at once.
    peak: AtomicUsize,
}

/// What the hashing has done so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HashStats {
    /// Hashes run.
    pub runs: u64,
    /// Hashes running now.
    pub in_flight: usize,
    /// The most that ever ran at once.
    pub peak: usize,
    /// The bound on `in_flight`.
    pub limit: usize,
}

impl Default for Passwords {
    /// One hash at a time per core the process may use.
    fn default() -> Self {
        Self::new(std::thread::available_parallelism().map_or(1, usize::from))
    }
}

impl Passwords {
    /// At most `limit` (at least 1) hashes at once.
    pub fn new(limit: usize) -> Self {
        let limit = limit.max(1);
        Self {
            permits: Arc::new(Semaphore::new(limit)),
            limit,
            stats: Arc::default(),
        }
    }

    pub fn stats(&self) -> HashStats {
        HashStats {
            runs: self.stats.runs.load(Ordering::SeqCst),
            in_flight: self.stats.in_flight.load(Ordering::SeqCst),
            peak: self.stats.peak.load(Ordering::SeqCst),
            limit: self.limit,
        }
    }

    /// A new PHC string for `password`.
    pub async fn hash(&self, password: String) -> Result<String, SandboxError> {
        self.run(move || hash_now(&password)).await?
    }

    /// Whether `password` matches `stored` (a malformed stored hash never matches). Without a
    /// stored hash (no such account) the password is hashed all the same and never matches:
    /// hashing with the default parameters costs what checking a hash made with them costs, so
    /// an unknown e-mail takes as long as a wrong password.
    pub async fn verify(
        &self,
        password: String,
        stored: Option<String>,
    ) -> Result<bool, SandboxError> {
        self.run(move || match stored {
            Some(stored) => Argon2::default()
                .verify_password(password.as_bytes(), stored.as_str())
                .is_ok(),
            None => {
                let _same_work = Argon2::default().hash_password(password.as_bytes());
                false
            }
        })
        .await
    }

    /// Runs `work` on the blocking pool once a permit is free, the permit held until it ends.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, SandboxError> {
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|err| SandboxError::Internal(format!("password hashing closed: {err}")))?;
        let stats = self.stats.clone();
        tokio::task::spawn_blocking(move || {
            let _running = Running::start(stats, permit);
            work()
        })
        .await
        .map_err(|err| SandboxError::Internal(format!("password hashing task: {err}")))
    }
}

/// One hash running: counted in while alive, the permit released (and the gauge lowered) when
/// it ends, even by a panic.
struct Running {
    stats: Arc<Counters>,
    _permit: OwnedSemaphorePermit,
}

impl Running {
    fn start(stats: Arc<Counters>, permit: OwnedSemaphorePermit) -> Self {
        stats.runs.fetch_add(1, Ordering::SeqCst);
        let now = stats.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        stats.peak.fetch_max(now, Ordering::SeqCst);
        Self {
            stats,
            _permit: permit,
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stats.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_hashes_are_salted_argon2id_and_verify() {
        let first = hash_now("Password123!").unwrap();
        let second = hash_now("Password123!").unwrap();
        assert!(first.starts_with("$argon2id$"));
        assert_ne!(first, second, "a fresh salt each time");
        let argon2 = Argon2::default();
        assert!(
            argon2
                .verify_password(b"Password123!", first.as_str())
                .is_ok()
        );
        assert!(
            argon2
                .verify_password(b"password123!", first.as_str())
                .is_err()
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn checks_run_one_hash_each_known_or_not_and_never_more_than_the_limit_at_once() {
        let passwords = Arc::new(Passwords::new(2));
        let stored = passwords.hash("right".to_owned()).await.unwrap();
        assert!(
            passwords
                .verify("right".to_owned(), Some(stored.clone()))
                .await
                .unwrap()
        );
        assert!(!passwords.verify("right".to_owned(), None).await.unwrap());
        assert!(
            !passwords
                .verify("right".to_owned(), Some("not a phc string".to_owned()))
                .await
                .unwrap()
        );
        assert_eq!(passwords.stats().runs, 4, "an unknown account hashes too");

        let burst: Vec<_> = (0..12)
            .map(|n| {
                let (passwords, stored) = (passwords.clone(), stored.clone());
                tokio::spawn(async move {
                    let stored = (n % 2 == 0).then_some(stored);
                    passwords.verify("wrong".to_owned(), stored).await
                })
            })
            .collect();
        for check in burst {
            assert!(!check.await.unwrap().unwrap());
        }
        let stats = passwords.stats();
        assert_eq!((stats.runs, stats.in_flight), (16, 0));
        assert!((1..=2).contains(&stats.peak), "{stats:?}");
    }
}
