//! Why a connection to Redis failed, in the operator's terms: the configuration key or secret to
//! look at and what went wrong, from the client's error. Start-up's ERROR line,
//! `bff check-config --connect` and the connection monitor all say it the same way.

use std::fmt;

/// What to fix, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    /// The configuration key or secret variable to look at.
    pub key: &'static str,
    /// What went wrong, in words.
    pub reason: String,
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.reason)
    }
}

impl Cause {
    fn new(key: &'static str, reason: impl Into<String>) -> Self {
        Self {
            key,
            reason: reason.into(),
        }
    }

    /// No connection within `redis.connect_timeout`.
    pub fn timed_out(url_key: &'static str) -> Self {
        Self::new(
            url_key,
            "no answer within redis.connect_timeout (unreachable, or a firewall drops it)",
        )
    }

    /// The cause of `error`, from a connection to `url_key`'s server, over TLS or not (`tls`).
    pub fn of(error: &redis::RedisError, url_key: &'static str, tls: bool) -> Self {
        // The client's errors carry rustls's and the server's words in their text (an I/O
        // error's source is flattened into it), so that is what is read.
        let text = format!("{error} {error:?}");
        let has = |needle: &str| text.contains(needle);
        if error.kind() == redis::ErrorKind::AuthenticationFailed
            || has("WRONGPASS")
            || has("invalid password")
        {
            return Self::new(
                "BFF_REDIS_PASSWORD",
                "authentication failed: the server refused this user (BFF_REDIS_USERNAME) \
                 and password",
            );
        }
        if has("NOAUTH") {
            return Self::new(
                "BFF_REDIS_PASSWORD",
                "authentication required: the server asks for a password and none is set",
            );
        }
        if has("NOPERM") {
            return Self::new(
                "BFF_REDIS_USERNAME",
                format!("the ACL user may not run a command the BFF needs ({error})"),
            );
        }
        if has("UnknownIssuer") || has("BadSignature") || has("UnknownCA") {
            return Self::new(
                "redis.tls.ca_file",
                "certificate not trusted: the server's certificate does not chain to a CA \
                 in redis.tls.ca_file (or the system's roots)",
            );
        }
        if has("NotValidForName") {
            return Self::new(
                url_key,
                "certificate not valid for the URL's host (connect by a name the certificate \
                 lists)",
            );
        }
        if has("Expired") || has("NotValidYet") {
            return Self::new(
                url_key,
                "the server's certificate is expired or not yet valid",
            );
        }
        if has("CertificateRequired") || has("certificate required") {
            return Self::new(
                "redis.tls.client_cert_file",
                "the server asks for a client certificate and none is set",
            );
        }
        if tls && (has("InvalidContentType") || has("corrupt message") || has("InvalidMessage")) {
            return Self::new(
                url_key,
                "the server does not speak TLS (use redis:// or valkey://, or its TLS port)",
            );
        }
        if has("refused") {
            return Self::new(url_key, "connection refused (nothing listens there)");
        }
        let closed = error.is_connection_dropped()
            || has("reset by peer")
            || has("UnexpectedEof")
            || has("unexpected end of file")
            || has("broken pipe")
            || has("Broken pipe")
            || has("closed");
        if closed && !tls {
            return Self::new(
                url_key,
                "connection closed by the server before it answered: a TLS-only server? \
                 (use rediss:// or valkeys://)",
            );
        }
        Self::new(url_key, error.to_string())
    }
}
