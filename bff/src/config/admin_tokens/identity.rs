//! Who called the admin API: the token's name and scopes, put into the request's extensions
//! by `crate::admin::access::authenticate` for the handlers and the audit log to read
//! (`Extension<AdminIdentity>`).

use std::sync::Arc;

use serde::Serialize;

use super::scope::{Scope, Scopes};

/// The actor the content webhook's actions are recorded under (it has a secret of its own,
/// not an admin token).
pub const CONTENT_WEBHOOK: &str = "content-webhook";

/// An admin caller, by the name its token has in the tokens file (`admin` for
/// `BFF_ADMIN_TOKEN`). Never the token itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AdminIdentity {
    #[serde(serialize_with = "as_str")]
    pub name: Arc<str>,
    pub scopes: Scopes,
}

fn as_str<S: serde::Serializer>(name: &Arc<str>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(name)
}

impl AdminIdentity {
    pub fn new(name: &str, scopes: Scopes) -> Self {
        Self {
            name: Arc::from(name),
            scopes,
        }
    }

    /// The content service's publish webhook, which may only purge.
    pub fn content_webhook() -> Self {
        Self::new(CONTENT_WEBHOOK, [Scope::Purge].into_iter().collect())
    }

    pub fn may(&self, scope: Scope) -> bool {
        self.scopes.contains(scope)
    }
}
