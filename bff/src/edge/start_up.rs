//! Rules on secrets that depend on where the instance runs, checked once at start-up (by the
//! binary, before it listens) rather than in the secret loader, so in-process tests keep their
//! stand-ins and short fixtures:
//!
//! - The development stand-ins (`dev-insecure-…`) are public: anyone can seal a session cookie
//!   or call `/admin` with them. They are allowed only in development with the embedded
//!   sandbox on (so no real shopper data flows through), and only while nobody else can reach
//!   this instance: every listener on a loopback address and every upstream on loopback or the
//!   sandbox. Loopback alone was not enough: a reverse proxy on the same host reaches a
//!   loopback listener, and with real upstreams behind it the stand-ins guarded real data.
//! - In production each secret the storefront owns (`BFF_ADMIN_TOKEN`, `BFF_WEBHOOK_SECRET`,
//!   `BFF_WEBHOOK_SIGNING_SECRET` when it is set) and the sealing session key (the first of
//!   `BFF_SESSION_KEYS`) must be at least [`MIN_SECRET_BYTES`] long as configured. Older
//!   session keys, kept only to open cookies sealed before a rotation, get a warning: refusing
//!   them would sign every shopper out.
//!
//! Messages name the variable, never its value.

use std::net::{IpAddr, SocketAddr};

use secrecy::{ExposeSecret, SecretString};
use url::Url;

use crate::admin::tokens::{AdminTokens, TOKENS_FILE_ENV};
use crate::config::{Config, ConfigError, SANDBOX_PLACEHOLDER, Secrets};

/// 256 bits, as bytes of the configured value.
pub const MIN_SECRET_BYTES: usize = 32;

/// `Ok(warnings)` when the instance may start with these secrets; else every problem, one per
/// line.
pub fn check_secrets(config: &Config, secrets: &Secrets) -> Result<Vec<String>, ConfigError> {
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let stand_ins = secrets.development_stand_ins();
    if !stand_ins.is_empty() && (!config.sandbox.enabled || config.is_production()) {
        problems.extend(stand_ins.iter().map(|name| {
            format!(
                "{name}: the development stand-in is allowed only with environment = \
                 \"development\" and the embedded sandbox on (sandbox.enabled); set {name} or \
                 {name}_FILE"
            )
        }));
    } else if !stand_ins.is_empty() {
        let exposed = exposures(config);
        if !exposed.is_empty() {
            let not_loopback = exposed.join(", ");
            problems.extend(stand_ins.iter().map(|name| {
                format!(
                    "{name}: the development stand-in is allowed only when every listener and \
                     upstream is loopback (or the embedded sandbox), and {not_loopback} is not; \
                     set {name} or {name}_FILE"
                )
            }));
        }
    }
    if config.is_production() {
        for (name, value) in [
            ("BFF_ADMIN_TOKEN", secrets.admin_token.as_ref()),
            ("BFF_WEBHOOK_SECRET", Some(&secrets.webhook_secret)),
            ("BFF_SESSION_KEYS", secrets.session_keys.first()),
            // Optional, but a short HMAC key is as guessable as a short token.
            (
                "BFF_WEBHOOK_SIGNING_SECRET",
                secrets.webhook_signing_secret.as_ref(),
            ),
        ] {
            if value.is_some_and(too_short) {
                let what = if name == "BFF_SESSION_KEYS" {
                    format!("{name}: the sealing (first) key")
                } else {
                    name.to_owned()
                };
                problems.push(format!(
                    "{what} is shorter than {MIN_SECRET_BYTES} bytes; production needs at least \
                     {MIN_SECRET_BYTES} (e.g. `openssl rand -base64 32`)"
                ));
            }
        }
        for (index, _) in secrets
            .session_keys
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, key)| too_short(key))
        {
            warnings.push(format!(
                "BFF_SESSION_KEYS: key {} (kept only to open older cookies) is shorter than \
                 {MIN_SECRET_BYTES} bytes; drop it once the cookies it sealed have expired",
                index + 1
            ));
        }
    }
    if config.is_production() {
        problems.extend(admin_tokens_file_problems(&secrets.admin_tokens));
    }
    if problems.is_empty() {
        Ok(warnings)
    } else {
        Err(ConfigError(problems.join("\n")))
    }
}

