//! The public and account forms: stock alerts, image requests, dealer registration and Pro Deal
//! applications. The two upload forms are multipart: every part is read under its limits and
//! checked (see `crate::uploads`) before one multipart body is sent upstream with the same field
//! names; nothing is forwarded when any part is invalid.

use std::collections::{BTreeMap, HashMap};

use axum::Json;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use validator::{Validate, ValidateEmail};

use crate::commerce::MessageAnswer;
use crate::commerce::Shopper;
use crate::error::ApiError;
use crate::openapi::problems;
use crate::openapi::schemas::forms::{DealerRegistrationForm, ProDealForm};
use crate::request_id::RequestId;
use crate::session::SessionHandle;
use crate::state::SharedState;
use crate::uploads::{self, FileKind, FormBody, Policy, Upload, UploadError};
use crate::upstream::{Call, UpstreamPath};
use crate::validation::Validated;

/// The request body limit of the two multipart routes (axum's `DefaultBodyLimit`), for a form
/// with two dealer documents. It replaces the server-wide `server.max_body_bytes` on these
/// routes (the innermost `DefaultBodyLimit` wins): they take up to this size whatever that is.
pub const MULTIPART_MAX_BODY_BYTES: usize = 21 * 1024 * 1024;

/// Dealer documents: pdf, tif, tiff, each under 10 MB (the commerce API's own limit).
pub const DEALER_DOCUMENTS: Policy = Policy {
    kinds: &[FileKind::Pdf, FileKind::Tiff],
    max_bytes_exclusive: 10_000_000,
    max_label: "10 MB",
    accepted_label: "pdf, tif and tiff",
};

/// Pro Deal documents: png, jpg, jpeg, tiff, tif, pdf, each under 0.5 MB (the account spec's
/// limit: fewer than 512000 bytes).
pub const PRO_DEAL_DOCUMENTS: Policy = Policy {
    kinds: &[FileKind::Png, FileKind::Jpeg, FileKind::Tiff, FileKind::Pdf],
    max_bytes_exclusive: 512_000,
    max_label: "0.5 MB",
    accepted_label: "png, jpg, jpeg, tiff, tif and pdf",
};

async fn post_json<T: Serialize>(
    state: &SharedState,
    path: &'static str,
    body: &T,
    request_id: &RequestId,
) -> Result<Json<MessageAnswer>, ApiError> {
    let path = UpstreamPath::fixed(path);
    let body = serde_json::to_value(body).unwrap_or(Value::Null);
    let answer = state
        .commerce
        .call_json(Call::post(&path, &body), request_id)
        .await?;
    Ok(MessageAnswer::of(&answer))
}

/// A back-in-stock alert for one product and its selected options. Every field but `options`
/// is required and must not be blank.
#[derive(Debug, Deserialize, Serialize, Validate, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StockAlert {
    /// Where the alert is sent.
    #[serde(default)]
    #[schema(required = true, min_length = 1, format = Email)]
    #[validate(
        length(min = 1, message = "Email is required"),
        email(message = "Email must be a valid email address")
    )]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    options: Option<Value>,
    /// The reCAPTCHA response token; a token the captcha service refuses is a 422 on `captcha`.
    #[serde(default)]
    #[schema(required = true, min_length = 1)]
    #[validate(length(min = 1, message = "Captcha is required"))]
    captcha: String,
}

/// Subscribe to a back-in-stock alert
///
/// Records an alert for the product's sku and options; the same alert sent twice is recorded
/// once. 422 when the body is not JSON of this shape, a field breaks a rule or the captcha is
/// refused (`errors` names the fields); 404 when no product has the sku; 400 when the body
/// cannot be read.
#[utoipa::path(
    post,
    operation_id = "createStockAlert",
    path = "/stock-alerts",
    tag = "forms",
    request_body = StockAlert,
    responses(
        (status = 200, description = "The alert is recorded; `message` confirms it for display.",
            body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 404, response = problems::NotFound),
        (status = 422, response = problems::Invalid),
    ),
)]
pub async fn stock_alert(
    State(state): State<SharedState>,
    request_id: RequestId,
    Validated(body): Validated<StockAlert>,
) -> Result<Json<MessageAnswer>, ApiError> {
    post_json(&state, "ProductNotification/subscribe", &body, &request_id).await
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
    #[validate(
        length(min = 1, message = "Email is required"),
        email(message = "Email must be a valid email address")
    )]
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

