//! "Call commerce as this visitor": the session's identity (a user's bearer token, refreshed
//! before use inside the margin and once more when the upstream refuses a token believed
//! valid), injected server-side; the browser never holds a token.

use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{FromRef, FromRequestParts};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::http::error::ApiError;
use crate::http::rate_limit::shopper_limits::ShopperLimits;
use crate::http::request_id::RequestId;
use crate::observe::metrics::Metrics;
use crate::session::handle::Screened;
use crate::session::model::RefreshFailure;
use crate::session::revocation::Revocations;
use crate::session::tokens::{Refresher, now_ms};
use crate::session::{SessionHandle, UserTokens};
use crate::upstream::{Call, Upstream, UpstreamError};

/// What the commerce services need from the application: the upstream, the single-flight
/// refresher and the refresh margin.
#[derive(Debug, Clone)]
pub struct Gateway {
    pub upstream: Upstream,
    pub refresher: Arc<Refresher>,
    pub metrics: Arc<Metrics>,
    /// Refresh an access token this many seconds before it expires.
    pub refresh_margin_s: i64,
    /// Confirm a session the upstream has not accepted for this long before showing it as
    /// signed in (see [`crate::commerce::auth::session`]).
    pub verify_after_ms: i64,
    /// Sessions revoked by sign-out: every request's session is screened against them.
    pub revocations: Revocations,
    /// Guest creation and promo codes, per client and per cart.
    pub limits: ShopperLimits,
}

/// One request's visitor, as commerce sees them.
#[derive(Debug, Clone)]
pub struct Shopper {
    gateway: Gateway,
    session: SessionHandle,
    request_id: RequestId,
    /// The client, as per-client limits key it.
    client: IpAddr,
}

impl<S> FromRequestParts<S> for Shopper
where
    S: Send + Sync,
    Gateway: FromRef<S>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let gateway = Gateway::from_ref(state);
        let session = SessionHandle::from_request_parts(parts, state).await?;
        // Before the handler sees it: a session signed out on any replica is over here too,
        // answered as any ended session is (401 `session_expired`, the cookie removed).
        let screened = session.screen(&gateway.revocations, &gateway.metrics).await;
        if screened == Screened::Revoked {
            return Err(ApiError::SessionExpired);
        }
        let client = gateway.limits.client.of_parts(parts);
        let shopper = Self {
            client,
            gateway,
            session,
            request_id: match RequestId::from_request_parts(parts, state).await {
                Ok(id) => id,
                Err(never) => match never {},
            },
        };
        if let Screened::Unchecked { id } = screened {
            shopper.check_upstream(&id).await?;
        }
        Ok(shopper)
    }
}

