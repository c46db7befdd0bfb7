//! The MAC on every value the replicas read back from Redis and then serve or trust: L2 entries
//! and documents (with their compressed variants), checkout idempotency answers and the rollout
//! window's state. Anyone who can write to Redis could otherwise serve their own page to every
//! shopper at hit speed; with it, a value this fleet did not write is a miss.
//!
//! HMAC-SHA256 under a key derived (HKDF-SHA256, a label of its own) from each session key:
//! the first key signs, every listed key verifies, so a rotation (a new first key, the old one
//! still listed) keeps L2 and the kept answers. The MAC covers the Redis key the value is
//! stored under and every field read back, each length-prefixed, so a value cannot be moved to
//! another key, nor a field to another field.
//!
//! A value that fails the check is treated as absent by its caller, counted in
//! `bff_shared_tier_rejected_total{kind}` and logged once per key at most (the key, never the
//! value).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;

use crate::observe::metrics::Metrics;
use crate::observe::shopper_text;

/// The HKDF label: a key of its own, never the cookie's or the refresh successors'.
const KDF_INFO: &[u8] = b"bff shared-tier value hmac-sha256";
/// How many rejected keys are remembered so as not to be logged twice. Past it, rejections are
/// still counted, and no longer logged: a flood of forged values cannot flood the log.
const LOGGED_KEYS: usize = 1024;
/// A MAC's length in hex, as it is stored (readable with `redis-cli`).
pub const MAC_HEX_LEN: usize = 64;

/// What a signed value is, as `bff_shared_tier_rejected_total{kind}` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignedKind {
    /// An L2 entry (an API answer).
    Entry,
    /// A server-rendered document in L2.
    Document,
    /// A checkout idempotency key's marker or kept answer.
    Idempotency,
    /// The rollout window's shared start or closing flag.
    Rollout,
}

impl SignedKind {
    pub const ALL: [Self; 4] = [
        Self::Entry,
        Self::Document,
        Self::Idempotency,
        Self::Rollout,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Entry => "entry",
            Self::Document => "document",
            Self::Idempotency => "idempotency",
            Self::Rollout => "rollout",
        }
    }
}

/// Signs and checks shared-tier values; cheap to clone.
#[derive(Clone)]
pub struct SharedTierMac {
    /// Newest first: index 0 signs. Each already keyed, cloned per use (keying costs two
    /// compressions of SHA-256, paid once here).
    keys: Arc<[Hmac<Sha256>]>,
    metrics: Arc<Metrics>,
    /// Redis keys already logged as rejected, at most [`LOGGED_KEYS`]. A std mutex: held for
    /// one set operation, never across an await.
    logged: Arc<Mutex<HashSet<String>>>,
}

impl std::fmt::Debug for SharedTierMac {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedTierMac({} keys)", self.keys.len())
    }
}

impl SharedTierMac {
    /// The MAC keys derived from the session keys (`BFF_SESSION_KEYS`, newest first); `None`
    /// without any.
    pub fn from_session_keys(session_keys: &[SecretString], metrics: Arc<Metrics>) -> Option<Self> {
        let keys: Vec<Hmac<Sha256>> = session_keys
            .iter()
            .filter_map(|secret| {
                let mut key = [0u8; 32];
                let kdf = Hkdf::<Sha256>::new(None, secret.expose_secret().as_bytes());
                // 32 bytes is far below HKDF-SHA256's output limit: this cannot fail.
                kdf.expand(KDF_INFO, &mut key).ok()?;
                <Hmac<Sha256> as KeyInit>::new_from_slice(&key).ok()
            })
            .collect();
        for kind in SignedKind::ALL {
            metrics.declare_shared_tier_kind(kind.as_str());
        }
        (!keys.is_empty()).then(|| Self {
            keys: keys.into(),
            metrics,
            logged: Arc::default(),
        })
    }

    /// The MAC (lower-case hex) of `fields` stored under the Redis key `key`, with the first key.
    pub fn sign(&self, key: &str, fields: &[&[u8]]) -> String {
        self.keys
            .first()
            .map(|first| hex::encode(digest(first, key, fields).finalize().into_bytes()))
            .unwrap_or_default()
    }

