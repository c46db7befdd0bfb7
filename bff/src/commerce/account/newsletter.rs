//! The newsletter: an address's subscription status, subscribe (a signed-in user's names fill
//! the absent ones), unsubscribe and the e-mailed verification link. No bearer token: the
//! upstream's newsletter is public, so the status and unsubscribe are the signed-in user's own
//! address only (taken from the session's profile, never from the request): the upstream would
//! tell, or change, anyone's.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::Validate;

use super::super::message::confirmed;
use super::super::{MessageAnswer, Shopper};
use crate::http::error::ApiError;
use crate::http::validation::field_errors;
use crate::upstream::{Call, UpstreamError, UpstreamPath};

/// An address's newsletter subscription.
// Absent flags read as not subscribed / not verified.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewsletterStatus {
    // The address asked about when the upstream does not repeat it.
    #[serde(default)]
    #[schema(required = true)]
    pub email: String,
    #[serde(default)]
    #[schema(required = true)]
    pub is_subscribed: bool,
    #[serde(default)]
    #[schema(required = true)]
    pub is_verified: bool,
}

#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subscribe {
    #[serde(default)]
    #[schema(required = true, min_length = 1, format = Email)]
    #[validate(custom(function = "crate::http::validation::rules::required_email"))]
    email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_name: Option<String>,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Captcha is required"))]
    captcha: String,
}

// The address whose status is read or that is unsubscribed: always the signed-in user's own.
#[derive(Debug, Deserialize, Serialize, Validate)]
#[serde(rename_all = "camelCase")]
struct OwnAddress {
    #[validate(custom(function = "crate::http::validation::rules::required_email"))]
    email: String,
}

impl OwnAddress {
    /// The signed-in user's address (401 for anybody else), checked as any address is.
    async fn of(shopper: &Shopper) -> Result<Self, ApiError> {
        let user = shopper.signed_in().await?;
        let address = Self { email: user.email };
        address
            .validate()
            .map_err(|errors| ApiError::Validation(field_errors(&errors)))?;
        Ok(address)
    }
}

/// The signed-in user's subscription (401 for anybody else). Only one's own: an address given
/// by the caller would tell anyone whether a person is a confirmed subscriber, and the only
/// screen that shows the status is the account area's newsletter page.
pub async fn status(shopper: &Shopper) -> Result<NewsletterStatus, ApiError> {
    let address = OwnAddress::of(shopper).await?;
    let path = UpstreamPath::fixed("Newsletter/status")
        .segment(&address.email)
        .map_err(UpstreamError::from)?;
    let mut status: NewsletterStatus = shopper.call_as(Call::get(&path)).await?;
    if status.email.is_empty() {
        status.email = address.email;
    }
    Ok(status)
}

/// Subscribes an address; a signed-in user's names fill those the form leaves blank.
pub async fn subscribe(shopper: &Shopper, mut form: Subscribe) -> Result<MessageAnswer, ApiError> {
    let session = shopper.session().get();
    if let Some(user) = session.user() {
        let fill = |name: &mut Option<String>, known: &str| {
            if name.as_deref().is_none_or(|n| n.trim().is_empty()) && !known.is_empty() {
                *name = Some(known.to_owned());
            }
        };
        fill(&mut form.first_name, &user.first_name);
        fill(&mut form.last_name, &user.last_name);
    }
    let path = UpstreamPath::fixed("Newsletter/subscribe");
    confirmed(shopper, Call::post(&path, &form)).await
}

/// Unsubscribes the signed-in user's own address (401 for anybody else). Nothing the caller
/// sends names the address: the upstream's unsubscribe is public and unsubscribes whatever it
/// is given, so an address from the request would let anyone unsubscribe anyone.
pub async fn unsubscribe(shopper: &Shopper) -> Result<MessageAnswer, ApiError> {
    let address = OwnAddress::of(shopper).await?;
    let path = UpstreamPath::fixed("Newsletter/unsubscribe");
    confirmed(shopper, Call::post(&path, &address)).await
}

