//! Multipart uploads for the forms (dealer registration, Pro Deal): each file is checked by
//! extension and by content (magic bytes) and read with its size limit enforced while reading,
//! so no more than the limit is ever buffered. A whole form is read and validated before
//! anything is sent upstream (nothing is forwarded when any part is invalid), then re-encoded as
//! one `multipart/form-data` body with the same field names.

pub mod spool;

pub use crate::config::UploadsConfig;

use std::collections::{BTreeMap, HashMap};

use axum::extract::multipart::{Field, Multipart, MultipartError, MultipartRejection};
use axum::http::{HeaderValue, StatusCode};
use bytes::{BufMut, Bytes, BytesMut};

use crate::http::error::ApiError;
use crate::http::request_body::{BodyReadTimeout, caused_by};

/// The most a text part may hold; form fields are short.
pub const MAX_TEXT_BYTES: usize = 16 * 1024;

/// A document type the forms accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Pdf,
    Tiff,
    Png,
    Jpeg,
}

impl FileKind {
    /// The kind a file name's extension claims (case-insensitive).
    pub fn from_file_name(file_name: &str) -> Option<Self> {
        let (_, extension) = file_name.rsplit_once('.')?;
        match extension.to_ascii_lowercase().as_str() {
            "pdf" => Some(Self::Pdf),
            "tif" | "tiff" => Some(Self::Tiff),
            "png" => Some(Self::Png),
            "jpg" | "jpeg" => Some(Self::Jpeg),
            _ => None,
        }
    }

    /// The kind the content's magic bytes say it is.
    pub fn sniff(content: &[u8]) -> Option<Self> {
        if content.starts_with(b"%PDF") {
            Some(Self::Pdf)
        } else if content.starts_with(b"II*\0") || content.starts_with(b"MM\0*") {
            Some(Self::Tiff)
        } else if content.starts_with(b"\x89PNG") {
            Some(Self::Png)
        } else if content.starts_with(b"\xFF\xD8\xFF") {
            Some(Self::Jpeg)
        } else {
            None
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Self::Pdf => "application/pdf",
            Self::Tiff => "image/tiff",
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Pdf => "PDF",
            Self::Tiff => "TIFF",
            Self::Png => "PNG",
            Self::Jpeg => "JPEG",
        }
    }
}

/// What a form accepts for its files.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    pub kinds: &'static [FileKind],
    /// Each file must be smaller than this many bytes.
    pub max_bytes_exclusive: usize,
    /// The limit as people read it ("0.5 MB").
    pub max_label: &'static str,
    /// The accepted extensions as people read them ("pdf, tif and tiff").
    pub accepted_label: &'static str,
}

impl Policy {
    /// The content types of the accepted kinds, for the document's multipart `encoding`. The
    /// files are judged by extension and content, not by their part's `Content-Type`, so this
    /// says what is accepted rather than what must be declared.
    pub fn content_types(&self) -> String {
        self.kinds
            .iter()
            .map(|kind| kind.content_type())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Which parts of a multipart form are read: the text parts named, and the file parts named
/// under `policy` (several files per name when `many`, else the last one wins). Parts with
/// other names are skipped unread.
#[derive(Debug, Clone, Copy)]
pub struct FormSpec<'a> {
    pub text_fields: &'a [&'a str],
    pub file_fields: &'a [&'a str],
    pub policy: &'a Policy,
    pub many: bool,
}

/// A form's parts as read: its text parts by name and its files, each already checked.
#[derive(Debug, Default)]
pub struct FormParts {
    pub text: HashMap<String, String>,
    pub files: Vec<Upload>,
}

impl FormParts {
    /// The text part `name`, as sent.
    pub fn take_text(&mut self, name: &str) -> Option<String> {
        self.text.remove(name)
    }

    /// The files sent under `name`, in the order sent.
    pub fn take_files(&mut self, name: &str) -> Vec<Upload> {
        let (taken, kept) = std::mem::take(&mut self.files)
            .into_iter()
            .partition(|file| file.field == name);
        self.files = kept;
        taken
    }

    /// The (last) file sent under `name`.
    pub fn take_file(&mut self, name: &str) -> Option<Upload> {
        self.take_files(name).pop()
    }
}

