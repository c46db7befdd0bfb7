//! Access and refresh tokens, as a strict identity provider issues them: short-lived HS256 JWT
//! access tokens (revocable by logout) and opaque refresh tokens that rotate and are single-use.

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::SandboxState;
use crate::clock::{now_rfc3339, now_unix};
use crate::error::SandboxError;

/// Refresh tokens live for 30 days.
const REFRESH_TTL_SECONDS: i64 = 30 * 24 * 3600;
const SECRET_KEY: &str = "jwt_secret";

/// The signing keys. The secret is generated once per data dir and kept in `settings`, so
/// tokens survive a restart.
pub struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys([redacted])")
    }
}

impl Keys {
    pub fn load_or_create(conn: &Connection) -> Result<Self, SandboxError> {
        let existing: Option<String> = conn
            .query_row(
                "SELECT value FROM settings WHERE key = ?1",
                [SECRET_KEY],
                |row| row.get(0),
            )
            .optional()?;
        let secret = match existing {
            Some(secret) => secret,
            None => {
                let secret = random_token(32);
                conn.execute(
                    "INSERT INTO settings (key, value) VALUES (?1, ?2)",
                    params![SECRET_KEY, secret],
                )?;
                secret
            }
        };
        Ok(Self {
            encoding: EncodingKey::from_secret(secret.as_bytes()),
            decoding: DecodingKey::from_secret(secret.as_bytes()),
        })
    }
}

/// `bytes` random bytes as hex (UUID v4s are drawn from the OS RNG).
pub fn random_token(bytes: usize) -> String {
    let mut out = String::with_capacity(bytes * 2);
    while out.len() < bytes * 2 {
        out.push_str(&uuid::Uuid::new_v4().simple().to_string());
    }
    out.truncate(bytes * 2);
    out
}

fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: String,
    email: String,
    jti: String,
    iat: i64,
    exp: i64,
}

/// The auth response of login, register and refresh.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthResponse {
    pub access_token: String,
    pub refresh_token: String,
    pub token_type: &'static str,
    /// Seconds until the access token expires.
    pub expires_in: i64,
}

/// Issues a new access token and refresh token for `user_id`.
pub fn issue(
    conn: &Connection,
    keys: &Keys,
    user_id: i64,
    email: &str,
    access_ttl_seconds: i64,
) -> Result<AuthResponse, SandboxError> {
    let now = now_unix();
    let claims = Claims {
        sub: user_id.to_string(),
        email: email.to_owned(),
        jti: uuid::Uuid::new_v4().to_string(),
        iat: now,
        exp: now + access_ttl_seconds,
    };
    let access_token =
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &keys.encoding)
            .map_err(|err| SandboxError::Internal(format!("jwt: {err}")))?;
    let refresh_token = random_token(32);
    conn.execute(
        "INSERT INTO refresh_tokens (token_hash, user_id, expires_at, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![hash(&refresh_token), user_id, now + REFRESH_TTL_SECONDS, now_rfc3339()],
    )?;
    Ok(AuthResponse {
        access_token,
        refresh_token,
        token_type: "Bearer",
        expires_in: access_ttl_seconds,
    })
}

