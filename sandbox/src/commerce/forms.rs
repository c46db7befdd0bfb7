//! Public forms (`/Registration/*`, `/ProductNotification/subscribe`) and the form rules every
//! account endpoint shares: a JSON body extractor that answers .NET-style 400s, per-field
//! validation with the specs' messages, and document uploads checked by extension and content.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::multipart::{Field, MultipartError, MultipartRejection};
use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, Request, State};
use axum::routing::post;
use axum::{Json, Router};
use rusqlite::{Connection, params};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::tokens::AuthUser;
use crate::SandboxState;
use crate::clock::now_rfc3339;
use crate::content::skus;
use crate::error::SandboxError;
use crate::thirdparty::captcha;

/// Pro Deal documents must be under 0.5 MB each (account spec, section 9).
const PRO_DEAL_MAX_FILE_BYTES: usize = 512_000;
/// Dealer licences are scans (TIFF pages get large); the spec sets no limit, 10 MB is generous.
const DEALER_MAX_FILE_BYTES: usize = 10 * 1024 * 1024;
/// Whole multipart bodies, above axum's 2 MB default so that several documents fit and an
/// oversized one is answered with a 400 naming it rather than a bare 413.
const UPLOAD_BODY_LIMIT: usize = 32 * 1024 * 1024;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new()
        .route("/ProductNotification/subscribe", post(stock_alert))
        .route("/Registration/image-request", post(image_request))
        .route(
            "/Registration/dealer",
            post(dealer_registration).layer(DefaultBodyLimit::max(UPLOAD_BODY_LIMIT)),
        )
        .route(
            "/Registration/prodeal",
            post(pro_deal_application).layer(DefaultBodyLimit::max(UPLOAD_BODY_LIMIT)),
        )
}

// ---------------------------------------------------------------------------------------------
// Form rules shared by the account endpoints.

/// A JSON body whose rejections (malformed JSON, wrong content type, wrong field types) are the
/// sandbox's JSON 400, as ASP.NET answers a body it cannot bind, instead of axum's plain text.
#[derive(Debug)]
pub(super) struct JsonBody<T>(pub T);

impl<T, S> FromRequest<S> for JsonBody<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = SandboxError;

    async fn from_request(request: Request, state: &S) -> Result<Self, SandboxError> {
        Json::<T>::from_request(request, state)
            .await
            .map(|Json(value)| Self(value))
            .map_err(|rejection| SandboxError::BadRequest(rejection.body_text()))
    }
}

/// `{"message": ...}`, the answer of every form and flow endpoint.
pub(super) fn message(text: impl Into<String>) -> Json<Value> {
    Json(json!({ "message": text.into() }))
}

/// Minimum password length (account spec, section 9).
pub(super) const MIN_PASSWORD_LENGTH: usize = 8;
pub(super) const PASSWORD_TOO_SHORT: &str = "Password must be at least 8 characters long";
pub(super) const PASSWORDS_DIFFER: &str = "Passwords do not match";

/// Per-field validation in the order the checks run. Only the first message of a field is
/// kept; the response's `message` is the first failure, so a client that shows only `message`
/// still shows something useful.
#[derive(Debug, Default)]
pub(super) struct Rules {
    errors: Vec<(String, String)>,
}

impl Rules {
    fn failed(&self, field: &str) -> bool {
        self.errors.iter().any(|(name, _)| name == field)
    }

    /// Records `message` for `field` unless `ok`; answers `ok`.
    pub(super) fn check(&mut self, ok: bool, field: &str, message: impl Into<String>) -> bool {
        if !ok && !self.failed(field) {
            self.errors.push((field.to_owned(), message.into()));
        }
        ok
    }

