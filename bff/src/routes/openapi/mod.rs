//! The `/api` contract as an OpenAPI 3.1 document, generated from the code: every handler carries
//! a `#[utoipa::path]` annotation and is registered through `utoipa_axum::routes!`, so the router
//! and the document are built from the same list and cannot list different endpoints.
//!
//! What the handlers' annotations leave out is added here, once, for every operation: the
//! problem answers any request can meet (an upstream failure, overload, a timeout, an internal
//! error) and the ones any unsafe request can meet (the CSRF check, the body size limit).
//!
//! The document is committed as `web/src/api/openapi.json` (the web app's types are generated from
//! it); `openapi_document_is_committed` fails when the two differ.

pub mod cached;
pub mod problems;
pub mod schemas;

use std::sync::Arc;

use axum::http::{HeaderValue, header};
use axum::response::IntoResponse;
use axum::routing::{MethodRouter, get};
use bytes::Bytes;
use utoipa::openapi::path::{Operation, PathItem};
use utoipa::openapi::{InfoBuilder, OpenApi, Paths, Ref, RefOr, ServerBuilder};
use utoipa::{PartialSchema, ToSchema};

use crate::commerce::catalogue::answer::{Collection, ProductPage, SearchResults};
use crate::commerce::checkout::states::UsState;
use crate::config::public::BrowserConfig;
use crate::content::dealers::DealerList;
use crate::content::page_shapes::ContentPage;
use crate::http::error::Problem;

/// Where the API is mounted; the document's paths include it.
pub const API_PREFIX: &str = "/api";

/// Problem answers every operation may give: (status, response component).
const EVERY_OPERATION: &[(&str, &str)] = &[
    ("500", "Internal"),
    ("502", "UpstreamFailed"),
    ("503", "Overloaded"),
    ("504", "TimedOut"),
];

/// Problem answers every unsafe (state-changing) operation may give.
const UNSAFE_OPERATION: &[(&str, &str)] = &[
    ("403", "CsrfRejected"),
    ("408", "RequestTimedOut"),
    ("413", "PayloadTooLarge"),
];

/// Problem answers every operation with path parameters may give.
const PATH_PARAMETERS: &[(&str, &str)] = &[("400", "BadRequest")];

/// The finished document: the annotated operations (paths relative to `/api`) with the prefix,
/// the shared problem answers, and the document's own metadata.
pub fn document(operations: OpenApi) -> OpenApi {
    let mut doc = operations;
    doc.info = InfoBuilder::new()
        .title("Talon Forge storefront API")
        .version(env!("CARGO_PKG_VERSION"))
        .description(Some(
            "The backend-for-frontend's curated JSON API for the storefront, on the storefront's \
             own origin. The session is an HttpOnly cookie the BFF sets; tokens never reach the \
             browser. Unsafe methods need the header `X-CSRF: 1`. Errors are RFC 9457 \
             `application/problem+json` documents with a stable `code` and, for validation, a \
             message per field in `errors`.",
        ))
        .build();
    doc.servers = Some(vec![ServerBuilder::new().url("/").build()]);
    doc.paths = prefixed(std::mem::take(&mut doc.paths));
    for (path, item) in &mut doc.paths.paths {
        add_shared_answers(item, path.contains('{'));
    }
    let mut components = doc.components.take().unwrap_or_default();
    components
        .schemas
        .insert(Problem::name().into_owned(), Problem::schema());
    // Not named by an operation (the forms send a state by code or by name), but the web app's
    // state list is generated from it.
    components
        .schemas
        .insert(UsState::name().into_owned(), UsState::schema());
    // The bodies `cached::CachedResponses` names (an `IntoResponses` type registers none).
    let mut bodies = Vec::new();
    cached::schemas::<ContentPage>(&mut bodies);
    cached::schemas::<ProductPage>(&mut bodies);
    cached::schemas::<Collection>(&mut bodies);
    cached::schemas::<SearchResults>(&mut bodies);
    cached::schemas::<DealerList>(&mut bodies);
    cached::schemas::<BrowserConfig>(&mut bodies);
    components.schemas.extend(bodies);
    components.responses.extend(problems::all());
    doc.components = Some(components);
    doc
}

fn prefixed(paths: Paths) -> Paths {
    let mut out = Paths::new();
    for (path, item) in paths.paths {
        let full = if path == "/" {
            API_PREFIX.to_owned()
        } else {
            format!("{API_PREFIX}{path}")
        };
        out.paths.insert(full, item);
    }
    out.extensions = paths.extensions;
    out
}

fn add_shared_answers(item: &mut PathItem, has_path_parameters: bool) {
    let operations: [(&mut Option<Operation>, bool); 5] = [
        (&mut item.get, false),
        (&mut item.post, true),
        (&mut item.put, true),
        (&mut item.delete, true),
        (&mut item.patch, true),
    ];
    for (operation, is_unsafe) in operations {
        let Some(operation) = operation else { continue };
        let shared = EVERY_OPERATION
            .iter()
            .chain(if is_unsafe { UNSAFE_OPERATION } else { &[] })
            .chain(if has_path_parameters {
                PATH_PARAMETERS
            } else {
                &[]
            });
        for (status, name) in shared {
            operation
                .responses
                .responses
                .entry((*status).to_owned())
                .or_insert_with(|| RefOr::Ref(Ref::from_response_name(*name)));
        }
    }
}

/// `GET /api/openapi.json`: the document, serialised once.
pub fn route<S: Clone + Send + Sync + 'static>(doc: &OpenApi) -> MethodRouter<S> {
    let body = match doc.to_pretty_json() {
        Ok(json) => Bytes::from(json),
        // Serialising plain data structures cannot fail; an empty object keeps the route honest.
        Err(err) => {
            tracing::error!(error = %err, "cannot serialise the OpenAPI document");
            Bytes::from_static(b"{}")
        }
    };
    let body = Arc::new(body);
    get(move || {
        let body = body.clone();
        async move {
            (
                [
                    (
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("application/json"),
                    ),
                    (
                        header::CACHE_CONTROL,
                        HeaderValue::from_static("public, max-age=300"),
                    ),
                ],
                Bytes::clone(&body),
            )
                .into_response()
        }
    })
}
