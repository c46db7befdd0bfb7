//! Where Redis is and how it is reached: the URL's address and database, TLS with the CA, the
//! client certificate and key read from their files, and the ACL user and password of the
//! moment. Everything the configuration names is read here, once, so a missing or unreadable
//! file stops start-up (and `bff check-config`) naming its key, while a server that cannot be
//! reached only ever makes the BFF fall back (see [`super::cause`]).

use std::path::Path;

use redis::{ClientTlsConfig, ConnectionInfo, IntoConnectionInfo, TlsCertificates};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::credentials::Credentials;
use crate::config::{ConfigError, RedisConfig};

/// A Redis server's address, with what a connection to it needs.
#[derive(Clone)]
pub struct Endpoint {
    /// The URL's address and database, without credentials (those are [`Credentials`]').
    info: ConnectionInfo,
    /// For a TLS URL: the CA bundle, when given, and this client's certificate and key.
    tls: Option<TlsCertificates>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("addr", &self.info.addr().to_string())
            .field("tls", &self.tls.is_some())
            .finish()
    }
}

impl Endpoint {
    /// The endpoint of `[redis]` (`url` and `tls`), its files read now.
    pub fn from_config(config: &RedisConfig) -> Result<Self, ConfigError> {
        Self::new("redis.url", config.url.trim(), config)
    }

    /// The endpoint of `url` (named `url_key` in errors), with `[redis.tls]`'s files when it
    /// asks for TLS.
    pub fn new(url_key: &str, url: &str, config: &RedisConfig) -> Result<Self, ConfigError> {
        let info = url
            .into_connection_info()
            .map_err(|err| ConfigError(format!("{url_key}: {err}")))?;
        let tls = if crate::config::is_tls_scheme(url.split("://").next().unwrap_or_default()) {
            let root_cert = config
                .tls
                .ca_file
                .as_deref()
                .map(|path| read_certificates("redis.tls.ca_file", path))
                .transpose()?;
            let client_tls = match (&config.tls.client_cert_file, &config.tls.client_key_file) {
                (Some(cert), Some(key)) => Some(ClientTlsConfig {
                    client_cert: read_certificates("redis.tls.client_cert_file", cert)?,
                    client_key: read_key("redis.tls.client_key_file", key)?,
                }),
                _ => None,
            };
            Some(TlsCertificates {
                client_tls,
                root_cert,
            })
        } else {
            None
        };
        let endpoint = Self { info, tls };
        // Built once now so that whatever the client would refuse is refused at start-up.
        endpoint
            .client(None)
            .map_err(|err| ConfigError(format!("redis.tls: {err}")))?;
        Ok(endpoint)
    }

    /// This endpoint at `host:port` (the primary the sentinels name), TLS and database kept.
    pub fn at(&self, host: &str, port: u16) -> Self {
        let addr = match self.info.addr() {
            redis::ConnectionAddr::TcpTls {
                insecure,
                tls_params,
                ..
            } => redis::ConnectionAddr::TcpTls {
                host: host.to_owned(),
                port,
                insecure: *insecure,
                tls_params: tls_params.clone(),
            },
            _ => redis::ConnectionAddr::Tcp(host.to_owned(), port),
        };
        Self {
            info: self.info.clone().set_addr(addr),
            tls: self.tls.clone(),
        }
    }

    /// The host and port connections go to.
    pub fn address(&self) -> Option<(String, u16)> {
        match self.info.addr() {
            redis::ConnectionAddr::Tcp(host, port)
            | redis::ConnectionAddr::TcpTls { host, port, .. } => Some((host.clone(), *port)),
            _ => None,
        }
    }

    /// Whether connections use TLS.
    pub fn uses_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// A client for this endpoint signing in with `credentials` as they are now (none: no
    /// `AUTH`). Connections that stay open are signed in again by the credentials' stream.
    pub fn client(&self, credentials: Option<&Credentials>) -> redis::RedisResult<redis::Client> {
        let info = self.signed_in(credentials);
        match &self.tls {
            Some(certificates) => redis::Client::build_with_tls(info, certificates.clone()),
            None => redis::Client::open(info),
        }
    }

    /// A Redis Cluster client seeded with this endpoint, signing in with `credentials` as they
    /// are now and again on every change (the credentials' stream reaches each node's
    /// connection); the TLS files apply to every node.
    pub fn cluster_client(
        &self,
        credentials: Option<&Credentials>,
    ) -> redis::RedisResult<redis::cluster::ClusterClient> {
        let mut builder =
            redis::cluster::ClusterClientBuilder::new(vec![self.signed_in(credentials)])
                // A command waits on one redirection or reconnection at most; our own timeout
                // bounds it anyway.
                .retries(2);
        if let Some(certificates) = &self.tls {
            builder = builder.certs(certificates.clone());
        }
        if let Some(credentials) = credentials {
            builder = builder.set_credentials_provider(credentials.clone());
        }
        builder.build()
    }

    /// The address and database, with `credentials` as they are now.
    fn signed_in(&self, credentials: Option<&Credentials>) -> ConnectionInfo {
        let mut info = self.info.clone();
        if let Some(current) = credentials.map(Credentials::current) {
            let settings = info
                .redis_settings()
                .clone()
                .set_username(current.username())
                .set_password(current.password());
            info = info.set_redis_settings(settings);
        }
        info
    }
}

/// The PEM certificates in `path`, refused naming `key` when there are none.
fn read_certificates(key: &str, path: &Path) -> Result<Vec<u8>, ConfigError> {
    let pem = read(key, path)?;
    let parsed = CertificateDer::pem_slice_iter(&pem).collect::<Result<Vec<_>, _>>();
    match parsed {
        Ok(certificates) if !certificates.is_empty() => Ok(pem),
        Ok(_) => Err(ConfigError(format!(
            "{key}: no PEM certificate in {}",
            path.display()
        ))),
        Err(err) => Err(ConfigError(format!(
            "{key}: {} is not a PEM certificate bundle ({err})",
            path.display()
        ))),
    }
}

/// The PEM private key in `path`, refused naming `key` when there is none.
fn read_key(key: &str, path: &Path) -> Result<Vec<u8>, ConfigError> {
    let pem = read(key, path)?;
    PrivateKeyDer::from_pem_slice(&pem).map_err(|err| {
        ConfigError(format!(
            "{key}: no PEM private key in {} ({err})",
            path.display()
        ))
    })?;
    Ok(pem)
}

fn read(key: &str, path: &Path) -> Result<Vec<u8>, ConfigError> {
    std::fs::read(path)
        .map_err(|err| ConfigError(format!("{key}: cannot read {}: {err}", path.display())))
}
