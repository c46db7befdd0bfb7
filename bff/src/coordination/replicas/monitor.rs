//! Whether this replica reaches Redis, said three ways: `bff_redis_connected{tier}` (1 or 0),
//! one ERROR line naming the key and the cause when it cannot connect at start (or loses the
//! server later), and an INFO line when it is back. The BFF serves either way; this is how an
//! operator learns that it serves alone.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::Redis;
use super::cause::Cause;

/// How often the connection is checked.
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// What the monitor last saw.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// Not checked yet (the gauge says 0: not connected).
    Starting,
    Connected,
    Down(Cause),
}

/// Checks `redis` every second until `stop`, reporting each change.
pub fn spawn(redis: Redis, stop: CancellationToken) {
    let tiers = redis.tiers();
    for tier in tiers {
        redis.metrics().start_redis_tier(tier);
    }
    tokio::spawn(async move {
        let mut state = State::Starting;
        loop {
            redis.follow_primary().await;
            // A pooled connection that answers is proof enough. Without one, a fresh connection
            // tells why; when that one works, the pool is stuck on an old refusal (a password
            // rotated since) and is made again.
            let now = if redis.pool_answers().await {
                redis.learn_replicas().await;
                // Before the tier is reported back: what other replicas read from here
                // must hold what this one could not write while it was away.
                redis.replay_pending_writes().await;
                State::Connected
            } else {
                match redis.probe().await {
                    Ok(()) => {
                        redis.renew_pool();
                        redis.replay_pending_writes().await;
                        State::Connected
                    }
                    Err(cause) => State::Down(cause),
                }
            };
            report(&redis, &state, &now);
            state = now;
            tokio::select! {
                () = stop.cancelled() => return,
                () = redis.until_primary_moves(CHECK_EVERY) => {}
            }
        }
    });
}

fn report(redis: &Redis, before: &State, now: &State) {
    if before == now {
        return;
    }
    let tiers = redis.tiers().join(",");
    for tier in redis.tiers() {
        redis
            .metrics()
            .set_redis_connected(tier, *now == State::Connected);
    }
    match (before, now) {
        (_, State::Down(cause)) => tracing::error!(
            tier = %tiers,
            key = cause.key,
            cause = %cause.reason,
            "redis: cannot connect ({cause}); serving on this replica alone"
        ),
        (State::Starting, State::Connected) => {
            tracing::info!(tier = %tiers, "redis: connected");
        }
        (_, State::Connected) => {
            for tier in redis.tiers() {
                redis.metrics().count_redis_reconnect(tier);
            }
            tracing::info!(tier = %tiers, "redis: connected again; the shared tier is back");
        }
        (_, State::Starting) => {}
    }
}