/// Reads a whole multipart form as `spec` says, each file checked while it streams in. On a
/// refused part the rest of the body is drained before answering.
pub async fn read_form(
    multipart: Result<Multipart, MultipartRejection>,
    spec: &FormSpec<'_>,
) -> Result<FormParts, UploadError> {
    let mut multipart = multipart?;
    let mut parts = FormParts::default();
    let outcome: Result<(), UploadError> = async {
        while let Some(field) = multipart.next_field().await? {
            let name = field.name().unwrap_or_default().to_owned();
            if spec.file_fields.contains(&name.as_str()) {
                if let Some(upload) = read_file(field, &name, spec.policy).await? {
                    if !spec.many {
                        parts.files.retain(|file| file.field != name);
                    }
                    parts.files.push(upload);
                }
            } else if spec.text_fields.contains(&name.as_str()) {
                let value = read_text(field, &name).await?;
                parts.text.insert(name, value);
            }
        }
        Ok(())
    }
    .await;
    if let Err(err) = outcome {
        drain(&mut multipart).await;
        return Err(err);
    }
    Ok(parts)
}

/// One accepted file, held in memory until the whole form is valid.
#[derive(Debug, Clone)]
pub struct Upload {
    pub field: String,
    pub file_name: String,
    pub kind: FileKind,
    pub content: Bytes,
}

/// An upload as a validation error's `value` describes it: its file name, never its content.
impl serde::Serialize for Upload {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.file_name)
    }
}

/// Why an upload was refused: 415 (type), 413 (size) or a malformed body, each a problem+json
/// naming the file under its field.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    #[error("{message}")]
    UnsupportedType { field: String, message: String },
    #[error("{message}")]
    TooLarge { field: String, message: String },
    #[error("{detail}")]
    Malformed { status: StatusCode, detail: String },
}

impl From<MultipartError> for UploadError {
    fn from(err: MultipartError) -> Self {
        // A body that stopped arriving in time is the client's slowness (408), which axum
        // reports as a 500 "failed to read stream".
        if caused_by::<BodyReadTimeout>(&err) {
            return Self::Malformed {
                status: StatusCode::REQUEST_TIMEOUT,
                detail: BodyReadTimeout.to_string(),
            };
        }
        Self::Malformed {
            status: err.status(),
            detail: err.body_text(),
        }
    }
}

impl From<MultipartRejection> for UploadError {
    fn from(err: MultipartRejection) -> Self {
        Self::Malformed {
            status: err.status(),
            detail: err.body_text(),
        }
    }
}

impl From<UploadError> for ApiError {
    fn from(err: UploadError) -> Self {
        let (status, code, detail, errors) = match err {
            UploadError::UnsupportedType { field, message } => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                message.clone(),
                Some(BTreeMap::from([(field, message)])),
            ),
            UploadError::TooLarge { field, message } => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                message.clone(),
                Some(BTreeMap::from([(field, message)])),
            ),
            UploadError::Malformed { status, detail } => {
                if status == StatusCode::REQUEST_TIMEOUT {
                    return ApiError::RequestTimeout;
                }
                let code = if status == StatusCode::PAYLOAD_TOO_LARGE {
                    "payload_too_large"
                } else {
                    "invalid_body"
                };
                (status, code, detail, None)
            }
        };
        ApiError::Refused {
            status,
            code,
            detail,
            errors,
            members: serde_json::Map::new(),
        }
    }
}

/// The client's file name without directories.
fn base_name(file_name: &str) -> &str {
    file_name.rsplit(['/', '\\']).next().unwrap_or(file_name)
}

