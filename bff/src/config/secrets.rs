//! Secrets: read only from the environment (`BFF_ADMIN_TOKEN`) or from a file it names
//! (`BFF_ADMIN_TOKEN_FILE`, the Kubernetes-secret-volume way), never from `bff.toml`, and
//! redacted whenever printed. The named admin tokens have a file of their own
//! (`BFF_ADMIN_TOKENS_FILE`, see [`crate::config::admin_tokens`]).

use std::fmt;
use std::path::PathBuf;

use secrecy::{ExposeSecret, SecretString};

use super::admin_tokens::{AdminTokens, TOKENS_FILE_ENV};
use super::{Config, ConfigError};

/// Development stand-ins, used only when a secret is unset outside production. Production
/// refuses to start with any of them.
const DEV_PREFIX: &str = "dev-insecure-";

/// Every secret the BFF knows, by environment variable.
#[derive(Clone)]
pub struct Secrets {
    /// The single bearer token for the admin listener's `/admin/*` routes (every scope, named
    /// `admin`); optional when `BFF_ADMIN_TOKENS_FILE` names the tokens.
    pub admin_token: Option<SecretString>,
    /// Every admin token: `admin_token` and the named, scoped ones of `BFF_ADMIN_TOKENS_FILE`.
    pub admin_tokens: AdminTokens,
    /// Token the BFF sends to the content API; the browser never sees it.
    pub content_api_token: Option<SecretString>,
    /// Cookie-sealing keys, newest first (comma-separated in the environment).
    pub session_keys: Vec<SecretString>,
    /// Shared secret of the content service's publish webhook.
    pub webhook_secret: SecretString,
    /// Key of the webhook's HMAC-SHA256 signature, for a CMS that can sign (optional; Strapi
    /// sends the bearer secret).
    pub webhook_signing_secret: Option<SecretString>,
    pub geocoder_key: Option<SecretString>,
    pub map_tile_key: Option<SecretString>,
    /// Redis's ACL user and password (`AUTH`), when `[redis]` is set and the server asks.
    pub redis: RedisCredentials,
}

/// Who the BFF is to Redis: an ACL user (or the `default` one) and its password. Read again
/// from their files while running (see [`crate::coordination::replicas`]), so a rotated
/// password is taken without a restart.
#[derive(Clone, Default)]
pub struct RedisCredentials {
    /// `BFF_REDIS_USERNAME`: the ACL user; unset, Redis's `default` user.
    pub username: Option<SecretString>,
    /// `BFF_REDIS_PASSWORD`.
    pub password: Option<SecretString>,
    /// `BFF_REDIS_USERNAME_FILE`, when the user name came from it.
    pub username_file: Option<PathBuf>,
    /// `BFF_REDIS_PASSWORD_FILE`, when the password came from it.
    pub password_file: Option<PathBuf>,
    /// `BFF_REDIS_SENTINEL_PASSWORD`: the sentinels' own (`requirepass` in sentinel.conf).
    pub sentinel_password: Option<SecretString>,
}

/// Whether a secret is set, as `GET /admin/config` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SecretState {
    Set,
    Unset,
    /// Unset outside production: a marked stand-in is used (see
    /// [`Secrets::development_stand_ins`]).
    DevelopmentDefault,
}

impl RedisCredentials {
    /// Whether `AUTH` is sent at all.
    pub fn is_set(&self) -> bool {
        self.password.is_some()
    }
}

/// How a secret is found: its name and whether the BFF can run without it.
struct Spec {
    env: &'static str,
    required: bool,
}

const ADMIN_TOKEN: Spec = Spec {
    env: "BFF_ADMIN_TOKEN",
    required: true,
};
const CONTENT_API_TOKEN: Spec = Spec {
    env: "BFF_CONTENT_API_TOKEN",
    required: false,
};
const SESSION_KEYS: Spec = Spec {
    env: "BFF_SESSION_KEYS",
    required: true,
};
const WEBHOOK_SECRET: Spec = Spec {
    env: "BFF_WEBHOOK_SECRET",
    required: true,
};
const GEOCODER_KEY: Spec = Spec {
    env: "BFF_GEOCODER_KEY",
    required: false,
};
const MAP_TILE_KEY: Spec = Spec {
    env: "BFF_MAP_TILE_KEY",
    required: false,
};
const WEBHOOK_SIGNING_SECRET: Spec = Spec {
    env: "BFF_WEBHOOK_SIGNING_SECRET",
    required: false,
};
const REDIS_PASSWORD: Spec = Spec {
    env: "BFF_REDIS_PASSWORD",
    required: false,
};
/// Not secret as such, but handed out with the password (one Kubernetes Secret from the
/// provider), and rotated with it.
const REDIS_SENTINEL_PASSWORD: Spec = Spec {
    env: "BFF_REDIS_SENTINEL_PASSWORD",
    required: false,
};
const REDIS_USERNAME: Spec = Spec {
    env: "BFF_REDIS_USERNAME",
    required: false,
};