    /// A non-blank value, trimmed; '<label> is required' otherwise.
    pub(super) fn required<'a>(
        &mut self,
        field: &str,
        label: &str,
        value: Option<&'a str>,
    ) -> Option<&'a str> {
        self.required_with(field, value, &format!("{label} is required"))
    }

    /// A non-blank value, trimmed; `missing` otherwise.
    pub(super) fn required_with<'a>(
        &mut self,
        field: &str,
        value: Option<&'a str>,
        missing: &str,
    ) -> Option<&'a str> {
        let value = value.map(str::trim).filter(|value| !value.is_empty());
        self.check(value.is_some(), field, missing);
        value
    }

    /// A required, well-formed e-mail address, trimmed.
    pub(super) fn email<'a>(
        &mut self,
        field: &str,
        label: &str,
        value: Option<&'a str>,
    ) -> Option<&'a str> {
        let email = self.required(field, label, value)?;
        self.check(
            is_valid_email(email),
            field,
            format!("{label} must be a valid email address"),
        )
        .then_some(email)
    }

    /// A required new password of at least [`MIN_PASSWORD_LENGTH`] characters (not trimmed:
    /// spaces are part of a password).
    pub(super) fn new_password<'a>(
        &mut self,
        field: &str,
        label: &str,
        value: Option<&'a str>,
    ) -> Option<&'a str> {
        let password = value.filter(|password| !password.is_empty());
        if !self.check(password.is_some(), field, format!("{label} is required")) {
            return None;
        }
        let password = password?;
        self.check(
            password.chars().count() >= MIN_PASSWORD_LENGTH,
            field,
            PASSWORD_TOO_SHORT,
        )
        .then_some(password)
    }

    /// The captcha response must be present; whether it is valid is checked against the
    /// database afterwards ([`captcha::require`]).
    pub(super) fn captcha<'a>(&mut self, value: Option<&'a str>) -> Option<&'a str> {
        self.required("captcha", "Captcha", value)
    }

    /// The 400 with every recorded message, or `Ok` when every check passed.
    pub(super) fn finish(self) -> Result<(), SandboxError> {
        let Some((_, first)) = self.errors.first() else {
            return Ok(());
        };
        Err(SandboxError::Validation {
            message: first.clone(),
            errors: self.errors.iter().cloned().collect::<BTreeMap<_, _>>(),
        })
    }
}

/// The "simple e-mail pattern" of the specs: one `@`, a non-empty local part, a dotted domain
/// of non-empty labels, no whitespace.
pub(super) fn is_valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    email.len() <= 254
        && !local.is_empty()
        && !domain.contains('@')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && domain.contains('.')
        && domain.split('.').all(|label| !label.is_empty())
}

/// A US phone number: 10 digits, optionally preceded by the country code 1, with the usual
/// separators (the storefront auto-formats as `(555) 123-4567`).
pub(super) fn is_valid_us_phone(phone: &str) -> bool {
    if !phone
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '(' | ')' | '-' | '.' | '+'))
    {
        return false;
    }
    let digits: String = phone.chars().filter(char::is_ascii_digit).collect();
    digits.len() == 10 || (digits.len() == 11 && digits.starts_with('1'))
}

/// A website: an optional `http://` or `https://`, then a dotted host name (letters, digits,
/// hyphens), an optional port and anything after a `/`, `?` or `#`; no whitespace.
pub(super) fn is_valid_url(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("https://")
        .or_else(|| lower.strip_prefix("http://"))
        .unwrap_or(&lower);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let (host, port) = match authority.split_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (authority, None),
    };
    let labels_ok = host.split('.').all(|label| {
        !label.is_empty()
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    });
    let port_ok =
        port.is_none_or(|port| !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()));
    host.contains('.')
        && labels_ok
        && port_ok
        && !url.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// The trimmed value, `None` when blank.
pub(super) fn optional(value: Option<&str>) -> Option<String> {
    value
        .map(str::trim)
        .filter(|value| !value.is_empty())
        .map(str::to_owned)
}

// ---------------------------------------------------------------------------------------------
// Stock alerts and image requests (JSON forms).

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct StockAlertRequest {
    email: Option<String>,
    /// The sku code.
    product_id: Option<String>,
    product_name: Option<String>,
    /// The selected options as the product page sends them (values or label/value pairs); kept
    /// as given.
    options: Option<Value>,
    captcha: Option<String>,
}

