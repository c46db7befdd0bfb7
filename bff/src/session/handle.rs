//! The session of one request: found in the cookie by the middleware, opened the first time a
//! handler reads it, changed by handlers, written back (or cleared) on the way out.
//!
//! Opening is lazy so that routes that never read the session (content, catalogue, static
//! assets) pay no cookie decryption, and a cookie that does not open changes nothing on them:
//! no removal, no `no-store` over their cache headers.

use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;

use super::identity::SessionIdentity;
use super::model::{Envelope, PAYLOAD_VERSION, Session};
use super::revocation::{Checked, Revocations};
use super::seal::Sealer;
use super::tokens::now_ms;
use crate::config::Config;
use crate::http::error::ApiError;
use crate::observe::metrics::Metrics;

#[derive(Debug, Default)]
struct Inner {
    /// The sealed cookie value, until the first read opens it.
    sealed: Option<Sealed>,
    /// Whether the request's handler used the session: its answer is personal.
    read: bool,
    session: Session,
    /// The session's id and beginning (`None` while there is no session).
    identity: Option<SessionIdentity>,
    /// Write the cookie back (changed, or opened with an old key).
    dirty: bool,
    /// Send a removal (signed out, or the incoming cookie did not open).
    clear: bool,
}

/// Shared by the middleware and the handlers of one request. A std `Mutex`: never held across
/// an await (handlers copy the session out, await, then store it back).
#[derive(Debug, Clone, Default)]
pub struct SessionHandle {
    inner: Arc<Mutex<Inner>>,
}

/// A cookie value not yet opened, and what opens it.
#[derive(Debug)]
struct Sealed {
    value: String,
    sessions: Sessions,
}

impl SessionHandle {
    /// A handle over `value`, the request's session cookie, opened on first use.
    fn sealed(value: &str, sessions: &Sessions) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Inner {
                sealed: Some(Sealed {
                    value: value.to_owned(),
                    sessions: sessions.clone(),
                }),
                ..Inner::default()
            })),
        }
    }

    /// The state, with the cookie opened if nothing has opened it yet.
    fn lock(&self) -> MutexGuard<'_, Inner> {
        let mut inner = self.lock_unopened();
        inner.read = true;
        if let Some(sealed) = inner.sealed.take() {
            sealed.sessions.open_into(&sealed.value, &mut inner);
        }
        inner
    }

    fn lock_unopened(&self) -> MutexGuard<'_, Inner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn get(&self) -> Session {
        self.lock().session.clone()
    }

    pub fn set(&self, session: Session) {
        let mut inner = self.lock();
        if inner.identity.is_none() && session != Session::Anonymous {
            inner.identity = Some(SessionIdentity::begin());
        }
        if inner.session != session {
            inner.session = session;
            inner.dirty = true;
            inner.clear = false;
        }
    }

    /// Replaces the session with `change(current)`.
    pub fn update(&self, change: impl FnOnce(Session) -> Session) {
        let current = self.get();
        self.set(change(current));
    }

    /// Begins a new session holding `session` (a sign-in): a new id and beginning, so no id
    /// the visitor held before names it.
    pub fn begin(&self, session: Session) {
        let mut inner = self.lock();
        inner.session = session;
        inner.identity = Some(SessionIdentity::begin());
        inner.dirty = true;
        inner.clear = false;
    }

    /// The session's id and beginning, when there is a session.
    pub fn identity(&self) -> Option<SessionIdentity> {
        self.lock().identity.clone()
    }

    /// Ends the session: the cookie is removed.
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.session = Session::default();
        inner.identity = None;
        inner.dirty = false;
        inner.clear = true;
    }

    /// Ends a request's session when it was revoked (by a sign-out, on any replica): `Revoked`
    /// then, the session cleared and its cookie removed; `Unchecked` with the session's id when
    /// Redis could not say (the caller asks the upstream). Only signed-in sessions are looked
    /// up: nothing else is ever revoked. Opens the cookie if there is one, but does not count
    /// as the handler reading the session.
    pub async fn screen(&self, revocations: &Revocations, metrics: &Metrics) -> Screened {
        let id = {
            let mut inner = self.lock_unopened();
            if let Some(sealed) = inner.sealed.take() {
                sealed.sessions.open_into(&sealed.value, &mut inner);
            }
            match (&inner.session, &inner.identity) {
                (Session::User { .. }, Some(identity)) => identity.id.clone(),
                _ => return Screened::Passed,
            }
        };
        match revocations.check(&id).await {
            Checked::Revoked => {
                metrics.count_session_event(crate::observe::metrics::SessionEvent::Revoked);
                tracing::info!("a revoked session was presented; signed out");
                self.clear();
                Screened::Revoked
            }
            Checked::NotRevoked => Screened::Passed,
            Checked::Unchecked => Screened::Unchecked { id },
        }
    }
}