impl Secrets {
    /// Reads the process environment.
    pub fn from_env(config: &Config) -> Result<Self, ConfigError> {
        Self::from_lookup(config, |name| std::env::var(name).ok())
    }

    /// Reads secrets through `lookup` (the environment in production, a map in tests).
    pub fn from_lookup(
        config: &Config,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let production = config.is_production();
        let read = |spec: &Spec| -> Result<Option<String>, ConfigError> {
            let value = match (lookup(spec.env), lookup(&format!("{}_FILE", spec.env))) {
                (Some(value), _) => Some(value),
                (None, Some(path)) => Some(
                    std::fs::read_to_string(&path)
                        .map_err(|err| {
                            ConfigError(format!("{}_FILE: cannot read {path}: {err}", spec.env))
                        })?
                        .trim_end()
                        .to_owned(),
                ),
                (None, None) => None,
            };
            match value {
                Some(value) if value.is_empty() => {
                    Err(ConfigError(format!("{}: is set but empty", spec.env)))
                }
                Some(value) if production && value.starts_with(DEV_PREFIX) => {
                    Err(ConfigError(format!(
                        "{}: a development secret is not allowed in production",
                        spec.env
                    )))
                }
                Some(value) => Ok(Some(value)),
                None if production && spec.required => Err(ConfigError(format!(
                    "{}: required in production (set it or {}_FILE)",
                    spec.env, spec.env
                ))),
                None if spec.required => Ok(Some(format!(
                    "{DEV_PREFIX}{}",
                    spec.env.to_lowercase().replace('_', "-")
                ))),
                None => Ok(None),
            }
        };
        // Every problem is reported at once, so one start-up attempt names every missing secret.
        let mut problems = Vec::new();
        let mut take = |spec: &Spec| match read(spec) {
            Ok(value) => value.map(SecretString::from),
            Err(err) => {
                problems.push(err.0);
                None
            }
        };
        // With a tokens file, the single token is one more token, not a requirement.
        let tokens_file = lookup(TOKENS_FILE_ENV).filter(|path| !path.trim().is_empty());
        let admin_token = take(&Spec {
            env: ADMIN_TOKEN.env,
            required: tokens_file.is_none(),
        });
        let content_api_token = take(&CONTENT_API_TOKEN);
        let session_keys = take(&SESSION_KEYS);
        let webhook_secret = take(&WEBHOOK_SECRET);
        let geocoder_key = take(&GEOCODER_KEY);
        let map_tile_key = take(&MAP_TILE_KEY);
        let redis_password = take(&REDIS_PASSWORD);
        let webhook_signing_secret = take(&WEBHOOK_SIGNING_SECRET);
        let redis_username = take(&REDIS_USERNAME);
        let sentinel_password = take(&REDIS_SENTINEL_PASSWORD);
        if redis_username.is_some() && redis_password.is_none() {
            problems.push(format!(
                "{}: set, but {} is not (an ACL user signs in with its password)",
                REDIS_USERNAME.env, REDIS_PASSWORD.env
            ));
        }
        // Read again while running only when they came from files: an environment variable
        // cannot change under a running process.
        let file_of = |spec: &Spec| {
            lookup(spec.env)
                .is_none()
                .then(|| lookup(&format!("{}_FILE", spec.env)).map(PathBuf::from))
                .flatten()
        };
        let redis = RedisCredentials {
            username: redis_username,
            password: redis_password,
            username_file: file_of(&REDIS_USERNAME),
            password_file: file_of(&REDIS_PASSWORD),
            sentinel_password,
        };
        let admin_tokens = match AdminTokens::load(
            admin_token.as_ref(),
            tokens_file.as_deref().map(std::path::Path::new),
        ) {
            Ok(tokens) => Some(tokens),
            Err(err) => {
                // A missing single token was reported above.
                if tokens_file.is_some() || admin_token.is_some() {
                    problems.push(err.0);
                }
                None
            }
        };
        match (admin_tokens, session_keys, webhook_secret) {
            (Some(admin_tokens), Some(session_keys), Some(webhook_secret))
                if problems.is_empty() =>
            {
                Ok(Self {
                    admin_token,
                    admin_tokens,
                    content_api_token,
                    session_keys: session_keys
                        .expose_secret()
                        .split(',')
                        .map(str::trim)
                        .filter(|key| !key.is_empty())
                        .map(|key| SecretString::from(key.to_owned()))
                        .collect(),
                    webhook_secret,
                    webhook_signing_secret,
                    geocoder_key,
                    map_tile_key,
                    redis,
                })
            }
            _ => Err(ConfigError(problems.join("\n"))),
        }
    }

