//! `POST /Checkout/simplified`: turns a cart into an order, the same for guests and users. A
//! user is identified by the bearer token, a guest by the `X-Guest-Id` header; the `cartId` must
//! be that caller's cart. The order, the stock decrements, the emptied cart and the confirmation
//! e-mail are written in one transaction: all of them or none.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use axum::{Json, Router};
use rusqlite::Transaction;
use serde::{Deserialize, Serialize};

use super::shop::body::{Body, loose_id, present};
use super::shop::carts::{self, DealerInfo, Line, Owner, PriceInputs};
use super::shop::money::Money;
use super::shop::order_store::{self, CustomerInfo, NewOrder};
use super::shop::pricing::{self, Totals};
use super::shop::restrictions::{self, Destination};
use super::shop::states;
use super::tokens::MaybeUser;
use crate::SandboxState;
use crate::clock::now_rfc3339;
use crate::content::skus;
use crate::error::SandboxError;
use crate::thirdparty::{outbox, payment};

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new().route("/Checkout/simplified", post(checkout))
}

/// The checkout body: `dealerInfo` only when the cart holds FFL items; `paymentToken` is the
/// one-time token of the card tokenizer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CheckoutRequest {
    #[serde(default, deserialize_with = "loose_id")]
    cart_id: Option<i64>,
    customer_info: Option<CustomerInfo>,
    dealer_info: Option<DealerInfo>,
    payment_token: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CheckoutResponse {
    order_id: i64,
    success: bool,
    message: String,
}

/// How a checkout that got as far as the payment ended.
enum Outcome {
    Placed(i64),
    /// The card was declined: the token is spent (committed), nothing else was written.
    Declined(String),
}

async fn checkout(
    State(state): State<Arc<SandboxState>>,
    MaybeUser(user): MaybeUser,
    headers: HeaderMap,
    Body(request): Body<CheckoutRequest>,
) -> Result<Json<CheckoutResponse>, SandboxError> {
    let (owner, account_email) = match (user, carts::guest_from_headers(&headers)) {
        (Some(user), _) => (Owner::User(user.id), Some(user.email)),
        (None, Some(guest_id)) => (Owner::Guest(guest_id), None),
        (None, None) => {
            return Err(SandboxError::Unauthorized(
                "Sign in, or identify the guest with the X-Guest-Id header".to_owned(),
            ));
        }
    };
    let storefront = state.storefront_url().to_owned();
    let outcome = state.db.transaction(|tx| {
        place_order(tx, &owner, account_email.as_deref(), request, &storefront)
    })?;
    match outcome {
        Outcome::Placed(order_id) => Ok(Json(CheckoutResponse {
            order_id,
            success: true,
            message: "Your order has been placed".to_owned(),
        })),
        Outcome::Declined(message) => Err(SandboxError::Unprocessable(message)),
    }
}

