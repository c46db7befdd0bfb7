//! What this replica's heartbeat reports of the process (see
//! [`crate::coordination::replicas::heartbeat`]): its build, the configuration in force (the
//! start-up configuration with the cache policies a reload swapped in), and its L1.

use std::sync::Arc;

use crate::cache::EdgeCache;
use crate::config::Config;
use crate::config::fingerprint::ConfigFingerprint;
use crate::coordination::replicas::heartbeat::{
    BuildId, ConfigVersion, Figures, FiguresSource, L1Figures,
};
use crate::edge::web_assets::WebAssets;

/// The figures of the process built from `config`, serving `cache` and `web`.
pub fn source(cache: EdgeCache, web: Arc<WebAssets>, config: Config) -> FiguresSource {
    let config = Arc::new(config);
    Arc::new(move || {
        let (cache, web, config) = (cache.clone(), web.clone(), config.clone());
        Box::pin(async move {
            let in_force = Config {
                cache: (*cache.config()).clone(),
                ..(*config).clone()
            };
            let fingerprint = ConfigFingerprint::of(&in_force);
            let (entries, bytes) = cache.size().await;
            Figures {
                build: BuildId::of_this_binary(web.build_id().map(str::to_owned)),
                config: ConfigVersion {
                    version: fingerprint.version,
                    hash: fingerprint.hash,
                },
                l1: L1Figures {
                    entries,
                    bytes,
                    capacity_bytes: cache.enforced_capacity_bytes(),
                },
                totals: cache.lookup_totals(),
            }
        })
    })
}
