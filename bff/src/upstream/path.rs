//! Upstream paths built only from encoded segments, so no value a shopper sends (`../`, `%2F`,
//! `?`, `#`) can reach another upstream path.

use std::fmt;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// Everything but RFC 3986 unreserved characters is encoded, including `%`, so a pre-encoded
/// value stays literal.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A relative upstream path (no leading slash), e.g. `page/home`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamPath(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("an empty path segment")]
    Empty,
    /// `.` and `..` would be resolved as dot-segments by URL parsers whatever their encoding
    /// (even `%2e%2e`), so they are refused outright.
    #[error("a dot segment")]
    Dot,
}

impl UpstreamPath {
    /// A path of fixed, literal segments written in code (`"Cart/items"`).
    pub fn fixed(path: &'static str) -> Self {
        Self(path.trim_matches('/').to_owned())
    }

    /// Appends one value as exactly one encoded segment.
    pub fn segment(mut self, value: &str) -> Result<Self, PathError> {
        if value.is_empty() {
            return Err(PathError::Empty);
        }
        if value == "." || value == ".." {
            return Err(PathError::Dot);
        }
        if !self.0.is_empty() {
            self.0.push('/');
        }
        self.0.extend(utf8_percent_encode(value, SEGMENT));
        Ok(self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UpstreamPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(title: &str) -> Result<String, PathError> {
        Ok(UpstreamPath::fixed("page").segment(title)?.to_string())
    }

    #[test]
    fn hostile_values_stay_inside_one_segment() {
        assert_eq!(page("../admin"), Ok("page/..%2Fadmin".to_owned()));
        assert_eq!(page("a%2Fb"), Ok("page/a%252Fb".to_owned()));
        assert_eq!(page("x?y#z"), Ok("page/x%3Fy%23z".to_owned()));
        assert_eq!(page("über 9"), Ok("page/%C3%BCber%209".to_owned()));
    }

    #[test]
    fn dot_segments_and_empty_values_are_refused() {
        assert_eq!(page(".."), Err(PathError::Dot));
        assert_eq!(page("."), Err(PathError::Dot));
        assert_eq!(page(""), Err(PathError::Empty));
    }

    #[test]
    fn joined_onto_a_base_url_the_path_is_unchanged() {
        let base =
            url::Url::parse("http://upstream.test/strapi/").unwrap_or_else(|e| panic!("{e}"));
        for title in ["../admin", "a%2Fb", "x?y#z", "%2e%2e", "..."] {
            let path = page(title).unwrap_or_else(|e| panic!("{e}"));
            let joined = base.join(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(joined.path(), format!("/strapi/{path}"), "{title}");
            assert_eq!(joined.query(), None);
            assert_eq!(joined.fragment(), None);
        }
    }
}