/// Reads one file part under `policy`. `None` for an empty file input (no name, no bytes).
/// The extension is checked before reading, the size while reading (at most
/// `max_bytes_exclusive - 1` bytes are ever kept), the content once read.
pub async fn read_file(
    mut field: Field<'_>,
    name: &str,
    policy: &Policy,
) -> Result<Option<Upload>, UploadError> {
    let file_name = base_name(field.file_name().unwrap_or_default()).to_owned();
    let unsupported = |message: String| UploadError::UnsupportedType {
        field: name.to_owned(),
        message,
    };
    let claimed = FileKind::from_file_name(&file_name).filter(|kind| policy.kinds.contains(kind));
    if file_name.is_empty() {
        // An empty file input: accepted as "no file" only when it really is empty.
        while let Some(chunk) = field.chunk().await? {
            if !chunk.is_empty() {
                return Err(unsupported(format!(
                    "A file without a name is not accepted: only {} files are accepted",
                    policy.accepted_label
                )));
            }
        }
        return Ok(None);
    }
    let Some(claimed) = claimed else {
        return Err(unsupported(format!(
            "{file_name} is not an accepted file type: only {} files are accepted",
            policy.accepted_label
        )));
    };
    // Chunks as they come, copied once into a buffer of the file's size: a growing buffer
    // would hold up to twice the file while it doubles.
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut length = 0usize;
    while let Some(chunk) = field.chunk().await? {
        if length + chunk.len() >= policy.max_bytes_exclusive {
            return Err(UploadError::TooLarge {
                field: name.to_owned(),
                message: format!(
                    "{file_name} is too large: each file must be under {}",
                    policy.max_label
                ),
            });
        }
        length += chunk.len();
        chunks.push(chunk);
    }
    let content = match chunks.len() {
        1 => chunks.swap_remove(0),
        _ => {
            let mut content = BytesMut::with_capacity(length);
            for chunk in chunks.drain(..) {
                content.put(chunk);
            }
            content.freeze()
        }
    };
    if FileKind::sniff(&content) != Some(claimed) {
        return Err(unsupported(format!(
            "{file_name} is not a valid {} file",
            claimed.label()
        )));
    }
    Ok(Some(Upload {
        field: name.to_owned(),
        file_name,
        kind: claimed,
        content,
    }))
}

/// Reads one text part, refusing more than `MAX_TEXT_BYTES`.
pub async fn read_text(mut field: Field<'_>, name: &str) -> Result<String, UploadError> {
    let mut content = BytesMut::new();
    while let Some(chunk) = field.chunk().await? {
        if content.len() + chunk.len() > MAX_TEXT_BYTES {
            return Err(UploadError::TooLarge {
                field: name.to_owned(),
                message: format!("{name} is too long"),
            });
        }
        content.put(chunk);
    }
    String::from_utf8(content.to_vec()).map_err(|_| UploadError::Malformed {
        status: StatusCode::BAD_REQUEST,
        detail: format!("{name} is not valid UTF-8 text"),
    })
}

/// Reads and discards what is left of a refused request (bounded by the server's body limit
/// and request timeout), so the client gets the answer instead of a reset connection.
pub async fn drain(multipart: &mut Multipart) {
    while let Ok(Some(mut field)) = multipart.next_field().await {
        while let Ok(Some(_)) = field.chunk().await {}
    }
}

/// A `multipart/form-data` body to send upstream.
#[derive(Debug, Default)]
pub struct FormBody {
    texts: Vec<(String, String)>,
    files: Vec<Upload>,
}

impl FormBody {
    pub fn text(&mut self, name: &str, value: &str) {
        self.texts.push((name.to_owned(), value.to_owned()));
    }

    pub fn file(&mut self, upload: Upload) {
        self.files.push(upload);
    }

    /// The body and its `Content-Type` (with a random boundary that occurs in no part). Built
    /// in one allocation of its exact size, each file given up once it is copied, so a form
    /// costs its size once more while it is sent, never a doubling buffer's worth.
    pub fn encode(self) -> (HeaderValue, Bytes) {
        let mut boundary = new_boundary();
        while self.contains(&boundary) {
            boundary = new_boundary();
        }
        let mut pieces: Vec<(String, Bytes)> = Vec::new();
        for (name, value) in &self.texts {
            let head = format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{}\"\r\n\r\n",
                quoted(name)
            );
            pieces.push((head, Bytes::from(value.clone())));
        }
        for upload in self.files {
            let head = format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{}\"; filename=\"{}\"\r\nContent-Type: {}\r\n\r\n",
                quoted(&upload.field),
                quoted(&upload.file_name),
                upload.kind.content_type()
            );
            pieces.push((head, upload.content));
        }
        let closing = format!("--{boundary}--\r\n");
        let size = pieces
            .iter()
            .map(|(head, content)| head.len() + content.len() + 2)
            .sum::<usize>()
            + closing.len();
        let mut body = BytesMut::with_capacity(size);
        for (head, content) in pieces {
            body.put_slice(head.as_bytes());
            body.put_slice(&content);
            body.put_slice(b"\r\n");
        }
        body.put_slice(closing.as_bytes());
        let content_type =
            HeaderValue::from_str(&format!("multipart/form-data; boundary={boundary}"))
                .unwrap_or_else(|_| HeaderValue::from_static("multipart/form-data"));
        (content_type, body.freeze())
    }

    fn contains(&self, boundary: &str) -> bool {
        let needle = boundary.as_bytes();
        let found = |haystack: &[u8]| memchr::memmem::find(haystack, needle).is_some();
        self.texts
            .iter()
            .any(|(name, value)| found(name.as_bytes()) || found(value.as_bytes()))
            || self
                .files
                .iter()
                .any(|upload| found(&upload.content) || found(upload.file_name.as_bytes()))
    }
}