/// What screening a request's session found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screened {
    /// Not signed in, or signed in and not revoked.
    Passed,
    /// Revoked: the session is cleared.
    Revoked,
    /// Signed in as the session `id`, and Redis could not say whether it was revoked.
    Unchecked { id: String },
}

impl<S: Send + Sync> FromRequestParts<S> for SessionHandle {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<SessionHandle>()
            .cloned()
            .ok_or_else(|| ApiError::Internal("session middleware missing".to_owned()))
    }
}

/// What the session layer needs: the sealer, the cookie's settings and the metrics.
#[derive(Debug, Clone)]
pub struct Sessions {
    sealer: Arc<Sealer>,
    cookie: Arc<CookieSettings>,
    metrics: Arc<Metrics>,
}

#[derive(Debug)]
struct CookieSettings {
    /// `__Host-` prefixed when the origin is https (the prefix requires Secure, `Path=/` and no
    /// Domain, which pins the cookie to this exact host).
    name: String,
    attributes: &'static str,
    max_age_s: u64,
    /// A signed-in session's absolute lifetime (`session.absolute_lifetime`).
    lifetime_ms: i64,
}

impl Sessions {
    pub fn new(config: &Config, sealer: Sealer, metrics: Arc<Metrics>) -> Self {
        let secure = config.is_secure();
        let name = if secure {
            format!("__Host-{}", config.session.cookie_name)
        } else {
            config.session.cookie_name.clone()
        };
        let attributes = if secure {
            "Path=/; HttpOnly; Secure; SameSite=Lax"
        } else {
            "Path=/; HttpOnly; SameSite=Lax"
        };
        Self {
            sealer: Arc::new(sealer),
            cookie: Arc::new(CookieSettings {
                name,
                attributes,
                max_age_s: config.session.max_age.as_secs(),
                lifetime_ms: i64::try_from(config.session.absolute_lifetime.as_millis())
                    .unwrap_or(i64::MAX),
            }),
            metrics,
        }
    }

    /// The cookie's name.
    pub fn cookie_name(&self) -> &str {
        &self.cookie.name
    }

    /// The `Set-Cookie` for `session`, with its identity (a session that has none yet, new or
    /// from an old cookie, gets one now). A signed-in session's cookie lives no longer than
    /// the session may.
    fn seal_cookie(&self, session: &Session, identity: Option<SessionIdentity>) -> Option<String> {
        if *session == Session::default() {
            return Some(self.removal());
        }
        let identity = identity.unwrap_or_else(SessionIdentity::begin);
        let CookieSettings {
            name,
            attributes,
            max_age_s,
            lifetime_ms,
        } = &*self.cookie;
        let max_age_s = match session {
            Session::User { .. } => {
                let left_ms = identity.left_ms(*lifetime_ms, now_ms());
                (*max_age_s).min(u64::try_from(left_ms).unwrap_or(0).div_ceil(1000))
            }
            _ => *max_age_s,
        };
        let plaintext = serde_json::to_vec(&Envelope {
            v: PAYLOAD_VERSION,
            s: session.clone(),
            id: Some(identity.id),
            began_at_ms: Some(identity.began_at_ms),
        })
        .ok()?;
        let sealed = self.sealer.seal(&plaintext)?;
        Some(format!(
            "{name}={sealed}; Max-Age={max_age_s}; {attributes}"
        ))
    }

