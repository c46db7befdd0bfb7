//! The card tokenizer double: `Accept.js` for the browser and the HTTP endpoint it calls, which
//! answers in Authorize.net's shapes (`opaqueData` on success, `messages.message[]` with the
//! `E_WC_*` codes on failure; always HTTP 200, as Authorize.net's JSON API does).

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::card::{self, CardError, CardInput};
use super::payment::{self, Card};
use super::script_response;
use crate::SandboxState;
use crate::clock::now_rfc3339;

/// The public API login id the sandbox accepts (the storefront's runtime config carries it).
pub const API_LOGIN_ID: &str = "sandbox-login-id";
/// The public client key the sandbox accepts.
pub const CLIENT_KEY: &str = "sandbox-public-client-key";
/// `opaqueData.dataDescriptor` of a token from the browser tokenizer.
pub const DATA_DESCRIPTOR: &str = "COMMON.ACCEPT.INAPP.PAYMENT";

const SCRIPT: &str = include_str!("../../assets/3p/accept.js");

/// `GET /3p/accept/Accept.js`
pub async fn script(State(state): State<Arc<SandboxState>>) -> Response {
    script_response(SCRIPT, state.public_url())
}

/// `secureData` as `Accept.dispatchData` receives it; every field optional so that a missing one
/// is answered with the tokenizer's own error rather than a deserialisation failure.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct SecureData {
    auth_data: Option<AuthData>,
    card_data: Option<CardData>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct AuthData {
    #[serde(rename = "clientKey")]
    client_key: Option<String>,
    #[serde(rename = "apiLoginID")]
    api_login_id: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct CardData {
    card_number: Option<String>,
    month: Option<String>,
    year: Option<String>,
    card_code: Option<String>,
}

/// A refusal, as Authorize.net codes and words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Refusal {
    code: &'static str,
    text: &'static str,
}

const MANDATORY_FIELDS: Refusal = Refusal {
    code: "E_WC_04",
    text: "Please provide mandatory fields.",
};
const LOGIN_ID_INVALID: Refusal = Refusal {
    code: "E_WC_10",
    text: "Please provide valid apiLoginID.",
};
const CLIENT_KEY_REQUIRED: Refusal = Refusal {
    code: "E_WC_18",
    text: "Client Key is required.",
};
const AUTHENTICATION_FAILED: Refusal = Refusal {
    code: "E_WC_21",
    text: "User authentication failed due to invalid authentication values.",
};
const NO_PAYMENT_DATA: Refusal = Refusal {
    code: "E_WC_23",
    text: "Please provide either card information or bank information.",
};

fn card_refusal(error: CardError) -> Refusal {
    let (code, text) = match error {
        CardError::Missing => (MANDATORY_FIELDS.code, MANDATORY_FIELDS.text),
        CardError::Number => ("E_WC_05", "Please provide valid credit card number."),
        CardError::Month => ("E_WC_06", "Please provide valid expiration month."),
        CardError::Year => ("E_WC_07", "Please provide valid expiration year."),
        CardError::Expired => ("E_WC_08", "Expiration date must be in the future."),
        CardError::Code => ("E_WC_15", "Please provide valid CVV."),
    };
    Refusal { code, text }
}

/// `POST /3p/accept/v1/tokens`: `secureData` in, Authorize.net's response out.
pub async fn tokenize(State(state): State<Arc<SandboxState>>, body: Bytes) -> Json<Value> {
    let Ok(secure_data) = serde_json::from_slice::<SecureData>(&body) else {
        return Json(refused(MANDATORY_FIELDS));
    };
    let valid = match check(&secure_data, current_month()) {
        Ok(valid) => valid,
        Err(refusal) => return Json(refused(refusal)),
    };
    let token = format!("sandbox-payment-{}", uuid::Uuid::new_v4().simple());
    let stored = state.db.call(|conn| {
        payment::issue(
            conn,
            &token,
            &Card {
                brand: valid.brand.as_str().to_owned(),
                last4: valid.last4.clone(),
            },
            valid.is_declined_test_card(),
            &now_rfc3339(),
        )
    });
    match stored {
        Ok(()) => Json(json!({
            "opaqueData": {"dataDescriptor": DATA_DESCRIPTOR, "dataValue": token},
            "messages": {
                "resultCode": "Ok",
                "message": [{"code": "I_WC_01", "text": "Successful."}],
            },
        })),
        Err(err) => {
            tracing::error!(error = %err, "storing a payment token failed");
            Json(refused(Refusal {
                code: "E_WC_19",
                text: "An error occurred during processing. Please try again.",
            }))
        }
    }
}