/// Request product images
///
/// Sends a media library image request to the team. 422 when the body is not JSON of this
/// shape, a field breaks a rule or the captcha is refused (`errors` names the fields); 400 when
/// the body cannot be read.
#[utoipa::path(
    post,
    operation_id = "requestImages",
    path = "/image-requests",
    tag = "forms",
    request_body = ImageRequest,
    responses(
        (status = 200, description = "The request is received; `message` confirms it for display.",
            body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 422, response = problems::Invalid),
    ),
)]
pub async fn image_request(
    State(state): State<SharedState>,
    request_id: RequestId,
    Validated(body): Validated<ImageRequest>,
) -> Result<Json<MessageAnswer>, ApiError> {
    post_json(&state, "Registration/image-request", &body, &request_id).await
}

/// The dealer form's text parts, in the order they are forwarded.
const DEALER_TEXT_FIELDS: &[&str] = &[
    "company",
    "website",
    "phone",
    "email",
    "firstName",
    "lastName",
    "streetAddress",
    "city",
    "state",
    "postalCode",
    "country",
    "appearInDealerLocator",
    "useThisAddressInDealerLocator",
    "locatorStreetAddress",
    "locatorCity",
    "locatorState",
    "locatorPostalCode",
    "locatorCountry",
    "hasFflSot",
    "fflNumber",
    "sotEin",
    "captcha",
];

const DEALER_FILE_FIELDS: &[&str] = &["fflDocument", "sotDocument"];

const DEALER_REQUIRED: &[&str] = &[
    "company",
    "website",
    "phone",
    "email",
    "firstName",
    "lastName",
    "streetAddress",
    "city",
    "state",
    "postalCode",
    "country",
];

const LOCATOR_FIELDS: &[&str] = &[
    "locatorStreetAddress",
    "locatorCity",
    "locatorState",
    "locatorPostalCode",
    "locatorCountry",
];

/// The shopping spec's message for every missing dealer field.
const REQUIRED: &str = "Required";

/// A website: optional `http(s)://`, a dotted host name, optional port and path.
fn is_valid_url(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
        .unwrap_or(&lower);
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let (host, port) = match authority.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    if let Some(port) = port
        && (port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()))
    {
        return false;
    }
    let labels: Vec<&str> = host.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
        && labels
            .last()
            .is_some_and(|tld| tld.len() >= 2 && tld.bytes().all(|b| b.is_ascii_alphabetic()))
        && !rest[authority_end..].contains(char::is_whitespace)
}

/// A US phone number: 10 digits, optionally preceded by 1 (or +1), with the usual separators.
fn is_valid_us_phone(value: &str) -> bool {
    if !value
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '-' | '.' | '(' | ')' | '+'))
    {
        return false;
    }
    let digits: String = value.chars().filter(char::is_ascii_digit).collect();
    digits.len() == 10 || (digits.len() == 11 && digits.starts_with('1'))
}

/// A flag as `FormData` sends it; absent or blank takes the default.
fn flag(value: Option<&str>, default: bool) -> Result<bool, ()> {
    match value
        .map(str::trim)
        .unwrap_or_default()
        .to_ascii_lowercase()
        .as_str()
    {
        "" => Ok(default),
        "true" | "on" | "1" => Ok(true),
        "false" | "off" | "0" => Ok(false),
        _ => Err(()),
    }
}

