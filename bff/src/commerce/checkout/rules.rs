//! The checkout form's rules (spec section 5) with the spec's messages, word for word. Each rule
//! reads one field of the model ([`super::model`]); the first failing rule's message is the
//! field's. The web app shows these messages as they are, so a change here is a change to what
//! the shopper reads.

use validator::ValidationError;

use super::states;
use crate::http::validation::rules;

pub(super) const REQUIRED: &str = "Required";
pub(super) const SHORT_ZIP: &str = "Zip code must be at least 5 digits";
pub(super) const BAD_STATE: &str = "Must be a US state";
pub(super) const BAD_COUNTRY: &str = "Only United States addresses are supported";
pub(super) const NO_DEALER: &str =
    "FFL items must ship to a licensed dealer: dealer information is required";

/// What an order needs of the form beyond the billing fields (spec section 5).
pub struct Requirements {
    /// Shipping differs from billing: the shipping fields are required.
    pub(super) shipping: bool,
}

pub(super) fn failure(code: &'static str, message: &'static str) -> ValidationError {
    ValidationError::new(code).with_message(message.into())
}

pub(super) fn required(value: &str) -> Result<(), ValidationError> {
    if value.is_empty() {
        return Err(failure("required", REQUIRED));
    }
    Ok(())
}

pub(super) fn email_address(value: &str) -> Result<(), ValidationError> {
    required(value).and_then(|()| rules::email(value))
}

pub(super) fn phone(value: &str) -> Result<(), ValidationError> {
    required(value).and_then(|()| rules::us_phone(value))
}

pub(super) fn zip(value: &str) -> Result<(), ValidationError> {
    required(value)?;
    if value.chars().count() < 5 {
        return Err(failure("zip", SHORT_ZIP));
    }
    Ok(())
}

pub(super) fn us_state(value: &str) -> Result<(), ValidationError> {
    required(value).and_then(|()| us_state_if_given(value))
}

/// Empty, or a US state by code or full name.
pub(super) fn us_state_if_given(value: &str) -> Result<(), ValidationError> {
    if !value.is_empty() && states::code(value).is_none() {
        return Err(failure("state", BAD_STATE));
    }
    Ok(())
}

pub(super) fn us_country(value: &str) -> Result<(), ValidationError> {
    required(value)?;
    let us = ["united states", "us", "usa", "united states of america"];
    if !us.iter().any(|name| name.eq_ignore_ascii_case(value)) {
        return Err(failure("country", BAD_COUNTRY));
    }
    Ok(())
}

/// `rule` for a shipping field, which only an order shipping elsewhere than billing needs.
fn when_shipping(
    value: &str,
    requirements: &Requirements,
    rule: fn(&str) -> Result<(), ValidationError>,
) -> Result<(), ValidationError> {
    if requirements.shipping {
        rule(value)
    } else {
        Ok(())
    }
}

pub(super) fn shipping_required(
    value: &str,
    requirements: &Requirements,
) -> Result<(), ValidationError> {
    when_shipping(value, requirements, required)
}

pub(super) fn shipping_state(
    value: &str,
    requirements: &Requirements,
) -> Result<(), ValidationError> {
    when_shipping(value, requirements, us_state)
}

pub(super) fn shipping_zip(
    value: &str,
    requirements: &Requirements,
) -> Result<(), ValidationError> {
    when_shipping(value, requirements, zip)
}

pub(super) fn shipping_country(
    value: &str,
    requirements: &Requirements,
) -> Result<(), ValidationError> {
    when_shipping(value, requirements, us_country)
}