/// `POST /ProductNotification/subscribe`: a back-in-stock alert for one sku. Subscribing twice
/// to the same sku and options is accepted once.
async fn stock_alert(
    State(state): State<Arc<SandboxState>>,
    JsonBody(request): JsonBody<StockAlertRequest>,
) -> Result<Json<Value>, SandboxError> {
    let mut rules = Rules::default();
    let email = rules.email("email", "Email", request.email.as_deref());
    let sku = rules.required("productId", "Product", request.product_id.as_deref());
    let name = rules.required(
        "productName",
        "Product name",
        request.product_name.as_deref(),
    );
    let captcha_token = rules.captcha(request.captcha.as_deref());
    rules.finish()?;
    let (Some(email), Some(sku), Some(name)) = (email, sku, name) else {
        return Err(SandboxError::Internal(
            "validated fields missing".to_owned(),
        ));
    };
    let options = match request.options {
        None | Some(Value::Null) => "[]".to_owned(),
        Some(options) => options.to_string(),
    };
    state.db.transaction(|tx| {
        captcha::require(tx, captcha_token)?;
        if skus::find(tx, sku)?.is_none() {
            return Err(SandboxError::NotFound(format!("Product {sku} not found")));
        }
        let already: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM product_notifications \
             WHERE email = ?1 COLLATE NOCASE AND product_id = ?2 AND options = ?3)",
            params![email, sku, options],
            |row| row.get(0),
        )?;
        if !already {
            tx.execute(
                "INSERT INTO product_notifications (email, product_id, product_name, options, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![email, sku, name, options, now_rfc3339()],
            )?;
        }
        Ok(())
    })?;
    Ok(message(format!(
        "You will be notified when {name} is back in stock"
    )))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct ImageRequest {
    first_name: Option<String>,
    last_name: Option<String>,
    email: Option<String>,
    looking_for: Option<String>,
    captcha: Option<String>,
}

/// `POST /Registration/image-request`: the media library's product image request.
async fn image_request(
    State(state): State<Arc<SandboxState>>,
    JsonBody(request): JsonBody<ImageRequest>,
) -> Result<Json<Value>, SandboxError> {
    let mut rules = Rules::default();
    let first_name = rules.required("firstName", "First name", request.first_name.as_deref());
    let last_name = rules.required("lastName", "Last name", request.last_name.as_deref());
    let email = rules.email("email", "Email", request.email.as_deref());
    let looking_for = rules.required("lookingFor", "Looking for", request.looking_for.as_deref());
    let captcha_token = rules.captcha(request.captcha.as_deref());
    rules.finish()?;
    let payload = json!({
        "firstName": first_name,
        "lastName": last_name,
        "email": email,
        "lookingFor": looking_for,
    });
    state.db.transaction(|tx| {
        captcha::require(tx, captcha_token)?;
        insert_application(tx, "image-request", None, &payload)
    })?;
    Ok(message(
        "Thank you! Your image request has been received and our team will be in touch.",
    ))
}

fn insert_application(
    conn: &Connection,
    kind: &str,
    user_id: Option<i64>,
    payload: &Value,
) -> Result<i64, SandboxError> {
    conn.execute(
        "INSERT INTO applications (kind, user_id, payload, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![kind, user_id, payload.to_string(), now_rfc3339()],
    )?;
    Ok(conn.last_insert_rowid())
}

// ---------------------------------------------------------------------------------------------
// Document uploads.

/// A document type the forms accept, recognised by its extension and by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DocumentKind {
    Pdf,
    Tiff,
    Png,
    Jpeg,
}

impl DocumentKind {
    fn from_file_name(file_name: &str) -> Option<Self> {
        let (_, extension) = file_name.rsplit_once('.')?;
        match extension.to_ascii_lowercase().as_str() {
            "pdf" => Some(Self::Pdf),
            "tif" | "tiff" => Some(Self::Tiff),
            "png" => Some(Self::Png),
            "jpg" | "jpeg" => Some(Self::Jpeg),
            _ => None,
        }
    }

