//! The responses of an answer revalidated by its `ETag` (the edge cache's answers, and the
//! configuration): a 200 with its body, `ETag` and `Cache-Control` (and `Cache-Status`), and
//! the 304 with the `ETag` that a matching `If-None-Match` gets. An operation names them once,
//! `responses(CachedResponses<ProductPage>, (status = 404, …))`; what differs per operation is
//! said by its body's [`CachedBody`] impl.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use utoipa::openapi::schema::{Ref, Schema};
use utoipa::openapi::{ContentBuilder, HeaderBuilder, RefOr, Response, ResponseBuilder};
use utoipa::{IntoResponses, PartialSchema, ToSchema};

/// A body answered as a cached answer, with what the document says of it.
pub trait CachedBody: ToSchema {
    /// The 200's description.
    const DESCRIPTION: &'static str;
    /// What the `ETag` follows.
    const ETAG: &'static str;
    /// What the `Cache-Control` says.
    const CACHE_CONTROL: &'static str;
    /// Whether the answer comes from the edge cache, which says what it did in `Cache-Status`
    /// (the configuration does not: it is fixed for the process's life).
    const FROM_THE_CACHE: bool = true;
}

/// The 200 with a `T` and the 304 of an answer revalidated by its `ETag`.
///
/// An `IntoResponses` type registers no schema: the bodies are registered with the document
/// (see [`super::document`]).
pub struct CachedResponses<T>(PhantomData<T>);

impl<T: CachedBody> IntoResponses for CachedResponses<T> {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        let text = || HeaderBuilder::new().schema(Some(String::schema()));
        let header = |description: &str| text().description(Some(description)).build();
        let mut ok = ResponseBuilder::new()
            .description(T::DESCRIPTION)
            .header("ETag", header(T::ETAG))
            .header("Cache-Control", header(T::CACHE_CONTROL))
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name(T::name())))
                    .build(),
            );
        if T::FROM_THE_CACHE {
            ok = ok.header(
                "Cache-Status",
                header("What the BFF's cache did (RFC 9211)."),
            );
        }
        let not_modified = ResponseBuilder::new()
            .description("Not modified: `If-None-Match` names the current `ETag`.")
            .header("ETag", text().build());
        BTreeMap::from([
            ("200".to_owned(), RefOr::T(ok.build())),
            ("304".to_owned(), RefOr::T(not_modified.build())),
        ])
    }
}

/// `T`'s schema and those it refers to, for the document's components.
pub fn schemas<T: ToSchema>(schemas: &mut Vec<(String, RefOr<Schema>)>) {
    schemas.push((T::name().into_owned(), T::schema()));
    T::schemas(schemas);
}
