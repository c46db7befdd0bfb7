//! LE/MIL verification with the verification service behind `/military/{service}/*`: the
//! signed-in user starts a session (a popup to the service) and completes it with the code and
//! state the service hands back.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::Validate;

use super::super::Shopper;
use crate::http::error::ApiError;
use crate::upstream::{Call, UpstreamPath};

/// The verification service behind `/military/*`.
const SERVICE: &str = "veripass";

fn service_path(step: &'static str) -> UpstreamPath {
    UpstreamPath::fixed("military")
        .literal(SERVICE)
        .literal(step)
}

/// Where to send the shopper to verify LE/MIL status (a popup).
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MilitarySession {
    #[schema(required = true)]
    pub authorization_url: Option<String>,
}

/// The outcome of LE/MIL verification.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MilitaryOutcome {
    #[schema(required = true)]
    pub message: Option<String>,
    /// None, Pending, Rejected or Verified.
    #[schema(required = true)]
    pub military_status: Option<String>,
}

/// The service's widget options: the user's address, shown in a popup, starting at its login.
#[derive(Debug, Serialize)]
struct SessionRequest<'a> {
    email: &'a str,
    display: &'static str,
    goto: &'static str,
}

/// Starts verification for the signed-in user.
pub async fn start(shopper: &Shopper) -> Result<MilitarySession, ApiError> {
    let user = shopper.signed_in().await?;
    let path = service_path("session");
    let email = user.email.clone();
    let request = SessionRequest {
        email: &email,
        display: "popup",
        goto: "login",
    };
    shopper.as_user(user, Call::post(&path, &request)).await
}

#[derive(Debug, Deserialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MilitaryCallback {
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Code is required"))]
    code: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "State is required"))]
    state: String,
}

/// Completes verification with the code and state the service handed back.
pub async fn complete(
    shopper: &Shopper,
    callback: MilitaryCallback,
) -> Result<MilitaryOutcome, ApiError> {
    let user = shopper.signed_in().await?;
    let path = service_path("callback");
    let call = Call::get(&path)
        .query("code", callback.code)
        .query("state", callback.state);
    shopper.as_user(user, call).await
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::commerce::testing::{shopper_of as shopper, signed_in, upstream};

    #[tokio::test]
    async fn a_session_relays_the_authorization_url_only() {
        let upstream = upstream(&[(
            "military/veripass/session",
            json!({"authorizationUrl": "https://idv.example/authorize?state=s", "ticket": "t"}),
        )])
        .await;
        let session = start(&shopper(upstream, signed_in())).await.unwrap();
        assert_eq!(
            serde_json::to_value(session).unwrap(),
            json!({"authorizationUrl": "https://idv.example/authorize?state=s"})
        );
    }

    #[tokio::test]
    async fn an_outcome_without_fields_reads_as_nulls() {
        let upstream = upstream(&[("military/veripass/callback", json!({}))]).await;
        let callback: MilitaryCallback =
            serde_json::from_value(json!({"code": "c", "state": "s"})).unwrap();
        let outcome = complete(&shopper(upstream, signed_in()), callback)
            .await
            .unwrap();
        assert_eq!(
            serde_json::to_value(outcome).unwrap(),
            json!({"message": null, "militaryStatus": null})
        );
    }
}
