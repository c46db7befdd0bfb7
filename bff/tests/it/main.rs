//! The bff's integration tests, one test binary: one link of the whole bff instead of one per
//! file. Tests that change process-wide state keep binaries of their own beside this folder
//! (`allocations.rs`: the counting allocator; `traces.rs`: the global tracing subscriber).

mod common;

mod abuse;
mod account;
mod binary;
mod cache_l2_documents;
mod cart;
mod catalogue;
mod checkout;
mod cli;
mod client_limits;
mod content_pages;
mod content_webhook;
mod csp_reports;
mod dealers;
mod edge_cache;
mod forms;
mod graceful_shutdown;
mod hit_path;
mod in_process;
mod lease;
mod logs;
mod metrics_and_health;
mod metrics_labels;
mod module_cycles;
mod msrv;
mod newsletter_unsubscribe;
mod not_found_budget;
mod openapi;
mod oversized_bodies;
mod reliability;
mod replicas_cache;
mod replicas_checkout;
mod replicas_eviction;
mod replicas_failover;
mod replicas_redis_outage;
mod replicas_rollout_window;
mod replicas_sentinel;
mod replicas_sessions;
mod replicas_sign_out;
mod replicas_tls;
mod request_id;
mod rolling_restart;
mod runtime_config;
mod security_headers;
mod seo;
mod session_lifetime;
mod sessions;
mod slow_upstreams;
mod ssr_documents;
mod start_up_secrets;
mod tiles;
mod trusted_proxies;
mod web_assets;
