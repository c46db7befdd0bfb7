//! Pro Deal applications: the signed-in account's supporting documents, sent on as the user.

use axum::extract::multipart::{Multipart, MultipartRejection};
use utoipa::ToSchema;
use validator::Validate;

use super::{MessageAnswer, Shopper, post_form};
use crate::http::error::ApiError;
use crate::http::uploads::{self, FileKind, FormBody, FormSpec, Policy, Upload};
use crate::http::validation::field_errors;
use crate::session::UserTokens;
use crate::upstream::UpstreamPath;

const PRO_DEAL_APPLICATIONS: &str = "Registration/prodeal";

/// Pro Deal documents: png, jpg, jpeg, tiff, tif, pdf, each under 0.5 MB (the account spec's
/// limit: fewer than 512000 bytes).
pub const PRO_DEAL_DOCUMENTS: Policy = Policy {
    kinds: &[FileKind::Png, FileKind::Jpeg, FileKind::Tiff, FileKind::Pdf],
    max_bytes_exclusive: 512_000,
    max_label: "0.5 MB",
    accepted_label: "png, jpg, jpeg, tiff, tif and pdf",
};

/// A Pro Deal application: the supporting documents only; the application is made for the
/// signed-in account's e-mail address, and other parts are ignored. Each document is a png,
/// jpg, jpeg, tiff, tif or pdf file under 0.5 MB (fewer than 512000 bytes), checked by
/// extension and by content: another type is a 415, a larger file a 413, each naming the file.
#[derive(Debug, Validate, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct ProDealForm {
    /// The signed-in account's address (not a part of the request).
    #[schema(ignore)]
    #[validate(length(min = 1, message = "Your account needs an e-mail address to apply"))]
    email: String,
    /// One part per document, all under this name; at least one (empty file inputs do not
    /// count).
    #[schema(value_type = Vec<String>, format = Binary, min_items = 1)]
    #[validate(length(min = 1, message = "At least one supporting document is required"))]
    supporting_documents: Vec<Upload>,
}

impl ProDealForm {
    /// The file parts read.
    pub const FILE_PARTS: [&'static str; 1] = ["supportingDocuments"];

    /// Reads `user`'s application (each file checked while it streams in) and checks it: a 422
    /// without a document or when the account has no e-mail address.
    pub async fn read(
        user: &UserTokens,
        multipart: Result<Multipart, MultipartRejection>,
    ) -> Result<Self, ApiError> {
        let spec = FormSpec {
            text_fields: &[],
            file_fields: &Self::FILE_PARTS,
            policy: &PRO_DEAL_DOCUMENTS,
            many: true,
        };
        let mut parts = uploads::read_form(multipart, &spec).await?;
        let form = Self {
            email: user.email.trim().to_owned(),
            supporting_documents: parts.take_files("supportingDocuments"),
        };
        form.validate()
            .map_err(|errors| ApiError::Validation(field_errors(&errors)))?;
        Ok(form)
    }

    fn into_body(self) -> FormBody {
        let mut body = FormBody::default();
        body.text("email", &self.email);
        for file in self.supporting_documents {
            body.file(file);
        }
        body
    }
}

/// Applies for the Pro Deal as `user` (bearer injected, refreshed and retried once as every
/// user call is); the account's Pro Deal status becomes pending.
pub async fn apply_for_pro_deal(
    shopper: &Shopper,
    user: UserTokens,
    form: ProDealForm,
) -> Result<MessageAnswer, ApiError> {
    let path = UpstreamPath::fixed(PRO_DEAL_APPLICATIONS);
    let body = form.into_body().encode();
    let (upstream, path, request_id) = (shopper.upstream(), &path, shopper.request_id());
    shopper
        .with_user(user, |bearer| {
            let body = body.clone();
            async move { post_form(upstream, path, Some(&bearer), body, request_id).await }
        })
        .await
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::commerce::forms::testing::{names, schema_json, sorted};

    #[test]
    fn the_documented_pro_deal_form_lists_the_parts_the_form_reads() {
        let schema = schema_json::<ProDealForm>();
        assert_eq!(
            names(&schema["properties"]),
            sorted(ProDealForm::FILE_PARTS)
        );
        assert_eq!(names(&schema["required"]), sorted(ProDealForm::FILE_PARTS));
        let description = schema["description"].as_str().unwrap_or_default();
        assert!(description.contains(PRO_DEAL_DOCUMENTS.max_label));
        assert!(description.contains(&PRO_DEAL_DOCUMENTS.max_bytes_exclusive.to_string()));
    }

    #[test]
    fn a_pro_deal_form_needs_a_document_and_an_address() {
        let form = ProDealForm {
            email: String::new(),
            supporting_documents: Vec::new(),
        };
        let errors = field_errors(&form.validate().err().unwrap_or_default());
        assert_eq!(
            errors,
            BTreeMap::from([
                (
                    "email".to_owned(),
                    "Your account needs an e-mail address to apply".to_owned()
                ),
                (
                    "supportingDocuments".to_owned(),
                    "At least one supporting document is required".to_owned()
                ),
            ])
        );
    }
}