fn place_order(
    tx: &Transaction<'_>,
    owner: &Owner,
    account_email: Option<&str>,
    request: CheckoutRequest,
    storefront: &str,
) -> Result<Outcome, SandboxError> {
    if let Owner::Guest(guest_id) = owner {
        carts::require_guest(tx, guest_id)?;
    }
    let cart_id = request
        .cart_id
        .ok_or_else(|| SandboxError::field("cartId", "Required"))?;
    let cart = carts::by_id(tx, cart_id)?
        .filter(|cart| cart.owned_by(owner))
        .ok_or_else(|| SandboxError::NotFound("Cart not found".to_owned()))?;
    let lines = carts::lines(tx, cart.id)?;
    if lines.is_empty() {
        return Err(SandboxError::BadRequest("Your cart is empty".to_owned()));
    }
    let has_ffl = lines.iter().any(|line| line.sku.ffl_item);
    let all_ffl = lines.iter().all(|line| line.sku.ffl_item);

    let mut checks = Checks::default();
    let customer = checks.customer(tx, request.customer_info, account_email, all_ffl)?;
    let dealer = if has_ffl {
        checks.dealer(request.dealer_info)
    } else {
        None
    };
    let payment_token = checks.required("paymentToken", &request.payment_token);
    checks.finish()?;
    let (Some(customer), Some(payment_token)) = (customer, payment_token) else {
        return Err(SandboxError::Internal(
            "validation passed without a customer or token".to_owned(),
        ));
    };

    let ship_to = customer.destination();
    let restricted: Vec<&str> = lines
        .iter()
        .filter(|line| match (&dealer, line.sku.ffl_item) {
            (Some(dealer), true) => restrictions::blocks(&line.sku, dealer.destination()),
            _ => restrictions::blocks(&line.sku, ship_to),
        })
        .map(|line| line.item.product_name.as_str())
        .collect();
    if !restricted.is_empty() {
        return Err(SandboxError::Unprocessable(format!(
            "The following items are restricted in your state or zip code: {}",
            restricted.join(", ")
        )));
    }

    let shipping_method = customer.shipping_method.clone();
    let inputs = PriceInputs {
        shipping_price: shipping_method.price.0,
        tax: pricing::tax_rate(tx, ship_to.state)?,
        ..PriceInputs::of_cart(tx, &cart)?
    };
    let totals = inputs.totals(&lines);

    // The charge comes first: a decline spends the token and writes nothing else, so it is
    // returned as an outcome (committed) rather than an error (rolled back).
    let card = match payment::redeem(tx, &payment_token) {
        Ok(card) => card,
        Err(SandboxError::Unprocessable(message)) => return Ok(Outcome::Declined(message)),
        Err(other) => return Err(other),
    };
    for line in &lines {
        skus::take_stock(tx, &line.sku.code, line.item.quantity).map_err(|err| match err {
            SandboxError::Conflict(_) => SandboxError::Conflict(format!(
                "Not enough stock for {}: {} left",
                line.item.product_name, line.sku.stock
            )),
            other => other,
        })?;
    }
    let now = now_rfc3339();
    let order_id = order_store::insert(
        tx,
        &NewOrder {
            owner,
            user_email: &customer.email,
            customer: &customer.info,
            dealer: dealer.as_ref().map(|dealer| &dealer.info),
            lines: &lines,
            totals,
            shipping_method_id: shipping_method.id,
            card: &card,
            created_at: &now,
        },
    )?;
    carts::delete(tx, cart.id)?;
    outbox::send(
        tx,
        &confirmation_email(
            order_id,
            &customer,
            dealer.as_ref(),
            &lines,
            totals,
            storefront,
        ),
        &now,
    )?;
    Ok(Outcome::Placed(order_id))
}

/// The billing and shipping form after validation.
struct ValidCustomer {
    email: String,
    info: CustomerInfo,
    shipping_method: pricing::ShippingMethod,
}

impl ValidCustomer {
    /// Where non-FFL items go: the shipping address (billing when the same), and tax is charged
    /// by its state. Falls back to billing when an all-FFL cart gave no shipping address.
    fn destination(&self) -> Destination<'_> {
        let info = &self.info;
        match (present(&info.shipping_state), present(&info.shipping_zip)) {
            (Some(state), Some(zip)) => Destination { state, zip },
            _ => Destination {
                state: present(&info.state).unwrap_or_default(),
                zip: present(&info.zip).unwrap_or_default(),
            },
        }
    }
}

struct ValidDealer {
    info: DealerInfo,
}

impl ValidDealer {
    fn destination(&self) -> Destination<'_> {
        Destination {
            state: present(&self.info.dealer_state).unwrap_or_default(),
            zip: present(&self.info.dealer_zip).unwrap_or_default(),
        }
    }
}

/// Collects field errors, .NET style: `{message, errors: {field: message}}`.
#[derive(Default)]
struct Checks {
    errors: BTreeMap<String, String>,
}

const REQUIRED: &str = "Required";

impl Checks {
    fn fail(&mut self, field: &str, message: &str) {
        self.errors
            .entry(field.to_owned())
            .or_insert_with(|| message.to_owned());
    }

