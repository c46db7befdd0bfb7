//! A bearer token (`Authorization: Bearer …`), as the admin API and the CMS webhook read it.

use axum::http::{HeaderMap, header};

/// The bearer token of `headers`. The scheme's name is case-insensitive (RFC 9110 §11.1):
/// `Bearer`, `bearer` and `BEARER` alike.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn authorization(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::AUTHORIZATION,
            axum::http::HeaderValue::from_str(value).unwrap_or_else(|_| unreachable!()),
        );
        headers
    }

    #[test]
    fn the_bearer_scheme_is_case_insensitive() {
        for value in [
            "Bearer s3cret",
            "bearer s3cret",
            "BEARER s3cret",
            "bEaReR  s3cret",
        ] {
            assert_eq!(
                bearer_token(&authorization(value)),
                Some("s3cret"),
                "{value}"
            );
        }
        for value in ["Basic s3cret", "Bearers3cret", "s3cret"] {
            assert_eq!(bearer_token(&authorization(value)), None, "{value}");
        }
        assert_eq!(bearer_token(&HeaderMap::new()), None);
    }
}
