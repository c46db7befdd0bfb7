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

use super::model::{Envelope, PAYLOAD_VERSION, Session};
use super::seal::Sealer;
use crate::config::Config;
use crate::error::ApiError;
use crate::metrics::Metrics;

#[derive(Debug, Default)]
struct Inner {
    /// The sealed cookie value, until the first read opens it.
    sealed: Option<Sealed>,
    /// Whether the request's handler used the session: its answer is personal.
    read: bool,
    session: Session,
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

    /// Ends the session: the cookie is removed.
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.session = Session::default();
        inner.dirty = false;
        inner.clear = true;
    }
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
                max_age_s: config.session.max_age_days * 24 * 3600,
            }),
            metrics,
        }
    }

    /// The cookie's name.
    pub fn cookie_name(&self) -> &str {
        &self.cookie.name
    }

    fn seal_cookie(&self, session: &Session) -> Option<String> {
        if *session == Session::default() {
            return Some(self.removal());
        }
        let plaintext = serde_json::to_vec(&Envelope {
            v: PAYLOAD_VERSION,
            s: session.clone(),
        })
        .ok()?;
        let sealed = self.sealer.seal(&plaintext)?;
        let CookieSettings {
            name,
            attributes,
            max_age_s,
        } = &*self.cookie;
        Some(format!(
            "{name}={sealed}; Max-Age={max_age_s}; {attributes}"
        ))
    }

    /// Opens a sealed cookie value into `inner`: the session, resealed with the newest key when
    /// an older one opened it; a value that does not open clears the cookie.
    fn open_into(&self, value: &str, inner: &mut Inner) {
        let opened = self.sealer.open(value).and_then(|opened| {
            serde_json::from_slice::<Envelope>(&opened.plaintext)
                .ok()
                .filter(|envelope| envelope.v == PAYLOAD_VERSION)
                .map(|envelope| (envelope.s, opened.stale_key))
        });
        match opened {
            Some((session, stale_key)) => {
                inner.session = session;
                inner.dirty = stale_key;
            }
            None => {
                tracing::debug!("session cookie did not open; treating the visitor as new");
                self.metrics
                    .count_session_event(crate::metrics::SessionEvent::CookieRejected);
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
    let (session, dirty, clear, read) = {
        // Never opens: a cookie nobody read is left as it is.
        let inner = handle.lock_unopened();
        (inner.session.clone(), inner.dirty, inner.clear, inner.read)
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
        sessions.seal_cookie(&session)
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