    fn required(&mut self, field: &str, value: &Option<String>) -> Option<String> {
        let value = present(value).map(str::to_owned);
        if value.is_none() {
            self.fail(field, REQUIRED);
        }
        value
    }

    fn email(&mut self, field: &str, value: &Option<String>) -> Option<String> {
        let email = self.required(field, value)?;
        if is_email(&email) {
            Some(email)
        } else {
            self.fail(field, "Must be a valid email address");
            None
        }
    }

    /// A required US state, answered as its two-letter code.
    fn state(&mut self, field: &str, value: &Option<String>) -> Option<String> {
        let state = self.required(field, value)?;
        match states::code_for(&state) {
            Some(code) => Some(code.to_owned()),
            None => {
                self.fail(field, "Must be a US state");
                None
            }
        }
    }

    fn zip(&mut self, field: &str, value: &Option<String>) -> Option<String> {
        let zip = self.required(field, value)?;
        if zip.chars().count() < 5 {
            self.fail(field, "Zip code must be at least 5 digits");
            return None;
        }
        Some(zip)
    }

    fn country(&mut self, field: &str, value: &Option<String>) -> Option<String> {
        let country = self.required(field, value)?;
        if states::is_united_states(&country) {
            Some("United States".to_owned())
        } else {
            self.fail(field, "Only United States addresses are supported");
            None
        }
    }

    fn phone(&mut self, field: &str, value: &Option<String>) -> Option<String> {
        let phone = self.required(field, value)?;
        if is_us_phone(&phone) {
            Some(phone)
        } else {
            self.fail(field, "Must be a valid phone number");
            None
        }
    }

    /// A name given joined (`name`) or as first and last names.
    fn name(
        &mut self,
        field: &str,
        joined: &Option<String>,
        first: &Option<String>,
        last: &Option<String>,
    ) -> Option<String> {
        let name = present(joined).map(str::to_owned).or_else(|| {
            let parts: Vec<&str> = [first, last].into_iter().filter_map(present).collect();
            (!parts.is_empty()).then(|| parts.join(" "))
        });
        if name.is_none() {
            self.fail(field, REQUIRED);
        }
        name
    }

