//! The admin tokens: `BFF_ADMIN_TOKEN` (named `admin`, every scope) and the named, scoped
//! tokens of `BFF_ADMIN_TOKENS_FILE`, a TOML or JSON file a Kubernetes Secret mounts:
//!
//! ```toml
//! [[tokens]]
//! name = "dashboards"
//! scopes = ["read"]
//! token = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
//!
//! [[tokens]]
//! name = "cms-operators"
//! scopes = ["read", "purge"]
//! token = "the token itself, 32 bytes or more in production"
//! ```
//!
//! (JSON: `{"tokens": [{"name": ..., "scopes": [...], "token": ...}]}`.) A token may be given
//! as `sha256:` and the hex SHA-256 of the token, so the file need not hold it. Every token is
//! kept only as its digest, and a presented token is compared with each digest in constant
//! time. Errors name the file, the entry and the field, never a token.

pub mod identity;
pub mod scope;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use self::identity::AdminIdentity;
use self::scope::{Scope, Scopes};
use super::ConfigError;

/// The variable naming the tokens file.
pub const TOKENS_FILE_ENV: &str = "BFF_ADMIN_TOKENS_FILE";
/// The name `BFF_ADMIN_TOKEN` goes by (in the audit log, in the request's identity).
pub const SINGLE_TOKEN_NAME: &str = "admin";
/// How a digest is written in the file instead of the token.
const DIGEST_PREFIX: &str = "sha256:";
/// Development stand-ins start so (as every other secret's, see [`crate::config::secrets`]).
const DEV_PREFIX: &str = "dev-insecure-";

/// The admin tokens in force: cheap to clone (shared), replaced whole on reload.
#[derive(Clone, Default)]
pub struct AdminTokens {
    tokens: Arc<[NamedToken]>,
    /// The file the named tokens came from, re-read on reload.
    file: Option<PathBuf>,
}

struct NamedToken {
    identity: AdminIdentity,
    digest: [u8; 32],
    /// Whether it came from the tokens file (else it is `BFF_ADMIN_TOKEN`).
    from_file: bool,
    /// What is known of a token given in plaintext, for production's rules; `None` for a
    /// digest (its token cannot be checked).
    plaintext: Option<Plaintext>,
}

#[derive(Clone, Copy)]
struct Plaintext {
    bytes: usize,
    stand_in: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokensFile {
    tokens: Vec<TokenEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenEntry {
    name: String,
    scopes: Vec<ScopeName>,
    token: SecretString,
}

/// A scope as written in the file; an unknown one is refused without echoing it (it could be
/// a token written in the wrong place).
struct ScopeName(Scope);

impl<'de> Deserialize<'de> for ScopeName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Scope::ALL
            .into_iter()
            .find(|scope| scope.as_str() == name)
            .map(ScopeName)
            .ok_or_else(|| {
                serde::de::Error::custom("unknown scope (expected read, purge, config or rollout)")
            })
    }
}

impl AdminTokens {
    /// `single` (`BFF_ADMIN_TOKEN`, every scope) and the tokens of `file`; at least one token
    /// in all.
    pub fn load(single: Option<&SecretString>, file: Option<&Path>) -> Result<Self, ConfigError> {
        let mut tokens = Vec::new();
        if let Some(single) = single {
            tokens.push(NamedToken::plaintext(
                AdminIdentity::new(SINGLE_TOKEN_NAME, Scopes::all()),
                single.expose_secret(),
                false,
            ));
        }
        if let Some(file) = file {
            tokens.extend(read_file(file)?);
        }
        if tokens.is_empty() {
            return Err(ConfigError(format!(
                "BFF_ADMIN_TOKEN or {TOKENS_FILE_ENV}: at least one admin token is required"
            )));
        }
        let loaded = Self {
            tokens: tokens.into(),
            file: file.map(Path::to_owned),
        };
        loaded.check_unique().map(|()| loaded)
    }

    /// The same `BFF_ADMIN_TOKEN` with the file read again (on reload), checked as at start-up.
    pub fn reloaded(&self) -> Result<Self, ConfigError> {
        let Some(file) = &self.file else {
            return Ok(self.clone());
        };
        let mut tokens: Vec<NamedToken> = self
            .tokens
            .iter()
            .filter(|token| !token.from_file)
            .map(NamedToken::clone_of)
            .collect();
        tokens.extend(read_file(file)?);
        let reloaded = Self {
            tokens: tokens.into(),
            file: Some(file.clone()),
        };
        reloaded.check_unique().map(|()| reloaded)
    }

