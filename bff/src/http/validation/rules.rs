//! The field rules the specs give, written once: usable as `validator` custom rules
//! (`#[validate(custom(function = "rules::us_phone"))]`, with `message = …` where a form words
//! it differently) and as plain predicates.

use validator::{ValidateEmail, ValidationError};

fn failure(code: &'static str, message: &'static str) -> ValidationError {
    ValidationError::new(code).with_message(message.into())
}

/// A US phone number: 10 digits, optionally after the country code 1 (or +1), with the usual
/// separators (space, dash, dot, parentheses).
pub fn is_us_phone(value: &str) -> bool {
    if !value
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '-' | '.' | '(' | ')' | '+'))
    {
        return false;
    }
    let digits = value.chars().filter(char::is_ascii_digit).count();
    digits == 10 || (digits == 11 && value.trim_start_matches(['+', ' ', '(']).starts_with('1'))
}

/// An e-mail address as the HTML e-mail input accepts it (the `validator` crate's rule).
pub fn is_email(value: &str) -> bool {
    value.validate_email()
}

/// `validator` rule: a US phone number, with the specs' message.
pub fn us_phone(value: &str) -> Result<(), ValidationError> {
    if is_us_phone(value) {
        Ok(())
    } else {
        Err(failure("phone", "Must be a valid phone number"))
    }
}

/// `validator` rule: an e-mail address, with the specs' message.
pub fn email(value: &str) -> Result<(), ValidationError> {
    if is_email(value) {
        Ok(())
    } else {
        Err(failure("email", "Must be a valid email address"))
    }
}

/// `validator` rule: the forms' e-mail field, present and valid ("Email is required", "Email
/// must be a valid email address": the same words in every form that has one).
pub fn required_email(value: &str) -> Result<(), ValidationError> {
    if value.is_empty() {
        Err(failure("required", "Email is required"))
    } else if is_email(value) {
        Ok(())
    } else {
        Err(failure("email", "Email must be a valid email address"))
    }
}

/// The specs' rule for a new password: present, and at least 8 characters.
pub fn new_password(password: &str) -> Result<(), ValidationError> {
    if password.is_empty() {
        return Err(failure("required", "Password is required"));
    }
    if password.chars().count() < 8 {
        return Err(failure(
            "length",
            "Password must be at least 8 characters long",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn us_phones_have_ten_digits_and_an_optional_country_code() {
        for good in [
            "5551234567",
            "(555) 123-4567",
            "555.123.4567",
            "1 555 123 4567",
            "+1 (555) 123-4567",
        ] {
            assert!(is_us_phone(good), "{good}");
        }
        for bad in [
            "555123456",
            "2 555 123 4567",
            "555-123-4567 x2",
            "",
            "55512345678",
        ] {
            assert!(!is_us_phone(bad), "{bad}");
        }
    }

    #[test]
    fn emails_follow_the_html_rule() {
        assert!(is_email("ada@example.com"));
        assert!(!is_email("nope"));
        assert_eq!(
            email("nope").unwrap_err().message.as_deref(),
            Some("Must be a valid email address")
        );
    }

    #[test]
    fn a_form_email_is_required_then_valid() {
        let message = |value| {
            required_email(value)
                .unwrap_err()
                .message
                .unwrap()
                .to_string()
        };
        assert_eq!(message(""), "Email is required");
        assert_eq!(message("nope"), "Email must be a valid email address");
        assert!(required_email("ada@example.com").is_ok());
    }

    #[test]
    fn new_passwords_need_eight_characters() {
        assert!(new_password("").is_err());
        assert!(new_password("short").is_err());
        assert!(new_password("long enough").is_ok());
    }
}