    /// Validates and normalises `customerInfo`: state codes, the shipping fields copied from
    /// billing when `shippingSameAsBilling` (the default), names joined and split.
    fn customer(
        &mut self,
        conn: &rusqlite::Connection,
        info: Option<CustomerInfo>,
        account_email: Option<&str>,
        all_ffl: bool,
    ) -> Result<Option<ValidCustomer>, SandboxError> {
        let Some(mut info) = info else {
            self.fail("customerInfo", REQUIRED);
            return Ok(None);
        };
        if present(&info.email).is_none() {
            info.email = account_email.map(str::to_owned);
        }
        let email = self.email("customerInfo.email", &info.email);
        let name = self.name(
            "customerInfo.name",
            &info.name,
            &info.first_name,
            &info.last_name,
        );
        self.required("customerInfo.address", &info.address);
        self.required("customerInfo.city", &info.city);
        let state = self.state("customerInfo.state", &info.state);
        self.zip("customerInfo.zip", &info.zip);
        let country = self.country("customerInfo.country", &info.country);
        let shipping_method = match info.shipping_method_id {
            None => {
                self.fail("customerInfo.shippingMethodId", REQUIRED);
                None
            }
            Some(id) => {
                let method = pricing::shipping_method(conn, id)?;
                if method.is_none() {
                    self.fail("customerInfo.shippingMethodId", "Unknown shipping method");
                }
                method
            }
        };
        info.name = name;
        info.state = state;
        info.country = country;

        if info.shipping_same_as_billing.unwrap_or(true) {
            info.shipping_same_as_billing = Some(true);
            info.shipping_name = info.name.clone();
            info.shipping_first_name = info.first_name.clone();
            info.shipping_last_name = info.last_name.clone();
            info.shipping_company = info.company.clone();
            info.address_contact = info.main_contact.clone();
            info.shipping_address = info.address.clone();
            info.shipping_city = info.city.clone();
            info.shipping_state = info.state.clone();
            info.shipping_zip = info.zip.clone();
            info.shipping_country = info.country.clone();
        } else if !all_ffl {
            info.shipping_name = self.name(
                "customerInfo.shippingName",
                &info.shipping_name,
                &info.shipping_first_name,
                &info.shipping_last_name,
            );
            self.required("customerInfo.shippingAddress", &info.shipping_address);
            self.required("customerInfo.shippingCity", &info.shipping_city);
            info.shipping_state = self.state("customerInfo.shippingState", &info.shipping_state);
            self.zip("customerInfo.shippingZip", &info.shipping_zip);
            info.shipping_country =
                self.country("customerInfo.shippingCountry", &info.shipping_country);
        } else {
            // An all-FFL order ships to the dealer: a shipping address is optional, and only
            // kept when it names a state.
            info.shipping_state = present(&info.shipping_state)
                .and_then(states::code_for)
                .map(str::to_owned);
        }
        if present(&info.shipping_name).is_none() {
            let parts: Vec<&str> = [&info.shipping_first_name, &info.shipping_last_name]
                .into_iter()
                .filter_map(present)
                .collect();
            info.shipping_name = (!parts.is_empty()).then(|| parts.join(" "));
        }
        if present(&info.shipping_first_name).is_none()
            && present(&info.shipping_last_name).is_none()
            && let Some(name) = present(&info.shipping_name)
        {
            let (first, last) = name.split_once(' ').unwrap_or((name, ""));
            info.shipping_first_name = Some(first.trim().to_owned());
            info.shipping_last_name = Some(last.trim().to_owned());
        }
        Ok(match (email, shipping_method) {
            (Some(email), Some(shipping_method)) => Some(ValidCustomer {
                email,
                info,
                shipping_method,
            }),
            _ => None,
        })
    }

    /// The dealer FFL items ship to: every field required, state as its two-letter code.
    fn dealer(&mut self, dealer: Option<DealerInfo>) -> Option<ValidDealer> {
        let Some(mut info) = dealer else {
            self.fail(
                "dealerInfo",
                "FFL items must ship to a licensed dealer: dealer information is required",
            );
            return None;
        };
        self.required("dealerInfo.dealerName", &info.dealer_name);
        self.required("dealerInfo.dealerAddress", &info.dealer_address);
        self.email("dealerInfo.dealerEmail", &info.dealer_email);
        self.phone("dealerInfo.dealerPhone", &info.dealer_phone);
        self.required("dealerInfo.dealerCity", &info.dealer_city);
        info.dealer_state = self.state("dealerInfo.dealerState", &info.dealer_state);
        self.zip("dealerInfo.dealerZip", &info.dealer_zip);
        info.dealer_country = self.country("dealerInfo.dealerCountry", &info.dealer_country);
        Some(ValidDealer { info })
    }

    /// Fails when any check failed. One error speaks for itself; several get .NET's summary.
    fn finish(self) -> Result<(), SandboxError> {
        let message = match self.errors.len() {
            0 => return Ok(()),
            1 => self
                .errors
                .iter()
                .map(|(field, message)| {
                    if message == REQUIRED {
                        format!("{field} is required")
                    } else {
                        message.clone()
                    }
                })
                .collect(),
            _ => "One or more validation errors occurred.".to_owned(),
        };
        Err(SandboxError::Validation {
            message,
            errors: self.errors,
        })
    }
}

/// A simple e-mail pattern: `local@domain.tld`, no spaces.
fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !text.chars().any(char::is_whitespace)
        && !domain.contains('@')
        && domain
            .split_once('.')
            .is_some_and(|(name, tld)| !name.is_empty() && !tld.is_empty() && !tld.ends_with('.'))
}

/// A US phone number: 10 digits, optionally after a country code 1, with the usual separators.
fn is_us_phone(text: &str) -> bool {
    if !text
        .chars()
        .all(|c| c.is_ascii_digit() || " ()-.+".contains(c))
    {
        return false;
    }
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    digits.len() == 10 || (digits.len() == 11 && digits.starts_with('1'))
}