/// Production's rules for the tokens of `BFF_ADMIN_TOKENS_FILE` given in plaintext: no
/// development stand-in, each at least [`MIN_SECRET_BYTES`] long. Checked at start-up and again
/// when a reload reads the file.
pub fn admin_tokens_file_problems(tokens: &AdminTokens) -> Vec<String> {
    let mut problems = Vec::new();
    if tokens.file_has_stand_in() {
        problems.push(format!(
            "{TOKENS_FILE_ENV}: a development stand-in (dev-insecure-...) is not allowed in production"
        ));
    }
    problems.extend(tokens.short_file_tokens(MIN_SECRET_BYTES).into_iter().map(|name| {
        format!(
            "{TOKENS_FILE_ENV}: the token of {name:?} is shorter than {MIN_SECRET_BYTES} bytes; \
             production needs at least {MIN_SECRET_BYTES} (or give its sha256: digest)"
        )
    }));
    problems
}

fn too_short(secret: &SecretString) -> bool {
    secret.expose_secret().len() < MIN_SECRET_BYTES
}

/// The listeners and upstreams others could reach or real data could come from, as
/// `key = value` (an upstream by its host only).
fn exposures(config: &Config) -> Vec<String> {
    let mut listeners = vec![
        ("server.listen", config.server.listen),
        ("admin.listen", config.admin.listen),
    ];
    if config.sandbox.enabled {
        listeners.push(("sandbox.listen", config.sandbox.listen));
    }
    let mut exposed: Vec<String> = listeners
        .into_iter()
        .filter(|(_, address)| !is_loopback(address))
        .map(|(key, address)| format!("{key} = {address}"))
        .collect();
    for (name, upstream) in [
        ("commerce", &config.upstreams.commerce),
        ("content", &config.upstreams.content),
    ] {
        if upstream.base_url.starts_with(SANDBOX_PLACEHOLDER) {
            continue;
        }
        let host = Url::parse(&upstream.base_url)
            .ok()
            .and_then(|url| url.host_str().map(str::to_owned));
        if !host.as_deref().is_some_and(is_loopback_host) {
            exposed.push(format!(
                "upstreams.{name}.base_url (host {})",
                host.as_deref().unwrap_or("?")
            ));
        }
    }
    exposed
}

fn is_loopback(address: &SocketAddr) -> bool {
    address.ip().is_loopback()
}