/// The dealer form's rules (shopping spec, section 5); one message per field.
fn dealer_errors(text: &HashMap<String, String>, files: &[Upload]) -> BTreeMap<String, String> {
    let mut errors = BTreeMap::new();
    let value = |name: &str| text.get(name).map(|v| v.trim()).filter(|v| !v.is_empty());
    for field in DEALER_REQUIRED {
        if value(field).is_none() {
            errors.insert((*field).to_owned(), REQUIRED.to_owned());
        }
    }
    if let Some(website) = value("website")
        && !is_valid_url(website)
    {
        errors.insert(
            "website".to_owned(),
            "Website must be a valid URL".to_owned(),
        );
    }
    if let Some(phone) = value("phone")
        && !is_valid_us_phone(phone)
    {
        errors.insert(
            "phone".to_owned(),
            "Must be a valid phone number".to_owned(),
        );
    }
    if let Some(email) = value("email")
        && !email.validate_email()
    {
        errors.insert(
            "email".to_owned(),
            "Email must be a valid email address".to_owned(),
        );
    }
    let mut read_flag = |name: &str, default: bool| {
        flag(value(name), default).unwrap_or_else(|()| {
            errors.insert(name.to_owned(), "Must be true or false".to_owned());
            default
        })
    };
    let appear = read_flag("appearInDealerLocator", true);
    let same_address = read_flag("useThisAddressInDealerLocator", true);
    let has_ffl_sot = read_flag("hasFflSot", false);
    if appear && !same_address {
        for field in LOCATOR_FIELDS {
            if value(field).is_none() {
                errors.insert((*field).to_owned(), REQUIRED.to_owned());
            }
        }
    }
    if has_ffl_sot {
        if value("fflNumber").is_none() {
            errors.insert("fflNumber".to_owned(), REQUIRED.to_owned());
        }
        if !files.iter().any(|file| file.field == "fflDocument") {
            errors.insert("fflDocument".to_owned(), REQUIRED.to_owned());
        }
    }
    if value("captcha").is_none() {
        errors.insert(
            "captcha".to_owned(),
            "Please complete the reCAPTCHA".to_owned(),
        );
    }
    errors
}

/// Reads a whole multipart form: the listed text parts and the files of `file_fields` under
/// `policy` (several files per field when `many`, else the last one wins); other parts are
/// skipped unread. On a refused part the rest of the body is drained before answering.
async fn read_form(
    multipart: Result<Multipart, MultipartRejection>,
    text_fields: &[&str],
    file_fields: &[&str],
    policy: &Policy,
    many: bool,
) -> Result<(HashMap<String, String>, Vec<Upload>), UploadError> {
    let mut multipart = multipart?;
    let mut text = HashMap::new();
    let mut files: Vec<Upload> = Vec::new();
    let outcome: Result<(), UploadError> = async {
        while let Some(field) = multipart.next_field().await? {
            let name = field.name().unwrap_or_default().to_owned();
            if file_fields.contains(&name.as_str()) {
                if let Some(upload) = uploads::read_file(field, &name, policy).await? {
                    if !many {
                        files.retain(|file| file.field != name);
                    }
                    files.push(upload);
                }
            } else if text_fields.contains(&name.as_str()) {
                let value = uploads::read_text(field, &name).await?;
                text.insert(name, value);
            }
        }
        Ok(())
    }
    .await;
    if let Err(err) = outcome {
        uploads::drain(&mut multipart).await;
        return Err(err);
    }
    Ok((text, files))
}

