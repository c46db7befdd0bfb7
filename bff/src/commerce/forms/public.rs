//! The JSON forms: stock alerts and image requests, posted anonymously.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use validator::Validate;

use super::{MessageAnswer, Shopper, post_json};
use crate::http::error::ApiError;

const STOCK_ALERTS: &str = "ProductNotification/subscribe";
const IMAGE_REQUESTS: &str = "Registration/image-request";

/// A back-in-stock alert for one product and its selected options. Every field but `options`
/// is required and must not be blank.
#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StockAlert {
    /// Where the alert is sent.
    #[serde(default)]
    #[schema(required = true, min_length = 1, format = Email)]
    #[validate(custom(function = "crate::http::validation::rules::required_email"))]
    email: String,
    /// The sku code; an unknown one is answered 404.
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Product is required"))]
    product_id: String,
    /// The product's name, as the confirmation repeats it.
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Product name is required"))]
    product_name: String,
    /// The selected options, kept as sent: option values or `{label, value}` pairs (any JSON
    /// value is accepted).
    // A deliberate pass-through: the product page's option shapes vary and commerce stores
    // them as given, so the BFF neither reads nor reshapes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    options: Option<Value>,
    /// The reCAPTCHA response token; a token the captcha service refuses is a 422 on `captcha`.
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Captcha is required"))]
    captcha: String,
}

/// A request for product images from the media library. Every field is required and must not
/// be blank.
#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImageRequest {
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "First name is required"))]
    first_name: String,
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Last name is required"))]
    last_name: String,
    /// Where the team answers.
    #[serde(default)]
    #[schema(required = true, min_length = 1, format = Email)]
    #[validate(custom(function = "crate::http::validation::rules::required_email"))]
    email: String,
    /// What images are wanted, in the requester's words.
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Looking for is required"))]
    looking_for: String,
    /// The reCAPTCHA response token; a token the captcha service refuses is a 422 on `captcha`.
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Captcha is required"))]
    captcha: String,
}

/// Records a stock alert (anonymously: alerts belong to an e-mail address, not an account).
pub async fn subscribe_stock_alert(
    shopper: &Shopper,
    alert: &StockAlert,
) -> Result<MessageAnswer, ApiError> {
    post_json(shopper, STOCK_ALERTS, alert).await
}

/// Sends an image request to the media team.
pub async fn request_images(
    shopper: &Shopper,
    request: &ImageRequest,
) -> Result<MessageAnswer, ApiError> {
    post_json(shopper, IMAGE_REQUESTS, request).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::validation::field_errors;

    #[test]
    fn the_json_forms_have_the_specs_messages() {
        let alert: StockAlert = serde_json::from_value(serde_json::json!({"email": "bad"}))
            .unwrap_or_else(|err| {
                panic!("{err}");
            });
        let errors = field_errors(&alert.validate().err().unwrap_or_default());
        assert_eq!(errors["email"], "Email must be a valid email address");
        assert_eq!(errors["productId"], "Product is required");
        let request: ImageRequest =
            serde_json::from_value(serde_json::json!({})).unwrap_or_else(|err| panic!("{err}"));
        let errors = field_errors(&request.validate().err().unwrap_or_default());
        assert_eq!(errors["email"], "Email is required");
        assert_eq!(errors["lookingFor"], "Looking for is required");
    }

    #[test]
    fn a_stock_alert_is_sent_camel_cased_with_its_options_as_given() {
        let alert: StockAlert = serde_json::from_value(serde_json::json!({
            "email": "a@b.example", "productId": "TF-1", "productName": "One",
            "options": [{"label": "Color", "value": "Black"}], "captcha": "ok"
        }))
        .unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(
            serde_json::to_value(&alert).unwrap_or_default(),
            serde_json::json!({
                "email": "a@b.example", "productId": "TF-1", "productName": "One",
                "options": [{"label": "Color", "value": "Black"}], "captcha": "ok"
            })
        );
    }
}