/// `localhost`, `127.0.0.0/8` or `[::1]`.
fn is_loopback_host(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(config: &Config, set: &[(&str, &str)]) -> Secrets {
        Secrets::from_lookup(config, |name| {
            set.iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        })
        .unwrap()
    }

    #[test]
    fn stand_ins_are_allowed_on_loopback_with_the_embedded_sandbox() {
        let mut config = Config::default();
        assert!(check_secrets(&config, &secrets(&config, &[])).is_ok());
        config.upstreams.content.base_url = "http://[::1]:9001/api/".to_owned();
        assert!(check_secrets(&config, &secrets(&config, &[])).is_ok());
    }

    /// Issue 46, finding 5: the stand-ins were accepted whenever every listener was on
    /// loopback, even with real upstreams behind a reverse proxy on the same host. They need
    /// development with the embedded sandbox on.
    #[test]
    fn development_stand_ins_need_the_embedded_sandbox() {
        let mut config = Config::default();
        config.sandbox.enabled = false;
        config.upstreams.commerce.base_url = "http://127.0.0.1:9000/".to_owned();
        config.upstreams.content.base_url = "http://localhost:9001/api/".to_owned();
        let err = check_secrets(&config, &secrets(&config, &[]))
            .unwrap_err()
            .0;
        for name in ["BFF_ADMIN_TOKEN", "BFF_SESSION_KEYS", "BFF_WEBHOOK_SECRET"] {
            assert!(err.contains(name), "{name}: {err}");
        }
        assert!(err.contains("sandbox.enabled"), "{err}");
        assert!(!err.contains("dev-insecure"), "never the value: {err}");
        let own = [
            ("BFF_ADMIN_TOKEN", "an-admin-token-of-the-operators-own"),
            (
                "BFF_WEBHOOK_SECRET",
                "a-webhook-secret-of-the-operators-own",
            ),
            ("BFF_SESSION_KEYS", "a-session-key-of-the-operators-own"),
        ];
        assert!(check_secrets(&config, &secrets(&config, &own)).is_ok());
    }

    #[test]
    fn stand_ins_off_loopback_are_refused_naming_each_and_what_is_exposed() {
        let mut config = Config::default();
        config.server.listen = "0.0.0.0:8080".parse().unwrap();
        config.upstreams.commerce.base_url = "https://commerce.example/".to_owned();
        config.sandbox.enabled = true;
        let set = [("BFF_ADMIN_TOKEN", "an-admin-token-of-the-operators-own")];
        let err = check_secrets(&config, &secrets(&config, &set))
            .unwrap_err()
            .0;
        assert!(
            !err.contains("BFF_ADMIN_TOKEN"),
            "set, so not a stand-in: {err}"
        );
        for name in ["BFF_SESSION_KEYS", "BFF_WEBHOOK_SECRET"] {
            assert!(err.contains(name), "{err}");
        }
        assert!(err.contains("server.listen = 0.0.0.0:8080"), "{err}");
        assert!(err.contains("host commerce.example"), "{err}");
        assert!(!err.contains("dev-insecure"), "{err}");
    }

    #[test]
    fn production_needs_32_bytes_for_each_owned_secret_and_the_sealing_key() {
        let mut config = Config::default();
        config.environment = crate::config::Environment::Production;
        config.sandbox.enabled = false;
        let long = "x".repeat(MIN_SECRET_BYTES);
        let short = "y".repeat(MIN_SECRET_BYTES - 1);
        let keys_long_then_short = format!("{long},{short}");
        let good = [
            ("BFF_ADMIN_TOKEN", long.as_str()),
            ("BFF_WEBHOOK_SECRET", long.as_str()),
            ("BFF_SESSION_KEYS", keys_long_then_short.as_str()),
        ];
        let warnings = check_secrets(&config, &secrets(&config, &good)).unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("key 2"), "{warnings:?}");

        let keys_short_then_long = format!("{short},{long}");
        let bad = [
            ("BFF_ADMIN_TOKEN", short.as_str()),
            ("BFF_WEBHOOK_SECRET", long.as_str()),
            ("BFF_SESSION_KEYS", keys_short_then_long.as_str()),
        ];
        let err = check_secrets(&config, &secrets(&config, &bad))
            .unwrap_err()
            .0;
        assert!(err.contains("BFF_ADMIN_TOKEN is shorter"), "{err}");
        assert!(
            err.contains("BFF_SESSION_KEYS: the sealing (first) key"),
            "{err}"
        );
        assert!(!err.contains("BFF_WEBHOOK_SECRET"), "{err}");
        assert!(!err.contains(&short), "never the secret: {err}");
    }

    /// Issue 46, finding 5: the optional webhook signing secret had no minimum length.
    #[test]
    fn production_needs_32_bytes_for_the_webhook_signing_secret_when_it_is_set() {
        let mut config = Config::default();
        config.environment = crate::config::Environment::Production;
        config.sandbox.enabled = false;
        let long = "x".repeat(MIN_SECRET_BYTES);
        let short = "y".repeat(MIN_SECRET_BYTES - 1);
        let owned = [
            ("BFF_ADMIN_TOKEN", long.as_str()),
            ("BFF_WEBHOOK_SECRET", long.as_str()),
            ("BFF_SESSION_KEYS", long.as_str()),
        ];
        assert!(check_secrets(&config, &secrets(&config, &owned)).is_ok());
        let with = |signing: &str| {
            let mut set = owned.to_vec();
            set.push(("BFF_WEBHOOK_SIGNING_SECRET", signing));
            check_secrets(&config, &secrets(&config, &set))
        };
        assert!(with(&long).is_ok());
        let err = with(&short).unwrap_err().0;
        assert!(
            err.contains("BFF_WEBHOOK_SIGNING_SECRET is shorter than 32 bytes"),
            "{err}"
        );
        assert!(!err.contains(&short), "never the secret: {err}");
    }
}