fn confirmation_email(
    order_id: i64,
    customer: &ValidCustomer,
    dealer: Option<&ValidDealer>,
    lines: &[Line],
    totals: Totals,
    storefront: &str,
) -> outbox::Email {
    let link = format!("{storefront}/confirm/{order_id}");
    let mut body =
        format!("Thank you! Your order has been received.\n\nOrder number: {order_id}\n\n");
    for line in lines {
        let options: Vec<&str> = line
            .item
            .options
            .iter()
            .map(|option| option.value.as_str())
            .collect();
        let options = if options.is_empty() {
            String::new()
        } else {
            format!(" ({})", options.join(", "))
        };
        let unit = line.unit_price_cents();
        body.push_str(&format!(
            "{} x {}{options} at {} = {}\n",
            line.item.quantity,
            line.item.product_name,
            Money(unit).display(),
            Money(unit * line.item.quantity).display(),
        ));
    }
    let shipping = if totals.shipping == 0 {
        "Free".to_owned()
    } else {
        Money(totals.shipping).display()
    };
    body.push_str(&format!(
        "\nSubtotal: {}\nShipping ({}): {shipping}\nDiscount: {}\nTax: {}\nTotal: {}\n",
        Money(totals.sub_total).display(),
        customer.shipping_method.name,
        Money(totals.discount).display(),
        Money(totals.tax).display(),
        Money(totals.total).display(),
    ));
    let info = &customer.info;
    if lines.iter().any(|line| !line.sku.ffl_item) {
        body.push_str(&format!(
            "\nShip to: {}, {}, {}, {} {}\n",
            info.shipping_name.as_deref().unwrap_or_default(),
            info.shipping_address.as_deref().unwrap_or_default(),
            info.shipping_city.as_deref().unwrap_or_default(),
            info.shipping_state.as_deref().unwrap_or_default(),
            info.shipping_zip.as_deref().unwrap_or_default(),
        ));
    }
    if let Some(dealer) = dealer {
        let dealer = &dealer.info;
        body.push_str(&format!(
            "\nFFL items ship to your dealer: {}, {}, {}, {} {}.\nPick them up there after \
             completing ATF form 4473 and a background check.\n",
            dealer.dealer_name.as_deref().unwrap_or_default(),
            dealer.dealer_address.as_deref().unwrap_or_default(),
            dealer.dealer_city.as_deref().unwrap_or_default(),
            dealer.dealer_state.as_deref().unwrap_or_default(),
            dealer.dealer_zip.as_deref().unwrap_or_default(),
        ));
    }
    body.push_str(&format!("\nView your order: {link}\n"));
    outbox::Email {
        recipient: customer.email.clone(),
        kind: "order-confirmation".to_owned(),
        subject: format!("Your order #{order_id} has been received"),
        body,
        link: Some(link),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_follow_a_simple_pattern() {
        assert!(is_email("shopper@talonforge.example"));
        assert!(!is_email("shopper@talonforge"));
        assert!(!is_email("@talonforge.example"));
        assert!(!is_email("a b@c.example"));
        assert!(!is_email("a@b@c.example"));
    }

    #[test]
    fn phones_are_ten_digits_with_an_optional_leading_one() {
        assert!(is_us_phone("(512) 555-0100"));
        assert!(is_us_phone("+1 512 555 0100"));
        assert!(!is_us_phone("555-0100"));
        assert!(!is_us_phone("2 512 555 0100"));
        assert!(!is_us_phone("512-555-01OO"));
    }

    #[test]
    fn a_single_failure_speaks_for_itself() {
        let mut checks = Checks::default();
        checks.required("paymentToken", &None);
        let Err(SandboxError::Validation { message, errors }) = checks.finish() else {
            panic!("expected a validation error");
        };
        assert_eq!(message, "paymentToken is required");
        assert_eq!(errors.len(), 1);
    }
}
