//! The webhook's optional signature, for a CMS that can sign (Strapi sends a static bearer
//! secret instead): `X-Webhook-Timestamp` (Unix seconds) and `X-Webhook-Signature:
//! sha256=<hex>`, the HMAC-SHA256 under `BFF_WEBHOOK_SIGNING_SECRET` of `<timestamp>.<body>`.
//! A timestamp more than five minutes from now (either way) is refused, so a captured request
//! cannot be replayed later, and within that window each signature is accepted once (see
//! [`super::webhook_replay`]); the comparison is constant-time (`hmac`'s `verify_slice`).

use axum::http::HeaderMap;
use hmac::{KeyInit, Mac};
use sha2::Sha256;

pub const TIMESTAMP_HEADER: &str = "x-webhook-timestamp";
pub const SIGNATURE_HEADER: &str = "x-webhook-signature";

/// How far the timestamp may be from now, either way.
pub const WINDOW_SECONDS: u64 = 5 * 60;

/// Why a signature was refused (logged, never sent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    Missing,
    Stale,
    Wrong,
}

fn mac(secret: &[u8], timestamp: &str, body: &[u8]) -> Option<hmac::Hmac<Sha256>> {
    let mut mac = <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(secret).ok()?;
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    Some(mac)
}

/// The signature header's value for `body` at `timestamp` (for the CMS side, and tests).
pub fn sign(secret: &[u8], timestamp: u64, body: &[u8]) -> String {
    let tag = mac(secret, &timestamp.to_string(), body)
        .map(|mac| hex::encode(mac.finalize().into_bytes()))
        .unwrap_or_default();
    format!("sha256={tag}")
}

/// Checks the signature of `body` in `headers` at `now_seconds` (Unix); the signature's bytes
/// when it holds, to remember it by.
pub fn verify(
    secret: &[u8],
    headers: &HeaderMap,
    body: &[u8],
    now_seconds: u64,
) -> Result<Vec<u8>, Refused> {
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let (Some(timestamp), Some(signature)) = (header(TIMESTAMP_HEADER), header(SIGNATURE_HEADER))
    else {
        return Err(Refused::Missing);
    };
    let sent: u64 = timestamp.trim().parse().map_err(|_| Refused::Missing)?;
    if sent.abs_diff(now_seconds) > WINDOW_SECONDS {
        return Err(Refused::Stale);
    }
    let tag = signature
        .trim()
        .strip_prefix("sha256=")
        .and_then(|hex_tag| hex::decode(hex_tag).ok())
        .ok_or(Refused::Wrong)?;
    let mac = mac(secret, timestamp.trim(), body).ok_or(Refused::Wrong)?;
    mac.verify_slice(&tag).map_err(|_| Refused::Wrong)?;
    Ok(tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(timestamp: &str, signature: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            TIMESTAMP_HEADER,
            timestamp.parse().unwrap_or_else(|_| unreachable!()),
        );
        headers.insert(
            SIGNATURE_HEADER,
            signature.parse().unwrap_or_else(|_| unreachable!()),
        );
        headers
    }

    #[test]
    fn a_signature_holds_for_its_body_within_five_minutes_only() {
        let key = b"signing-key";
        let body = br#"{"event":"entry.publish"}"#;
        let now = 1_800_000_000;
        let signed = headers(&now.to_string(), &sign(key, now, body));
        assert!(verify(key, &signed, body, now + 299).is_ok());
        assert!(verify(key, &signed, body, now - 299).is_ok());
        assert_eq!(verify(key, &signed, body, now + 301), Err(Refused::Stale));
        assert_eq!(verify(key, &signed, body, now - 301), Err(Refused::Stale));
        let epoch = headers("0", &sign(key, 0, body));
        assert_eq!(verify(key, &epoch, body, now), Err(Refused::Stale));
        assert_eq!(verify(key, &signed, b"{}", now), Err(Refused::Wrong));
        assert_eq!(
            verify(b"other-key", &signed, body, now),
            Err(Refused::Wrong)
        );
        assert_eq!(
            verify(key, &HeaderMap::new(), body, now),
            Err(Refused::Missing)
        );
        // The timestamp is signed: moving it forward breaks the signature.
        let moved = headers(&(now + 60).to_string(), &sign(key, now, body));
        assert_eq!(verify(key, &moved, body, now), Err(Refused::Wrong));
    }
}
