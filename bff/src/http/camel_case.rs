//! The API's JSON names are camelCase: the CMS's `nav_links` is the API's `navLinks`, and a
//! validation error names its field as the body spells it.

use serde_json::{Map, Value};

/// `nav_links` → `navLinks`, `address_1` → `address1`; keys already camelCase stay as they are.
pub fn camel_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper_next = false;
    for c in key.chars() {
        if c == '_' && !out.is_empty() {
            upper_next = true;
        } else if upper_next {
            out.extend(c.to_uppercase());
            upper_next = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Converts every object key in `value`, recursively.
pub fn camel_case_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| (camel_case(&key), camel_case_keys(value)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(camel_case_keys).collect()),
        other => other,
    }
}
