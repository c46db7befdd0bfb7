//! State and zip restrictions. A non-FFL item is checked against where the order ships (the
//! billing address when shipping is the same); an FFL item against the dealer it ships to.

use crate::content::skus::Sku;

/// Where an item would go: a two-letter state and a zip code.
#[derive(Debug, Clone, Copy)]
pub struct Destination<'a> {
    pub state: &'a str,
    pub zip: &'a str,
}

/// The first five digits of a zip (ZIP+4 and stray spaces ignored).
fn zip5(zip: &str) -> String {
    zip.chars().filter(char::is_ascii_digit).take(5).collect()
}

/// Whether `sku` may not be shipped to `destination`: its restricted states contain the state,
/// or one of its restricted zips is the destination's five-digit zip.
pub fn blocks(sku: &Sku, destination: Destination<'_>) -> bool {
    let state = destination.state.trim();
    let zip = zip5(destination.zip);
    sku.restricted_states
        .iter()
        .any(|restricted| restricted.trim().eq_ignore_ascii_case(state))
        || (!zip.is_empty()
            && sku
                .restricted_zips
                .iter()
                .any(|restricted| zip5(restricted) == zip))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sku(states: &[&str], zips: &[&str]) -> Sku {
        Sku {
            code: "TF-1".to_owned(),
            product_title: "Summit".to_owned(),
            product_name: "Summit".to_owned(),
            price_cents: 100,
            discount_percent: 0.0,
            stock: 1,
            ffl_item: false,
            receiver_item: false,
            restricted_states: states.iter().map(|s| (*s).to_owned()).collect(),
            restricted_zips: zips.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    fn to(state: &'static str, zip: &'static str) -> Destination<'static> {
        Destination { state, zip }
    }

    #[test]
    fn restricted_by_state_or_by_five_digit_zip() {
        let item = sku(&["CA", "ny"], &["60601"]);
        assert!(blocks(&item, to("CA", "90001")));
        assert!(blocks(&item, to("NY", "10001")));
        assert!(blocks(&item, to("IL", "60601-1234")));
        assert!(!blocks(&item, to("IL", "60602")));
        assert!(!blocks(&item, to("TX", "")));
        assert!(!blocks(&sku(&[], &[]), to("CA", "60601")));
    }
}