    /// Opens a sealed cookie value into `inner`: the session, resealed with the newest key when
    /// an older one opened it; a value that does not open clears the cookie. A cookie without
    /// an identity (sealed before they existed) gets a derived one, beginning now, and is
    /// resealed with it at once: left as it was, it began anew at every opening, so its
    /// absolute lifetime never ran out. A signed-in session past that lifetime is over.
    fn open_into(&self, value: &str, inner: &mut Inner) {
        let opened = self.sealer.open(value).and_then(|opened| {
            serde_json::from_slice::<Envelope>(&opened.plaintext)
                .ok()
                .filter(|envelope| envelope.v == PAYLOAD_VERSION)
                .map(|envelope| (envelope, opened.stale_key))
        });
        match opened {
            Some((envelope, stale_key)) => {
                let (identity, legacy) = match (envelope.id, envelope.began_at_ms) {
                    (Some(id), Some(began_at_ms)) => {
                        (Some(SessionIdentity { id, began_at_ms }), false)
                    }
                    _ => {
                        let derived = SessionIdentity::derived(&envelope.s);
                        let legacy = derived.is_some();
                        (derived, legacy)
                    }
                };
                if matches!(envelope.s, Session::User { .. })
                    && identity.as_ref().is_some_and(|identity| {
                        identity.outlived(self.cookie.lifetime_ms, now_ms())
                    })
                {
                    tracing::info!("a signed-in session outlived its absolute lifetime; ended");
                    self.metrics
                        .count_session_event(crate::observe::metrics::SessionEvent::LifetimeEnded);
                    inner.clear = true;
                    return;
                }
                inner.session = envelope.s;
                inner.identity = identity;
                inner.dirty = stale_key || legacy;
            }
            None => {
                tracing::debug!("session cookie did not open; treating the visitor as new");
                self.metrics
                    .count_session_event(crate::observe::metrics::SessionEvent::CookieRejected);
                inner.clear = true;
            }
        }
    }

    fn removal(&self) -> String {
        format!(
            "{}=; Max-Age=0; {}",
            self.cookie.name, self.cookie.attributes
        )
    }
}

fn read_cookie<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request
        .headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// Middleware: opens the cookie into a [`SessionHandle`], and writes it back when it changed.
pub async fn layer(State(sessions): State<Sessions>, mut request: Request, next: Next) -> Response {
    let handle = match read_cookie(&request, sessions.cookie_name()) {
        Some(value) => SessionHandle::sealed(value, &sessions),
        None => SessionHandle::default(),
    };
    request.extensions_mut().insert(handle.clone());
    let mut response = next.run(request).await;
    let (session, identity, dirty, clear, read) = {
        // Never opens: a cookie nobody read is left as it is.
        let inner = handle.lock_unopened();
        (
            inner.session.clone(),
            inner.identity.clone(),
            inner.dirty,
            inner.clear,
            inner.read,
        )
    };
    if read {
        // Made for this visitor: no shared cache may keep it, and no browser may store it
        // (one rule here rather than one per handler).
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, no-store"),
        );
    }
    let cookie = if clear {
        Some(sessions.removal())
    } else if dirty {
        sessions.seal_cookie(&session, identity)
    } else {
        None
    };
    if let Some(cookie) = cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
        // A response that sets a session cookie must never be stored by a shared cache.
        response.headers_mut().insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, no-store"),
        );
    }
    response
}

#[cfg(test)]
mod tests {
    use secrecy::SecretString;

    use super::*;
    use crate::session::UserTokens;

    fn sessions(lifetime_ms: u64) -> Sessions {
        let mut config = Config::default();
        config.session.absolute_lifetime = std::time::Duration::from_millis(lifetime_ms);
        let keys = [SecretString::from("handle-test-key-0123456789abcdef")];
        Sessions::new(
            &config,
            Sealer::new(&keys).unwrap(),
            Arc::new(Metrics::new()),
        )
    }

    fn user(refresh_token: &str) -> Session {
        Session::User {
            tokens: UserTokens::for_test(refresh_token),
            pending_merge: None,
        }
    }

    /// A cookie value sealed as before identities existed: `{v, s}` only.
    fn legacy_cookie(sessions: &Sessions, session: &Session) -> String {
        let plaintext =
            serde_json::to_vec(&serde_json::json!({"v": PAYLOAD_VERSION, "s": session})).unwrap();
        sessions.sealer.seal(&plaintext).unwrap()
    }

    fn envelope(sessions: &Sessions, set_cookie: &str) -> Envelope {
        let value = set_cookie
            .split(';')
            .next()
            .and_then(|pair| pair.split_once('='))
            .map(|(_, value)| value)
            .unwrap();
        serde_json::from_slice(&sessions.sealer.open(value).unwrap().plaintext).unwrap()
    }

