//! The primary's address, from Redis Sentinel: each sentinel is asked in turn
//! (`SENTINEL GET-MASTER-ADDR-BY-NAME`) until one answers. During a failover a sentinel may
//! still name the old primary; writes there answer `READONLY`, which has the sentinels asked
//! again at once.

use std::time::Duration;

use redis::IntoConnectionInfo;
use secrecy::{ExposeSecret, SecretString};

use crate::config::RedisSentinelConfig;

/// Where the sentinels are and how to sign in to them.
#[derive(Clone)]
pub struct Sentinels {
    primary_name: String,
    /// `redis://host:port/` of each sentinel.
    addresses: Vec<String>,
    password: Option<SecretString>,
    timeout: Duration,
}

impl std::fmt::Debug for Sentinels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sentinels")
            .field("primary_name", &self.primary_name)
            .field("addresses", &self.addresses)
            .finish_non_exhaustive()
    }
}

impl Sentinels {
    /// The sentinels of `config`, or `None` without a primary name.
    pub fn from_config(
        config: &RedisSentinelConfig,
        password: Option<&SecretString>,
        timeout: Duration,
    ) -> Option<Self> {
        config.enabled().then(|| Self {
            primary_name: config.primary_name.trim().to_owned(),
            addresses: config
                .sentinels
                .iter()
                .map(|address| format!("redis://{}/", address.trim()))
                .collect(),
            password: password.cloned(),
            timeout,
        })
    }

    /// The same sentinels, asked for the primary they monitor under `name` (another tier's).
    pub fn for_primary(mut self, name: &str) -> Self {
        name.trim().clone_into(&mut self.primary_name);
        self
    }

    /// The current primary's host and port, as the first sentinel that answers names it;
    /// `None` when none does.
    pub async fn primary(&self) -> Option<(String, u16)> {
        for address in &self.addresses {
            if let Some(primary) = self.ask(address).await {
                return Some(primary);
            }
        }
        None
    }

    async fn ask(&self, address: &str) -> Option<(String, u16)> {
        let mut info = address.into_connection_info().ok()?;
        if let Some(password) = &self.password {
            let settings = info
                .redis_settings()
                .clone()
                .set_password(password.expose_secret());
            info = info.set_redis_settings(settings);
        }
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout));
        let attempt = async {
            let client = redis::Client::open(info).ok()?;
            let mut connection = client
                .get_multiplexed_async_connection_with_config(&config)
                .await
                .ok()?;
            let (host, port): (String, u16) = redis::cmd("SENTINEL")
                .arg("GET-MASTER-ADDR-BY-NAME")
                .arg(&self.primary_name)
                .query_async(&mut connection)
                .await
                .ok()?;
            Some((host, port))
        };
        tokio::time::timeout(self.timeout * 2, attempt).await.ok()?
    }
}
