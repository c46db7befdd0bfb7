//! Writes a shopper would miss (a sign-out's revocation) that Redis did not take, or took
//! without a replica's acknowledgement, kept to be written again.
//!
//! During a failover the old primary is gone and the new one not yet followed: such a write
//! fails, and holds on its own replica only. Once the tier answers again, the other replicas
//! read the new primary, which never had it: a signed-out cookie would work again there. A
//! write a replica did not acknowledge is as exposed: a primary killed right after it takes it
//! along. So these writes are kept here, and the monitor writes them again (with `WAIT`) on
//! each check that finds the server answering, before it reports the tier connected. Each
//! write is an idempotent `SET … PX`, so writing it twice is harmless.
//!
//! Bounded: at most `MAX_PENDING` writes (the oldest dropped first, with a warning), each
//! kept no longer than the life of what it records.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

/// Writes kept at most: a bound on memory during a long outage.
const MAX_PENDING: usize = 10_000;

/// One write to make again.
pub(super) struct Pending {
    /// As `bff_redis_errors_total` names it.
    pub operation: &'static str,
    pub command: redis::Cmd,
    /// Past this, what it records has expired anyway.
    pub until: Instant,
}

#[derive(Default)]
pub(super) struct PendingWrites {
    writes: Mutex<VecDeque<Pending>>,
}

impl PendingWrites {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Pending>> {
        self.writes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn push(&self, pending: Pending) {
        let mut writes = self.lock();
        if writes.len() == MAX_PENDING
            && let Some(dropped) = writes.pop_front()
        {
            tracing::warn!(
                operation = dropped.operation,
                "too many writes waiting for Redis; the oldest is dropped and holds on this replica only"
            );
        }
        writes.push_back(pending);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_oldest_write_goes_first_when_the_bound_is_reached() {
        let writes = PendingWrites::default();
        for index in 0..=MAX_PENDING {
            let mut command = redis::cmd("SET");
            command.arg(index);
            writes.push(Pending {
                operation: "session_revoke",
                command,
                until: Instant::now() + Duration::from_secs(60),
            });
        }
        let kept = writes.lock();
        assert_eq!(kept.len(), MAX_PENDING);
        assert_eq!(
            kept.front()
                .map(|pending| pending.command.get_packed_command()),
            {
                let mut second = redis::cmd("SET");
                second.arg(1);
                Some(second.get_packed_command())
            }
        );
    }
}
