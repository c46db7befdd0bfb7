//! The problem answers (RFC 9457, `application/problem+json`) operations refer to by name, as
//! reusable response components: `responses((status = 404, response = problems::NotFound))`.

use utoipa::ToResponse;
use utoipa::openapi::{RefOr, Response};

use crate::http::error::Problem;

macro_rules! problem_responses {
    ($($(#[doc = $doc:literal])* $name:ident;)*) => {
        $(
            $(#[doc = $doc])*
            #[derive(ToResponse)]
            #[response(content_type = "application/problem+json")]
            #[allow(dead_code)] // documentation only: the answers are built by `ApiError`
            pub struct $name(Problem);
        )*

        /// Every problem response component, for the document's `components.responses`.
        pub fn all() -> Vec<(String, RefOr<Response>)> {
            vec![$({
                let (name, response) = <$name as ToResponse>::response();
                (name.to_owned(), response)
            }),*]
        }
    };
}

problem_responses! {
    /// The request is malformed beyond field validation (`code`: invalid_body, invalid_path
    /// for a path parameter that does not decode, and others named per operation).
    BadRequest;
    /// No signed-in session, or it has expired (`code`: unauthorized, session_expired).
    Unauthorized;
    /// The CSRF check refused the request: `X-CSRF: 1` missing, another `Origin`, or a
    /// cross-site `Sec-Fetch-Site` (`code`: csrf_rejected).
    CsrfRejected;
    /// The resource does not exist (`code`: not_found).
    NotFound;
    /// The request conflicts with the resource's state (`code` per operation).
    Conflict;
    /// The request body did not arrive within `server.body_read_timeout` (`code`:
    /// request_timeout); the connection is closed.
    RequestTimedOut;
    /// The request body, or an uploaded file, exceeds its limit (`code`: payload_too_large; for
    /// a file the detail names it).
    PayloadTooLarge;
    /// An uploaded file's type is not allowed, by extension or by content (`code`:
    /// unsupported_media_type; the detail names the file).
    UnsupportedMediaType;
    /// The input breaks a rule: `errors` has a message per field (`code`: validation_failed),
    /// or the request cannot be carried out as asked (`code` per operation).
    Invalid;
    /// Too many attempts from this client; `Retry-After` says when to retry (`code`:
    /// rate_limited).
    TooManyRequests;
    /// Something failed inside the BFF (`code`: internal).
    Internal;
    /// An upstream service failed or answered something unusable (`code`: upstream_error,
    /// upstream_unavailable; logout_failed when sign-out was not confirmed upstream, the
    /// session being revoked and its cookie cleared all the same).
    UpstreamFailed;
    /// The BFF is at its concurrency limit (`code`: overloaded), or an upstream's circuit breaker
    /// is open after repeated failures (`code`: upstream_unavailable); `Retry-After` says when
    /// to retry.
    Overloaded;
    /// The search cannot run now: the content service or the price map is failing (`code`:
    /// search_unavailable), or the BFF is at its concurrency limit (`code`: overloaded);
    /// `Retry-After` says when to retry.
    SearchUnavailable;
    /// The line cannot be priced in full now (the catalogue or the live prices cannot be read,
    /// or add-ons were chosen for a product the catalogue does not find): nothing was added, and
    /// the detail names the product (`code`: cart_line_unpriced).
    CartLineUnpriced;
    /// The request or an upstream call exceeded its deadline (`code`: timeout, upstream_timeout).
    TimedOut;
}