    /// Whether `bytes` start with this format's signature.
    fn matches(self, bytes: &[u8]) -> bool {
        match self {
            Self::Pdf => bytes.starts_with(b"%PDF-"),
            Self::Tiff => bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*"),
            Self::Png => bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
            Self::Jpeg => bytes.starts_with(&[0xFF, 0xD8, 0xFF]),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Pdf => "PDF",
            Self::Tiff => "TIFF",
            Self::Png => "PNG",
            Self::Jpeg => "JPEG",
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Self::Pdf => "pdf",
            Self::Tiff => "tiff",
            Self::Png => "png",
            Self::Jpeg => "jpg",
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Self::Pdf => "application/pdf",
            Self::Tiff => "image/tiff",
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
        }
    }
}

/// What one form accepts as files.
struct UploadPolicy {
    /// The multipart field names that carry files; file parts under other names are ignored.
    file_fields: &'static [&'static str],
    kinds: &'static [DocumentKind],
    /// The accepted extensions, as the error message lists them.
    accepted: &'static str,
    /// Each file must be strictly smaller than this.
    max_file_bytes: usize,
    /// How the limit reads in the error message.
    max_file_label: &'static str,
}

const DEALER_UPLOADS: UploadPolicy = UploadPolicy {
    file_fields: &["fflDocument", "sotDocument"],
    kinds: &[DocumentKind::Pdf, DocumentKind::Tiff],
    accepted: "pdf, tif and tiff",
    max_file_bytes: DEALER_MAX_FILE_BYTES,
    max_file_label: "10 MB",
};

const PRO_DEAL_UPLOADS: UploadPolicy = UploadPolicy {
    file_fields: &["supportingDocuments"],
    kinds: &[
        DocumentKind::Png,
        DocumentKind::Jpeg,
        DocumentKind::Tiff,
        DocumentKind::Pdf,
    ],
    accepted: "png, jpg, jpeg, tiff, tif and pdf",
    max_file_bytes: PRO_DEAL_MAX_FILE_BYTES,
    max_file_label: "0.5 MB",
};

/// An accepted file, still in memory.
#[derive(Debug)]
struct Upload {
    field: String,
    /// The client's file name without any directory part; only ever stored, never used as a path.
    file_name: String,
    kind: DocumentKind,
    bytes: Vec<u8>,
}

/// A parsed multipart form: its text fields and its accepted files. Files that break the policy
/// are reported in `rules`, naming the file.
#[derive(Debug, Default)]
struct Submission {
    fields: HashMap<String, String>,
    files: Vec<Upload>,
}

impl Submission {
    fn text(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }

    fn has_file(&self, field: &str) -> bool {
        self.files.iter().any(|file| file.field == field)
    }

    /// A boolean field as `FormData` sends it (`true`/`false`, also `on`, `1`, `0`); `default`
    /// when absent or blank, a field error when it is something else.
    fn flag(&self, rules: &mut Rules, name: &str, default: bool) -> bool {
        match self
            .text(name)
            .map(|value| value.trim().to_ascii_lowercase())
        {
            None => default,
            Some(value) => match value.as_str() {
                "" => default,
                "true" | "on" | "1" => true,
                "false" | "off" | "0" => false,
                _ => {
                    rules.check(false, name, "Must be true or false");
                    default
                }
            },
        }
    }
}

fn multipart_error(err: MultipartError) -> SandboxError {
    SandboxError::BadRequest(format!("Invalid multipart body: {}", err.body_text()))
}

fn multipart_rejection(rejection: MultipartRejection) -> SandboxError {
    SandboxError::BadRequest(rejection.body_text())
}

