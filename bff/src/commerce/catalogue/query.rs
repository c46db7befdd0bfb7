//! The search query's rules: the storefront searches only with more than 1 character (spec,
//! section 5), and a bound keeps an absurd query from becoming an absurd upstream path.

use std::collections::BTreeMap;

use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use serde::Deserialize;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use crate::cache;
use crate::http::error::ApiError;

/// The shortest query searched, in characters.
pub const MIN_QUERY_CHARS: usize = 2;
/// The longest query searched, in characters.
pub const MAX_QUERY_CHARS: usize = 100;

/// The normalised query (trimmed, lower-cased: the search ignores case, so `Falcon` and `falcon`
/// share one cache entry), or the message for `errors.q`.
pub fn search_query(raw: Option<&str>) -> Result<String, &'static str> {
    let query = cache::normalise(raw.unwrap_or_default());
    match query.chars().count() {
        0 => Err("Search query is required"),
        n if n < MIN_QUERY_CHARS => Err("Search query must be at least 2 characters"),
        n if n > MAX_QUERY_CHARS => Err("Search query must be at most 100 characters"),
        _ => Ok(query),
    }
}

/// The `q` of `GET /api/search`, normalised and within the rules; extracting it answers a 422
/// with the rule's message in `errors.q` otherwise (a malformed query string reads as no `q`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery(pub String);

#[derive(Debug, Deserialize)]
struct SearchParams {
    q: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for SearchQuery {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let params = Query::<SearchParams>::from_request_parts(parts, state).await;
        let raw = params
            .as_ref()
            .ok()
            .and_then(|Query(params)| params.q.as_deref());
        search_query(raw).map(Self).map_err(|message| {
            ApiError::Validation(BTreeMap::from([("q".to_owned(), message.to_owned())]))
        })
    }
}

/// The `q` parameter's schema: the bounds [`search_query`] enforces (after trimming).
impl PartialSchema for SearchQuery {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .min_length(Some(MIN_QUERY_CHARS))
            .max_length(Some(MAX_QUERY_CHARS))
            .into()
    }
}

impl ToSchema for SearchQuery {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_shorter_than_two_characters_are_refused() {
        assert_eq!(search_query(None), Err("Search query is required"));
        assert_eq!(search_query(Some("   ")), Err("Search query is required"));
        assert_eq!(
            search_query(Some(" f ")),
            Err("Search query must be at least 2 characters")
        );
        assert_eq!(
            search_query(Some("ü")),
            Err("Search query must be at least 2 characters")
        );
        assert_eq!(search_query(Some("üb")), Ok("üb".to_owned()));
    }

    #[test]
    fn queries_are_normalised_and_bounded() {
        assert_eq!(search_query(Some("  Falcon ")), Ok("falcon".to_owned()));
        assert!(search_query(Some(&"x".repeat(MAX_QUERY_CHARS))).is_ok());
        assert_eq!(
            search_query(Some(&"x".repeat(MAX_QUERY_CHARS + 1))),
            Err("Search query must be at most 100 characters")
        );
    }
}
