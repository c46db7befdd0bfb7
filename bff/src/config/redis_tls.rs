//! `[redis.tls]`: how a `rediss://` (or `valkeys://`) server is verified and how this client
//! proves itself to one that asks. The server's certificate must chain to `ca_file` (or, without
//! it, to the system's roots) and name the URL's host; there is no switch to skip either check.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedisTlsConfig {
    /// PEM bundle of the CAs the server's certificate must chain to, replacing the system's
    /// roots (a managed Redis's own CA). Unset: the system's roots.
    pub ca_file: Option<PathBuf>,
    /// PEM certificate chain this client presents, for a server that asks for one (mutual TLS).
    pub client_cert_file: Option<PathBuf>,
    /// PEM private key of `client_cert_file`. A file, like a secret: mounted, never inline.
    pub client_key_file: Option<PathBuf>,
}

impl RedisTlsConfig {
    /// Whether any of it is set.
    pub fn is_set(&self) -> bool {
        self.ca_file.is_some() || self.client_cert_file.is_some() || self.client_key_file.is_some()
    }

    /// What is wrong with it for a URL that does (`tls`) or does not ask for TLS.
    pub(super) fn problems(&self, tls: bool) -> Vec<String> {
        let mut problems = Vec::new();
        if self.is_set() && !tls {
            problems.push(
                "redis.tls: set, but redis.url is not rediss:// or valkeys:// (TLS)".to_owned(),
            );
        }
        match (&self.client_cert_file, &self.client_key_file) {
            (Some(_), None) => problems
                .push("redis.tls.client_key_file: required with client_cert_file".to_owned()),
            (None, Some(_)) => problems
                .push("redis.tls.client_cert_file: required with client_key_file".to_owned()),
            _ => {}
        }
        problems
    }
}
