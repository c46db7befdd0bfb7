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

/// A relative upstream path (no leading slash), e.g. `page/home`, and its template, e.g.
/// `page/{}`: the literal segments written in code with `{}` for each value, so the template
/// names the operation in traces, metrics and errors without any value a shopper sent (a title,
/// an e-mail, a guest token) and from a set bounded by the code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamPath {
    path: String,
    template: String,
}

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
        let path = path.trim_matches('/').to_owned();
        Self {
            template: path.clone(),
            path,
        }
    }

    /// Appends literal segments written in code (`"items"`), kept as they are in the template.
    pub fn literal(mut self, segments: &'static str) -> Self {
        let segments = segments.trim_matches('/');
        for part in [&mut self.path, &mut self.template] {
            if !part.is_empty() {
                part.push('/');
            }
            part.push_str(segments);
        }
        self
    }

    /// Appends one value as exactly one encoded segment.
    pub fn segment(mut self, value: &str) -> Result<Self, PathError> {
        if value.is_empty() {
            return Err(PathError::Empty);
        }
        if value == "." || value == ".." {
            return Err(PathError::Dot);
        }
        if !self.path.is_empty() {
            self.path.push('/');
        }
        self.path.extend(utf8_percent_encode(value, SEGMENT));
        if !self.template.is_empty() {
            self.template.push('/');
        }
        self.template.push_str("{}");
        Ok(self)
    }

    pub fn as_str(&self) -> &str {
        &self.path
    }

    /// The path with `{}` for each value: the operation, as `url.template` and the metrics'
    /// `operation` label.
    pub fn template(&self) -> &str {
        &self.template
    }
}

impl fmt::Display for UpstreamPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.path)
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
    fn the_template_keeps_literals_and_hides_every_value() {
        let path = UpstreamPath::fixed("Cart/guest")
            .segment("gid_secret")
            .map(|path| path.literal("items"))
            .and_then(|path| path.segment("alice@example.com"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            path.as_str(),
            "Cart/guest/gid_secret/items/alice%40example.com"
        );
        assert_eq!(path.template(), "Cart/guest/{}/items/{}");
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