/// Reads every part of `multipart`, checking each file against `policy` as it streams in: an
/// oversized file is drained (not kept) so that the client still reads the 400 naming it.
async fn read_submission(
    mut multipart: Multipart,
    policy: &UploadPolicy,
    rules: &mut Rules,
) -> Result<Submission, SandboxError> {
    let mut submission = Submission::default();
    while let Some(field) = multipart.next_field().await.map_err(multipart_error)? {
        let name = field.name().unwrap_or_default().to_owned();
        match field.file_name().map(base_name) {
            None => {
                let value = field.text().await.map_err(multipart_error)?;
                submission.fields.insert(name, value);
            }
            Some(file_name) if policy.file_fields.contains(&name.as_str()) => {
                if let Some(upload) = read_file(field, name, file_name, policy, rules).await? {
                    submission.files.push(upload);
                }
            }
            // A file under a name the form does not know: drained by the next `next_field`.
            Some(_) => {}
        }
    }
    Ok(submission)
}

async fn read_file(
    mut field: Field<'_>,
    name: String,
    file_name: String,
    policy: &UploadPolicy,
    rules: &mut Rules,
) -> Result<Option<Upload>, SandboxError> {
    let kind = DocumentKind::from_file_name(&file_name).filter(|kind| policy.kinds.contains(kind));
    let mut bytes = Vec::new();
    let mut too_large = false;
    while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
        if too_large || bytes.len() + chunk.len() >= policy.max_file_bytes {
            too_large = true;
            bytes.clear();
        } else {
            bytes.extend_from_slice(&chunk);
        }
    }
    let problem = if file_name.is_empty() && bytes.is_empty() && !too_large {
        // A file input left empty: browsers send a nameless, empty part.
        return Ok(None);
    } else if let Some(kind) = kind {
        if too_large {
            Some(format!(
                "{file_name} is too large: each file must be under {}",
                policy.max_file_label
            ))
        } else if bytes.is_empty() {
            Some(format!("{file_name} is empty"))
        } else if !kind.matches(&bytes) {
            Some(format!("{file_name} is not a valid {} file", kind.name()))
        } else {
            None
        }
    } else {
        Some(format!(
            "{file_name} is not an accepted file type: only {} files are accepted",
            policy.accepted
        ))
    };
    match (problem, kind) {
        (None, Some(kind)) => Ok(Some(Upload {
            field: name,
            file_name,
            kind,
            bytes,
        })),
        (problem, _) => {
            rules.check(
                false,
                &name,
                problem.unwrap_or_else(|| format!("{file_name} was not accepted")),
            );
            Ok(None)
        }
    }
}

/// The last path component of a client-supplied file name (browsers on Windows once sent full
/// paths).
fn base_name(file_name: &str) -> String {
    file_name
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// A file written under `<data dir>/uploads/`, with the path recorded relative to the data dir.
struct StoredFile {
    upload: Upload,
    relative_path: String,
    absolute_path: PathBuf,
}

/// Writes `uploads` under `<data dir>/uploads/` with random names (never the client's).
async fn write_uploads(
    data_dir: &Path,
    uploads: Vec<Upload>,
) -> Result<Vec<StoredFile>, SandboxError> {
    let directory = data_dir.join("uploads");
    tokio::fs::create_dir_all(&directory)
        .await
        .map_err(|err| SandboxError::Internal(format!("uploads dir: {err}")))?;
    let mut stored: Vec<StoredFile> = Vec::with_capacity(uploads.len());
    for upload in uploads {
        let name = format!(
            "{}.{}",
            uuid::Uuid::new_v4().simple(),
            upload.kind.extension()
        );
        let absolute_path = directory.join(&name);
        if let Err(err) = tokio::fs::write(&absolute_path, &upload.bytes).await {
            remove_files(&stored).await;
            return Err(SandboxError::Internal(format!("writing an upload: {err}")));
        }
        stored.push(StoredFile {
            upload,
            relative_path: format!("uploads/{name}"),
            absolute_path,
        });
    }
    Ok(stored)
}

async fn remove_files(files: &[StoredFile]) {
    for file in files {
        if let Err(err) = tokio::fs::remove_file(&file.absolute_path).await {
            tracing::warn!(error = %err, path = %file.absolute_path.display(), "could not remove an orphaned upload");
        }
    }
}

fn insert_files(
    conn: &Connection,
    application_id: i64,
    files: &[StoredFile],
) -> Result<(), SandboxError> {
    for file in files {
        let size = i64::try_from(file.upload.bytes.len())
            .map_err(|_| SandboxError::Internal("upload size overflow".to_owned()))?;
        conn.execute(
            "INSERT INTO uploaded_files (application_id, field, file_name, content_type, stored_path, size_bytes) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                application_id,
                file.upload.field,
                file.upload.file_name,
                file.upload.kind.content_type(),
                file.relative_path,
                size
            ],
        )?;
    }
    Ok(())
}