/// Spends `refresh_token` and returns the user it belonged to. Unknown, expired or already
/// spent tokens are refused; reuse of a spent token also revokes every live refresh token of
/// that user, as a compromised-token response.
pub fn spend_refresh(conn: &Connection, refresh_token: &str) -> Result<i64, SandboxError> {
    let token_hash = hash(refresh_token);
    let row: Option<(i64, i64, bool)> = conn
        .query_row(
            "SELECT user_id, expires_at, used FROM refresh_tokens WHERE token_hash = ?1",
            [&token_hash],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .optional()?;
    let refused = || SandboxError::Unauthorized("Invalid refresh token".to_owned());
    let Some((user_id, expires_at, used)) = row else {
        return Err(refused());
    };
    if used {
        conn.execute(
            "UPDATE refresh_tokens SET used = 1 WHERE user_id = ?1",
            [user_id],
        )?;
        return Err(refused());
    }
    if expires_at <= now_unix() {
        return Err(refused());
    }
    conn.execute(
        "UPDATE refresh_tokens SET used = 1 WHERE token_hash = ?1",
        [&token_hash],
    )?;
    Ok(user_id)
}

/// Revokes the access token (until it would expire) and every refresh token of the user.
pub fn revoke(conn: &Connection, user: &AuthUser) -> Result<(), SandboxError> {
    conn.execute(
        "INSERT OR IGNORE INTO revoked_access_tokens (jti, expires_at) VALUES (?1, ?2)",
        params![user.jti, user.expires_at],
    )?;
    conn.execute(
        "UPDATE refresh_tokens SET used = 1 WHERE user_id = ?1",
        [user.id],
    )?;
    conn.execute(
        "DELETE FROM revoked_access_tokens WHERE expires_at < ?1",
        [now_unix()],
    )?;
    Ok(())
}

/// A signed-in caller: a valid, unexpired, unrevoked bearer access token.
#[derive(Debug, Clone)]
pub struct AuthUser {
    pub id: i64,
    pub email: String,
    pub jti: String,
    pub expires_at: i64,
}

impl AuthUser {
    fn from_bearer(state: &SandboxState, token: &str) -> Result<Self, SandboxError> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        let data = jsonwebtoken::decode::<Claims>(token, &state.keys.decoding, &validation)
            .map_err(|_| SandboxError::Unauthorized("Invalid or expired token".to_owned()))?;
        let claims = data.claims;
        let id: i64 = claims
            .sub
            .parse()
            .map_err(|_| SandboxError::Unauthorized("Invalid token subject".to_owned()))?;
        let revoked = state.db.call(|conn| {
            Ok(conn
                .query_row(
                    "SELECT 1 FROM revoked_access_tokens WHERE jti = ?1",
                    [&claims.jti],
                    |_| Ok(()),
                )
                .optional()?
                .is_some())
        })?;
        if revoked {
            return Err(SandboxError::Unauthorized(
                "Token has been revoked".to_owned(),
            ));
        }
        Ok(Self {
            id,
            email: claims.email,
            jti: claims.jti,
            expires_at: claims.exp,
        })
    }
}

fn bearer(parts: &Parts) -> Option<&str> {
    parts
        .headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
        .filter(|token| !token.is_empty())
}

impl FromRequestParts<Arc<SandboxState>> for AuthUser {
    type Rejection = SandboxError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<SandboxState>,
    ) -> Result<Self, SandboxError> {
        let token = bearer(parts)
            .ok_or_else(|| SandboxError::Unauthorized("Not authenticated".to_owned()))?;
        Self::from_bearer(state, token)
    }
}

/// A caller who may be signed in: `None` without an Authorization header, an error for a bad one.
#[derive(Debug, Clone)]
pub struct MaybeUser(pub Option<AuthUser>);

impl FromRequestParts<Arc<SandboxState>> for MaybeUser {
    type Rejection = SandboxError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<SandboxState>,
    ) -> Result<Self, SandboxError> {
        match bearer(parts) {
            None => Ok(Self(None)),
            Some(token) => AuthUser::from_bearer(state, token).map(|user| Self(Some(user))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    fn user(conn: &Connection) -> i64 {
        conn.execute(
            "INSERT INTO users (email, password_hash, first_name, last_name, created_at) VALUES ('a@b.example', 'x', 'A', 'B', 'now')",
            [],
        )
        .unwrap();
        conn.last_insert_rowid()
    }

    #[test]
    fn refresh_tokens_are_single_use_and_reuse_revokes_the_family() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            let keys = Keys::load_or_create(conn)?;
            let id = user(conn);
            let first = issue(conn, &keys, id, "a@b.example", 900)?;
            assert_eq!(spend_refresh(conn, &first.refresh_token)?, id);
            let second = issue(conn, &keys, id, "a@b.example", 900)?;
            assert!(spend_refresh(conn, &first.refresh_token).is_err(), "spent");
            assert!(
                spend_refresh(conn, &second.refresh_token).is_err(),
                "revoked by the reuse"
            );
            assert!(spend_refresh(conn, "unknown").is_err());
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn the_signing_secret_persists() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            Keys::load_or_create(conn)?;
            let count: i64 = conn.query_row(
                "SELECT COUNT(*) FROM settings WHERE key = 'jwt_secret'",
                [],
                |r| r.get(0),
            )?;
            Keys::load_or_create(conn)?;
            let again: i64 = conn.query_row(
                "SELECT COUNT(*) FROM settings WHERE key = 'jwt_secret'",
                [],
                |r| r.get(0),
            )?;
            assert_eq!((count, again), (1, 1));
            Ok(())
        })
        .unwrap();
    }
}
