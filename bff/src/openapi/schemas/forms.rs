//! The `multipart/form-data` bodies of the two upload forms. They exist for the document only:
//! the handlers (`crate::routes::forms`) read the parts one at a time, checking each file while
//! it streams in, so no Rust type ever holds a whole form. The tests in `crate::routes::forms`
//! check these lists against the parts the handlers really read.

use utoipa::ToSchema;

/// The dealer registration form, one part per field (text parts as `FormData` sends them).
/// Each text part holds at most 16 KiB (413 otherwise); parts with other names are ignored.
/// Text values are trimmed before they are checked; a required part must not be blank. Both
/// documents are pdf, tif or tiff files, each under 10 MB, checked by extension and by content:
/// another type is a 415, a larger file a 413, each naming the file under its part.
#[derive(ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)] // documentation only: the handler reads the parts one by one
pub struct DealerRegistrationForm {
    #[schema(min_length = 1, pattern = r"\S")]
    company: String,
    /// A website: optional `http://` or `https://`, a dotted host name whose last label is
    /// letters only, an optional port, an optional path.
    #[schema(
        pattern = r"^\s*(?:[Hh][Tt][Tt][Pp][Ss]?://)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}(?::[0-9]{1,5})?(?:[/?#]\S*)?\s*$",
        examples("https://ridge.example")
    )]
    website: String,
    /// A US phone number: 10 digits, optionally preceded by 1 or +1, with spaces, dashes,
    /// dots or parentheses between them.
    #[schema(
        pattern = r"^\s*[ ().+-]*(?:1[ ().+-]*)?(?:[0-9][ ().+-]*){10}\s*$",
        examples("(208) 555-0100")
    )]
    phone: String,
    #[schema(min_length = 1, format = Email)]
    email: String,
    #[schema(min_length = 1, pattern = r"\S")]
    first_name: String,
    #[schema(min_length = 1, pattern = r"\S")]
    last_name: String,
    #[schema(min_length = 1, pattern = r"\S")]
    street_address: String,
    #[schema(min_length = 1, pattern = r"\S")]
    city: String,
    #[schema(min_length = 1, pattern = r"\S")]
    state: String,
    #[schema(min_length = 1, pattern = r"\S")]
    postal_code: String,
    #[schema(min_length = 1, pattern = r"\S")]
    country: String,
    /// Whether the dealer is listed in the dealer locator: `true`, `on`, `1`, `false`, `off` or
    /// `0` (any case); absent or blank means true.
    #[schema(
        required = false,
        pattern = r"^\s*(?:[Tt][Rr][Uu][Ee]|[Oo][Nn]|1|[Ff][Aa][Ll][Ss][Ee]|[Oo][Ff][Ff]|0)?\s*$",
        examples("true")
    )]
    appear_in_dealer_locator: String,
    /// Whether the locator shows the address above: a flag as `appearInDealerLocator`;
    /// absent or blank means true. When false (and the dealer is listed) every `locator*` part
    /// is required.
    #[schema(
        required = false,
        pattern = r"^\s*(?:[Tt][Rr][Uu][Ee]|[Oo][Nn]|1|[Ff][Aa][Ll][Ss][Ee]|[Oo][Ff][Ff]|0)?\s*$",
        examples("true")
    )]
    use_this_address_in_dealer_locator: String,
    /// Required when the locator shows a separate address.
    #[schema(required = false)]
    locator_street_address: String,
    /// Required when the locator shows a separate address.
    #[schema(required = false)]
    locator_city: String,
    /// Required when the locator shows a separate address.
    #[schema(required = false)]
    locator_state: String,
    /// Required when the locator shows a separate address.
    #[schema(required = false)]
    locator_postal_code: String,
    /// Required when the locator shows a separate address.
    #[schema(required = false)]
    locator_country: String,
    /// Whether the dealer holds an FFL/SOT: a flag as `appearInDealerLocator`; absent or blank
    /// means false. When true, `fflNumber` and `fflDocument` are required.
    #[schema(
        required = false,
        pattern = r"^\s*(?:[Tt][Rr][Uu][Ee]|[Oo][Nn]|1|[Ff][Aa][Ll][Ss][Ee]|[Oo][Ff][Ff]|0)?\s*$",
        examples("false")
    )]
    has_ffl_sot: String,
    /// The FFL number; required when `hasFflSot` is true.
    #[schema(required = false)]
    ffl_number: String,
    /// The SOT EIN, if any.
    #[schema(required = false)]
    sot_ein: String,
    /// The reCAPTCHA response token; a token the captcha service refuses is a 422 on `captcha`.
    #[schema(min_length = 1, pattern = r"\S")]
    captcha: String,
    /// The FFL licence (pdf, tif or tiff, under 10 MB); required when `hasFflSot` is true. If
    /// the part is sent twice, the last one counts; an empty file input counts as none.
    #[schema(required = false, format = Binary)]
    ffl_document: String,
    /// The SOT document (pdf, tif or tiff, under 10 MB), if any. If the part is sent twice, the
    /// last one counts; an empty file input counts as none.
    #[schema(required = false, format = Binary)]
    sot_document: String,
}

/// A Pro Deal application: the supporting documents only; the application is made for the
/// signed-in account's e-mail address, and other parts are ignored. Each document is a png,
/// jpg, jpeg, tiff, tif or pdf file under 0.5 MB (fewer than 512000 bytes), checked by
/// extension and by content: another type is a 415, a larger file a 413, each naming the file.
#[derive(ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)] // documentation only: the handler reads the parts one by one
pub struct ProDealForm {
    /// One part per document, all under this name; at least one (empty file inputs do not
    /// count).
    #[schema(value_type = Vec<String>, format = Binary, min_items = 1)]
    supporting_documents: Vec<String>,
}
