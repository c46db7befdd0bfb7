//! One rate cap on the purges the content webhook runs, whatever tags they name: the
//! coalescer ([`super::webhook_coalesce`]) holds each tag set to one purge a second, but a
//! caller naming a new set each time (every product title there is) would purge without
//! bound. `content.webhook.purges_per_minute` purges a minute at most, on each replica (GCRA:
//! a burst of that many, then one every `60 s / n`); past it the webhook answers 429 with
//! `Retry-After`, and the CMS retries. Coalesced calls share one purge and take one unit.

use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

/// The cap: cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct PurgeCap {
    limiter: DefaultDirectRateLimiter,
}

/// Over the cap: when to try again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capped {
    pub retry_after_seconds: u64,
}

impl PurgeCap {
    /// At most `per_minute` purges a minute (at least 1).
    pub fn per_minute(per_minute: u32) -> Self {
        let per_minute = NonZeroU32::new(per_minute).unwrap_or(NonZeroU32::MIN);
        Self {
            limiter: RateLimiter::direct(Quota::per_minute(per_minute)),
        }
    }

    /// Takes one purge from the cap, or says when the next one is allowed.
    pub fn take(&self) -> Result<(), Capped> {
        self.limiter.check().map_err(|not_until| Capped {
            retry_after_seconds: not_until
                .wait_time_from(DefaultClock::default().now())
                .as_secs()
                .max(1),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_holds_whatever_the_tags() {
        let cap = PurgeCap::per_minute(3);
        for _ in 0..3 {
            assert_eq!(cap.take(), Ok(()));
        }
        let refused = cap.take();
        assert!(
            matches!(refused, Err(Capped { retry_after_seconds }) if (1..=20).contains(&retry_after_seconds)),
            "{refused:?}"
        );
    }
}
