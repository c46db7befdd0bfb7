//! Wall-clock time as the sandbox stores and answers it.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Now, as RFC 3339 in UTC (what .NET's `DateTime` serialises to).
pub fn now_rfc3339() -> String {
    OffsetDateTime::now_utc()
        .format(&Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_owned())
}

/// Seconds since the Unix epoch.
pub fn now_unix() -> i64 {
    OffsetDateTime::now_utc().unix_timestamp()
}
