//! Money: integer cents inside, a JSON number of dollars outside (`1299.99`), as a .NET API
//! serialises a `decimal`. Rates and percentages are applied in integer millionths, so rounding
//! is exact and half-up.

use serde::{Serialize, Serializer};

/// An amount in cents, serialised as dollars.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Money(pub i64);

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Cents / 100 always prints as its shortest round-trip form, e.g. 1299.99 or 19.9.
        serializer.serialize_f64(self.0 as f64 / 100.0)
    }
}

impl Money {
    /// `$1,299.99`, for e-mails.
    pub fn display(self) -> String {
        let sign = if self.0 < 0 { "-" } else { "" };
        let cents = self.0.unsigned_abs();
        let dollars = (cents / 100).to_string();
        let mut grouped = String::with_capacity(dollars.len() + dollars.len() / 3);
        for (index, digit) in dollars.chars().enumerate() {
            if index > 0 && (dollars.len() - index).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(digit);
        }
        format!("{sign}${grouped}.{:02}", cents % 100)
    }
}

/// A fraction in millionths (0.0825 is 82_500), stored as SQLite REAL and read once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rate(i64);

impl Rate {
    pub const ZERO: Self = Self(0);

    /// From a fraction such as a tax rate (0.0825).
    pub fn from_fraction(fraction: f64) -> Self {
        Self((fraction * 1_000_000.0).round() as i64)
    }

    /// From a percentage such as a promo's 10.
    pub fn from_percent(percent: f64) -> Self {
        Self((percent * 10_000.0).round() as i64)
    }

    /// `cents` times the rate, rounded half-up to a cent.
    pub fn of(self, cents: i64) -> i64 {
        (cents * self.0 + 500_000).div_euclid(1_000_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_as_dollars() {
        let json = serde_json::to_string(&[Money(129_999), Money(1_999), Money(0), Money(5)])
            .unwrap_or_default();
        assert_eq!(json, "[1299.99,19.99,0.0,0.05]");
    }

    #[test]
    fn displays_grouped_dollars() {
        assert_eq!(Money(129_999).display(), "$1,299.99");
        assert_eq!(Money(123_456_789).display(), "$1,234,567.89");
        assert_eq!(Money(5).display(), "$0.05");
        assert_eq!(Money(-1_500).display(), "-$15.00");
    }

    #[test]
    fn rates_round_half_up_exactly() {
        assert_eq!(Rate::from_fraction(0.0825).of(2_000), 165);
        assert_eq!(Rate::from_fraction(0.0725).of(100), 7);
        assert_eq!(Rate::from_fraction(0.05).of(10), 1);
        assert_eq!(Rate::from_percent(10.0).of(129_999), 13_000);
        assert_eq!(Rate::from_percent(20.0).of(0), 0);
        assert_eq!(Rate::ZERO.of(99_999), 0);
    }
}
