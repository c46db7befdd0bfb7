//! Signed webhook calls seen, so each is accepted once: a captured call replayed within the
//! signature's window (to this replica or any other) is refused.
//!
//! A signature is remembered under a key derived from it (`<prefix>webhook:seen:<sha256 of the
//! signature>`), written `SET NX PX` in the coordination tier: the first replica to write it
//! accepts the call, every later one finds it taken. It is kept for twice the window, the most
//! a signature can be valid for (a timestamp up to a window ahead of now, valid until a window
//! past it). Each replica also remembers the signatures it has seen in process (bounded), so
//! without Redis, or while it does not answer, a replay to the same replica is still refused;
//! then only a replay sent to another replica gets through, as with every other feature that
//! falls back to one replica (counted in `bff_redis_errors_total{operation="webhook_seen"}`).

use std::time::Duration;

use sha2::{Digest, Sha256};

use super::webhook_signature::WINDOW_SECONDS;
use crate::coordination::replicas::Redis;

/// How long a signature is remembered: the longest it can be valid.
pub const REMEMBERED_FOR: Duration = Duration::from_secs(2 * WINDOW_SECONDS);

/// Signatures one replica remembers at most: a bound on memory, however many calls arrive
/// (each one already carried a valid signature, so only the CMS can make them).
const MAX_REMEMBERED: u64 = 100_000;

/// Whether a signed call was seen before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// The first time: accept it.
    First,
    /// Seen already, here or on another replica: refuse it.
    Again,
}

/// The signatures seen, shared through Redis when it is configured. Cheap to clone.
#[derive(Debug, Clone)]
pub struct SeenSignatures {
    local: moka::sync::Cache<String, ()>,
    shared: Option<Redis>,
}

impl SeenSignatures {
    /// `shared`: the coordination tier, when there is one.
    pub fn new(shared: Option<Redis>) -> Self {
        Self {
            local: moka::sync::Cache::builder()
                .max_capacity(MAX_REMEMBERED)
                .time_to_live(REMEMBERED_FOR)
                .build(),
            shared,
        }
    }

    /// Records `tag` (a verified signature, as bytes: `SHA256=AB` and `sha256=ab` are one
    /// signature) and says whether it was seen before.
    pub async fn record(&self, tag: &[u8]) -> Seen {
        let digest = hex::encode(Sha256::digest(tag));
        // This replica's memory first: its answer needs no round trip, and holds without Redis.
        let entry = self.local.entry(digest.clone()).or_insert(());
        if !entry.is_fresh() {
            return Seen::Again;
        }
        let Some(redis) = &self.shared else {
            return Seen::First;
        };
        let mut command = redis::cmd("SET");
        command
            .arg(redis.key(&["webhook", "seen", &digest]))
            .arg(1)
            .arg("NX")
            .arg("PX")
            .arg(crate::config::duration::millis(REMEMBERED_FOR));
        match redis
            .query::<Option<String>>("webhook_seen", &command)
            .await
        {
            Ok(Some(_)) => Seen::First,
            Ok(None) => Seen::Again,
            // Counted and logged by the handle: this replica's memory is all there is.
            Err(_) => Seen::First,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn without_redis_a_signature_is_accepted_once_per_replica() {
        let seen = SeenSignatures::new(None);
        assert_eq!(seen.record(b"tag-a").await, Seen::First);
        assert_eq!(seen.record(b"tag-a").await, Seen::Again);
        assert_eq!(seen.record(b"tag-b").await, Seen::First);
    }
}
