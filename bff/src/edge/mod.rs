//! The edge: the composition root (the app state, start-up), readiness, the listeners and their
//! connection loop, the storefront service with its hit path for remembered cache answers, and the web
//! app's files.

pub mod fleet_figures;
pub mod hit_path;
pub mod readiness;
pub mod serve;
pub mod server;
pub mod start_up;
pub mod state;
pub mod storefront;
pub mod web_assets;
