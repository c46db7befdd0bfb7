//! What an admin token may do: one scope per kind of action, so a dashboard's token can read
//! and a CMS operator's can purge without either being able to change the running config.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One kind of admin action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Every `GET` (statistics, the fleet, the effective config, explain, the audit log).
    Read,
    /// Cache purges, by tag, key or all.
    Purge,
    /// Configuration reloads and live changes.
    Config,
    /// Closing the previous release's asset window.
    Rollout,
}

impl Scope {
    pub const ALL: [Scope; 4] = [Scope::Read, Scope::Purge, Scope::Config, Scope::Rollout];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Purge => "purge",
            Self::Config => "config",
            Self::Rollout => "rollout",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of scopes (a bit each): copied into every request's extensions, so it is kept small.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scopes(u8);

impl Scopes {
    /// Every scope: what `BFF_ADMIN_TOKEN` has.
    pub fn all() -> Self {
        Scope::ALL.into_iter().collect()
    }

    pub fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The scopes in their declared order.
    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL
            .into_iter()
            .filter(move |scope| self.contains(*scope))
    }
}

impl FromIterator<Scope> for Scopes {
    fn from_iter<I: IntoIterator<Item = Scope>>(scopes: I) -> Self {
        Self(scopes.into_iter().fold(0, |bits, scope| bits | scope.bit()))
    }
}

/// As the list of their names: `["read", "purge"]`.
impl Serialize for Scopes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}
