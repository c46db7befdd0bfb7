//! Dealer registration: the form's text parts and its FFL and SOT documents, checked by the
//! shopping spec's rules (section 5), sent on anonymously.

use axum::extract::multipart::{Multipart, MultipartRejection};
use utoipa::ToSchema;
use validator::{Validate, ValidationError};

use super::{MessageAnswer, Shopper, post_form};
use crate::http::error::ApiError;
use crate::http::uploads::{self, FileKind, FormBody, FormParts, FormSpec, Policy, Upload};
use crate::http::validation::{field_errors, rules};
use crate::upstream::UpstreamPath;

const DEALER_REGISTRATIONS: &str = "Registration/dealer";

/// Dealer documents: pdf, tif, tiff, each under 10 MB (the commerce API's own limit).
pub const DEALER_DOCUMENTS: Policy = Policy {
    kinds: &[FileKind::Pdf, FileKind::Tiff],
    max_bytes_exclusive: 10_000_000,
    max_label: "10 MB",
    accepted_label: "pdf, tif and tiff",
};

/// The shopping spec's message for every missing dealer field.
const REQUIRED: &str = "Required";

/// The dealer registration form, one part per field (text parts as `FormData` sends them).
/// Each text part holds at most 16 KiB (413 otherwise); parts with other names are ignored.
/// Text values are trimmed before they are checked; a required part must not be blank. Both
/// documents are pdf, tif or tiff files, each under 10 MB, checked by extension and by content:
/// another type is a 415, a larger file a 413, each naming the file under its part.
#[derive(Debug, Default, Validate, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct DealerRegistrationForm {
    #[schema(min_length = 1, pattern = r"\S")]
    #[validate(length(min = 1, message = "Required"))]
    company: String,
    /// A website: optional `http://` or `https://`, a dotted host name whose last label is
    /// letters only, an optional port, an optional path.
    #[schema(
        pattern = r"^\s*(?:[Hh][Tt][Tt][Pp][Ss]?://)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}(?::[0-9]{1,5})?(?:[/?#]\S*)?\s*$",
        examples("https://ridge.example")
    )]
    #[validate(
        length(min = 1, message = "Required"),
        custom(function = "website", message = "Website must be a valid URL")
    )]
    website: String,
    /// A US phone number: 10 digits, optionally preceded by 1 or +1, with spaces, dashes,
    /// dots or parentheses between them.
    #[schema(
        pattern = r"^\s*[ ().+-]*(?:1[ ().+-]*)?(?:[0-9][ ().+-]*){10}\s*$",
        examples("(208) 555-0100")
    )]
    #[validate(
        length(min = 1, message = "Required"),
        custom(function = "rules::us_phone")
    )]
    phone: String,
    #[schema(min_length = 1, format = Email)]
    #[validate(
        length(min = 1, message = "Required"),
        custom(
            function = "rules::email",
            message = "Email must be a valid email address"
        )
    )]
    email: String,
    #[schema(min_length = 1, pattern = r"\S")]
    #[validate(length(min = 1, message = "Required"))]
    first_name: String,
    #[schema(min_length = 1, pattern = r"\S")]
    #[validate(length(min = 1, message = "Required"))]
    last_name: String,
    #[schema(min_length = 1, pattern = r"\S")]
    #[validate(length(min = 1, message = "Required"))]
    street_address: String,
    #[schema(min_length = 1, pattern = r"\S")]
    #[validate(length(min = 1, message = "Required"))]
    city: String,
    #[schema(min_length = 1, pattern = r"\S")]
    #[validate(length(min = 1, message = "Required"))]
    state: String,
    #[schema(min_length = 1, pattern = r"\S")]
    #[validate(length(min = 1, message = "Required"))]
    postal_code: String,
    #[schema(min_length = 1, pattern = r"\S")]
    #[validate(length(min = 1, message = "Required"))]
    country: String,
    /// Whether the dealer is listed in the dealer locator: `true`, `on`, `1`, `false`, `off` or
    /// `0` (any case); absent or blank means true.
    #[schema(
        required = false,
        nullable = false,
        pattern = r"^\s*(?:[Tt][Rr][Uu][Ee]|[Oo][Nn]|1|[Ff][Aa][Ll][Ss][Ee]|[Oo][Ff][Ff]|0)?\s*$",
        examples("true")
    )]
    #[validate(custom(function = "flag"))]
    appear_in_dealer_locator: Option<String>,
    /// Whether the locator shows the address above: a flag as `appearInDealerLocator`;
    /// absent or blank means true. When false (and the dealer is listed) every `locator*` part
    /// is required.
    #[schema(
        required = false,
        nullable = false,
        pattern = r"^\s*(?:[Tt][Rr][Uu][Ee]|[Oo][Nn]|1|[Ff][Aa][Ll][Ss][Ee]|[Oo][Ff][Ff]|0)?\s*$",
        examples("true")
    )]
    #[validate(custom(function = "flag"))]
    use_this_address_in_dealer_locator: Option<String>,
    /// Required when the locator shows a separate address.
    #[schema(required = false, nullable = false)]
    locator_street_address: Option<String>,
    /// Required when the locator shows a separate address.
    #[schema(required = false, nullable = false)]
    locator_city: Option<String>,
    /// Required when the locator shows a separate address.
    #[schema(required = false, nullable = false)]
    locator_state: Option<String>,
    /// Required when the locator shows a separate address.
    #[schema(required = false, nullable = false)]
    locator_postal_code: Option<String>,
    /// Required when the locator shows a separate address.
    #[schema(required = false, nullable = false)]
    locator_country: Option<String>,
    /// Whether the dealer holds an FFL/SOT: a flag as `appearInDealerLocator`; absent or blank
    /// means false. When true, `fflNumber` and `fflDocument` are required.
    #[schema(
        required = false,
        nullable = false,
        pattern = r"^\s*(?:[Tt][Rr][Uu][Ee]|[Oo][Nn]|1|[Ff][Aa][Ll][Ss][Ee]|[Oo][Ff][Ff]|0)?\s*$",
        examples("false")
    )]
    #[validate(custom(function = "flag"))]
    has_ffl_sot: Option<String>,
    /// The FFL number; required when `hasFflSot` is true.
    #[schema(required = false, nullable = false)]
    ffl_number: Option<String>,
    /// The SOT EIN, if any.
    #[schema(required = false, nullable = false)]
    sot_ein: Option<String>,
    /// The reCAPTCHA response token; a token the captcha service refuses is a 422 on `captcha`.
    #[schema(min_length = 1, pattern = r"\S")]
    #[validate(length(min = 1, message = "Please complete the reCAPTCHA"))]
    captcha: String,
    /// The FFL licence (pdf, tif or tiff, under 10 MB); required when `hasFflSot` is true. If
    /// the part is sent twice, the last one counts; an empty file input counts as none.
    #[schema(required = false, value_type = String, format = Binary)]
    ffl_document: Option<Upload>,
    /// The SOT document (pdf, tif or tiff, under 10 MB), if any. If the part is sent twice, the
    /// last one counts; an empty file input counts as none.
    #[schema(required = false, value_type = String, format = Binary)]
    sot_document: Option<Upload>,
}

