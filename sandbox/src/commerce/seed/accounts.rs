//! The demo accounts (all with the password `Password123!`):
//!
//! - `shopper@talonforge.example`: verified, with a phone, a home address (default shipping) and
//!   an office address (default billing), subscribed to the newsletter.
//! - `new@talonforge.example`: just registered: unverified, no phone, no addresses.
//! - `verified-mil@talonforge.example`: LE/MIL Verified and Pro Deal Approved, with a phone and
//!   one address (default for both).

use rusqlite::{Connection, Transaction, params};

use crate::clock::now_rfc3339;
use crate::commerce::passwords::hash_now;
use crate::commerce::users::{NewAddress, insert_address};
use crate::error::SandboxError;

pub const DEMO_PASSWORD: &str = "Password123!";

struct DemoUser {
    email: &'static str,
    first_name: &'static str,
    last_name: &'static str,
    phone_number: Option<&'static str>,
    is_email_verified: bool,
    military_status: &'static str,
    pro_deal_status: &'static str,
}

const SHOPPER: DemoUser = DemoUser {
    email: "shopper@talonforge.example",
    first_name: "Jordan",
    last_name: "Reyes",
    phone_number: Some("(208) 555-0142"),
    is_email_verified: true,
    military_status: "None",
    pro_deal_status: "None",
};

const NEW_USER: DemoUser = DemoUser {
    email: "new@talonforge.example",
    first_name: "Casey",
    last_name: "Morgan",
    phone_number: None,
    is_email_verified: false,
    military_status: "None",
    pro_deal_status: "None",
};

const VERIFIED_MIL: DemoUser = DemoUser {
    email: "verified-mil@talonforge.example",
    first_name: "Alex",
    last_name: "Carter",
    phone_number: Some("(910) 555-0178"),
    is_email_verified: true,
    military_status: "Verified",
    pro_deal_status: "Approved",
};

fn insert_user(conn: &Connection, user: &DemoUser) -> Result<i64, SandboxError> {
    // Each account gets its own salt; argon2 is optimised even in dev builds, so three hashes
    // keep the first start quick.
    let password_hash = hash_now(DEMO_PASSWORD)?;
    conn.execute(
        "INSERT INTO users (email, password_hash, first_name, last_name, phone_number, \
             is_email_verified, military_status, pro_deal_status, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            user.email,
            password_hash,
            user.first_name,
            user.last_name,
            user.phone_number,
            user.is_email_verified,
            user.military_status,
            user.pro_deal_status,
            now_rfc3339()
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

#[allow(clippy::too_many_arguments)]
fn address(
    user: &DemoUser,
    address_name: &str,
    company: Option<&str>,
    line1: &str,
    city: &str,
    state: &str,
    postal_code: &str,
    (is_default_shipping, is_default_billing): (bool, bool),
) -> NewAddress {
    NewAddress {
        address_name: address_name.to_owned(),
        first_name: user.first_name.to_owned(),
        last_name: user.last_name.to_owned(),
        company: company.map(str::to_owned),
        main_contact: user.phone_number.unwrap_or_default().to_owned(),
        fax_contact: None,
        address_contact: None,
        address_type: 10,
        is_default_shipping,
        is_default_billing,
        address_line1: line1.to_owned(),
        address_line2: None,
        city: city.to_owned(),
        state: state.to_owned(),
        postal_code: postal_code.to_owned(),
        country: "United States".to_owned(),
        residential: company.is_none(),
    }
}

pub fn seed(tx: &Transaction<'_>) -> Result<(), SandboxError> {
    let shopper = insert_user(tx, &SHOPPER)?;
    insert_address(
        tx,
        shopper,
        &address(
            &SHOPPER,
            "Home",
            None,
            "418 Harrison Blvd",
            "Boise",
            "ID",
            "83702",
            (true, false),
        ),
    )?;
    insert_address(
        tx,
        shopper,
        &address(
            &SHOPPER,
            "Office",
            Some("Reyes Outfitters LLC"),
            "1200 W Main St Suite 300",
            "Boise",
            "ID",
            "83702",
            (false, true),
        ),
    )?;
    tx.execute(
        "INSERT INTO newsletter_subscriptions (email, first_name, last_name, is_subscribed, is_verified, updated_at) \
         VALUES (?1, ?2, ?3, 1, 1, ?4)",
        params![SHOPPER.email, SHOPPER.first_name, SHOPPER.last_name, now_rfc3339()],
    )?;

    insert_user(tx, &NEW_USER)?;

    let veteran = insert_user(tx, &VERIFIED_MIL)?;
    insert_address(
        tx,
        veteran,
        &address(
            &VERIFIED_MIL,
            "Home",
            None,
            "77 Longstreet Rd",
            "Fayetteville",
            "NC",
            "28303",
            (true, true),
        ),
    )?;
    Ok(())
}
