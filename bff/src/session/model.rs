//! What the session cookie holds. Short field names keep the sealed cookie small.

use serde::{Deserialize, Serialize};

/// One visitor's session: a guest token, or a signed-in user's tokens (and, until a merge
/// succeeds, the guest cart that still has to be merged into the user's).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// The guest token (`gid_…`) while the visitor is a guest.
    #[serde(rename = "g", default, skip_serializing_if = "Option::is_none")]
    pub guest_id: Option<String>,
    #[serde(rename = "u", default, skip_serializing_if = "Option::is_none")]
    pub user: Option<UserTokens>,
    /// A guest cart waiting to be merged into the user's cart; kept until the merge succeeds,
    /// so no cart is ever lost.
    #[serde(rename = "m", default, skip_serializing_if = "Option::is_none")]
    pub pending_merge: Option<String>,
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
}

/// The sealed envelope: a format version inside too, so a payload change is detected even
/// under the same outer version.
#[derive(Debug, Serialize, Deserialize)]
pub struct Envelope {
    pub v: u8,
    pub s: Session,
}

pub const PAYLOAD_VERSION: u8 = 1;