fn new_boundary() -> String {
    format!("----bff-{}", uuid::Uuid::new_v4().simple())
}

/// A value inside a quoted header parameter, escaped as browsers do.
fn quoted(value: &str) -> String {
    value
        .replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_bytes_identify_the_accepted_kinds() {
        assert_eq!(FileKind::sniff(b"%PDF-1.7"), Some(FileKind::Pdf));
        assert_eq!(FileKind::sniff(b"II*\0rest"), Some(FileKind::Tiff));
        assert_eq!(FileKind::sniff(b"MM\0*rest"), Some(FileKind::Tiff));
        assert_eq!(FileKind::sniff(b"\x89PNG\r\n"), Some(FileKind::Png));
        assert_eq!(FileKind::sniff(b"\xFF\xD8\xFF\xE0"), Some(FileKind::Jpeg));
        assert_eq!(FileKind::sniff(b"MZ\x90\0"), None);
    }

    #[test]
    fn extensions_are_read_case_insensitively() {
        assert_eq!(FileKind::from_file_name("a.TIF"), Some(FileKind::Tiff));
        assert_eq!(FileKind::from_file_name("a.jpeg"), Some(FileKind::Jpeg));
        assert_eq!(FileKind::from_file_name("a.exe"), None);
        assert_eq!(FileKind::from_file_name("pdf"), None);
        assert_eq!(base_name("C:\\docs\\licence.pdf"), "licence.pdf");
    }

    fn upload(field: &str, file_name: &str) -> Upload {
        Upload {
            field: field.to_owned(),
            file_name: file_name.to_owned(),
            kind: FileKind::Pdf,
            content: Bytes::from_static(b"%PDF-1.4"),
        }
    }

    #[test]
    fn parts_are_taken_by_name() {
        let mut parts = FormParts {
            text: HashMap::from([("a".to_owned(), "1".to_owned())]),
            files: vec![
                upload("doc", "1.pdf"),
                upload("other", "2.pdf"),
                upload("doc", "3.pdf"),
            ],
        };
        assert_eq!(parts.take_text("a").as_deref(), Some("1"));
        assert_eq!(parts.take_text("a"), None);
        let docs: Vec<String> = parts
            .take_files("doc")
            .into_iter()
            .map(|f| f.file_name)
            .collect();
        assert_eq!(docs, ["1.pdf", "3.pdf"]);
        assert_eq!(
            parts.take_file("other").map(|f| f.file_name).as_deref(),
            Some("2.pdf")
        );
        assert!(parts.files.is_empty());
    }

    #[test]
    fn a_policy_lists_its_content_types() {
        let policy = Policy {
            kinds: &[FileKind::Pdf, FileKind::Tiff],
            max_bytes_exclusive: 1,
            max_label: "1 B",
            accepted_label: "pdf, tif and tiff",
        };
        assert_eq!(policy.content_types(), "application/pdf, image/tiff");
    }

    #[test]
    fn the_encoded_body_has_every_part() {
        let mut form = FormBody::default();
        form.text("email", "a@b.example");
        form.file(Upload {
            field: "doc".to_owned(),
            file_name: "x\".pdf".to_owned(),
            kind: FileKind::Pdf,
            content: Bytes::from_static(b"%PDF-1.4"),
        });
        let (content_type, body) = form.encode();
        let text = String::from_utf8_lossy(&body);
        let content_type = content_type.to_str().unwrap_or_default();
        let boundary = content_type.rsplit('=').next().unwrap_or_default();
        assert!(text.contains("name=\"email\"\r\n\r\na@b.example\r\n"));
        assert!(text.contains("filename=\"x%22.pdf\""));
        assert!(text.ends_with(&format!("--{boundary}--\r\n")));
    }
}
