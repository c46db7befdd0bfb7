//! Doubles of the third parties the browser talks to: the card tokenizer (Accept.js API), the
//! captcha widget (reCAPTCHA v2 API), the identity-verification service, and an e-mail outbox.

pub mod captcha;
pub mod outbox;
pub mod payment;

use std::sync::Arc;

use axum::Router;

use crate::SandboxState;

/// The doubles' browser-facing routes, under `/3p/`.
pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
}
