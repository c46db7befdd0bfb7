//! Card data checks as a processor's tokenizer makes them: number (digits, brand, length, Luhn),
//! expiry and security code. Pure functions; the HTTP side is `accept`.

/// The documented test card that tokenizes but is declined at checkout.
pub const DECLINED_CARD: &str = "4000300011112220";

/// Card brands the tokenizer recognises by number prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Brand {
    Visa,
    Mastercard,
    AmericanExpress,
    Discover,
    Jcb,
    DinersClub,
}

impl Brand {
    /// The display name stored with a payment token.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Visa => "Visa",
            Self::Mastercard => "Mastercard",
            Self::AmericanExpress => "American Express",
            Self::Discover => "Discover",
            Self::Jcb => "JCB",
            Self::DinersClub => "Diners Club",
        }
    }

    /// The brand a card number belongs to, from its issuer identification prefix.
    pub fn detect(digits: &str) -> Option<Self> {
        let prefix = |len: usize| -> Option<u32> { digits.get(..len)?.parse().ok() };
        let in_range = |len: usize, low: u32, high: u32| {
            prefix(len).is_some_and(|value| (low..=high).contains(&value))
        };
        if digits.starts_with('4') {
            Some(Self::Visa)
        } else if in_range(2, 51, 55) || in_range(4, 2221, 2720) {
            Some(Self::Mastercard)
        } else if in_range(2, 34, 34) || in_range(2, 37, 37) {
            Some(Self::AmericanExpress)
        } else if digits.starts_with("6011")
            || in_range(3, 644, 649)
            || digits.starts_with("65")
            || in_range(6, 622_126, 622_925)
        {
            Some(Self::Discover)
        } else if in_range(4, 3528, 3589) {
            Some(Self::Jcb)
        } else if in_range(3, 300, 305) || digits.starts_with("36") || digits.starts_with("38") {
            Some(Self::DinersClub)
        } else {
            None
        }
    }

    fn valid_length(self, len: usize) -> bool {
        match self {
            Self::Visa => matches!(len, 13 | 16 | 19),
            Self::Mastercard => len == 16,
            Self::AmericanExpress => len == 15,
            Self::Discover | Self::Jcb => (16..=19).contains(&len),
            Self::DinersClub => (14..=19).contains(&len),
        }
    }

    /// American Express prints a four-digit code on the front; the others three on the back.
    fn code_length(self) -> usize {
        if self == Self::AmericanExpress { 4 } else { 3 }
    }
}

/// Whether `digits` (ASCII digits only) passes the Luhn checksum.
pub fn luhn_valid(digits: &str) -> bool {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(index, byte)| {
            let digit = u32::from(byte - b'0');
            if index % 2 == 1 {
                let doubled = digit * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                digit
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// The card fields as the browser sent them.
#[derive(Debug, Clone, Copy)]
pub struct CardInput<'a> {
    pub number: &'a str,
    pub month: &'a str,
    pub year: &'a str,
    pub code: &'a str,
}

/// A card that passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidCard {
    pub brand: Brand,
    /// Digits only.
    pub number: String,
    pub last4: String,
}

impl ValidCard {
    /// Whether this is the documented declined test card.
    pub fn is_declined_test_card(&self) -> bool {
        self.number == DECLINED_CARD
    }
}

/// Why card data was refused, in the order the checks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardError {
    /// A field is missing.
    Missing,
    Number,
    Month,
    Year,
    Expired,
    Code,
}

/// Year furthest in the future a card may expire (issuers print at most ~10 years ahead).
const MAX_YEARS_AHEAD: i32 = 20;

/// Checks `input` against the calendar month `today` (year, month 1–12). A card is valid through
/// the last day of its expiry month. Spaces and dashes in the number are ignored, as the card
/// form groups digits.
pub fn validate(input: CardInput<'_>, today: (i32, u8)) -> Result<ValidCard, CardError> {
    let number: String = input
        .number
        .chars()
        .filter(|c| !matches!(c, ' ' | '-'))
        .collect();
    if number.is_empty() || input.month.trim().is_empty() || input.year.trim().is_empty() {
        return Err(CardError::Missing);
    }
    if !number.bytes().all(|b| b.is_ascii_digit()) || !luhn_valid(&number) {
        return Err(CardError::Number);
    }
    let brand = Brand::detect(&number).ok_or(CardError::Number)?;
    if !brand.valid_length(number.len()) {
        return Err(CardError::Number);
    }
    let month = parse_month(input.month.trim()).ok_or(CardError::Month)?;
    let year = parse_year(input.year.trim()).ok_or(CardError::Year)?;
    if year > today.0 + MAX_YEARS_AHEAD {
        return Err(CardError::Year);
    }
    if (year, month) < today {
        return Err(CardError::Expired);
    }
    let code = input.code.trim();
    if code.len() != brand.code_length() || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CardError::Code);
    }
    let last4 = number[number.len() - 4..].to_owned();
    Ok(ValidCard {
        brand,
        number,
        last4,
    })
}