/// Stores the files, then runs `record` (which inserts the application and answers its id) and
/// the file rows in one transaction; the files are removed again when the transaction fails.
async fn save_application(
    state: &SandboxState,
    uploads: Vec<Upload>,
    record: impl FnOnce(&Connection) -> Result<i64, SandboxError>,
) -> Result<(), SandboxError> {
    let stored = write_uploads(&state.options.data_dir, uploads).await?;
    let saved = state.db.transaction(|tx| {
        let application_id = record(tx)?;
        insert_files(tx, application_id, &stored)
    });
    if saved.is_err() {
        remove_files(&stored).await;
    }
    saved
}

fn file_names(files: &[Upload], field: &str) -> Vec<String> {
    files
        .iter()
        .filter(|file| file.field == field)
        .map(|file| file.file_name.clone())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Dealer registration.

const DEALER_REQUIRED: &[(&str, &str)] = &[
    ("company", "Company"),
    ("firstName", "First name"),
    ("lastName", "Last name"),
    ("streetAddress", "Street address"),
    ("city", "City"),
    ("state", "State"),
    ("postalCode", "Postal code"),
    ("country", "Country"),
];

const LOCATOR_FIELDS: &[(&str, &str)] = &[
    ("locatorStreetAddress", "streetAddress"),
    ("locatorCity", "city"),
    ("locatorState", "state"),
    ("locatorPostalCode", "postalCode"),
    ("locatorCountry", "country"),
];

/// The shopping spec's message for every missing dealer field.
const REQUIRED: &str = "Required";

/// `POST /Registration/dealer` (multipart): the dealer registration form with its FFL and SOT
/// documents (pdf, tif, tiff).
async fn dealer_registration(
    State(state): State<Arc<SandboxState>>,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<Value>, SandboxError> {
    let multipart = multipart.map_err(multipart_rejection)?;
    let mut rules = Rules::default();
    let form = read_submission(multipart, &DEALER_UPLOADS, &mut rules).await?;
    let mut payload = Map::new();
    for (field, _) in DEALER_REQUIRED {
        let value = rules.required_with(field, form.text(field), REQUIRED);
        payload.insert((*field).to_owned(), json!(value));
    }
    if let Some(website) = rules.required_with("website", form.text("website"), REQUIRED) {
        rules.check(
            is_valid_url(website),
            "website",
            "Website must be a valid URL",
        );
        payload.insert("website".to_owned(), json!(website));
    }
    if let Some(phone) = rules.required_with("phone", form.text("phone"), REQUIRED) {
        rules.check(
            is_valid_us_phone(phone),
            "phone",
            "Must be a valid phone number",
        );
        payload.insert("phone".to_owned(), json!(phone));
    }
    if let Some(email) = rules.required_with("email", form.text("email"), REQUIRED) {
        rules.check(
            is_valid_email(email),
            "email",
            "Email must be a valid email address",
        );
        payload.insert("email".to_owned(), json!(email));
    }
    let appear = form.flag(&mut rules, "appearInDealerLocator", true);
    let same_address = form.flag(&mut rules, "useThisAddressInDealerLocator", true);
    let has_ffl_sot = form.flag(&mut rules, "hasFflSot", false);
    payload.insert("appearInDealerLocator".to_owned(), json!(appear));
    payload.insert(
        "useThisAddressInDealerLocator".to_owned(),
        json!(same_address),
    );
    payload.insert("hasFflSot".to_owned(), json!(has_ffl_sot));
    for (locator_field, company_field) in LOCATOR_FIELDS {
        let value = match (appear, same_address) {
            (false, _) => None,
            (true, true) => payload
                .get(*company_field)
                .and_then(Value::as_str)
                .map(str::to_owned),
            (true, false) => rules
                .required_with(locator_field, form.text(locator_field), REQUIRED)
                .map(str::to_owned),
        };
        payload.insert((*locator_field).to_owned(), json!(value));
    }
    if has_ffl_sot {
        rules.required_with("fflNumber", form.text("fflNumber"), REQUIRED);
        // A rejected file already carries its own message, which `check` keeps.
        rules.check(form.has_file("fflDocument"), "fflDocument", REQUIRED);
    }
    payload.insert(
        "fflNumber".to_owned(),
        json!(optional(form.text("fflNumber"))),
    );
    payload.insert("sotEin".to_owned(), json!(optional(form.text("sotEin"))));
    let captcha_token = rules.required_with(
        "captcha",
        form.text("captcha"),
        "Please complete the reCAPTCHA",
    );
    rules.finish()?;
    state
        .db
        .call(|conn| captcha::require(conn, captcha_token))?;

    payload.insert(
        "fflDocument".to_owned(),
        json!(file_names(&form.files, "fflDocument")),
    );
    payload.insert(
        "sotDocument".to_owned(),
        json!(file_names(&form.files, "sotDocument")),
    );
    let payload = Value::Object(payload);
    save_application(&state, form.files, |conn| {
        insert_application(conn, "dealer", None, &payload)
    })
    .await?;
    Ok(message(
        "Thank you for registering. Our dealer team will review your application and contact you.",
    ))
}

// ---------------------------------------------------------------------------------------------
// Pro Deal.

/// `POST /Registration/prodeal` (multipart, signed in): `email` plus one or more
/// `supportingDocuments`. Sets the account's Pro Deal status to Pending; refused once Approved.
async fn pro_deal_application(
    State(state): State<Arc<SandboxState>>,
    user: AuthUser,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Json<Value>, SandboxError> {
    let multipart = multipart.map_err(multipart_rejection)?;
    let mut rules = Rules::default();
    let form = read_submission(multipart, &PRO_DEAL_UPLOADS, &mut rules).await?;
    let email = rules
        .email("email", "Email", form.text("email"))
        .map(str::to_owned);
    rules.check(
        !form.files.is_empty(),
        "supportingDocuments",
        "At least one supporting document is required",
    );
    rules.finish()?;

    let status: String = state.db.call(|conn| {
        conn.query_row(
            "SELECT pro_deal_status FROM users WHERE id = ?1",
            [user.id],
            |row| row.get(0),
        )
        .map_err(|_| SandboxError::Unauthorized("User not found".to_owned()))
    })?;
    if status == "Approved" {
        return Err(SandboxError::Conflict(
            "Your Pro Deal application has already been approved".to_owned(),
        ));
    }
    let payload = json!({
        "email": email,
        "supportingDocuments": file_names(&form.files, "supportingDocuments"),
    });
    save_application(&state, form.files, |conn| {
        let id = insert_application(conn, "prodeal", Some(user.id), &payload)?;
        conn.execute(
            "UPDATE users SET pro_deal_status = 'Pending' WHERE id = ?1 AND pro_deal_status != 'Approved'",
            [user.id],
        )?;
        Ok(id)
    })
    .await?;
    Ok(message(
        "Your Pro Deal application has been submitted and is pending verification.",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_follow_the_simple_pattern() {
        for good in ["a@b.co", "first.last+tag@sub.example.com", "X@Y.ORG"] {
            assert!(is_valid_email(good), "{good}");
        }
        for bad in [
            "", "plain", "@b.co", "a@", "a@b", "a@b.", "a@.b", "a b@c.de", "a@b@c.de",
        ] {
            assert!(!is_valid_email(bad), "{bad}");
        }
    }

    #[test]
    fn us_phones_have_ten_digits_and_an_optional_country_code() {
        for good in [
            "5551234567",
            "(555) 123-4567",
            "+1 555 123 4567",
            "1-555-123-4567",
            "555.123.4567",
        ] {
            assert!(is_valid_us_phone(good), "{good}");
        }
        for bad in ["", "555-1234", "25551234567", "555123456a", "555 123 45678"] {
            assert!(!is_valid_us_phone(bad), "{bad}");
        }
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
            "https://-bad.example",
            "https://dealer.example:port",
            "http://a..b",
        ] {
            assert!(!is_valid_url(bad), "{bad}");
        }
    }

    #[test]
    fn documents_are_recognised_by_extension_and_signature() {
        assert_eq!(
            DocumentKind::from_file_name("licence.PDF"),
            Some(DocumentKind::Pdf)
        );
        assert_eq!(
            DocumentKind::from_file_name("scan.tif"),
            Some(DocumentKind::Tiff)
        );
        assert_eq!(
            DocumentKind::from_file_name("badge.jpeg"),
            Some(DocumentKind::Jpeg)
        );
        assert_eq!(DocumentKind::from_file_name("setup.exe"), None);
        assert_eq!(DocumentKind::from_file_name("no-extension"), None);
        assert!(DocumentKind::Pdf.matches(b"%PDF-1.7\n"));
        assert!(!DocumentKind::Pdf.matches(b"MZ\x90\0"));
        assert!(DocumentKind::Tiff.matches(b"II*\0\x08\0\0\0"));
        assert!(DocumentKind::Tiff.matches(b"MM\0*\0\0\0\x08"));
        assert!(DocumentKind::Png.matches(b"\x89PNG\r\n\x1a\n...."));
        assert!(DocumentKind::Jpeg.matches(&[0xFF, 0xD8, 0xFF, 0xE0]));
        assert!(!DocumentKind::Jpeg.matches(b"\x89PNG\r\n\x1a\n"));
    }

    #[test]
    fn client_file_names_lose_their_directories() {
        assert_eq!(base_name("C:\\Users\\me\\licence.pdf"), "licence.pdf");
        assert_eq!(base_name("../../etc/passwd"), "passwd");
        assert_eq!(base_name("plain.pdf"), "plain.pdf");
    }

    #[test]
    fn rules_keep_the_first_message_per_field_in_order() {
        let mut rules = Rules::default();
        assert_eq!(
            rules.required("firstName", "First name", Some("  Ada ")),
            Some("Ada")
        );
        assert_eq!(rules.email("email", "Email", Some("nope")), None);
        assert_eq!(
            rules.new_password("password", "Password", Some("short")),
            None
        );
        rules.check(false, "email", "a second message");
        assert_eq!(rules.captcha(Some("  ")), None);
        let Err(SandboxError::Validation { message, errors }) = rules.finish() else {
            panic!("expected a validation error");
        };
        assert_eq!(message, "Email must be a valid email address");
        assert_eq!(errors.len(), 3);
        assert_eq!(errors["password"], PASSWORD_TOO_SHORT);
        assert_eq!(errors["captcha"], "Captcha is required");
        assert_eq!(errors["email"], "Email must be a valid email address");
    }

    #[test]
    fn passwords_are_counted_in_characters_and_not_trimmed() {
        let mut rules = Rules::default();
        assert_eq!(
            rules.new_password("p", "Password", Some("ééééééé ")),
            Some("ééééééé ")
        );
        assert!(rules.finish().is_ok());
        let mut rules = Rules::default();
        assert_eq!(rules.new_password("p", "Password", Some("")), None);
        assert!(rules.finish().is_err());
    }
}
