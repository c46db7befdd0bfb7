//! Sealing the session cookie: AES-256-GCM (RustCrypto's audited `aes-gcm`), a fresh random
//! nonce per seal, the format version bound in as associated data, and key rotation (the first
//! key seals, every listed key opens).
//!
//! Format: `1.` + base64url(nonce ‖ ciphertext ‖ tag). A cookie that does not open (tampered,
//! truncated, sealed with a retired key, another version) is simply no session.
//!
//! The same sealing protects other values that hold tokens (the refresh successors replicas
//! share through Redis), each under its own [`Purpose`]: its own derived keys and associated
//! data, so a value sealed for one purpose never opens as another (a successor copied out of
//! Redis is no cookie).

use aes_gcm::aead::{Aead, Generate, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Key, Nonce};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hkdf::Hkdf;
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;

/// The current format; bump it when the sealed payload changes shape.
pub const VERSION: &str = "1";
const NONCE_LEN: usize = 12;

/// What a sealer is for: the HKDF info its keys are derived with and the associated data bound
/// into every ciphertext, both distinct per purpose.
#[derive(Debug, Clone, Copy)]
pub struct Purpose {
    pub kdf_info: &'static [u8],
    pub associated_data: &'static [u8],
}

/// The session cookie (unchanged since the first release, so issued cookies stay valid).
pub const COOKIE: Purpose = Purpose {
    kdf_info: b"bff session cookie aes-256-gcm",
    associated_data: b"bff.session.v1",
};

pub struct Sealer {
    /// Newest first: index 0 seals.
    ciphers: Vec<Aes256Gcm>,
    /// Binds ciphertexts to the purpose and version, so nothing else sealed with the same
    /// secrets opens here.
    associated_data: &'static [u8],
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Sealer({} keys)", self.ciphers.len())
    }
}

/// What opening a cookie gave.
#[derive(Debug, PartialEq, Eq)]
pub struct Opened {
    pub plaintext: Vec<u8>,
    /// True when a key other than the newest opened it: the caller reseals.
    pub stale_key: bool,
}

impl Sealer {
    /// The cookie's sealer. Keys are derived with HKDF-SHA256 from each configured secret, so
    /// any high-entropy string works as a key; at least one is required.
    pub fn new(secrets: &[SecretString]) -> Option<Self> {
        Self::for_purpose(secrets, COOKIE)
    }

    /// A sealer for `purpose`, with keys derived from the same secrets as the cookie's (so key
    /// rotation works the same way) but distinct from them.
    pub fn for_purpose(secrets: &[SecretString], purpose: Purpose) -> Option<Self> {
        let ciphers: Vec<Aes256Gcm> = secrets
            .iter()
            .map(|secret| {
                let mut key = [0u8; 32];
                let kdf = Hkdf::<Sha256>::new(None, secret.expose_secret().as_bytes());
                // 32 bytes is far below HKDF-SHA256's output limit, so this cannot fail.
                let _ = kdf.expand(purpose.kdf_info, &mut key);
                Aes256Gcm::new(&Key::<Aes256Gcm>::from(key))
            })
            .collect();
        (!ciphers.is_empty()).then_some(Self {
            ciphers,
            associated_data: purpose.associated_data,
        })
    }

    pub fn seal(&self, plaintext: &[u8]) -> Option<String> {
        let cipher = self.ciphers.first()?;
        let nonce = Nonce::generate();
        let ciphertext = cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plaintext,
                    aad: self.associated_data,
                },
            )
            .ok()?;
        let mut sealed = nonce.to_vec();
        sealed.extend_from_slice(&ciphertext);
        Some(format!("{VERSION}.{}", URL_SAFE_NO_PAD.encode(sealed)))
    }

    pub fn open(&self, value: &str) -> Option<Opened> {
        let encoded = value.strip_prefix(VERSION)?.strip_prefix('.')?;
        let sealed = URL_SAFE_NO_PAD.decode(encoded).ok()?;
        if sealed.len() <= NONCE_LEN {
            return None;
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_LEN);
        let nonce = Nonce::try_from(nonce).ok()?;
        self.ciphers.iter().enumerate().find_map(|(index, cipher)| {
            cipher
                .decrypt(
                    &nonce,
                    Payload {
                        msg: ciphertext,
                        aad: self.associated_data,
                    },
                )
                .ok()
                .map(|plaintext| Opened {
                    plaintext,
                    stale_key: index > 0,
                })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer(keys: &[&str]) -> Sealer {
        let secrets: Vec<SecretString> = keys.iter().map(|k| SecretString::from(*k)).collect();
        Sealer::new(&secrets).unwrap()
    }

    #[test]
    fn round_trips_with_a_fresh_nonce_each_time() {
        let sealer = sealer(&["key-one"]);
        let a = sealer.seal(b"{\"g\":\"gid_1\"}").unwrap();
        let b = sealer.seal(b"{\"g\":\"gid_1\"}").unwrap();
        assert_ne!(a, b);
        assert_eq!(sealer.open(&a).unwrap().plaintext, b"{\"g\":\"gid_1\"}");
    }

    #[test]
    fn tampered_truncated_foreign_and_old_cookies_do_not_open() {
        let sealer = sealer(&["key-one"]);
        let sealed = sealer.seal(b"payload").unwrap();
        let mut tampered = sealed.clone().into_bytes();
        let last = tampered.len() - 3;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert!(sealer.open(&String::from_utf8(tampered).unwrap()).is_none());
        assert!(sealer.open(&sealed[..sealed.len() - 4]).is_none());
        assert!(sealer.open("1.").is_none());
        assert!(
            sealer.open(&sealed.replacen("1.", "0.", 1)).is_none(),
            "another version"
        );
        assert!(super::Sealer::new(&[]).is_none());
        let other = self::sealer(&["another-key"]);
        assert!(other.open(&sealed).is_none());
    }

    #[test]
    fn a_value_sealed_for_another_purpose_does_not_open() {
        let secrets = [SecretString::from("key-one")];
        let other = Sealer::for_purpose(
            &secrets,
            Purpose {
                kdf_info: b"another purpose",
                associated_data: b"another.v1",
            },
        )
        .unwrap();
        let cookie = Sealer::new(&secrets).unwrap();
        assert!(cookie.open(&other.seal(b"payload").unwrap()).is_none());
        assert!(other.open(&cookie.seal(b"payload").unwrap()).is_none());
    }

    #[test]
    fn rotation_opens_with_old_keys_and_reports_them() {
        let old = sealer(&["old-key"]);
        let sealed = old.seal(b"payload").unwrap();
        let rotated = sealer(&["new-key", "old-key"]);
        let opened = rotated.open(&sealed).unwrap();
        assert!(opened.stale_key);
        let resealed = rotated.seal(&opened.plaintext).unwrap();
        assert!(!rotated.open(&resealed).unwrap().stale_key);
        let retired = sealer(&["new-key"]);
        assert!(retired.open(&sealed).is_none());
    }
}
