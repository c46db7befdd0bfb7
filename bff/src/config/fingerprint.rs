//! One name for "the configuration this process runs with", comparable across replicas: the
//! SHA-256 of the effective configuration (defaults, file and environment merged; secrets are
//! not part of [`Config`]), over its canonical JSON so key order cannot change it. Credentials
//! written into URLs are redacted first ([`super::redact`]): the hash is exported as a metric
//! label, and a hash over a known configuration would let a weak password be guessed offline.

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::Config;
use super::redact::redact_json;

/// How many hex digits of the hash make the short version shown to people and in metrics.
const VERSION_DIGITS: usize = 12;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigFingerprint {
    /// The hash's first digits: short enough for a label and a glance.
    pub version: String,
    /// Hex SHA-256 of the canonical JSON of the configuration.
    pub hash: String,
}

impl ConfigFingerprint {
    pub fn of(config: &Config) -> Self {
        // Through `Value`: its maps are sorted, so two replicas of one configuration agree
        // whatever order the file or the environment gave the keys in.
        let canonical = serde_json::to_value(config)
            .and_then(|mut value| {
                redact_json(&mut value);
                serde_json::to_vec(&value)
            })
            .unwrap_or_default();
        let hash = hex::encode(Sha256::digest(&canonical));
        Self {
            version: hash[..VERSION_DIGITS].to_owned(),
            hash,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_configuration_has_one_fingerprint_and_a_change_makes_another() {
        let config = Config::default();
        assert_eq!(
            ConfigFingerprint::of(&config),
            ConfigFingerprint::of(&config.clone())
        );
        let mut changed = config.clone();
        changed.cache.capacity_bytes += 1;
        let (before, after) = (
            ConfigFingerprint::of(&config),
            ConfigFingerprint::of(&changed),
        );
        assert_ne!(before.hash, after.hash);
        assert_eq!(before.version, before.hash[..VERSION_DIGITS]);
    }
}