    /// No name and no token given twice (a token of two names would make the audit log lie).
    fn check_unique(&self) -> Result<(), ConfigError> {
        for (index, token) in self.tokens.iter().enumerate() {
            let name = &*token.identity.name;
            for other in &self.tokens[..index] {
                let other_name = &*other.identity.name;
                if other_name == name {
                    return Err(ConfigError(format!(
                        "{TOKENS_FILE_ENV}: the name {name:?} is given twice \
                         (BFF_ADMIN_TOKEN is named {SINGLE_TOKEN_NAME:?})"
                    )));
                }
                if bool::from(other.digest.ct_eq(&token.digest)) {
                    return Err(ConfigError(format!(
                        "{TOKENS_FILE_ENV}: {other_name:?} and {name:?} have the same token"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Who `presented` is: compared with every token's digest in constant time, all of them
    /// every time (the time taken says nothing of which, or whether one, matched).
    pub fn identify(&self, presented: &str) -> Option<AdminIdentity> {
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        let mut found = None;
        for token in self.tokens.iter() {
            if bool::from(token.digest.ct_eq(&digest)) {
                found = Some(&token.identity);
            }
        }
        found.cloned()
    }

    /// The file the named tokens come from.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Each token's identity (names and scopes, which are not secret), in the file's order.
    pub fn identities(&self) -> impl Iterator<Item = &AdminIdentity> {
        self.tokens.iter().map(|token| &token.identity)
    }

    /// The names of the file's tokens given in plaintext and shorter than `min_bytes`.
    pub fn short_file_tokens(&self, min_bytes: usize) -> Vec<&str> {
        self.file_tokens()
            .filter(|token| token.plaintext.is_some_and(|plain| plain.bytes < min_bytes))
            .map(|token| &*token.identity.name)
            .collect()
    }

    /// Whether a token of the file is a development stand-in (`dev-insecure-…`).
    pub fn file_has_stand_in(&self) -> bool {
        self.file_tokens()
            .any(|token| token.plaintext.is_some_and(|plain| plain.stand_in))
    }

    fn file_tokens(&self) -> impl Iterator<Item = &NamedToken> {
        self.tokens.iter().filter(|token| token.from_file)
    }
}

/// Names and scopes only.
impl std::fmt::Debug for AdminTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(
                self.identities()
                    .map(|identity| (&*identity.name, identity.scopes)),
            )
            .finish()
    }
}

impl NamedToken {
    fn plaintext(identity: AdminIdentity, token: &str, from_file: bool) -> Self {
        Self {
            identity,
            from_file,
            digest: Sha256::digest(token.as_bytes()).into(),
            plaintext: Some(Plaintext {
                bytes: token.len(),
                stand_in: token.starts_with(DEV_PREFIX),
            }),
        }
    }

    fn clone_of(&self) -> Self {
        Self {
            identity: self.identity.clone(),
            digest: self.digest,
            from_file: self.from_file,
            plaintext: self.plaintext,
        }
    }
}

/// The named tokens of `path`: JSON when it starts with `{`, else TOML.
fn read_file(path: &Path) -> Result<Vec<NamedToken>, ConfigError> {
    let at =
        |detail: String| ConfigError(format!("{TOKENS_FILE_ENV} ({}): {detail}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|err| at(format!("cannot read it: {err}")))?;
    // The parsers' messages only: their snippets of the source could show a token.
    let file: TokensFile = if text.trim_start().starts_with('{') {
        serde_json::from_str(&text).map_err(|err| {
            at(format!(
                "line {}: not valid: {}",
                err.line(),
                json_message(&err)
            ))
        })?
    } else {
        toml::from_str(&text).map_err(|err| {
            let line = err.span().map_or(0, |span| {
                text[..span.start.min(text.len())].lines().count().max(1)
            });
            at(format!("line {line}: not valid: {}", err.message()))
        })?
    };
    file.tokens
        .into_iter()
        .enumerate()
        .map(|(index, entry)| {
            let entry_at = |detail: String| at(format!("tokens[{index}]: {detail}"));
            let name = entry.name.trim();
            if name.is_empty()
                || name.len() > 64
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            {
                return Err(entry_at(
                    "name: 1 to 64 letters, digits, '-', '_' or '.'".to_owned(),
                ));
            }
            let scopes: Scopes = entry.scopes.iter().map(|scope| scope.0).collect();
            if scopes.is_empty() {
                return Err(entry_at(format!("{name}: scopes: at least one scope")));
            }
            let identity = AdminIdentity::new(name, scopes);
            let token = entry.token.expose_secret().trim();
            if token.is_empty() {
                return Err(entry_at(format!("{name}: token: empty")));
            }
            match token.strip_prefix(DIGEST_PREFIX) {
                Some(hex_digest) => {
                    let mut digest = [0_u8; 32];
                    hex::decode_to_slice(hex_digest.trim(), &mut digest).map_err(|_| {
                        entry_at(format!(
                            "{name}: token: a digest is {DIGEST_PREFIX} and 64 hex digits"
                        ))
                    })?;
                    Ok(NamedToken {
                        identity,
                        digest,
                        from_file: true,
                        plaintext: None,
                    })
                }
                None => Ok(NamedToken::plaintext(identity, token, true)),
            }
        })
        .collect()
}

/// serde_json's message without its position (given apart) and without a quoted value.
fn json_message(err: &serde_json::Error) -> &'static str {
    use serde_json::error::Category;
    match err.classify() {
        Category::Io => "cannot read it",
        Category::Syntax | Category::Eof => "not JSON",
        Category::Data => {
            "not a tokens file ({\"tokens\": [{\"name\", \"scopes\", \"token\"}]}; scopes: read, purge, config, rollout)"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> tempfile::NamedTempFile {
        let file = tempfile::NamedTempFile::new().unwrap_or_else(|_| unreachable!());
        std::fs::write(file.path(), text).unwrap_or_else(|_| unreachable!());
        file
    }

    #[test]
    fn named_tokens_from_toml_with_a_digest_or_the_token_and_the_single_token_as_admin() {
        let digest = hex::encode(Sha256::digest(b"dashboards-token"));
        let tokens_file = file(&format!(
            "[[tokens]]\nname = \"dashboards\"\nscopes = [\"read\"]\ntoken = \"sha256:{digest}\"\n\n\
             [[tokens]]\nname = \"cms\"\nscopes = [\"read\", \"purge\"]\ntoken = \"cms-token\"\n"
        ));
        let single = SecretString::from("the-single-token");
        let tokens = AdminTokens::load(Some(&single), Some(tokens_file.path()))
            .unwrap_or_else(|err| unreachable!("{err}"));
        let dashboards = tokens
            .identify("dashboards-token")
            .unwrap_or_else(|| unreachable!());
        assert_eq!(&*dashboards.name, "dashboards");
        assert!(dashboards.may(Scope::Read) && !dashboards.may(Scope::Purge));
        let cms = tokens
            .identify("cms-token")
            .unwrap_or_else(|| unreachable!());
        assert!(cms.may(Scope::Purge) && !cms.may(Scope::Config));
        let admin = tokens
            .identify("the-single-token")
            .unwrap_or_else(|| unreachable!());
        assert_eq!(admin, AdminIdentity::new("admin", Scopes::all()));
        assert!(tokens.identify("sha256:{digest}").is_none());
        assert!(tokens.identify("cms-token ").is_none());
        assert_eq!(tokens.short_file_tokens(32), vec!["cms"]);
        assert!(!format!("{tokens:?}").contains("token\""));
    }

    #[test]
    fn json_works_too_and_errors_name_the_entry_never_the_token() {
        let tokens_file =
            file(r#"{"tokens": [{"name": "ops", "scopes": ["rollout"], "token": "ops-token"}]}"#);
        let tokens = AdminTokens::load(None, Some(tokens_file.path()))
            .unwrap_or_else(|err| unreachable!("{err}"));
        assert!(
            tokens
                .identify("ops-token")
                .is_some_and(|ops| ops.may(Scope::Rollout))
        );

        for (text, expected) in [
            (
                "[[tokens]]\nname = \"a\"\nscopes = [\"purge-everything-secret\"]\ntoken = \"x\"\n",
                "unknown scope",
            ),
            (
                "[[tokens]]\nname = \"a b\"\nscopes = [\"read\"]\ntoken = \"hunter2-secret\"\n",
                "tokens[0]: name",
            ),
            (
                "[[tokens]]\nname = \"a\"\nscopes = []\ntoken = \"hunter2-secret\"\n",
                "scopes: at least one",
            ),
            (
                "[[tokens]]\nname = \"a\"\nscopes = [\"read\"]\ntoken = \"sha256:hunter2-secret\"\n",
                "64 hex digits",
            ),
            (
                "[[tokens]]\nname = \"a\"\nscopes = [\"read\"]\ntoken = \"hunter2-secret\"\n\
                 [[tokens]]\nname = \"b\"\nscopes = [\"read\"]\ntoken = \"hunter2-secret\"\n",
                "same token",
            ),
            (
                "{\"tokens\": [{\"name\": \"a\", \"scopes\": [\"read\"], \"token\": 5, \"x\": \"hunter2-secret\"}]}",
                "not a tokens file",
            ),
        ] {
            let tokens_file = file(text);
            let err = AdminTokens::load(None, Some(tokens_file.path()))
                .err()
                .unwrap_or_else(|| unreachable!("{text}"));
            assert!(err.0.contains(expected), "{text}: {err}");
            assert!(!err.0.contains("secret"), "{text}: {err}");
        }
        assert!(AdminTokens::load(None, None).is_err());
    }

    #[test]
    fn a_reload_reads_the_file_again_and_keeps_the_single_token() {
        let tokens_file =
            file("[[tokens]]\nname = \"a\"\nscopes = [\"read\"]\ntoken = \"first\"\n");
        let single = SecretString::from("single");
        let tokens = AdminTokens::load(Some(&single), Some(tokens_file.path()))
            .unwrap_or_else(|err| unreachable!("{err}"));
        std::fs::write(
            tokens_file.path(),
            "[[tokens]]\nname = \"a\"\nscopes = [\"read\"]\ntoken = \"second\"\n",
        )
        .unwrap_or_else(|_| unreachable!());
        let reloaded = tokens
            .reloaded()
            .unwrap_or_else(|err| unreachable!("{err}"));
        assert!(reloaded.identify("first").is_none());
        assert!(reloaded.identify("second").is_some());
        assert!(reloaded.identify("single").is_some());
    }
}