    /// The variables whose value is a development stand-in (`dev-insecure-…`), whether
    /// defaulted or set so: [`crate::edge::start_up`] allows them only on loopback.
    pub fn development_stand_ins(&self) -> Vec<&'static str> {
        let stand_in = |value: &SecretString| value.expose_secret().starts_with(DEV_PREFIX);
        let mut names = Vec::new();
        if self.admin_token.as_ref().is_some_and(stand_in) {
            names.push(ADMIN_TOKEN.env);
        }
        if self.admin_tokens.file_has_stand_in() {
            names.push(TOKENS_FILE_ENV);
        }
        if self.session_keys.iter().any(stand_in) {
            names.push(SESSION_KEYS.env);
        }
        if stand_in(&self.webhook_secret) {
            names.push(WEBHOOK_SECRET.env);
        }
        for (spec, value) in [
            (&CONTENT_API_TOKEN, &self.content_api_token),
            (&GEOCODER_KEY, &self.geocoder_key),
            (&MAP_TILE_KEY, &self.map_tile_key),
            (&REDIS_PASSWORD, &self.redis.password),
            (&REDIS_SENTINEL_PASSWORD, &self.redis.sentinel_password),
            (&WEBHOOK_SIGNING_SECRET, &self.webhook_signing_secret),
        ] {
            if value.as_ref().is_some_and(stand_in) {
                names.push(spec.env);
            }
        }
        names
    }

    /// Each secret's variable and whether it is set, never its value: for `GET /admin/config`.
    pub fn states(&self) -> Vec<(&'static str, SecretState)> {
        let state = |value: Option<&SecretString>| match value {
            None => SecretState::Unset,
            Some(value) if value.expose_secret().starts_with(DEV_PREFIX) => {
                SecretState::DevelopmentDefault
            }
            Some(_) => SecretState::Set,
        };
        vec![
            (ADMIN_TOKEN.env, state(self.admin_token.as_ref())),
            (
                TOKENS_FILE_ENV,
                match (
                    self.admin_tokens.file(),
                    self.admin_tokens.file_has_stand_in(),
                ) {
                    (None, _) => SecretState::Unset,
                    (Some(_), true) => SecretState::DevelopmentDefault,
                    (Some(_), false) => SecretState::Set,
                },
            ),
            (
                CONTENT_API_TOKEN.env,
                state(self.content_api_token.as_ref()),
            ),
            (SESSION_KEYS.env, state(self.session_keys.first())),
            (WEBHOOK_SECRET.env, state(Some(&self.webhook_secret))),
            (
                WEBHOOK_SIGNING_SECRET.env,
                state(self.webhook_signing_secret.as_ref()),
            ),
            (GEOCODER_KEY.env, state(self.geocoder_key.as_ref())),
            (MAP_TILE_KEY.env, state(self.map_tile_key.as_ref())),
            (REDIS_USERNAME.env, state(self.redis.username.as_ref())),
            (REDIS_PASSWORD.env, state(self.redis.password.as_ref())),
            (
                REDIS_SENTINEL_PASSWORD.env,
                state(self.redis.sentinel_password.as_ref()),
            ),
        ]
    }

    /// Every secret value that is set, for tests and log scrubbing.
    pub fn values(&self) -> Vec<&str> {
        let mut values = vec![self.webhook_secret.expose_secret()];
        values.extend(self.admin_token.as_ref().map(ExposeSecret::expose_secret));
        values.extend(self.session_keys.iter().map(ExposeSecret::expose_secret));
        values.extend(
            [
                &self.content_api_token,
                &self.geocoder_key,
                &self.map_tile_key,
                &self.redis.password,
                &self.redis.sentinel_password,
                &self.webhook_signing_secret,
            ]
            .into_iter()
            .flatten()
            .map(ExposeSecret::expose_secret),
        );
        values
    }
}