    /// Issue 46, finding 5: a cookie sealed before session ids existed began anew at every
    /// opening (its 14 days never ran out) until something else resealed it. It is resealed
    /// at its first opening, with the id and the beginning it got then.
    #[test]
    fn a_legacy_cookie_is_resealed_once_with_its_identity() {
        let sessions = sessions(14 * 24 * 3600 * 1000);
        let old = legacy_cookie(&sessions, &user("r1"));
        let handle = SessionHandle::sealed(&old, &sessions);
        assert_eq!(handle.get(), user("r1"));
        assert!(
            handle.lock_unopened().dirty,
            "resealed at its first opening"
        );
        let derived = handle.identity().unwrap();
        let resealed = sessions.seal_cookie(&handle.get(), Some(derived.clone()));
        let value = resealed
            .as_deref()
            .and_then(|cookie| cookie.split(';').next())
            .and_then(|pair| pair.split_once('='))
            .map(|(_, value)| value.to_owned())
            .unwrap();
        // The resealed cookie keeps that beginning: opened again, it is not resealed.
        let again = SessionHandle::sealed(&value, &sessions);
        assert_eq!(again.identity().unwrap(), derived);
        assert!(!again.lock_unopened().dirty, "once only");
    }

    #[test]
    fn an_old_cookie_keeps_working_and_gets_an_id_and_beginning_at_its_next_reseal() {
        let sessions = sessions(14 * 24 * 3600 * 1000);
        let old = legacy_cookie(&sessions, &user("r1"));
        let handle = SessionHandle::sealed(&old, &sessions);
        assert_eq!(handle.get(), user("r1"), "it still opens");
        let derived = handle.identity().unwrap();
        // A copy of the same old cookie derives the same id (so a sign-out revokes it too).
        let copy = SessionHandle::sealed(&old, &sessions);
        assert_eq!(copy.identity().unwrap().id, derived.id);

        handle.update(|session| session.with_tokens(UserTokens::for_test("r2")));
        let (session, identity) = {
            let inner = handle.lock_unopened();
            (inner.session.clone(), inner.identity.clone())
        };
        let resealed = sessions.seal_cookie(&session, identity).unwrap();
        let envelope = envelope(&sessions, &resealed);
        assert_eq!(envelope.id.as_deref(), Some(derived.id.as_str()));
        assert_eq!(envelope.began_at_ms, Some(derived.began_at_ms));
    }

    #[test]
    fn a_sign_in_begins_a_new_session_and_a_refresh_keeps_it() {
        let sessions = sessions(14 * 24 * 3600 * 1000);
        let handle = SessionHandle::default();
        handle.set(Session::guest("gid_1".to_owned()));
        let guest = handle.identity().unwrap();
        handle.begin(handle.get().signed_in(UserTokens::for_test("r1")));
        let signed_in = handle.identity().unwrap();
        assert_ne!(guest.id, signed_in.id, "a new id at sign-in");
        handle.update(|session| session.with_tokens(UserTokens::for_test("r2")));
        assert_eq!(
            handle.identity().unwrap(),
            signed_in,
            "a refresh keeps the session"
        );
        let cookie = sessions
            .seal_cookie(&handle.get(), handle.identity())
            .unwrap();
        assert_eq!(envelope(&sessions, &cookie).id, Some(signed_in.id));
    }

    #[test]
    fn a_signed_in_session_past_its_lifetime_is_over_and_its_cookie_never_outlasts_it() {
        let sessions = sessions(60_000);
        let identity = SessionIdentity {
            id: "b".repeat(32),
            began_at_ms: now_ms() - 30_000,
        };
        let cookie = sessions
            .seal_cookie(&user("r1"), Some(identity.clone()))
            .unwrap();
        let max_age: u64 = cookie
            .split("Max-Age=")
            .nth(1)
            .and_then(|rest| rest.split(';').next())
            .unwrap()
            .parse()
            .unwrap();
        assert!((29..=30).contains(&max_age), "{cookie}");

        let outlived = SessionIdentity {
            began_at_ms: now_ms() - 60_001,
            ..identity
        };
        let cookie = sessions.seal_cookie(&user("r1"), Some(outlived)).unwrap();
        let value = cookie.split(';').next().unwrap().split_once('=').unwrap().1;
        let handle = SessionHandle::sealed(value, &sessions);
        assert_eq!(handle.get(), Session::Anonymous);
        assert!(handle.lock_unopened().clear, "the cookie is removed");
    }
}
