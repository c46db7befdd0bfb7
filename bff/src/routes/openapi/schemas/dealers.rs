//! The dealer locator's query parameters. The answer's schemas are the service's own types
//! (`content::dealers::DealerList` and its parts), which derive `ToSchema`.

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use crate::content::dealers::{DEFAULT_RADIUS_MILES, RADIUS_OPTIONS_MILES};

/// The `radius` query parameter: one of the locator's options, in miles, built from the same
/// constants the handler checks against.
pub struct RadiusMiles;

impl PartialSchema for RadiusMiles {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .enum_values(Some(RADIUS_OPTIONS_MILES))
            .default(Some(DEFAULT_RADIUS_MILES.into()))
            .into()
    }
}

impl ToSchema for RadiusMiles {}
