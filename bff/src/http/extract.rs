//! axum's extractors with [`ApiError`] as their rejection, so a path that does not decode, a
//! query that does not parse or a body over the limit is a problem+json like every other
//! refusal (axum's own rejections are `text/plain`).

use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use bytes::Bytes;

use crate::http::error::ApiError;
use crate::http::request_body::{BodyReadTimeout, caused_by};

/// Path parameters; `axum::extract::Path` with a problem+json rejection.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct Path<T>(pub T);

/// A query string; `axum::extract::Query` with a problem+json rejection.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct Query<T>(pub T);

/// The whole request body; `bytes::Bytes` with a problem+json rejection.
#[derive(Debug)]
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        Ok(Self(Bytes::from_request(request, state).await?))
    }
}

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> Self {
        ApiError::BadRequest {
            code: "invalid_path",
            detail: rejection.body_text(),
        }
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        ApiError::BadRequest {
            code: "invalid_query",
            detail: rejection.body_text(),
        }
    }
}

impl From<BytesRejection> for ApiError {
    fn from(rejection: BytesRejection) -> Self {
        // Behind the middleware stack the limit's error can arrive wrapped in the layers' body
        // errors (axum then says 400), so the cause chain is searched.
        if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE
            || caused_by::<http_body_util::LengthLimitError>(&rejection)
        {
            ApiError::PayloadTooLarge("The request body is too large.".to_owned())
        } else if caused_by::<BodyReadTimeout>(&rejection) {
            ApiError::RequestTimeout
        } else {
            ApiError::BadRequest {
                code: "invalid_body",
                detail: rejection.body_text(),
            }
        }
    }
}
