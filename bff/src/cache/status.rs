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

/// `fwd-status` of a stale-if-error answer whose revalidation had not answered within
/// `cache.stale_wait`: for this request the forward timed out.
const FORWARD_TIMED_OUT: u16 = 504;

/// The RFC 9211 `Cache-Status` value for this cache (named `bff`) of an answer that had no
/// stored copy at hand (see [`cache_status`]).
pub fn cache_status_header(
    state: CacheState,
    ttl_seconds: i64,
    stored: bool,
    forward_status: Option<u16>,
) -> String {
    cache_status(state, ttl_seconds, stored, forward_status, false, false)
}

/// The RFC 9211 `Cache-Status` value for this cache (named `bff`). `ttl` is the remaining
/// freshness in seconds (negative once stale); `detail` carries the state's name; `stale_copy`:
/// a stale copy was at hand when the request went forward.
///
/// `hit` means the answer came from storage *without* this request going forward (RFC 9211
/// §2.1), so it never comes with `fwd`:
/// - a fresh hit, and a stale one served while a background revalidation runs
///   (stale-while-revalidate: the revalidation is not this request's, which was answered from
///   storage at once), are `hit` with their `ttl` (negative when stale, as in RFC 9211 §3);
/// - stale-if-error went forward with a stale copy at hand (`fwd=stale`) and served that copy
///   because the upstream failed (`fwd-status` says how; without one, the forward had not
///   answered in time: 504);
/// - a miss went forward for want of a usable entry: `fwd=uri-miss` when there was none,
///   `fwd=stale` when a stale one (past its stale-while-revalidate window) was replaced by the
///   answer; a coalesced request shared another's forward (`collapsed`).
///
/// With Redis, L2 is a cache of its own (`bff-l2`, listed first, nearest the origin): an
/// answer this replica's L1 did not have but L2 did is `bff-l2; hit` and, for L1, a forward
/// (`fwd=uri-miss`) whose answer it stored.
pub fn cache_status(
    state: CacheState,
    ttl_seconds: i64,
    stored: bool,
    forward_status: Option<u16>,
    stale_copy: bool,
    from_l2: bool,
) -> String {
    let served_from_storage = matches!(state, CacheState::Hit | CacheState::Stale);
    if from_l2 && served_from_storage {
        return format!(
            "bff-l2; hit; ttl={ttl_seconds}, bff; fwd=uri-miss; stored; ttl={ttl_seconds}; detail={}",
            state.as_str()
        );
    }
    let mut value = String::from("bff");
    match state {
        CacheState::Hit | CacheState::Stale => {
            value.push_str(&format!("; hit; ttl={ttl_seconds}"));
        }
        CacheState::StaleIfError => {
            let status = forward_status.unwrap_or(FORWARD_TIMED_OUT);
            value.push_str(&format!(
                "; fwd=stale; fwd-status={status}; ttl={ttl_seconds}"
            ));
        }
        CacheState::Miss | CacheState::Coalesced => {
            value.push_str(if stale_copy {
                "; fwd=stale"
            } else {
                "; fwd=uri-miss"
            });
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
    fn an_answer_from_l2_names_l2_as_the_cache_that_hit_and_l1_as_a_forward() {
        assert_eq!(
            cache_status(CacheState::Hit, 42, false, None, false, true),
            "bff-l2; hit; ttl=42, bff; fwd=uri-miss; stored; ttl=42; detail=hit"
        );
        assert_eq!(
            cache_status(CacheState::Stale, -3, false, None, false, true),
            "bff-l2; hit; ttl=-3, bff; fwd=uri-miss; stored; ttl=-3; detail=stale"
        );
        // A stale L2 copy served because the upstream failed: L1's own forward is the story.
        assert!(
            cache_status(CacheState::StaleIfError, -3, false, Some(503), false, true)
                .starts_with("bff; fwd=stale")
        );
    }

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
            cache_status_header(CacheState::StaleIfError, -5, false, Some(503)),
            "bff; fwd=stale; fwd-status=503; ttl=-5; detail=stale-if-error"
        );
        assert_eq!(
            cache_status_header(CacheState::Stale, -1, false, None),
            "bff; hit; ttl=-1; detail=stale"
        );
    }

    #[test]
    fn hit_and_fwd_never_come_together() {
        for state in CacheState::ALL {
            let value = cache_status_header(state, -3, true, Some(502));
            let params: Vec<&str> = value.split("; ").collect();
            let hit = params.contains(&"hit");
            let forwarded = params.iter().any(|param| param.starts_with("fwd="));
            assert!(hit != forwarded, "{value}");
            assert_eq!(
                hit,
                state.served_from_cache() && state != CacheState::StaleIfError
            );
        }
    }

    #[test]
    fn a_miss_that_replaced_a_stale_copy_is_fwd_stale() {
        assert_eq!(
            cache_status(CacheState::Miss, 300, true, Some(200), true, false),
            "bff; fwd=stale; fwd-status=200; stored; ttl=300; detail=miss"
        );
        assert_eq!(
            cache_status(CacheState::Coalesced, 300, true, Some(200), true, false),
            "bff; fwd=stale; fwd-status=200; collapsed; stored; ttl=300; detail=coalesced"
        );
    }

    #[test]
    fn stale_if_error_whose_forward_had_not_answered_says_504() {
        assert_eq!(
            cache_status_header(CacheState::StaleIfError, -40, false, None),
            "bff; fwd=stale; fwd-status=504; ttl=-40; detail=stale-if-error"
        );
    }
}
