//! Card data in a checkout body: the BFF accepts a one-time payment token only (the browser
//! tokenizes the card with the payment provider), and refuses any body that carries card fields
//! or a card number. Read on the raw JSON, before the wire shape types it.

use serde_json::Value;

/// Field names that carry card data (compared lowercase, without separators).
const CARD_FIELDS: [&str; 18] = [
    "cardnumber",
    "cardcode",
    "card",
    "carddata",
    "creditcard",
    "cvv",
    "cvv2",
    "cvc",
    "securitycode",
    "month",
    "year",
    "expmonth",
    "expyear",
    "expirymonth",
    "expiryyear",
    "expirationdate",
    "expiry",
    "pan",
];

fn luhn(digits: &str) -> bool {
    let mut sum = 0;
    for (index, c) in digits.chars().rev().enumerate() {
        let Some(mut d) = c.to_digit(10) else {
            return false;
        };
        if index % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum % 10 == 0
}

/// A value that looks like a card number: 13 to 19 digits (spaces and dashes allowed) passing
/// the Luhn check.
fn looks_like_card_number(value: &str) -> bool {
    if !value
        .chars()
        .all(|c| c.is_ascii_digit() || c == ' ' || c == '-')
    {
        return false;
    }
    let digits: String = value.chars().filter(char::is_ascii_digit).collect();
    (13..=19).contains(&digits.len()) && luhn(&digits)
}

/// The places in a request body that carry card data (the BFF accepts a payment token only):
/// card field names anywhere, or a card number in any string. Read on the raw JSON, before any
/// typing, so no field the form does not know escapes it.
pub fn card_data_fields(body: &Value) -> Vec<String> {
    fn walk(value: &Value, path: &str, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    let at = if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    };
                    let normalised: String = key
                        .chars()
                        .filter(char::is_ascii_alphanumeric)
                        .collect::<String>()
                        .to_ascii_lowercase();
                    if CARD_FIELDS.contains(&normalised.as_str()) {
                        found.push(at);
                    } else {
                        walk(inner, &at, found);
                    }
                }
            }
            Value::Array(list) => {
                for (index, inner) in list.iter().enumerate() {
                    walk(inner, &format!("{path}[{index}]"), found);
                }
            }
            Value::String(text) if looks_like_card_number(text) => found.push(path.to_owned()),
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(body, "", &mut found);
    found
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::commerce::checkout::testing::valid;

    #[test]
    fn card_data_is_found_by_name_and_by_value() {
        assert_eq!(
            card_data_fields(&json!({"cardNumber": "x", "paymentToken": "t"})),
            vec!["cardNumber"]
        );
        assert_eq!(
            card_data_fields(&json!({"dealerInfo": {"card_code": "123"}})),
            vec!["dealerInfo.card_code"]
        );
        assert_eq!(
            card_data_fields(&json!({"company": "4111 1111 1111 1111"})),
            vec!["company"]
        );
        assert!(card_data_fields(&valid()).is_empty());
    }
}
