//! The ACL user and password the BFF signs in to Redis with, kept current: when they came from
//! files (`BFF_REDIS_PASSWORD_FILE`, a mounted Kubernetes Secret), the files are read again every
//! few seconds, and a change reaches every open connection (which signs in again with `AUTH`)
//! and every new one. A provider rotating a password thus needs no restart: add the new
//! password to the user, update the Secret, and remove the old password once the kubelet has
//! synced the file (about a minute) plus [`RELOAD_EVERY`].

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures::{Stream, StreamExt};
use redis::RedisResult;
use redis::auth::{BasicAuth, StreamingCredentialsProvider};
use secrecy::ExposeSecret;
use tokio::sync::watch;

use crate::config::secrets::RedisCredentials;

/// How often the files are read again.
pub const RELOAD_EVERY: Duration = Duration::from_secs(2);

/// Redis's name for the user a password alone signs in as.
const DEFAULT_USER: &str = "default";

/// The credentials of the moment, shared by every connection of one Redis handle.
#[derive(Clone)]
pub struct Credentials {
    /// The current user and password; the file watcher sends changes, and each connection's
    /// subscription (opened by the client) signs in again on every change.
    current: Arc<watch::Sender<BasicAuth>>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("username", &self.current.borrow().username())
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// The credentials of `secrets`, or `None` when no password is set (no `AUTH` at all).
    /// When any came from a file and a Tokio runtime runs, the files are watched for as long
    /// as this (or a clone) lives.
    pub fn from_secrets(secrets: &RedisCredentials) -> Option<Self> {
        let password = secrets.password.as_ref()?;
        let username = secrets
            .username
            .as_ref()
            .map_or(DEFAULT_USER, |name| name.expose_secret());
        let auth = BasicAuth::new(username.to_owned(), password.expose_secret().to_owned());
        let credentials = Self {
            current: Arc::new(watch::Sender::new(auth)),
        };
        let files = Files {
            username: secrets.username_file.clone(),
            password: secrets.password_file.clone(),
        };
        if (files.username.is_some() || files.password.is_some())
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(files.watch(Arc::downgrade(&credentials.current)));
        }
        Some(credentials)
    }

    /// The user and password of the moment.
    pub fn current(&self) -> BasicAuth {
        self.current.borrow().clone()
    }
}

impl StreamingCredentialsProvider for Credentials {
    /// The current credentials at once, then each change.
    fn subscribe(&self) -> Pin<Box<dyn Stream<Item = RedisResult<BasicAuth>> + Send + 'static>> {
        let mut changes = self.current.subscribe();
        let first = changes.borrow_and_update().clone();
        let later = futures::stream::unfold(changes, |mut changes| async move {
            changes.changed().await.ok()?;
            let auth = changes.borrow_and_update().clone();
            Some((Ok(auth), changes))
        });
        Box::pin(futures::stream::once(async move { Ok(first) }).chain(later))
    }
}

/// The files the credentials came from.
struct Files {
    username: Option<PathBuf>,
    password: Option<PathBuf>,
}

impl Files {
    /// Reads the files every [`RELOAD_EVERY`] and sends what changed, until the credentials
    /// are dropped. A file that cannot be read, or is empty, keeps the value in use.
    async fn watch(self, current: Weak<watch::Sender<BasicAuth>>) {
        let mut ticks = tokio::time::interval(RELOAD_EVERY);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let Some(current) = current.upgrade() else {
                return;
            };
            let mut next = current.borrow().clone();
            if let Some(username) = self.username.as_deref().and_then(read) {
                next.set_username(username);
            }
            if let Some(password) = self.password.as_deref().and_then(read) {
                next.set_password(password);
            }
            let changed = next.username() != current.borrow().username()
                || next.password() != current.borrow().password();
            if changed {
                tracing::info!(
                    username = next.username(),
                    "redis credentials changed on disk; signing in again with them"
                );
                current.send_replace(next);
            }
        }
    }
}

/// A credential file's value, as the start-up read takes it (trailing newline trimmed).
fn read(path: &Path) -> Option<String> {
    match std::fs::read_to_string(path) {
        Ok(text) if !text.trim_end().is_empty() => Some(text.trim_end().to_owned()),
        Ok(_) => {
            tracing::warn!(path = %path.display(), "redis credential file is empty; keeping the one in use");
            None
        }
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "redis credential file unreadable; keeping the one in use");
            None
        }
    }
}
