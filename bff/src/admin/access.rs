//! Who may call the admin API, and what: [`authenticate`] names the caller from its bearer
//! token (401 without a known one) and puts its [`AdminIdentity`] into the request's
//! extensions; [`authorize`] refuses a caller without the scope the route needs (403 naming
//! the scope). The scope of a route is [`required_scope`]'s: one table for every admin route.

use std::sync::{Arc, RwLock};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use super::identity::AdminIdentity;
use super::scope::Scope;
use super::tokens::AdminTokens;
use crate::config::ConfigError;
use crate::http::bearer::bearer_token;
use crate::http::error::ApiError;

/// The admin tokens in force, replaced whole when the tokens file is read again on reload.
#[derive(Debug)]
pub struct TokensInForce(RwLock<AdminTokens>);

impl TokensInForce {
    pub fn new(tokens: AdminTokens) -> Self {
        Self(RwLock::new(tokens))
    }

    /// A copy of the tokens in force (an `Arc` clone).
    pub fn current(&self) -> AdminTokens {
        self.0
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The tokens file read again; on an error the tokens in force stay.
    pub fn reload(
        &self,
        check: impl Fn(&AdminTokens) -> Result<(), ConfigError>,
    ) -> Result<(), ConfigError> {
        let fresh = self.current().reloaded()?;
        check(&fresh)?;
        *self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = fresh;
        Ok(())
    }
}

/// The scope `method` on the admin route `route` (a template: `/admin/cache/purge`) needs:
/// reads need `read`; purges `purge`; the rollout window's changes `rollout`; every other
/// change (config reloads and live settings, and any write not listed here) `config`.
pub fn required_scope(method: &Method, route: &str) -> Scope {
    if matches!(*method, Method::GET | Method::HEAD) {
        return Scope::Read;
    }
    let route = route.strip_prefix("/admin").unwrap_or(route);
    if route.starts_with("/cache/purge") {
        Scope::Purge
    } else if route.starts_with("/web/rollout") {
        Scope::Rollout
    } else {
        Scope::Config
    }
}

/// 401 unless the request's bearer token is an admin token; else its identity goes into the
/// request's extensions.
pub async fn authenticate(
    State(tokens): State<Arc<TokensInForce>>,
    mut request: Request,
    next: Next,
) -> Response {
    let identity =
        bearer_token(request.headers()).and_then(|token| tokens.current().identify(token));
    match identity {
        Some(identity) => {
            request.extensions_mut().insert(identity);
            next.run(request).await
        }
        None => ApiError::Unauthorized("A valid admin bearer token is required.".to_owned())
            .into_response(),
    }
}

/// 403 naming the scope when the caller's token lacks the one the route needs.
pub async fn authorize(request: Request, next: Next) -> Response {
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| request.uri().path(), MatchedPath::as_str);
    let needed = required_scope(request.method(), route);
    match request.extensions().get::<AdminIdentity>() {
        Some(identity) if identity.may(needed) => next.run(request).await,
        Some(identity) => insufficient_scope(identity, needed).into_response(),
        // Only behind `authenticate`: no identity is no token.
        None => ApiError::Unauthorized("A valid admin bearer token is required.".to_owned())
            .into_response(),
    }
}

fn insufficient_scope(identity: &AdminIdentity, needed: Scope) -> ApiError {
    let mut members = Map::new();
    members.insert("requiredScope".to_owned(), Value::from(needed.as_str()));
    ApiError::Refused {
        status: StatusCode::FORBIDDEN,
        code: "insufficient_scope",
        detail: format!(
            "The token {:?} lacks the {needed:?} scope this call needs.",
            &*identity.name,
            needed = needed.as_str()
        ),
        errors: None,
        members,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_admin_route_needs_its_scope() {
        for (method, route, scope) in [
            (Method::GET, "/admin/cache", Scope::Read),
            (Method::GET, "/admin/audit", Scope::Read),
            (Method::GET, "/admin/cache/explain", Scope::Read),
            (Method::POST, "/admin/cache/purge", Scope::Purge),
            (Method::POST, "/admin/config/reload", Scope::Config),
            (Method::PUT, "/admin/config/overrides", Scope::Config),
            (Method::POST, "/admin/config/overrides", Scope::Config),
            (
                Method::POST,
                "/admin/config/overrides/rollback",
                Scope::Config,
            ),
            (
                Method::POST,
                "/admin/config/overrides/promote",
                Scope::Config,
            ),
            (Method::GET, "/admin/config/overrides/diff", Scope::Read),
            (Method::POST, "/admin/web/rollout/close", Scope::Rollout),
            (Method::DELETE, "/admin/something/new", Scope::Config),
        ] {
            assert_eq!(required_scope(&method, route), scope, "{method} {route}");
        }
    }
}
