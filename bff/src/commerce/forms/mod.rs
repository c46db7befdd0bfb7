//! The public and account forms as commerce receives them: stock alerts and image requests
//! (JSON, [`public`]), dealer registration ([`dealer`]) and Pro Deal applications
//! ([`pro_deal`]), both multipart.
//!
//! One validation path: every form is a typed struct checked by `validator` with the shared
//! rules ([`crate::http::validation::rules`]), its messages worded as the specs word them. The two
//! upload forms are built from their multipart parts, each part read under its limits and each
//! file checked while it streams in ([`crate::http::uploads`]); once the whole form is valid it is
//! sent on as one multipart body with the same part names. Nothing is forwarded when any part
//! is invalid.

pub mod dealer;
pub mod pro_deal;
pub mod public;
pub mod upload_gate;

use axum::http::HeaderValue;
use bytes::Bytes;
use serde::Serialize;

pub use dealer::{DEALER_DOCUMENTS, DealerRegistrationForm, register_dealer};
pub use pro_deal::{PRO_DEAL_DOCUMENTS, ProDealForm, apply_for_pro_deal};
pub use public::{ImageRequest, StockAlert, request_images, subscribe_stock_alert};

use super::message::Confirmation;
use super::{MessageAnswer, Shopper};
use crate::http::error::ApiError;
use crate::http::request_id::RequestId;
use crate::http::uploads::{self, Policy};
use crate::upstream::{self, Call, Upstream, UpstreamError, UpstreamPath};

/// The request body limit of the two multipart routes (axum's `DefaultBodyLimit`), for a form
/// with two dealer documents. It replaces the server-wide `server.max_body_bytes` on these
/// routes (the innermost `DefaultBodyLimit` wins): they take up to this size whatever that is.
pub const MULTIPART_MAX_BODY_BYTES: usize = 21 * 1024 * 1024;

/// How a multipart form is refused before any field rule is checked (the document's
/// description of the request body).
pub fn upload_rules(policy: &Policy) -> String {
    format!(
        "Only {} files are accepted, each under {}, checked by extension and by content: \
         another type is a 415, a larger file a 413, each naming the file under its part. A \
         body that is not `multipart/form-data` (or is malformed) is a 400; a whole body over \
         {} MiB or a text part over {} KiB is a 413. Nothing is sent on when any part is refused.",
        policy.accepted_label,
        policy.max_label,
        MULTIPART_MAX_BODY_BYTES / (1024 * 1024),
        uploads::MAX_TEXT_BYTES / 1024,
    )
}

/// A JSON form posted to `path` (anonymously), its confirmation relayed.
async fn post_json<T: Serialize>(
    shopper: &Shopper,
    path: &'static str,
    body: &T,
) -> Result<MessageAnswer, ApiError> {
    let path = UpstreamPath::fixed(path);
    let confirmation = shopper.call_as(Call::post(&path, body)).await?;
    Ok(Confirmation::relayed(confirmation))
}

/// The one multipart post upstream: both upload forms send through here, so moving to a
/// multipart `Call` body changes this call only.
async fn post_form(
    upstream: &Upstream,
    path: &UpstreamPath,
    bearer: Option<&str>,
    (content_type, body): (HeaderValue, Bytes),
    request_id: &RequestId,
) -> Result<MessageAnswer, UpstreamError> {
    let answer = upstream
        .post_multipart(path, bearer, content_type, body, request_id)
        .await?;
    upstream::decode(upstream.name(), &answer.body).map(Confirmation::relayed)
}

#[cfg(test)]
pub(crate) mod testing {
    //! What the forms' tests share: the documented schemas as JSON.

    use serde_json::Value;

    /// A documented schema as JSON, to compare with the parts the forms read.
    pub fn schema_json<T: utoipa::PartialSchema>() -> Value {
        serde_json::to_value(T::schema()).unwrap_or_default()
    }

    /// An object's keys or an array's strings, sorted.
    pub fn names(value: &Value) -> Vec<String> {
        let mut names: Vec<String> = match value {
            Value::Object(map) => map.keys().cloned().collect(),
            Value::Array(items) => items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        names.sort();
        names
    }

    pub fn sorted<'a>(list: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut names: Vec<String> = list.into_iter().map(str::to_owned).collect();
        names.sort();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_confirmation_tolerates_unknown_members_and_an_empty_answer() {
        let answer = upstream::decode::<Option<Confirmation>>(
            "commerce",
            br#"{"message":"Thanks","id":7,"status":"pending"}"#,
        )
        .map(Confirmation::relayed);
        assert_eq!(
            answer.ok().and_then(|answer| answer.message).as_deref(),
            Some("Thanks")
        );
        for body in [&b""[..], b"{}", br#"{"message":null}"#] {
            let answer = upstream::decode::<Option<Confirmation>>("commerce", body)
                .map(Confirmation::relayed);
            assert_eq!(answer.ok(), Some(MessageAnswer { message: None }));
        }
    }

    #[test]
    fn a_message_that_is_not_text_breaks_the_contract() {
        let err = upstream::decode::<Option<Confirmation>>("commerce", br#"{"message":42}"#)
            .err()
            .unwrap_or_else(|| panic!("decoded"));
        assert!(
            matches!(&err, UpstreamError::Contract { field, .. } if field == "message"),
            "{err:?}"
        );
        assert_eq!(ApiError::from(err).problem().code, "upstream_contract");
    }
}