    /// Whether `mac` (as [`Self::sign`] writes it) is the MAC of `fields` under `key` for any
    /// listed key; compared in constant time.
    pub fn verify(&self, key: &str, fields: &[&[u8]], mac: &[u8]) -> bool {
        let Some(mac) = (mac.len() == MAC_HEX_LEN)
            .then(|| hex::decode(mac).ok())
            .flatten()
        else {
            return false;
        };
        self.keys
            .iter()
            .any(|listed| digest(listed, key, fields).verify_slice(&mac).is_ok())
    }

    /// [`Self::verify`], with a failure (or a missing MAC) counted and logged as a rejected
    /// `kind`.
    pub fn check(&self, kind: SignedKind, key: &str, fields: &[&[u8]], mac: Option<&[u8]>) -> bool {
        if mac.is_some_and(|mac| self.verify(key, fields, mac)) {
            return true;
        }
        self.reject(kind, key);
        false
    }

    /// Counts a value of `kind` at `key` that failed its check; logs it unless this key was
    /// already logged.
    pub fn reject(&self, kind: SignedKind, key: &str) {
        self.metrics.count_shared_tier_rejected(kind.as_str());
        let first_time = {
            let mut logged = self
                .logged
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            logged.len() < LOGGED_KEYS && logged.insert(key.to_owned())
        };
        if first_time {
            tracing::warn!(
                kind = kind.as_str(),
                key = %shopper_text::redact(key),
                "a value in redis failed its MAC (written by hand, by another fleet, or under a retired session key); treated as absent"
            );
        }
    }
}

/// The MAC state over `key` and `fields`, each prefixed by its length (so no two lists of
/// fields give the same input).
fn digest(keyed: &Hmac<Sha256>, key: &str, fields: &[&[u8]]) -> Hmac<Sha256> {
    let mut mac = keyed.clone();
    for field in std::iter::once(key.as_bytes()).chain(fields.iter().copied()) {
        mac.update(&u64::try_from(field.len()).unwrap_or(u64::MAX).to_be_bytes());
        mac.update(field);
    }
    mac
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mac(keys: &[&str]) -> SharedTierMac {
        let keys: Vec<SecretString> = keys.iter().map(|key| SecretString::from(*key)).collect();
        SharedTierMac::from_session_keys(&keys, Arc::new(Metrics::new())).unwrap()
    }

    #[test]
    fn a_value_verifies_under_its_key_and_fields_only() {
        let signer = mac(&["session-key-one"]);
        let signed = signer.sign("p:cache:entry:a", &[b"meta", b"body"]);
        assert_eq!(signed.len(), MAC_HEX_LEN);
        assert!(signer.verify("p:cache:entry:a", &[b"meta", b"body"], signed.as_bytes()));
        assert!(!signer.verify("p:cache:entry:b", &[b"meta", b"body"], signed.as_bytes()));
        assert!(!signer.verify("p:cache:entry:a", &[b"meta", b"bodY"], signed.as_bytes()));
        // a byte moved from one field to the next is another value
        assert!(!signer.verify("p:cache:entry:a", &[b"met", b"abody"], signed.as_bytes()));
        assert!(!signer.verify("p:cache:entry:a", &[b"meta", b"body"], b"00"));
    }

    #[test]
    fn the_first_key_signs_and_every_listed_key_verifies() {
        let old = mac(&["old-key"]);
        let signed = old.sign("k", &[b"v"]);
        let rotated = mac(&["new-key", "old-key"]);
        assert!(rotated.verify("k", &[b"v"], signed.as_bytes()));
        assert_ne!(
            rotated.sign("k", &[b"v"]),
            signed,
            "the new first key signs"
        );
        let retired = mac(&["new-key"]);
        assert!(!retired.verify("k", &[b"v"], signed.as_bytes()));
    }

    #[test]
    fn the_mac_key_is_not_the_session_key_itself() {
        let signer = mac(&["session-key"]);
        let plain = <Hmac<Sha256> as KeyInit>::new_from_slice(b"session-key").unwrap();
        let under_the_session_key =
            hex::encode(digest(&plain, "k", &[b"v"]).finalize().into_bytes());
        assert_ne!(signer.sign("k", &[b"v"]), under_the_session_key);
    }

    #[test]
    fn a_rejection_is_counted_every_time() {
        let signer = mac(&["key"]);
        assert!(!signer.check(SignedKind::Document, "k", &[b"v"], None));
        assert!(!signer.check(SignedKind::Document, "k", &[b"v"], Some(b"x")));
        let exposition = signer.metrics.render();
        assert!(
            exposition.contains("bff_shared_tier_rejected_total{kind=\"document\"} 2"),
            "{exposition}"
        );
    }
}