/// `1`–`12`, with or without a leading zero.
fn parse_month(text: &str) -> Option<u8> {
    if text.is_empty() || text.len() > 2 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|month| (1..=12).contains(month))
}

/// Two digits (`29` is 2029) or four.
fn parse_year(text: &str) -> Option<i32> {
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: i32 = text.parse().ok()?;
    match text.len() {
        2 => Some(2000 + value),
        4 => Some(value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TODAY: (i32, u8) = (2026, 11);

    fn card<'a>(number: &'a str, month: &'a str, year: &'a str, code: &'a str) -> CardInput<'a> {
        CardInput {
            number,
            month,
            year,
            code,
        }
    }

    #[test]
    fn luhn_accepts_the_test_cards_and_refuses_a_changed_digit() {
        for number in [
            "4111111111111111",
            "5424000000000015",
            "370000000000002",
            "6011000000000012",
            DECLINED_CARD,
        ] {
            assert!(luhn_valid(number), "{number}");
        }
        assert!(!luhn_valid("4111111111111112"));
        assert!(!luhn_valid(""));
        assert!(!luhn_valid("41111111111111a1"));
    }

    #[test]
    fn brands_are_detected_by_prefix() {
        assert_eq!(Brand::detect("4111111111111111"), Some(Brand::Visa));
        assert_eq!(Brand::detect("5424000000000015"), Some(Brand::Mastercard));
        assert_eq!(Brand::detect("2221000000000009"), Some(Brand::Mastercard));
        assert_eq!(
            Brand::detect("370000000000002"),
            Some(Brand::AmericanExpress)
        );
        assert_eq!(
            Brand::detect("340000000000009"),
            Some(Brand::AmericanExpress)
        );
        assert_eq!(Brand::detect("6011000000000012"), Some(Brand::Discover));
        assert_eq!(Brand::detect("6500000000000002"), Some(Brand::Discover));
        assert_eq!(Brand::detect("3530111333300000"), Some(Brand::Jcb));
        assert_eq!(Brand::detect("30569309025904"), Some(Brand::DinersClub));
        assert_eq!(Brand::detect("9999999999999995"), None);
        assert_eq!(Brand::detect(""), None);
    }

    #[test]
    fn a_valid_card_reports_brand_and_last_four() {
        let valid = validate(card("4111 1111 1111 1111", "12", "2030", "123"), TODAY).unwrap();
        assert_eq!(valid.brand, Brand::Visa);
        assert_eq!(valid.last4, "1111");
        assert!(!valid.is_declined_test_card());
        let amex = validate(card("370000000000002", "1", "30", "1234"), TODAY).unwrap();
        assert_eq!(amex.brand.as_str(), "American Express");
        assert!(
            validate(card(DECLINED_CARD, "12", "2030", "123"), TODAY)
                .unwrap()
                .is_declined_test_card()
        );
    }

    #[test]
    fn number_checks() {
        let check = |number| validate(card(number, "12", "2030", "123"), TODAY);
        assert_eq!(check("").unwrap_err(), CardError::Missing);
        assert_eq!(check("4111111111111112").unwrap_err(), CardError::Number);
        assert_eq!(check("4111-1111-1111-111x").unwrap_err(), CardError::Number);
        // Luhn-valid, but no known brand, and a Visa prefix with a Mastercard length.
        assert_eq!(check("9999999999999995").unwrap_err(), CardError::Number);
        assert_eq!(check("41111111111111116").unwrap_err(), CardError::Number);
    }

    #[test]
    fn expiry_checks() {
        let check = |month, year| validate(card("4111111111111111", month, year, "123"), TODAY);
        assert!(
            check("11", "2026").is_ok(),
            "valid through its expiry month"
        );
        assert_eq!(check("10", "2026").unwrap_err(), CardError::Expired);
        assert_eq!(check("12", "2025").unwrap_err(), CardError::Expired);
        assert_eq!(check("12", "25").unwrap_err(), CardError::Expired);
        assert_eq!(check("13", "2030").unwrap_err(), CardError::Month);
        assert_eq!(check("00", "2030").unwrap_err(), CardError::Month);
        assert_eq!(check("ab", "2030").unwrap_err(), CardError::Month);
        assert_eq!(check("12", "203").unwrap_err(), CardError::Year);
        assert_eq!(check("12", "2099").unwrap_err(), CardError::Year);
        assert_eq!(check("12", "").unwrap_err(), CardError::Missing);
    }

    #[test]
    fn security_code_length_follows_the_brand() {
        let visa = |code| validate(card("4111111111111111", "12", "2030", code), TODAY);
        let amex = |code| validate(card("370000000000002", "12", "2030", code), TODAY);
        assert!(visa("123").is_ok());
        assert_eq!(visa("1234").unwrap_err(), CardError::Code);
        assert_eq!(visa("12").unwrap_err(), CardError::Code);
        assert_eq!(visa("").unwrap_err(), CardError::Code);
        assert_eq!(visa("12a").unwrap_err(), CardError::Code);
        assert!(amex("1234").is_ok());
        assert_eq!(amex("123").unwrap_err(), CardError::Code);
    }
}
