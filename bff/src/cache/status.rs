//! What the cache did for one request: one enum, named the same in the `Cache-Status` header
//! (RFC 9211), the logs and the metrics.

/// The outcome of one lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CacheState {
    /// A fresh entry.
    Hit,
    /// No usable entry: this request fetched from the upstream.
    Miss,
    /// A stale entry inside its stale-while-revalidate window, served while one background
    /// refresh runs.
    Stale,
    /// A stale entry inside its stale-if-error window, served because the upstream failed.
    StaleIfError,
    /// No usable entry, and another request's fetch was already running: this one shared it.
    Coalesced,
}

impl CacheState {
    pub const ALL: [CacheState; 5] = [
        CacheState::Hit,
        CacheState::Miss,
        CacheState::Stale,
        CacheState::StaleIfError,
        CacheState::Coalesced,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Hit => "hit",
            Self::Miss => "miss",
            Self::Stale => "stale",
            Self::StaleIfError => "stale-if-error",
            Self::Coalesced => "coalesced",
        }
    }

    /// Whether the answer came from storage rather than from this request's fetch.
    pub fn served_from_cache(self) -> bool {
        matches!(self, Self::Hit | Self::Stale | Self::StaleIfError)
    }
}

/// The RFC 9211 `Cache-Status` value for this cache (named `bff`). `ttl` is the remaining
/// freshness in seconds (negative once stale); `detail` carries the state's name.
pub fn cache_status_header(
    state: CacheState,
    ttl_seconds: i64,
    stored: bool,
    forward_status: Option<u16>,
) -> String {
    let mut value = String::from("bff");
    match state {
        CacheState::Hit | CacheState::Stale => {
            value.push_str(&format!("; hit; ttl={ttl_seconds}"));
        }
        CacheState::StaleIfError => {
            value.push_str(&format!("; hit; ttl={ttl_seconds}; fwd=stale"));
            if let Some(status) = forward_status {
                value.push_str(&format!("; fwd-status={status}"));
            }
        }
        CacheState::Miss | CacheState::Coalesced => {
            value.push_str("; fwd=uri-miss");
            if let Some(status) = forward_status {
                value.push_str(&format!("; fwd-status={status}"));
            }
            if state == CacheState::Coalesced {
                value.push_str("; collapsed");
            }
            if stored {
                value.push_str(&format!("; stored; ttl={ttl_seconds}"));
            }
        }
    }
    value.push_str(&format!("; detail={}", state.as_str()));
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_values_follow_rfc_9211() {
        assert_eq!(
            cache_status_header(CacheState::Hit, 42, false, None),
            "bff; hit; ttl=42; detail=hit"
        );
        assert_eq!(
            cache_status_header(CacheState::Miss, 300, true, Some(200)),
            "bff; fwd=uri-miss; fwd-status=200; stored; ttl=300; detail=miss"
        );
        assert_eq!(
            cache_status_header(CacheState::Coalesced, 300, true, Some(200)),
            "bff; fwd=uri-miss; fwd-status=200; collapsed; stored; ttl=300; detail=coalesced"
        );
        assert_eq!(
            cache_status_header(CacheState::StaleIfError, -5, false, Some(502)),
            "bff; hit; ttl=-5; fwd=stale; fwd-status=502; detail=stale-if-error"
        );
        assert_eq!(
            cache_status_header(CacheState::Stale, -1, false, None),
            "bff; hit; ttl=-1; detail=stale"
        );
    }
}
