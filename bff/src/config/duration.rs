//! Durations in the configuration: humantime strings (`"250ms"`, `"5m"`, `"1d"`, `"2h 30m"`),
//! read into [`Duration`] with `humantime`, written back in the largest unit that states them
//! exactly (`"1d"`, not `"86400s"`), so `check-config` prints what ops would write.
//!
//! Use as `#[serde(with = "crate::config::duration")]` (or `duration::option` for an
//! `Option<Duration>`).

use std::fmt;
use std::time::Duration;

use serde::de::{self, Visitor};
use serde::{Deserializer, Serializer};

/// What a duration key expects, for error messages.
const EXPECTED: &str =
    "a duration with its unit, e.g. \"250ms\", \"30s\", \"5m\", \"2h\" or \"1d\"";

/// The units [`format()`] writes, largest first, with their length in nanoseconds.
const UNITS: [(&str, u128); 7] = [
    ("d", 86_400_000_000_000),
    ("h", 3_600_000_000_000),
    ("m", 60_000_000_000),
    ("s", 1_000_000_000),
    ("ms", 1_000_000),
    ("us", 1_000),
    ("ns", 1),
];

/// `duration` in the largest unit that states it exactly: `"1d"`, `"90s"`, `"250ms"`, `"0s"`.
pub fn format(duration: Duration) -> String {
    let nanos = duration.as_nanos();
    if nanos == 0 {
        return "0s".to_owned();
    }
    UNITS
        .iter()
        .find(|(_, size)| nanos.is_multiple_of(*size))
        .map_or_else(
            || format!("{nanos}ns"),
            |(unit, size)| format!("{}{unit}", nanos / size),
        )
}

/// `text` as a duration, or why not (in words that name what is expected).
pub fn parse(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text.trim()).map_err(|err| format!("{text:?}: {err}; {EXPECTED}"))
}

/// A duration as whole milliseconds, for the places that count in them (Redis `PX`, the
/// session cookie's timestamps); saturating, as no configured duration comes near.
pub fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

pub fn serialize<S: Serializer>(duration: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format(*duration))
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Duration, D::Error> {
    deserializer.deserialize_any(DurationVisitor)
}

struct DurationVisitor;

impl Visitor<'_> for DurationVisitor {
    type Value = Duration;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(EXPECTED)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Duration, E> {
        parse(text).map_err(E::custom)
    }

    /// Only 0 goes without a unit (it is the same in all of them); any other bare number is
    /// ambiguous, which is what the unit-less spelling is meant to end.
    fn visit_u64<E: de::Error>(self, number: u64) -> Result<Duration, E> {
        if number == 0 {
            return Ok(Duration::ZERO);
        }
        Err(E::custom(format!(
            "{number} has no unit; {EXPECTED} (\"{number}ms\" or \"{number}s\"?)"
        )))
    }

    fn visit_i64<E: de::Error>(self, number: i64) -> Result<Duration, E> {
        match u64::try_from(number) {
            Ok(number) => self.visit_u64(number),
            Err(_) => Err(E::custom(format!("{number}: a duration is never negative"))),
        }
    }
}

/// `#[serde(with = "crate::config::duration::option")]`: an optional duration, absent when
/// `None`.
pub mod option {
    use std::time::Duration;

    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(
        duration: &Option<Duration>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match duration {
            Some(duration) => super::serialize(duration, serializer),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<Duration>, D::Error> {
        super::deserialize(deserializer).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn millis_saturates() {
        assert_eq!(millis(Duration::from_millis(1500)), 1500);
        assert_eq!(millis(Duration::MAX), u64::MAX);
    }

    #[test]
    fn humantime_strings_parse() {
        assert_eq!(parse("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse("1d"), Ok(Duration::from_secs(86_400)));
        assert_eq!(parse("2h 30m"), Ok(Duration::from_secs(9_000)));
        assert_eq!(parse("0"), Ok(Duration::ZERO));
        assert!(parse("soon").is_err());
        assert!(parse("5").is_err(), "a number without its unit");
        assert!(parse("").is_err());
    }

    #[test]
    fn durations_are_written_in_the_largest_exact_unit() {
        assert_eq!(format(Duration::ZERO), "0s");
        assert_eq!(format(Duration::from_millis(250)), "250ms");
        assert_eq!(format(Duration::from_millis(1_500)), "1500ms");
        assert_eq!(format(Duration::from_secs(90)), "90s");
        assert_eq!(format(Duration::from_secs(300)), "5m");
        assert_eq!(format(Duration::from_secs(86_400)), "1d");
        assert_eq!(format(Duration::from_secs(63_072_000)), "730d");
        for duration in [
            Duration::from_nanos(1),
            Duration::from_micros(7),
            Duration::from_millis(1_209_600_000),
        ] {
            assert_eq!(parse(&format(duration)), Ok(duration), "round trip");
        }
    }
}