/// Confirms a subscription with the token from the e-mailed link.
pub async fn verify(shopper: &Shopper, token: &str) -> Result<MessageAnswer, ApiError> {
    let path = UpstreamPath::fixed("Newsletter/verify")
        .segment(token)
        .map_err(UpstreamError::from)?;
    confirmed(shopper, Call::get(&path)).await
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::commerce::testing::{recording, shopper_of as shopper, signed_in, upstream};
    use crate::session::Session;

    #[tokio::test]
    async fn the_status_is_the_signed_in_users_and_reads_absent_flags_as_false() {
        let (upstream, received) = recording(&[(
            "Newsletter/status/{email}",
            json!({"isSubscribed": true, "since": "2024"}),
        )])
        .await;
        let status = status(&shopper(upstream, signed_in())).await.unwrap();
        assert_eq!(status.email, "jordan@example.com");
        assert!(status.is_subscribed);
        assert!(!status.is_verified);
        let path = &received.lock().unwrap()[0].path;
        assert!(path.starts_with("/Newsletter/status/jordan"), "{path}");
    }

    #[tokio::test]
    async fn nobody_but_a_signed_in_user_reads_a_status() {
        let (upstream, received) =
            recording(&[("Newsletter/status/{email}", json!({"isSubscribed": true}))]).await;
        let err = status(&shopper(upstream, Session::Anonymous))
            .await
            .unwrap_err();
        assert_eq!(err.problem().status, 401);
        assert!(
            received.lock().unwrap().is_empty(),
            "the upstream is not asked"
        );
    }

    #[tokio::test]
    async fn unsubscribe_sends_the_signed_in_users_own_address_and_refuses_anybody_else() {
        let answer = json!({"message": "You have been unsubscribed from the newsletter"});
        let (upstream_server, received) = recording(&[("Newsletter/unsubscribe", answer)]).await;
        unsubscribe(&shopper(upstream_server.clone(), signed_in()))
            .await
            .unwrap();
        assert_eq!(
            received.lock().unwrap()[0].body,
            json!({"email": "jordan@example.com"})
        );
        for visitor in [
            Session::Anonymous,
            Session::Guest {
                guest_id: "guest-1".to_owned(),
            },
        ] {
            let err = unsubscribe(&shopper(upstream_server.clone(), visitor))
                .await
                .unwrap_err();
            assert_eq!(err.problem().status, 401);
        }
        assert_eq!(received.lock().unwrap().len(), 1, "only the user's call");
    }

    #[tokio::test]
    async fn a_mistyped_status_flag_breaks_the_contract() {
        let upstream =
            upstream(&[("Newsletter/status/{email}", json!({"isSubscribed": "yes"}))]).await;
        let err = status(&shopper(upstream, signed_in())).await.unwrap_err();
        assert_eq!(err.problem().code, "upstream_contract");
    }

    #[tokio::test]
    async fn a_signed_in_users_names_fill_the_blank_ones() {
        let answer = json!({"message": "You have been subscribed to the newsletter"});
        let (upstream, received) = recording(&[("Newsletter/subscribe", answer)]).await;
        let form: Subscribe = serde_json::from_value(
            json!({"email": "a@b.example", "lastName": "Lee", "firstName": " ", "captcha": "c"}),
        )
        .unwrap();
        let answer = subscribe(&shopper(upstream, signed_in()), form)
            .await
            .unwrap();
        assert_eq!(
            answer.message.as_deref(),
            Some("You have been subscribed to the newsletter")
        );
        let received = received.lock().unwrap();
        assert_eq!(
            received[0].body,
            json!({"email": "a@b.example", "firstName": "Jordan", "lastName": "Lee", "captcha": "c"})
        );
        // The newsletter is public: no bearer token.
        assert_eq!(received[0].authorization, None);
    }
}
