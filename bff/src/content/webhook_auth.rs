//! Who may call the content webhook. With `BFF_WEBHOOK_SIGNING_SECRET` set, only a call
//! signed with it (see [`super::webhook_signature`]), within the window and seen for the first
//! time (see [`super::webhook_replay`]): Strapi's static bearer secret, sent with every call
//! and readable by anyone who sees one, is then refused on its own. Without it, the bearer
//! secret, as Strapi sends it.

use axum::http::HeaderMap;
use secrecy::{ExposeSecret, SecretString};
use subtle::ConstantTimeEq;

use super::webhook_replay::{Seen, SeenSignatures};
use super::webhook_signature::{self, Refused};
use crate::coordination::replicas::Redis;

/// Why a call was refused: named in the 401's detail and in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No signing secret, and no bearer secret or a wrong one.
    Bearer,
    /// The signature is required, and missing or unreadable (a bearer alone included).
    Unsigned,
    /// The timestamp is outside the window.
    Stale,
    /// The signature does not match the body and the timestamp.
    WrongSignature,
    /// This signature was accepted once already.
    Replayed,
}

impl Refusal {
    /// The 401's detail: which header to fix.
    pub fn detail(self) -> &'static str {
        match self {
            Self::Bearer => "Authorization: the webhook's bearer secret is required.",
            Self::Unsigned => {
                "X-Webhook-Signature and X-Webhook-Timestamp are required: this webhook is signed, \
                 and a bearer secret alone is not accepted."
            }
            Self::Stale => "X-Webhook-Timestamp: more than 5 minutes from now.",
            Self::WrongSignature => {
                "X-Webhook-Signature: does not match the body and X-Webhook-Timestamp."
            }
            Self::Replayed => "X-Webhook-Signature: this signed call was received already.",
        }
    }
}

/// The webhook's secrets and the signatures it has seen.
#[derive(Debug)]
pub struct WebhookAuth {
    /// `BFF_WEBHOOK_SECRET`: accepted alone only while there is no signing secret.
    bearer: SecretString,
    /// `BFF_WEBHOOK_SIGNING_SECRET`.
    signing: Option<SecretString>,
    seen: SeenSignatures,
}

impl WebhookAuth {
    /// `coordination`: the Redis the replicas share seen signatures through.
    pub fn new(
        bearer: SecretString,
        signing: Option<SecretString>,
        coordination: Option<Redis>,
    ) -> Self {
        Self {
            bearer,
            signing,
            seen: SeenSignatures::new(coordination),
        }
    }

    /// Whether the call with `headers` and `body`, at `now_seconds` (Unix), is the content
    /// service's. A signed call accepted here is remembered: the same call again is refused.
    pub async fn check(
        &self,
        headers: &HeaderMap,
        body: &[u8],
        now_seconds: u64,
    ) -> Result<(), Refusal> {
        let Some(signing) = &self.signing else {
            return if bearer_matches(headers, self.bearer.expose_secret()) {
                Ok(())
            } else {
                Err(Refusal::Bearer)
            };
        };
        let tag = webhook_signature::verify(
            signing.expose_secret().as_bytes(),
            headers,
            body,
            now_seconds,
        )
        .map_err(|refused| match refused {
            Refused::Missing => Refusal::Unsigned,
            Refused::Stale => Refusal::Stale,
            Refused::Wrong => Refusal::WrongSignature,
        })?;
        match self.seen.record(&tag).await {
            Seen::First => Ok(()),
            Seen::Again => Err(Refusal::Replayed),
        }
    }
}

/// The bearer token of `headers`, compared in constant time with `expected`.
fn bearer_matches(headers: &HeaderMap, expected: &str) -> bool {
    crate::http::bearer::bearer_token(headers)
        .is_some_and(|token| bool::from(token.as_bytes().ct_eq(expected.as_bytes())))
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;
    use crate::content::webhook_signature::{SIGNATURE_HEADER, TIMESTAMP_HEADER, sign};

    const NOW: u64 = 1_800_000_000;

    fn headers(pairs: &[(&'static str, String)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(
                *name,
                HeaderValue::from_str(value).unwrap_or_else(|_| unreachable!()),
            );
        }
        headers
    }

    fn auth(signing: Option<&str>) -> WebhookAuth {
        WebhookAuth::new(
            SecretString::from("bearer-secret"),
            signing.map(SecretString::from),
            None,
        )
    }

    #[tokio::test]
    async fn with_a_signing_secret_the_bearer_alone_is_refused_and_a_signature_counts_once() {
        let auth = auth(Some("signing-secret"));
        let body = br#"{"event":"entry.publish"}"#;
        let bearer = ("authorization", "Bearer bearer-secret".to_owned());
        assert_eq!(
            auth.check(&headers(std::slice::from_ref(&bearer)), body, NOW)
                .await,
            Err(Refusal::Unsigned)
        );
        // The bearer does not excuse a bad signature, nor a timestamp 56 years old.
        let forged = headers(&[
            bearer,
            (TIMESTAMP_HEADER, "0".to_owned()),
            (SIGNATURE_HEADER, "sha256=00".to_owned()),
        ]);
        assert_eq!(auth.check(&forged, body, NOW).await, Err(Refusal::Stale));
        let signed = headers(&[
            (TIMESTAMP_HEADER, NOW.to_string()),
            (SIGNATURE_HEADER, sign(b"signing-secret", NOW, body)),
        ]);
        assert_eq!(auth.check(&signed, body, NOW).await, Ok(()));
        assert_eq!(
            auth.check(&signed, body, NOW + 1).await,
            Err(Refusal::Replayed)
        );
        // The same signature spelt in capitals is the same signature.
        let shouted = headers(&[
            (TIMESTAMP_HEADER, NOW.to_string()),
            (
                SIGNATURE_HEADER,
                format!(
                    "sha256={}",
                    sign(b"signing-secret", NOW, body)
                        .trim_start_matches("sha256=")
                        .to_uppercase()
                ),
            ),
        ]);
        assert_eq!(
            auth.check(&shouted, body, NOW).await,
            Err(Refusal::Replayed)
        );
    }

    #[tokio::test]
    async fn without_a_signing_secret_the_bearer_is_the_check() {
        let auth = auth(None);
        let body = b"{}";
        let bearer = headers(&[("authorization", "Bearer bearer-secret".to_owned())]);
        assert_eq!(auth.check(&bearer, body, NOW).await, Ok(()));
        assert_eq!(
            auth.check(&bearer, body, NOW).await,
            Ok(()),
            "Strapi resends it"
        );
        let wrong = headers(&[("authorization", "Bearer nope".to_owned())]);
        assert_eq!(auth.check(&wrong, body, NOW).await, Err(Refusal::Bearer));
    }

    fn authorization(value: &str) -> HeaderMap {
        headers(&[("authorization", value.to_owned())])
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive_and_the_token_is_not() {
        for value in [
            "Bearer s3cret",
            "bearer s3cret",
            "BEARER s3cret",
            "bEaReR  s3cret",
        ] {
            assert!(bearer_matches(&authorization(value), "s3cret"), "{value}");
        }
        for value in [
            "Bearer S3CRET",
            "Basic s3cret",
            "Bearers3cret",
            "s3cret",
            "Bearer",
        ] {
            assert!(!bearer_matches(&authorization(value), "s3cret"), "{value}");
        }
        assert!(!bearer_matches(&HeaderMap::new(), "s3cret"));
    }
}
