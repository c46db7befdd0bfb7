//! The clock replicas share.

/// Unix time in milliseconds: what replicas agree on (an `Instant` means nothing to another
/// process).
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, crate::config::duration::millis)
}
