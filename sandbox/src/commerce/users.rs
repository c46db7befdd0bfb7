//! (to be written)

use std::sync::Arc;

use axum::Router;

use crate::SandboxState;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
}
