//! The 50 US states and the District of Columbia: the only destinations the store ships to.

/// Two-letter code and full name, as the checkout form and the compute payload spell them.
pub const STATES: [(&str, &str); 51] = [
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

/// The two-letter code of a state given by code or by full name (case-insensitive; the compute
/// payload sends full names, the checkout form codes).
pub fn code_for(input: &str) -> Option<&'static str> {
    let input = input.trim();
    STATES
        .iter()
        .find(|(code, name)| code.eq_ignore_ascii_case(input) || name.eq_ignore_ascii_case(input))
        .map(|(code, _)| *code)
}

/// Whether `input` names the United States (the form sends 'United States', compute 'US').
pub fn is_united_states(input: &str) -> bool {
    ["US", "USA", "United States", "United States of America"]
        .iter()
        .any(|name| name.eq_ignore_ascii_case(input.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_resolve_by_code_or_full_name() {
        assert_eq!(code_for("Texas"), Some("TX"));
        assert_eq!(code_for(" new york "), Some("NY"));
        assert_eq!(code_for("dc"), Some("DC"));
        assert_eq!(code_for("District of Columbia"), Some("DC"));
        assert_eq!(code_for("Ontario"), None);
        assert_eq!(code_for(""), None);
    }

    #[test]
    fn every_code_is_unique() {
        let mut codes: Vec<_> = STATES.iter().map(|(code, _)| *code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), 51);
    }

    #[test]
    fn only_the_united_states_is_a_destination() {
        assert!(is_united_states("US"));
        assert!(is_united_states("united states"));
        assert!(!is_united_states("Canada"));
    }
}
