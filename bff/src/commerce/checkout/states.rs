//! The 50 US states and DC: two-letter code and full name. The API documents them as the
//! `UsState` schema, from which the web app's list is generated (`web/scripts/api-types.js`).

use utoipa::openapi::RefOr;
use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

const STATES: [(&str, &str); 51] = [
    ("AL", "Alabama"),
    ("AK", "Alaska"),
    ("AZ", "Arizona"),
    ("AR", "Arkansas"),
    ("CA", "California"),
    ("CO", "Colorado"),
    ("CT", "Connecticut"),
    ("DE", "Delaware"),
    ("DC", "District of Columbia"),
    ("FL", "Florida"),
    ("GA", "Georgia"),
    ("HI", "Hawaii"),
    ("ID", "Idaho"),
    ("IL", "Illinois"),
    ("IN", "Indiana"),
    ("IA", "Iowa"),
    ("KS", "Kansas"),
    ("KY", "Kentucky"),
    ("LA", "Louisiana"),
    ("ME", "Maine"),
    ("MD", "Maryland"),
    ("MA", "Massachusetts"),
    ("MI", "Michigan"),
    ("MN", "Minnesota"),
    ("MS", "Mississippi"),
    ("MO", "Missouri"),
    ("MT", "Montana"),
    ("NE", "Nebraska"),
    ("NV", "Nevada"),
    ("NH", "New Hampshire"),
    ("NJ", "New Jersey"),
    ("NM", "New Mexico"),
    ("NY", "New York"),
    ("NC", "North Carolina"),
    ("ND", "North Dakota"),
    ("OH", "Ohio"),
    ("OK", "Oklahoma"),
    ("OR", "Oregon"),
    ("PA", "Pennsylvania"),
    ("RI", "Rhode Island"),
    ("SC", "South Carolina"),
    ("SD", "South Dakota"),
    ("TN", "Tennessee"),
    ("TX", "Texas"),
    ("UT", "Utah"),
    ("VT", "Vermont"),
    ("VA", "Virginia"),
    ("WA", "Washington"),
    ("WV", "West Virginia"),
    ("WI", "Wisconsin"),
    ("WY", "Wyoming"),
];

/// The state's entry for a two-letter code or a full name (case-insensitive).
fn find(input: &str) -> Option<(&'static str, &'static str)> {
    let input = input.trim();
    STATES
        .iter()
        .copied()
        .find(|(code, name)| code.eq_ignore_ascii_case(input) || name.eq_ignore_ascii_case(input))
}

/// The two-letter code of a state given by code or full name.
pub fn code(input: &str) -> Option<&'static str> {
    find(input).map(|(code, _)| code)
}

/// The full name of a state given by code or full name.
pub fn name(input: &str) -> Option<&'static str> {
    find(input).map(|(_, name)| name)
}

/// A US state or DC by its two-letter code; `x-enum-descriptions` gives each code's name, in the
/// same order (the address forms show the names).
pub struct UsState;

impl PartialSchema for UsState {
    fn schema() -> RefOr<Schema> {
        let names: Vec<&str> = STATES.iter().map(|(_, name)| *name).collect();
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(STATES.iter().map(|(code, _)| *code)))
            .description(Some(
                "A US state or the District of Columbia by its two-letter code; \
                 `x-enum-descriptions` names each, in the same order.",
            ))
            .extensions(Some(
                ExtensionsBuilder::new()
                    .add("x-enum-descriptions", names)
                    .build(),
            ))
            .into()
    }
}

impl ToSchema for UsState {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_map_both_ways() {
        assert_eq!(name("tx"), Some("Texas"));
        assert_eq!(name("California"), Some("California"));
        assert_eq!(code("district of columbia"), Some("DC"));
        assert_eq!(code("ZZ"), None);
    }
}
