//! The 50 US states and DC: two-letter code and full name.

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
