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
//! - **Reused.** Each hashing thread keeps its argon2 working memory between hashes
//!   (`hash_password_into_with_memory`) instead of allocating and freeing 19 MiB per hash, which
//!   the allocator's per-thread arenas kept anyway (≈500 MB after bursts even with the bound;
//!   ≈130 MB with reuse) and which cost a fresh zeroed, page-faulted block every time.
//! - **Uniform.** A sign-in for an unknown e-mail spends one hash like a known one (see
//!   [`Passwords::verify`]), so response time does not tell which e-mails have accounts.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::password_hash::{PasswordHasher, try_generate_salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};
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
        self.run(move || hash_reusing_memory(&password)).await?
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
            Some(stored) => matches_reusing_memory(&password, &stored),
            None => {
                let _same_work = hash_reusing_memory(&password);
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

thread_local! {
    /// This hashing thread's argon2 working memory (19 MiB with the default parameters), kept
    /// between hashes. Allocated per hash, it was freed into the allocator's per-thread arenas,
    /// which kept it: memory grew with every thread that had hashed, not with the hashes running.
    static WORKING_MEMORY: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// Runs `hash` with this thread's working memory, grown to `blocks` when needed.
fn with_working_memory<T>(blocks: usize, hash: impl FnOnce(&mut [Block]) -> T) -> T {
    WORKING_MEMORY.with(|memory| {
        let mut memory = memory.borrow_mut();
        if memory.len() < blocks {
            memory.resize(blocks, Block::new());
        }
        hash(&mut memory[..blocks])
    })
}

/// [`hash_now`] (the same PHC string: argon2id, default parameters, a fresh 16-byte salt) in
/// this thread's working memory.
fn hash_reusing_memory(password: &str) -> Result<String, SandboxError> {
    let failed =
        |err: &dyn std::fmt::Display| SandboxError::Internal(format!("password hashing: {err}"));
    let salt = try_generate_salt().map_err(|err| failed(&err))?;
    let params = Params::default();
    let mut output = vec![0u8; params.output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN)];
    let argon2 = Argon2::new(Algorithm::Argon2id, Version::default(), params.clone());
    with_working_memory(params.block_count(), |memory| {
        argon2.hash_password_into_with_memory(password.as_bytes(), &salt, &mut output, memory)
    })
    .map_err(|err| failed(&err))?;
    let phc = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::default().into()),
        params: ParamsString::try_from(&params).map_err(|err| failed(&err))?,
        salt: Some(Salt::new(&salt).map_err(|err| failed(&err))?),
        hash: Some(Output::new(&output).map_err(|err| failed(&err))?),
    };
    Ok(phc.to_string())
}

/// Whether `password` matches the PHC string `stored` (argon2's own check, compared in constant
/// time), computed in this thread's working memory; a malformed `stored` never matches.
fn matches_reusing_memory(password: &str, stored: &str) -> bool {
    let Ok(stored) = PasswordHash::new(stored) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (&stored.salt, &stored.hash) else {
        return false;
    };
    let (Ok(algorithm), Ok(params)) = (
        Algorithm::try_from(stored.algorithm.as_str()),
        Params::try_from(&stored),
    ) else {
        return false;
    };
    let Ok(version) = stored
        .version
        .map_or(Ok(Version::default()), Version::try_from)
    else {
        return false;
    };
    let argon2 = Argon2::new(algorithm, version, params.clone());
    let mut output = vec![0u8; expected.len()];
    let computed = with_working_memory(params.block_count(), |memory| {
        argon2.hash_password_into_with_memory(
            password.as_bytes(),
            salt.as_ref(),
            &mut output,
            memory,
        )
    });
    computed.is_ok() && Output::new(&output).is_ok_and(|output| output == *expected)
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
    use argon2::password_hash::PasswordVerifier;

    use super::*;

    #[test]
    fn hashes_made_in_reused_memory_are_argon2s_own() {
        let reused = hash_reusing_memory("Password123!").unwrap();
        assert!(
            reused.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{reused}"
        );
        let argon2 = Argon2::default();
        assert!(
            argon2
                .verify_password(b"Password123!", reused.as_str())
                .is_ok()
        );
        assert!(
            argon2
                .verify_password(b"Password123?", reused.as_str())
                .is_err()
        );
        // And the other way round, also for parameters other than the default (the memory is
        // grown and reused as needed).
        assert!(matches_reusing_memory(
            "Password123!",
            &hash_now("Password123!").unwrap()
        ));
        assert!(!matches_reusing_memory(
            "Password123?",
            &hash_now("Password123!").unwrap()
        ));
        let small = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(1024, 1, 1, None).unwrap(),
        )
        .hash_password(b"small")
        .unwrap()
        .to_string();
        assert!(matches_reusing_memory("small", &small));
        assert!(matches_reusing_memory("Password123!", &reused));
        assert!(!matches_reusing_memory(
            "small",
            "$argon2id$v=19$not-a-hash"
        ));
    }

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
