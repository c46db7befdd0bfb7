//! Upstream answers read into the API's own types (tolerant reader: unknown fields are ignored,
//! or kept by a type's `#[serde(flatten)]` map where they must pass through). A missing or
//! mistyped field the type requires breaks the contract: a 502 `upstream_contract` naming the
//! field path, logged once by the error middleware.

use serde::de::DeserializeOwned;

use super::UpstreamError;

/// `body` as a `T`; an empty body reads as JSON `null` (so `Option<T>` and `()` accept it).
pub fn decode<T: DeserializeOwned>(
    upstream: &'static str,
    body: &[u8],
) -> Result<T, UpstreamError> {
    let body: &[u8] = if body.is_empty() { b"null" } else { body };
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|err| {
        let field = err.path().to_string();
        UpstreamError::Contract {
            upstream,
            field,
            reason: err.into_inner().to_string(),
        }
    })
}

/// An already-parsed `value` as a `T`, with the same contract errors as [`decode`].
pub fn decode_value<T: DeserializeOwned>(
    upstream: &'static str,
    value: serde_json::Value,
) -> Result<T, UpstreamError> {
    serde_path_to_error::deserialize(value).map_err(|err| UpstreamError::Contract {
        upstream,
        field: err.path().to_string(),
        reason: err.into_inner().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Line {
        product_id: String,
        quantity: u32,
    }

    #[derive(Debug, Deserialize)]
    struct Cart {
        id: String,
        items: Vec<Line>,
    }

    #[test]
    fn unknown_fields_are_tolerated() {
        let cart: Cart = decode(
            "commerce",
            br#"{"id":"c1","items":[{"productId":"p","quantity":2,"color":"red"}],"brandNew":1}"#,
        )
        .unwrap();
        assert_eq!(cart.id, "c1");
        assert_eq!(cart.items[0].product_id, "p");
        assert_eq!(cart.items[0].quantity, 2);
    }

    #[test]
    fn a_missing_field_names_its_path() {
        let err =
            decode::<Cart>("commerce", br#"{"id":"c1","items":[{"productId":"p"}]}"#).unwrap_err();
        let UpstreamError::Contract {
            upstream,
            field,
            reason,
        } = &err
        else {
            panic!("not a contract error: {err:?}");
        };
        assert_eq!(*upstream, "commerce");
        assert_eq!(field, "items[0]");
        assert!(reason.contains("quantity"), "{reason}");
        assert_eq!(err.status().as_u16(), 502);
        assert_eq!(err.code(), "upstream_contract");
    }

    #[test]
    fn a_mistyped_field_names_its_path() {
        let err = decode::<Cart>(
            "commerce",
            br#"{"id":"c1","items":[{"productId":"p","quantity":"two"}]}"#,
        )
        .unwrap_err();
        let UpstreamError::Contract { field, .. } = &err else {
            panic!("not a contract error: {err:?}");
        };
        assert_eq!(field, "items[0].quantity");
    }

    #[test]
    fn an_empty_body_is_null() {
        assert_eq!(
            decode::<Option<Cart>>("commerce", b"")
                .unwrap()
                .map(|c| c.id),
            None
        );
        decode::<()>("commerce", b"").unwrap();
    }
}
