//! A session's identity: an id, and when it began. Both travel sealed in the cookie.
//!
//! - The **id** names the session for revocation: sign-out revokes it (see
//!   [`super::revocation::Revocations`]), and a copy of the cookie replayed afterwards opens to
//!   a revoked id and is signed out.
//! - The **beginning** bounds the session's life: a signed-in session older than
//!   `session.absolute_lifetime` is over, whatever its tokens say (refreshes renew tokens,
//!   never the beginning).
//!
//! A sign-in begins a new session (a new id: whatever id the visitor held before, perhaps
//! planted, means nothing afterwards). A cookie sealed before ids existed gets one when it is
//! opened, derived from what it holds (the refresh token's hash, or the guest token's), so
//! every copy of that old cookie derives the same id and a sign-out revokes them all; it is
//! written into the cookie at its next reseal. Its beginning, unknown, is taken as that first
//! opening: an old cookie keeps working, for at most one more lifetime.

use sha2::{Digest, Sha256};

use super::model::Session;
use super::tokens::now_ms;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionIdentity {
    /// 32 hex digits: random for a new session, derived for an old cookie.
    pub id: String,
    /// Unix milliseconds.
    pub began_at_ms: i64,
}

impl SessionIdentity {
    /// A new session, beginning now.
    pub fn begin() -> Self {
        Self {
            id: uuid::Uuid::new_v4().simple().to_string(),
            began_at_ms: now_ms(),
        }
    }

    /// The identity of a session sealed before identities existed: an id every copy of that
    /// cookie derives alike, beginning now. `None` for an anonymous session (nothing to name).
    pub fn derived(session: &Session) -> Option<Self> {
        let secret = match session {
            Session::Anonymous => return None,
            Session::Guest { guest_id } => guest_id.as_str(),
            Session::User { tokens, .. } => tokens.refresh_token.as_str(),
        };
        let digest = Sha256::digest(format!("bff session id:{secret}").as_bytes());
        Some(Self {
            id: hex::encode(&digest[..16]),
            began_at_ms: now_ms(),
        })
    }

    /// Whether a session this old is past `lifetime_ms` at `now_ms`.
    pub fn outlived(&self, lifetime_ms: i64, now_ms: i64) -> bool {
        now_ms.saturating_sub(self.began_at_ms) >= lifetime_ms
    }

    /// Milliseconds of life left at `now_ms` (0 when outlived).
    pub fn left_ms(&self, lifetime_ms: i64, now_ms: i64) -> i64 {
        self.began_at_ms
            .saturating_add(lifetime_ms)
            .saturating_sub(now_ms)
            .max(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::UserTokens;

    #[test]
    fn new_sessions_differ_and_an_old_cookie_derives_the_same_id_every_time() {
        assert_ne!(SessionIdentity::begin().id, SessionIdentity::begin().id);
        assert_eq!(SessionIdentity::begin().id.len(), 32);
        let user = Session::User {
            tokens: UserTokens::for_test("r1"),
            pending_merge: None,
        };
        let once = SessionIdentity::derived(&user).unwrap();
        assert_eq!(once.id, SessionIdentity::derived(&user).unwrap().id);
        assert!(!once.id.contains("r1"), "never the token itself");
        let other = Session::User {
            tokens: UserTokens::for_test("r2"),
            pending_merge: None,
        };
        assert_ne!(once.id, SessionIdentity::derived(&other).unwrap().id);
        assert_eq!(SessionIdentity::derived(&Session::Anonymous), None);
    }

    #[test]
    fn a_session_is_outlived_at_its_lifetime() {
        let identity = SessionIdentity {
            id: "a".repeat(32),
            began_at_ms: 1_000,
        };
        assert!(!identity.outlived(500, 1_499));
        assert!(identity.outlived(500, 1_500));
        assert_eq!(identity.left_ms(500, 1_200), 300);
        assert_eq!(identity.left_ms(500, 9_000), 0);
    }
}