impl DealerRegistrationForm {
    /// The text parts read, in the order they are forwarded.
    pub const TEXT_PARTS: [&'static str; 22] = [
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

    /// The file parts read.
    pub const FILE_PARTS: [&'static str; 2] = ["fflDocument", "sotDocument"];

    /// Reads the form (each file checked while it streams in) and checks its rules: a 422 with
    /// one message per field when any is broken.
    pub async fn read(multipart: Result<Multipart, MultipartRejection>) -> Result<Self, ApiError> {
        let spec = FormSpec {
            text_fields: &Self::TEXT_PARTS,
            file_fields: &Self::FILE_PARTS,
            policy: &DEALER_DOCUMENTS,
            many: false,
        };
        let form = Self::from_parts(uploads::read_form(multipart, &spec).await?);
        form.check()?;
        Ok(form)
    }

    /// The form from its parts: text values trimmed, a blank one counting as absent.
    fn from_parts(mut parts: FormParts) -> Self {
        let ffl_document = parts.take_file("fflDocument");
        let sot_document = parts.take_file("sotDocument");
        let mut text = |name: &str| {
            parts
                .take_text(name)
                .map(|value| value.trim().to_owned())
                .filter(|value| !value.is_empty())
        };
        Self {
            company: text("company").unwrap_or_default(),
            website: text("website").unwrap_or_default(),
            phone: text("phone").unwrap_or_default(),
            email: text("email").unwrap_or_default(),
            first_name: text("firstName").unwrap_or_default(),
            last_name: text("lastName").unwrap_or_default(),
            street_address: text("streetAddress").unwrap_or_default(),
            city: text("city").unwrap_or_default(),
            state: text("state").unwrap_or_default(),
            postal_code: text("postalCode").unwrap_or_default(),
            country: text("country").unwrap_or_default(),
            appear_in_dealer_locator: text("appearInDealerLocator"),
            use_this_address_in_dealer_locator: text("useThisAddressInDealerLocator"),
            locator_street_address: text("locatorStreetAddress"),
            locator_city: text("locatorCity"),
            locator_state: text("locatorState"),
            locator_postal_code: text("locatorPostalCode"),
            locator_country: text("locatorCountry"),
            has_ffl_sot: text("hasFflSot"),
            ffl_number: text("fflNumber"),
            sot_ein: text("sotEin"),
            captcha: text("captcha").unwrap_or_default(),
            ffl_document,
            sot_document,
        }
    }

    /// The text parts to forward, by part name (in [`Self::TEXT_PARTS`] order); absent ones
    /// are not sent.
    fn text_parts(&self) -> [(&'static str, Option<&str>); 22] {
        [
            ("company", Some(self.company.as_str())),
            ("website", Some(self.website.as_str())),
            ("phone", Some(self.phone.as_str())),
            ("email", Some(self.email.as_str())),
            ("firstName", Some(self.first_name.as_str())),
            ("lastName", Some(self.last_name.as_str())),
            ("streetAddress", Some(self.street_address.as_str())),
            ("city", Some(self.city.as_str())),
            ("state", Some(self.state.as_str())),
            ("postalCode", Some(self.postal_code.as_str())),
            ("country", Some(self.country.as_str())),
            (
                "appearInDealerLocator",
                self.appear_in_dealer_locator.as_deref(),
            ),
            (
                "useThisAddressInDealerLocator",
                self.use_this_address_in_dealer_locator.as_deref(),
            ),
            (
                "locatorStreetAddress",
                self.locator_street_address.as_deref(),
            ),
            ("locatorCity", self.locator_city.as_deref()),
            ("locatorState", self.locator_state.as_deref()),
            ("locatorPostalCode", self.locator_postal_code.as_deref()),
            ("locatorCountry", self.locator_country.as_deref()),
            ("hasFflSot", self.has_ffl_sot.as_deref()),
            ("fflNumber", self.ffl_number.as_deref()),
            ("sotEin", self.sot_ein.as_deref()),
            ("captcha", Some(self.captcha.as_str())),
        ]
    }

    /// Listed in the dealer locator (default true; an invalid flag counts as the default).
    fn appears_in_locator(&self) -> bool {
        flag_or(self.appear_in_dealer_locator.as_deref(), true)
    }

    /// The locator shows the address above (default true).
    fn locator_uses_this_address(&self) -> bool {
        flag_or(self.use_this_address_in_dealer_locator.as_deref(), true)
    }

    /// Holds an FFL/SOT (default false).
    fn holds_ffl_sot(&self) -> bool {
        flag_or(self.has_ffl_sot.as_deref(), false)
    }

    /// The form's rules (shopping spec, section 5): each field's own (`validator`), then the
    /// parts the flags make required. One message per field: a field's own rule comes first.
    fn check(&self) -> Result<(), ApiError> {
        let mut errors = self.validate().err().unwrap_or_default();
        let required = || failure("required", REQUIRED);
        if self.appears_in_locator() && !self.locator_uses_this_address() {
            for (field, value) in [
                ("locator_street_address", &self.locator_street_address),
                ("locator_city", &self.locator_city),
                ("locator_state", &self.locator_state),
                ("locator_postal_code", &self.locator_postal_code),
                ("locator_country", &self.locator_country),
            ] {
                if value.is_none() {
                    errors.add(field, required());
                }
            }
        }
        if self.holds_ffl_sot() {
            if self.ffl_number.is_none() {
                errors.add("ffl_number", required());
            }
            if self.ffl_document.is_none() {
                errors.add("ffl_document", required());
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Validation(field_errors(&errors)))
        }
    }

    /// The multipart body commerce receives: the same part names, text values trimmed.
    fn into_body(self) -> FormBody {
        let mut body = FormBody::default();
        for (name, value) in self.text_parts() {
            if let Some(value) = value {
                body.text(name, value);
            }
        }
        for file in [self.ffl_document, self.sot_document].into_iter().flatten() {
            body.file(file);
        }
        body
    }
}

/// Registers a dealer (anonymously).
pub async fn register_dealer(
    shopper: &Shopper,
    form: DealerRegistrationForm,
) -> Result<MessageAnswer, ApiError> {
    let path = UpstreamPath::fixed(DEALER_REGISTRATIONS);
    let body = form.into_body().encode();
    Ok(post_form(shopper.upstream(), &path, None, body, shopper.request_id()).await?)
}

// ---------------------------------------------------------------------------------------------
// The form's own rules.

fn failure(code: &'static str, message: &'static str) -> ValidationError {
    ValidationError::new(code).with_message(message.into())
}

/// A website: optional `http(s)://`, a dotted host name, optional port and path.
fn is_website(value: &str) -> bool {
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

/// `validator` rule: a website (the form words the message).
fn website(value: &str) -> Result<(), ValidationError> {
    if is_website(value) {
        Ok(())
    } else {
        Err(failure("website", "Must be a valid URL"))
    }
}

/// A flag as `FormData` sends it (already trimmed, never blank); `None` when it is no flag.
fn parse_flag(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "on" | "1" => Some(true),
        "false" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// An absent or invalid flag takes the default (an invalid one is refused by [`flag`] anyway).
fn flag_or(value: Option<&str>, default: bool) -> bool {
    value.and_then(parse_flag).unwrap_or(default)
}

/// `validator` rule: a flag.
fn flag(value: &str) -> Result<(), ValidationError> {
    match parse_flag(value) {
        Some(_) => Ok(()),
        None => Err(failure("flag", "Must be true or false")),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use bytes::Bytes;

    use super::*;
    use crate::commerce::forms::testing::{names, schema_json, sorted};

    const DEALER_REQUIRED: [&str; 11] = [
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

    fn pdf(field: &str) -> Upload {
        Upload {
            field: field.to_owned(),
            file_name: format!("{field}.pdf"),
            kind: FileKind::Pdf,
            content: Bytes::from_static(b"%PDF-1.4"),
        }
    }

    fn parts(text: &[(&str, &str)], files: Vec<Upload>) -> FormParts {
        FormParts {
            text: text
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect::<HashMap<_, _>>(),
            files,
        }
    }

    fn valid_dealer() -> Vec<(&'static str, &'static str)> {
        vec![
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
    }

    fn dealer_errors(text: &[(&str, &str)], files: Vec<Upload>) -> BTreeMap<String, String> {
        match DealerRegistrationForm::from_parts(parts(text, files)).check() {
            Ok(()) => BTreeMap::new(),
            Err(ApiError::Validation(errors)) => errors,
            Err(other) => panic!("not a validation error: {other:?}"),
        }
    }

    #[test]
    fn the_documented_dealer_form_lists_the_parts_the_form_reads() {
        let schema = schema_json::<DealerRegistrationForm>();
        assert_eq!(
            names(&schema["properties"]),
            sorted(
                DealerRegistrationForm::TEXT_PARTS
                    .iter()
                    .chain(&DealerRegistrationForm::FILE_PARTS)
                    .copied()
            )
        );
        assert_eq!(
            names(&schema["required"]),
            sorted(DEALER_REQUIRED.iter().copied().chain(["captcha"]))
        );
        let description = schema["description"].as_str().unwrap_or_default();
        assert!(description.contains(DEALER_DOCUMENTS.max_label));
        assert!(description.contains(&format!("{} KiB", uploads::MAX_TEXT_BYTES / 1024)));
    }

    #[test]
    fn every_text_part_read_is_forwarded_under_its_own_name() {
        // Each part gets a distinct value; the form must give each back under the same name.
        let text: Vec<(&str, String)> = DealerRegistrationForm::TEXT_PARTS
            .iter()
            .map(|name| (*name, format!("value of {name}")))
            .collect();
        let text: Vec<(&str, &str)> = text.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let form = DealerRegistrationForm::from_parts(parts(&text, Vec::new()));
        let forwarded: Vec<(&str, Option<&str>)> = form.text_parts().to_vec();
        let expected: Vec<(&str, Option<&str>)> = text
            .iter()
            .map(|(name, value)| (*name, Some(*value)))
            .collect();
        assert_eq!(forwarded, expected);
    }

    #[test]
    fn text_is_trimmed_and_blank_counts_as_absent() {
        let form = DealerRegistrationForm::from_parts(parts(
            &[
                ("company", "  Acme  "),
                ("sotEin", "   "),
                ("fflNumber", " 1-2 "),
            ],
            Vec::new(),
        ));
        assert_eq!(form.company, "Acme");
        assert_eq!(form.sot_ein, None);
        assert_eq!(form.ffl_number.as_deref(), Some("1-2"));
    }

    #[test]
    fn a_complete_dealer_form_passes() {
        assert!(dealer_errors(&valid_dealer(), Vec::new()).is_empty());
    }

    #[test]
    fn an_empty_dealer_form_names_every_required_part() {
        let errors = dealer_errors(&[], Vec::new());
        let mut expected: BTreeMap<String, String> = DEALER_REQUIRED
            .iter()
            .map(|name| ((*name).to_owned(), REQUIRED.to_owned()))
            .collect();
        expected.insert(
            "captcha".to_owned(),
            "Please complete the reCAPTCHA".to_owned(),
        );
        assert_eq!(errors, expected);
    }

    #[test]
    fn format_rules_have_the_specs_messages() {
        let mut text = valid_dealer();
        text.retain(|(name, _)| !matches!(*name, "website" | "phone" | "email"));
        text.extend([
            ("website", "not a site"),
            ("phone", "555-1234"),
            ("email", "nope"),
            ("hasFflSot", "maybe"),
        ]);
        let errors = dealer_errors(&text, Vec::new());
        assert_eq!(
            errors,
            BTreeMap::from(
                [
                    ("website", "Website must be a valid URL"),
                    ("phone", "Must be a valid phone number"),
                    ("email", "Email must be a valid email address"),
                    ("hasFflSot", "Must be true or false"),
                ]
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
            )
        );
    }

    #[test]
    fn the_locator_address_is_required_only_for_a_separate_locator_address() {
        let mut text = valid_dealer();
        text.push(("useThisAddressInDealerLocator", "false"));
        let errors = dealer_errors(&text, Vec::new());
        assert_eq!(
            errors.keys().collect::<Vec<_>>(),
            [
                "locatorCity",
                "locatorCountry",
                "locatorPostalCode",
                "locatorState",
                "locatorStreetAddress"
            ]
        );
        assert!(errors.values().all(|message| message == REQUIRED));
        // Not listed in the locator: no locator address needed.
        text.push(("appearInDealerLocator", "off"));
        assert!(dealer_errors(&text, Vec::new()).is_empty());
    }

    #[test]
    fn an_ffl_holder_needs_the_number_and_the_licence() {
        let mut text = valid_dealer();
        text.push(("hasFflSot", "on"));
        let errors = dealer_errors(&text, Vec::new());
        assert_eq!(errors.get("fflNumber").map(String::as_str), Some(REQUIRED));
        assert_eq!(
            errors.get("fflDocument").map(String::as_str),
            Some(REQUIRED)
        );
        text.push(("fflNumber", "1-23"));
        assert!(dealer_errors(&text, vec![pdf("fflDocument")]).is_empty());
    }

    #[test]
    fn the_forwarded_body_has_the_trimmed_parts_and_the_documents() {
        let mut text = valid_dealer();
        text.push(("company", "  Acme Arms  "));
        text.push(("sotEin", " "));
        let form = DealerRegistrationForm::from_parts(parts(
            &text,
            vec![pdf("fflDocument"), pdf("sotDocument")],
        ));
        let (content_type, body) = form.into_body().encode();
        let body = String::from_utf8_lossy(&body);
        assert!(
            content_type
                .to_str()
                .is_ok_and(|ct| ct.starts_with("multipart/form-data"))
        );
        assert!(body.contains("name=\"company\"\r\n\r\nAcme Arms\r\n"));
        assert!(!body.contains("name=\"sotEin\""));
        assert!(body.contains("filename=\"fflDocument.pdf\""));
        assert!(body.contains("filename=\"sotDocument.pdf\""));
    }

    #[test]
    fn websites_need_a_dotted_host() {
        for good in [
            "https://dealer.example",
            "http://dealer.example:8080/path?q=1",
            "www.dealer.example",
            "dealer-one.example/about",
        ] {
            assert!(is_website(good), "{good}");
        }
        for bad in [
            "",
            "dealer",
            "https://",
            "https://dealer .example",
            "ftp//x",
        ] {
            assert!(!is_website(bad), "{bad}");
        }
    }
}