/// Prints which secrets are set, never their values.
impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = |set: bool| if set { "[redacted]" } else { "(unset)" };
        f.debug_struct("Secrets")
            .field(ADMIN_TOKEN.env, &state(self.admin_token.is_some()))
            .field(TOKENS_FILE_ENV, &self.admin_tokens)
            .field(
                CONTENT_API_TOKEN.env,
                &state(self.content_api_token.is_some()),
            )
            .field(
                SESSION_KEYS.env,
                &format!("[redacted] x{}", self.session_keys.len()),
            )
            .field(WEBHOOK_SECRET.env, &state(true))
            .field(
                WEBHOOK_SIGNING_SECRET.env,
                &state(self.webhook_signing_secret.is_some()),
            )
            .field(GEOCODER_KEY.env, &state(self.geocoder_key.is_some()))
            .field(MAP_TILE_KEY.env, &state(self.map_tile_key.is_some()))
            .field(REDIS_USERNAME.env, &state(self.redis.username.is_some()))
            .field(REDIS_PASSWORD.env, &state(self.redis.password.is_some()))
            .field(
                REDIS_SENTINEL_PASSWORD.env,
                &state(self.redis.sentinel_password.is_some()),
            )
            .finish()
    }
}

impl fmt::Display for Secrets {
    /// TOML-ish listing for `bff check-config`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dev = |value: &SecretString| value.expose_secret().starts_with(DEV_PREFIX);
        let show = |value: Option<&SecretString>| match value {
            None => "(unset)",
            Some(value) if dev(value) => "[redacted: development default]",
            Some(_) => "[redacted]",
        };
        writeln!(f, "[secrets] # from the environment only")?;
        writeln!(
            f,
            "{} = \"{}\"",
            ADMIN_TOKEN.env,
            show(self.admin_token.as_ref())
        )?;
        if let Some(file) = self.admin_tokens.file() {
            // Names and scopes are not secret; the tokens are never shown.
            let named: Vec<String> = self
                .admin_tokens
                .identities()
                .map(|identity| {
                    let scopes: Vec<&str> =
                        identity.scopes.iter().map(|scope| scope.as_str()).collect();
                    format!("{} [{}]", identity.name, scopes.join(", "))
                })
                .collect();
            writeln!(
                f,
                "{TOKENS_FILE_ENV} = \"{}\" # tokens: {}",
                file.display(),
                named.join("; ")
            )?;
        }
        writeln!(
            f,
            "{} = \"{}\"",
            CONTENT_API_TOKEN.env,
            show(self.content_api_token.as_ref())
        )?;
        writeln!(
            f,
            "{} = \"{}\"",
            SESSION_KEYS.env,
            show(self.session_keys.first())
        )?;
        writeln!(
            f,
            "{} = \"{}\"",
            WEBHOOK_SECRET.env,
            show(Some(&self.webhook_secret))
        )?;
        writeln!(
            f,
            "{} = \"{}\"",
            WEBHOOK_SIGNING_SECRET.env,
            show(self.webhook_signing_secret.as_ref())
        )?;
        writeln!(
            f,
            "{} = \"{}\"",
            GEOCODER_KEY.env,
            show(self.geocoder_key.as_ref())
        )?;
        writeln!(
            f,
            "{} = \"{}\"",
            MAP_TILE_KEY.env,
            show(self.map_tile_key.as_ref())
        )?;
        writeln!(
            f,
            "{} = \"{}\"",
            REDIS_USERNAME.env,
            show(self.redis.username.as_ref())
        )?;
        write!(
            f,
            "{} = \"{}\"",
            REDIS_PASSWORD.env,
            show(self.redis.password.as_ref())
        )
    }
}