impl Shopper {
    /// A shopper outside a request (tests): the client is `0.0.0.0`.
    pub fn new(gateway: Gateway, session: SessionHandle, request_id: RequestId) -> Self {
        Self {
            gateway,
            session,
            request_id,
            client: IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED),
        }
    }

    /// The client, as per-client limits key it.
    pub fn client(&self) -> IpAddr {
        self.client
    }

    /// Guest creation and promo-code limits.
    pub fn limits(&self) -> &ShopperLimits {
        &self.gateway.limits
    }

    pub fn session(&self) -> &SessionHandle {
        &self.session
    }

    pub fn request_id(&self) -> &RequestId {
        &self.request_id
    }

    /// Sessions revoked by sign-out.
    pub fn revocations(&self) -> &Revocations {
        &self.gateway.revocations
    }

    pub fn metrics(&self) -> &Metrics {
        &self.gateway.metrics
    }

    /// The commerce upstream, for calls made without the user's identity (guests, public).
    pub fn upstream(&self) -> &Upstream {
        &self.gateway.upstream
    }

    /// An anonymous (or guest, via `Call::guest`) call, its answer read into `T`.
    pub async fn call_as<T: DeserializeOwned>(&self, call: Call<'_>) -> Result<T, ApiError> {
        Ok(self.upstream().call_as(call, &self.request_id).await?)
    }

    /// The signed-in user's tokens, refreshed first when they expire within the margin; `None`
    /// for anonymous visitors and guests.
    pub async fn user(&self) -> Result<Option<UserTokens>, ApiError> {
        let Some(user) = self.session.get().user().cloned() else {
            return Ok(None);
        };
        if user.expires_at - now_ms() / 1000 > self.gateway.refresh_margin_s {
            return Ok(Some(user));
        }
        self.renew(&user).await.map(Some)
    }

    /// Whether `user`'s session is due for a check with the upstream: not accepted by it for
    /// `session.verify_after`.
    pub fn confirmation_due(&self, user: &UserTokens) -> bool {
        now_ms().saturating_sub(user.confirmed_at_ms) >= self.gateway.verify_after_ms
    }

    /// The signed-in user's tokens, or 401 for a visitor who is not signed in.
    pub async fn signed_in(&self) -> Result<UserTokens, ApiError> {
        self.user()
            .await?
            .ok_or_else(|| ApiError::Unauthorized("Please sign in.".to_owned()))
    }

    /// One call as `user` (bearer injected, with [`Self::with_user`]'s refresh and single
    /// retry), its answer read into `T`.
    pub async fn as_user<T: DeserializeOwned>(
        &self,
        user: UserTokens,
        call: Call<'_>,
    ) -> Result<T, ApiError> {
        self.with_user(user, |bearer| {
            let call = call.clone();
            async move {
                self.upstream()
                    .call_as(call.bearer(Some(&bearer)), &self.request_id)
                    .await
            }
        })
        .await
    }

    /// Runs `call` with the user's bearer token; when the upstream answers 401 to a token
    /// believed valid, refreshes once and tries again. A second 401 ends the session.
    pub async fn with_user<T, F, Fut>(&self, user: UserTokens, call: F) -> Result<T, ApiError>
    where
        F: Fn(String) -> Fut,
        Fut: Future<Output = Result<T, UpstreamError>>,
    {
        match call(user.access_token.clone()).await {
            Err(UpstreamError::Status { status, .. })
                if status == reqwest::StatusCode::UNAUTHORIZED =>
            {
                let renewed = self.renew(&user).await?;
                match call(renewed.access_token.clone()).await {
                    Err(UpstreamError::Status { status, .. })
                        if status == reqwest::StatusCode::UNAUTHORIZED =>
                    {
                        self.session.clear();
                        Err(ApiError::SessionExpired)
                    }
                    other => other.map_err(ApiError::from),
                }
            }
            other => other.map_err(ApiError::from),
        }
    }

    /// Redis could not say whether the session `id` was signed out elsewhere: once per
    /// `session.revocation_check_interval`, the upstream is asked instead, by refreshing the
    /// session's tokens (a sign-out revoked them there). Refused: the session is over, here
    /// and for this replica's later requests. An upstream that does not answer signs nobody
    /// out (it is asked again on the next request).
    async fn check_upstream(&self, id: &str) -> Result<(), ApiError> {
        let revocations = &self.gateway.revocations;
        let Some(user) = self.session.get().user().cloned() else {
            return Ok(());
        };
        if !revocations.upstream_check_due(id) {
            return Ok(());
        }
        self.gateway
            .metrics
            .count_session_event(crate::observe::metrics::SessionEvent::RevocationCheckedUpstream);
        match self.renew(&user).await {
            Ok(_) => Ok(()),
            Err(ApiError::SessionExpired) => {
                revocations.remember(id);
                tracing::info!(
                    "the upstream refused the tokens of a session Redis could not check; signed out"
                );
                Err(ApiError::SessionExpired)
            }
            Err(err) => {
                revocations.upstream_check_failed(id);
                tracing::warn!(error = %err, "a session Redis could not check could not be checked upstream either; let through");
                Ok(())
            }
        }
    }

    /// Replaces the session's tokens with a refreshed set, or ends the session when refused.
    async fn renew(&self, current: &UserTokens) -> Result<UserTokens, ApiError> {
        let refreshed = self
            .gateway
            .refresher
            .refresh(
                &self.gateway.upstream,
                current,
                &self.request_id,
                &self.gateway.metrics,
            )
            .await;
        match refreshed {
            Ok(tokens) => {
                self.session
                    .update(|session| session.with_tokens(tokens.clone()));
                Ok(tokens)
            }
            Err(RefreshFailure::Refused) => {
                self.session.clear();
                Err(ApiError::SessionExpired)
            }
            Err(RefreshFailure::Unavailable(err)) => Err(ApiError::Upstream(err)),
        }
    }
}
