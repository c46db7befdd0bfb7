//! What the session cookie holds. Short field names keep the sealed cookie small.

use serde::{Deserialize, Serialize};

use crate::upstream::UpstreamError;

/// One visitor's session: nobody yet, a guest (with the guest token the cart lives under), or a
/// signed-in user (with, until a merge succeeds, the guest cart still to be merged into theirs).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Wire", into = "Wire")]
pub enum Session {
    #[default]
    Anonymous,
    Guest {
        /// The guest token (`gid_…`).
        guest_id: String,
    },
    User {
        tokens: UserTokens,
        /// A guest cart waiting to be merged into the user's cart; kept until the merge
        /// succeeds, so no cart is ever lost.
        pending_merge: Option<String>,
    },
}

impl Session {
    pub fn guest(guest_id: String) -> Self {
        Self::Guest { guest_id }
    }

    /// The signed-in user's tokens; `None` for anonymous visitors and guests.
    pub fn user(&self) -> Option<&UserTokens> {
        match self {
            Self::User { tokens, .. } => Some(tokens),
            _ => None,
        }
    }

    /// The guest token while the visitor is a guest.
    pub fn guest_id(&self) -> Option<&str> {
        match self {
            Self::Guest { guest_id } => Some(guest_id),
            _ => None,
        }
    }

    /// The guest cart a signed-in user still has to merge.
    pub fn pending_merge(&self) -> Option<&str> {
        match self {
            Self::User { pending_merge, .. } => pending_merge.as_deref(),
            _ => None,
        }
    }

    /// Signed in with `tokens`: a guest's cart becomes the pending merge (one already pending
    /// stays).
    pub fn signed_in(self, tokens: UserTokens) -> Self {
        let pending_merge = match self {
            Self::Guest { guest_id } => Some(guest_id),
            Self::User { pending_merge, .. } => pending_merge,
            Self::Anonymous => None,
        };
        Self::User {
            tokens,
            pending_merge,
        }
    }

    /// The same user with renewed or edited tokens.
    pub fn with_tokens(self, tokens: UserTokens) -> Self {
        match self {
            Self::User { pending_merge, .. } => Self::User {
                tokens,
                pending_merge,
            },
            other => other,
        }
    }

    /// The pending guest cart is merged (or gone): nothing left to merge.
    pub fn merged(self) -> Self {
        match self {
            Self::User { tokens, .. } => Self::User {
                tokens,
                pending_merge: None,
            },
            other => other,
        }
    }
}

/// The cookie's shape (short names keep the sealed cookie small); unchanged from the struct
/// the session used to be, so cookies issued before stay valid.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Wire {
    #[serde(rename = "g", default, skip_serializing_if = "Option::is_none")]
    guest_id: Option<String>,
    #[serde(rename = "u", default, skip_serializing_if = "Option::is_none")]
    user: Option<UserTokens>,
    #[serde(rename = "m", default, skip_serializing_if = "Option::is_none")]
    pending_merge: Option<String>,
}

impl From<Wire> for Session {
    fn from(wire: Wire) -> Self {
        match (wire.user, wire.guest_id) {
            (Some(tokens), _) => Self::User {
                tokens,
                pending_merge: wire.pending_merge,
            },
            (None, Some(guest_id)) => Self::Guest { guest_id },
            (None, None) => Self::Anonymous,
        }
    }
}

impl From<Session> for Wire {
    fn from(session: Session) -> Self {
        match session {
            Session::Anonymous => Self::default(),
            Session::Guest { guest_id } => Self {
                guest_id: Some(guest_id),
                ..Self::default()
            },
            Session::User {
                tokens,
                pending_merge,
            } => Self {
                user: Some(tokens),
                pending_merge,
                ..Self::default()
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserTokens {
    #[serde(rename = "a")]
    pub access_token: String,
    #[serde(rename = "r")]
    pub refresh_token: String,
    #[serde(rename = "t")]
    pub token_type: String,
    /// When the access token expires (Unix seconds).
    #[serde(rename = "e")]
    pub expires_at: i64,
    /// When the tokens were issued (Unix milliseconds, as the spec stores it).
    #[serde(rename = "i")]
    pub issued_at_ms: i64,
    #[serde(rename = "n", default)]
    pub first_name: String,
    #[serde(rename = "l", default)]
    pub last_name: String,
    #[serde(rename = "em", default)]
    pub email: String,
    /// When the upstream last accepted this session (Unix milliseconds): its sign-in, refresh
    /// or the last check `GET /api/session` made. A sign-out elsewhere revokes the tokens
    /// upstream but not this cookie, so the session view is confirmed again once this is older
    /// than `session.verify_after`. 0 (cookies sealed before it existed): never confirmed.
    #[serde(rename = "c", default)]
    pub confirmed_at_ms: i64,
}

#[cfg(test)]
impl UserTokens {
    /// Tokens for unit tests: `access-{refresh_token}` and `refresh_token`, expired.
    pub(crate) fn for_test(refresh_token: &str) -> Self {
        Self {
            access_token: format!("access-{refresh_token}"),
            refresh_token: refresh_token.to_owned(),
            token_type: "Bearer".to_owned(),
            expires_at: 0,
            issued_at_ms: 0,
            first_name: String::new(),
            last_name: String::new(),
            email: String::new(),
            confirmed_at_ms: 0,
        }
    }
}

/// The sealed envelope: a format version inside too, so a payload change is detected even
/// under the same outer version. The session's id and issue time ride beside the session
/// (optional, so cookies sealed before they existed still open, and gain them when resealed).
#[derive(Debug, Serialize, Deserialize)]
pub struct Envelope {
    pub v: u8,
    pub s: Session,
    /// The session id (see [`super::identity::SessionIdentity`]).
    #[serde(rename = "i", default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// When the session began (Unix milliseconds).
    #[serde(rename = "b", default, skip_serializing_if = "Option::is_none")]
    pub began_at_ms: Option<i64>,
}

pub const PAYLOAD_VERSION: u8 = 1;

/// Why a refresh token did not give new tokens.
#[derive(Debug, Clone)]
pub enum RefreshFailure {
    /// The upstream refused the refresh token: the session is over.
    Refused,
    /// The upstream could not be asked: the session stays, this request fails.
    Unavailable(UpstreamError),
}