/// Credentials first, then the card, in the order Accept.js reports problems.
fn check(secure_data: &SecureData, today: (i32, u8)) -> Result<card::ValidCard, Refusal> {
    let auth = secure_data.auth_data.as_ref();
    let login_id = auth.and_then(|auth| auth.api_login_id.as_deref());
    let client_key = auth.and_then(|auth| auth.client_key.as_deref());
    match (login_id.filter(|id| !id.is_empty()), client_key) {
        (None, _) => return Err(LOGIN_ID_INVALID),
        (Some(_), None | Some("")) => return Err(CLIENT_KEY_REQUIRED),
        (Some(id), Some(key)) if id != API_LOGIN_ID || key != CLIENT_KEY => {
            return Err(AUTHENTICATION_FAILED);
        }
        _ => {}
    }
    let Some(card_data) = secure_data.card_data.as_ref() else {
        return Err(NO_PAYMENT_DATA);
    };
    let field = |value: &Option<String>| value.clone().unwrap_or_default();
    let (number, month, year, code) = (
        field(&card_data.card_number),
        field(&card_data.month),
        field(&card_data.year),
        field(&card_data.card_code),
    );
    card::validate(
        CardInput {
            number: &number,
            month: &month,
            year: &year,
            code: &code,
        },
        today,
    )
    .map_err(card_refusal)
}

fn refused(refusal: Refusal) -> Value {
    json!({
        "messages": {
            "resultCode": "Error",
            "message": [{"code": refusal.code, "text": refusal.text}],
        },
    })
}

fn current_month() -> (i32, u8) {
    let now = OffsetDateTime::now_utc();
    (now.year(), u8::from(now.month()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secure(login: &str, key: &str, number: &str) -> SecureData {
        serde_json::from_value(json!({
            "authData": {"clientKey": key, "apiLoginID": login},
            "cardData": {"cardNumber": number, "month": "12", "year": "2030", "cardCode": "123"},
        }))
        .unwrap()
    }

    #[test]
    fn credentials_are_checked_before_the_card() {
        let today = (2026, 11);
        let bad_number = "4111111111111112";
        assert_eq!(
            check(&secure("", CLIENT_KEY, bad_number), today).unwrap_err(),
            LOGIN_ID_INVALID
        );
        assert_eq!(
            check(&secure(API_LOGIN_ID, "", bad_number), today).unwrap_err(),
            CLIENT_KEY_REQUIRED
        );
        assert_eq!(
            check(&secure(API_LOGIN_ID, "other-key", bad_number), today).unwrap_err(),
            AUTHENTICATION_FAILED
        );
        assert_eq!(
            check(&secure(API_LOGIN_ID, CLIENT_KEY, bad_number), today)
                .unwrap_err()
                .code,
            "E_WC_05"
        );
        assert!(check(&secure(API_LOGIN_ID, CLIENT_KEY, "4111111111111111"), today).is_ok());
    }

    #[test]
    fn missing_card_data_is_its_own_error() {
        let data: SecureData = serde_json::from_value(
            json!({"authData": {"clientKey": CLIENT_KEY, "apiLoginID": API_LOGIN_ID}}),
        )
        .unwrap();
        assert_eq!(check(&data, (2026, 11)).unwrap_err(), NO_PAYMENT_DATA);
    }
}
