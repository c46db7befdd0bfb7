//! `[uploads]`: how the two upload routes' bodies are held while they are read.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The slowest uplink an upload is read from: 0.5 Mbit/s, a slow mobile connection, in bytes
/// a second. At it the largest form (21 MiB) takes about 6 minutes.
pub const SLOW_UPLINK_BYTES_PER_SECOND: u64 = 62_500;

/// Bodies larger than `server.max_body_bytes` (only the upload routes take them) are spooled
/// to a temporary file (under `TMPDIR`, the pod's `/tmp` volume) before the request takes a
/// concurrency slot.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UploadsConfig {
    /// The most bytes all spooled uploads of this process may hold on disk together; past it an
    /// upload is answered 503 with `Retry-After`. Keep it below the `/tmp` volume's size.
    pub spool_capacity_bytes: u64,
    /// The most upload bytes one client IP may have in flight (being read, spooled or sent on)
    /// at once; past it, 429 with `Retry-After`.
    pub client_in_flight_bytes: u64,
    /// How many upload forms are parsed and sent upstream at once (each is held in memory while
    /// it is sent: up to 21 MiB); the others wait on disk, holding no concurrency slot.
    pub max_concurrent_forms: usize,
    /// How long a spooled upload waits for one of `max_concurrent_forms` (holding no slot)
    /// before it is answered 503 with `Retry-After`.
    #[serde(with = "crate::config::duration")]
    pub form_wait: Duration,
    /// The average rate an upload body must keep after `server.body_read_timeout`'s grace:
    /// past `body_read_timeout + received / min_bytes_per_second` it is cut (408) and its
    /// spool reservation given back.
    pub min_bytes_per_second: u64,
    /// However fast it comes, an upload body is cut this long after it began (408).
    #[serde(with = "crate::config::duration")]
    pub body_deadline: Duration,
}

impl Default for UploadsConfig {
    fn default() -> Self {
        Self {
            spool_capacity_bytes: 448 * 1024 * 1024,
            client_in_flight_bytes: 60_000_000,
            max_concurrent_forms: 1,
            form_wait: Duration::from_secs(60),
            min_bytes_per_second: SLOW_UPLINK_BYTES_PER_SECOND,
            // 21 MiB at the slow uplink's rate is 352 s; with the 10 s grace and a margin.
            body_deadline: Duration::from_secs(390),
        }
    }
}