/// The content types a policy's files have, for the document's multipart `encoding`. The files
/// are judged by extension and content, not by their part's `Content-Type`, so this says what
/// is accepted rather than what must be declared.
fn accepted_content_types(policy: &Policy) -> String {
    policy
        .kinds
        .iter()
        .map(|kind| kind.content_type())
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a multipart form is refused before any field rule is checked.
fn upload_rules(policy: &Policy) -> String {
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

/// Register as a dealer
///
/// The dealer registration form with its FFL and SOT documents, sent on as one multipart body
/// once every part is valid. 422 when a field breaks a rule or the captcha is refused (`errors`
/// has a message per part, e.g. `Required`); 400, 413 and 415 as described for the body.
#[utoipa::path(
    post,
    operation_id = "registerDealer",
    path = "/dealer-registrations",
    tag = "forms",
    request_body(
        content = DealerRegistrationForm,
        content_type = "multipart/form-data",
        description = upload_rules(&DEALER_DOCUMENTS),
        encoding(
            ("fflDocument" = (content_type = accepted_content_types(&DEALER_DOCUMENTS))),
            ("sotDocument" = (content_type = accepted_content_types(&DEALER_DOCUMENTS))),
        ),
    ),
    responses(
        (status = 200, description = "The registration is received; `message` confirms it for \
            display.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 413, response = problems::PayloadTooLarge),
        (status = 415, response = problems::UnsupportedMediaType),
        (status = 422, response = problems::Invalid),
    ),
)]
pub async fn dealer_registration(
    State(state): State<SharedState>,
    request_id: RequestId,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<MessageAnswer>, ApiError> {
    let (text, files) = read_form(
        multipart,
        DEALER_TEXT_FIELDS,
        DEALER_FILE_FIELDS,
        &DEALER_DOCUMENTS,
        false,
    )
    .await?;
    let errors = dealer_errors(&text, &files);
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    let mut form = FormBody::default();
    for name in DEALER_TEXT_FIELDS {
        if let Some(value) = text.get(*name) {
            form.text(name, value);
        }
    }
    for file in files {
        form.file(file);
    }
    let (content_type, body) = form.encode();
    let path = UpstreamPath::fixed("Registration/dealer");
    let answer = state
        .commerce
        .post_multipart(&path, None, content_type, body, &request_id)
        .await
        .map_err(ApiError::from)?;
    let answer: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
    Ok(MessageAnswer::of(&answer))
}

/// Apply for the Pro Deal
///
/// Signed in: one or more `supportingDocuments`; the application is made for the account's
/// e-mail address and sets its Pro Deal status to pending. 401 without a signed-in session
/// (checked before the body is read); 409 once the account's application is approved; 422
/// without a document or when the account has no e-mail address; 400, 413 and 415 as
/// described for the body.
#[utoipa::path(
    post,
    operation_id = "applyForProDeal",
    path = "/pro-deal",
    tag = "forms",
    request_body(
        content = ProDealForm,
        content_type = "multipart/form-data",
        description = upload_rules(&PRO_DEAL_DOCUMENTS),
        encoding(
            ("supportingDocuments" = (content_type = accepted_content_types(&PRO_DEAL_DOCUMENTS))),
        ),
    ),
    responses(
        (status = 200, description = "The application is submitted and pending verification; \
            `message` confirms it for display.", body = MessageAnswer),
        (status = 400, response = problems::BadRequest),
        (status = 401, response = problems::Unauthorized),
        (status = 409, response = problems::Conflict),
        (status = 413, response = problems::PayloadTooLarge),
        (status = 415, response = problems::UnsupportedMediaType),
        (status = 422, response = problems::Invalid),
    ),
)]
pub async fn pro_deal(
    State(state): State<SharedState>,
    session: SessionHandle,
    request_id: RequestId,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<MessageAnswer>, ApiError> {
    let user = Shopper::of(&state, &session, &request_id)
        .signed_in()
        .await?;
    let (_, files) = read_form(
        multipart,
        &[],
        &["supportingDocuments"],
        &PRO_DEAL_DOCUMENTS,
        true,
    )
    .await?;
    let mut errors = BTreeMap::new();
    if user.email.trim().is_empty() {
        errors.insert(
            "email".to_owned(),
            "Your account needs an e-mail address to apply".to_owned(),
        );
    }
    if files.is_empty() {
        errors.insert(
            "supportingDocuments".to_owned(),
            "At least one supporting document is required".to_owned(),
        );
    }
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    let mut form = FormBody::default();
    form.text("email", &user.email);
    for file in files {
        form.file(file);
    }
    let (content_type, body) = form.encode();
    let path = UpstreamPath::fixed("Registration/prodeal");
    let answer = Shopper::of(&state, &session, &request_id)
        .with_user(user, |bearer| {
            let state = state.clone();
            let path = path.clone();
            let content_type = content_type.clone();
            let body = body.clone();
            let request_id = request_id.clone();
            async move {
                state
                    .commerce
                    .post_multipart(&path, Some(&bearer), content_type, body, &request_id)
                    .await
            }
        })
        .await?;
    let answer: Value = serde_json::from_slice(&answer.body).unwrap_or(Value::Null);
    Ok(MessageAnswer::of(&answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A documented schema as JSON, to compare with the parts the handlers read.
    fn schema_json<T: utoipa::PartialSchema>() -> Value {
        serde_json::to_value(T::schema()).unwrap()
    }

    fn names(value: &Value) -> Vec<String> {
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

    fn sorted(list: impl IntoIterator<Item = &'static str>) -> Vec<String> {
        let mut names: Vec<String> = list.into_iter().map(str::to_owned).collect();
        names.sort();
        names
    }

    #[test]
    fn the_documented_dealer_form_lists_the_parts_the_handler_reads() {
        let schema = schema_json::<DealerRegistrationForm>();
        assert_eq!(
            names(&schema["properties"]),
            sorted(DEALER_TEXT_FIELDS.iter().chain(DEALER_FILE_FIELDS).copied())
        );
        assert_eq!(
            names(&schema["required"]),
            sorted(DEALER_REQUIRED.iter().copied().chain(["captcha"]))
        );
        let description = schema["description"].as_str().unwrap();
        assert!(description.contains(DEALER_DOCUMENTS.max_label));
        assert!(description.contains(&format!("{} KiB", uploads::MAX_TEXT_BYTES / 1024)));
    }

    #[test]
    fn the_documented_pro_deal_form_lists_the_parts_the_handler_reads() {
        let schema = schema_json::<ProDealForm>();
        assert_eq!(
            names(&schema["properties"]),
            sorted(["supportingDocuments"])
        );
        assert_eq!(names(&schema["required"]), sorted(["supportingDocuments"]));
        let description = schema["description"].as_str().unwrap();
        assert!(description.contains(PRO_DEAL_DOCUMENTS.max_label));
        assert!(description.contains(&PRO_DEAL_DOCUMENTS.max_bytes_exclusive.to_string()));
    }

    #[test]
    fn websites_need_a_dotted_host() {
        for good in [
            "https://dealer.example",
            "http://dealer.example:8080/path?q=1",
            "www.dealer.example",
            "dealer-one.example/about",
        ] {
            assert!(is_valid_url(good), "{good}");
        }
        for bad in [
            "",
            "dealer",
            "https://",
            "https://dealer .example",
            "ftp//x",
        ] {
            assert!(!is_valid_url(bad), "{bad}");
        }
    }

    #[test]
    fn us_phones_have_ten_digits_and_an_optional_country_code() {
        for good in [
            "5551234567",
            "(555) 123-4567",
            "+1 555 123 4567",
            "555.123.4567",
        ] {
            assert!(is_valid_us_phone(good), "{good}");
        }
        for bad in ["", "555-1234", "25551234567", "555123456a", "555 123 45678"] {
            assert!(!is_valid_us_phone(bad), "{bad}");
        }
    }

    #[test]
    fn the_locator_address_is_required_only_for_a_separate_locator_address() {
        let mut text: HashMap<String, String> = [
            ("company", "Acme"),
            ("website", "acme.example"),
            ("phone", "5551234567"),
            ("email", "a@acme.example"),
            ("firstName", "A"),
            ("lastName", "B"),
            ("streetAddress", "1 Main"),
            ("city", "Boise"),
            ("state", "ID"),
            ("postalCode", "83702"),
            ("country", "United States"),
            ("captcha", "ok"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        assert!(dealer_errors(&text, &[]).is_empty());
        text.insert(
            "useThisAddressInDealerLocator".to_owned(),
            "false".to_owned(),
        );
        assert_eq!(dealer_errors(&text, &[]).len(), LOCATOR_FIELDS.len());
        text.insert("appearInDealerLocator".to_owned(), "off".to_owned());
        text.insert("hasFflSot".to_owned(), "on".to_owned());
        let errors = dealer_errors(&text, &[]);
        assert_eq!(errors.get("fflNumber").map(String::as_str), Some(REQUIRED));
        assert_eq!(
            errors.get("fflDocument").map(String::as_str),
            Some(REQUIRED)
        );
    }
}
