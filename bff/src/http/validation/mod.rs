//! Typed, validated JSON bodies: malformed JSON and rule violations both become 422
//! problem+json with a message per field, worded as the specs word them.

use std::collections::BTreeMap;

use axum::extract::{FromRequest, Request};
use bytes::Bytes;
use serde::de::DeserializeOwned;
use validator::{Validate, ValidationErrors, ValidationErrorsKind};

pub mod rules;

use crate::http::camel_case::camel_case;
use crate::http::error::ApiError;

/// A JSON body of type `T` that passed `T`'s validation rules.
#[derive(Debug)]
pub struct Validated<T>(pub T);

/// One message per field (the first failing rule's), field names in the API's camelCase.
pub fn field_errors(errors: &ValidationErrors) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (field, kind) in errors.errors() {
        match kind {
            ValidationErrorsKind::Field(list) => {
                if let Some(message) = list.first().and_then(|error| error.message.as_ref()) {
                    out.insert(camel_case(field), message.to_string());
                }
            }
            ValidationErrorsKind::Struct(inner) => {
                for (inner_field, message) in field_errors(inner) {
                    out.insert(format!("{}.{inner_field}", camel_case(field)), message);
                }
            }
            ValidationErrorsKind::List(items) => {
                for (index, inner) in items {
                    for (inner_field, message) in field_errors(inner) {
                        out.insert(
                            format!("{}[{index}].{inner_field}", camel_case(field)),
                            message,
                        );
                    }
                }
            }
        }
    }
    out
}

impl<T, S> FromRequest<S> for Validated<T>
where
    T: DeserializeOwned + Validate,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let body = Bytes::from_request(request, state).await?;
        let value: T = serde_json::from_slice(&body).map_err(|err| {
            ApiError::Validation(BTreeMap::from([(
                "body".to_owned(),
                format!("The request body is not valid JSON of the expected shape: {err}"),
            )]))
        })?;
        value
            .validate()
            .map_err(|errors| ApiError::Validation(field_errors(&errors)))?;
        Ok(Self(value))
    }
}

#[cfg(test)]
mod tests {
    use http_body_util::{BodyExt, Full, Limited};

    use super::*;
    use crate::http::request_body::caused_by;

    #[tokio::test]
    async fn the_body_limit_is_recognised_however_deeply_it_is_wrapped() {
        let over = Limited::new(Full::new(Bytes::from_static(b"12345")), 2)
            .collect()
            .await
            .unwrap_err();
        let wrapped = axum::Error::new(over);
        assert!(caused_by::<http_body_util::LengthLimitError>(&wrapped));
        let other = axum::Error::new(std::io::Error::other("connection reset"));
        assert!(!caused_by::<http_body_util::LengthLimitError>(&other));
    }
}
