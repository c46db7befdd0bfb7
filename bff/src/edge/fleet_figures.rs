//! What this replica's heartbeat reports of the process (see
//! [`crate::cache::fleet::heartbeat`]): its build, the configuration in force (the
//! start-up configuration with the cache policies a reload swapped in), and its L1.

use std::sync::Arc;

use crate::cache::EdgeCache;
use crate::cache::fleet::heartbeat::{BuildId, ConfigVersion, Figures, FiguresSource, L1Figures};
use crate::config::Config;
use crate::config::fingerprint::ConfigFingerprint;
use crate::edge::web_assets::WebAssets;

/// The configuration in force as replicas compare it: the cache policies a reload swapped in,
/// and the listen addresses left out (replicas sharing a host, as in a test or a compose file,
/// differ in them only; in a Deployment they are the same anyway).
fn comparable(config: &Config, cache: &EdgeCache) -> Config {
    let defaults = Config::default();
    let mut in_force = Config {
        cache: (*cache.config()).clone(),
        ..config.clone()
    };
    in_force.server.listen = defaults.server.listen;
    in_force.admin.listen = defaults.admin.listen;
    in_force.sandbox.listen = defaults.sandbox.listen;
    in_force
}

/// The figures of the process built from `config`, serving `cache` and `web`.
pub fn source(cache: EdgeCache, web: Arc<WebAssets>, config: Config) -> FiguresSource {
    let config = Arc::new(config);
    Arc::new(move || {
        let (cache, web, config) = (cache.clone(), web.clone(), config.clone());
        Box::pin(async move {
            let fingerprint = ConfigFingerprint::of(&comparable(&config, &cache));
            let (entries, bytes) = cache.size().await;
            // With every hit so far folded in: the walk of L1 runs off the runtime's workers.
            let folding = cache.clone();
            let top_lists = tokio::task::spawn_blocking(move || folding.top_lists())
                .await
                .unwrap_or_default();
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
                top_lists,
            }
        })
    })
}
