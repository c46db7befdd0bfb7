//! `[session]`: the session cookie, its lifetimes, and how often a signed-in session is checked
//! with the upstream.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::duration;

/// The session cookie and the tokens it carries.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SessionConfig {
    /// Cookie name; `__Host-` is prefixed when the public origin is https (then the cookie is
    /// also `Secure`).
    pub cookie_name: String,
    /// Cookie lifetime (a signed-in session also ends when its refresh token does).
    #[serde(with = "duration")]
    pub max_age: Duration,
    /// Access tokens this close to expiry are refreshed before use.
    #[serde(with = "duration")]
    pub refresh_margin: Duration,
    /// `GET /api/session` confirms a signed-in session with the upstream (one profile read)
    /// when the upstream has not accepted it for this long, so a session signed out or revoked
    /// elsewhere stops showing as signed in within this time rather than when its access token
    /// expires. 0: on every `GET /api/session`.
    #[serde(with = "duration")]
    pub verify_after: Duration,
    /// A signed-in session ends this long after its sign-in, whatever its tokens (refreshes
    /// renew the tokens, never this); its cookie's `Max-Age` never outlasts it.
    #[serde(with = "duration")]
    pub absolute_lifetime: Duration,
    /// While Redis cannot say whether a signed-in session was signed out on another replica,
    /// the session is checked with the upstream instead (its tokens refreshed: a sign-out
    /// revokes them there) at most once per this interval on each replica.
    #[serde(with = "duration")]
    pub revocation_check_interval: Duration,
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            cookie_name: "session".to_owned(),
            max_age: Duration::from_secs(30 * 86_400),
            refresh_margin: Duration::from_secs(60),
            verify_after: Duration::from_secs(5 * 60),
            absolute_lifetime: Duration::from_secs(14 * 86_400),
            revocation_check_interval: Duration::from_secs(30),
        }
    }
}

impl SessionConfig {
    /// What is wrong with its keys: the cookie name must be a plain token.
    pub(super) fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.cookie_name.is_empty()
            || !self
                .cookie_name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            problems.push("session.cookie_name: letters, digits, '_' and '-' only".to_owned());
        }
        problems
    }
}
