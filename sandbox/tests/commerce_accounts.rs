//! The account side of the commerce API over HTTP: sign-in, registration, tokens, the
//! password and verification flows, the profile, the address book and LE/MIL verification.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::{CAPTCHA, TestSandbox, start};
use reqwest::Method;
use serde_json::{Value, json};

const SHOPPER: &str = "shopper@talonforge.example";
const NEW_USER: &str = "new@talonforge.example";
const VERIFIED_MIL: &str = "verified-mil@talonforge.example";
const PASSWORD: &str = "Password123!";

async fn login(sandbox: &TestSandbox, email: &str, password: &str) -> (u16, Value) {
    sandbox
        .post(
            "/Auth/login",
            None,
            json!({"email": email, "password": password, "captcha": CAPTCHA}),
        )
        .await
}

/// Signs in and answers the access token.
async fn token_of(sandbox: &TestSandbox, email: &str) -> String {
    let (status, body) = login(sandbox, email, PASSWORD).await;
    assert_eq!(status, 200, "{body}");
    body["accessToken"].as_str().unwrap().to_owned()
}

/// The newest e-mail of `kind` sent to `recipient`, if any.
fn last_email(
    sandbox: &TestSandbox,
    kind: &str,
    recipient: &str,
) -> Option<sandbox::thirdparty::outbox::Email> {
    sandbox
        .state
        .db
        .call(|conn| sandbox::thirdparty::outbox::all(conn))
        .unwrap()
        .into_iter()
        .find(|email| email.kind == kind && email.recipient.eq_ignore_ascii_case(recipient))
}

/// The `token` query value of the newest e-mailed link of `kind`.
fn mailed_token(sandbox: &TestSandbox, kind: &str, recipient: &str, prefix: &str) -> String {
    let link = last_email(sandbox, kind, recipient)
        .and_then(|email| email.link)
        .unwrap_or_else(|| panic!("no {kind} e-mail to {recipient}"));
    let expected = format!("{}{prefix}", sandbox.state.storefront_url());
    assert!(
        link.starts_with(&expected),
        "{link} should start with {expected}"
    );
    link[expected.len()..].to_owned()
}

fn register_body(email: &str) -> Value {
    json!({
        "firstName": "Riley",
        "lastName": "Stone",
        "email": email,
        "password": "correct horse",
        "newsletter": false,
        "captcha": CAPTCHA,
    })
}

async fn profile(sandbox: &TestSandbox, token: &str) -> Value {
    let (status, body) = sandbox.get_as("/User/profile", token).await;
    assert_eq!(status, 200, "{body}");
    body
}

// ---------------------------------------------------------------------------------------------
// Login and tokens.

#[tokio::test]
async fn login_with_a_demo_account_issues_a_bearer_token_pair() {
    let sandbox = start().await;
    let (status, body) = login(&sandbox, SHOPPER, PASSWORD).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["tokenType"], "Bearer");
    assert_eq!(body["expiresIn"], 900);
    assert!(
        body["accessToken"].as_str().unwrap().split('.').count() == 3,
        "a JWT"
    );
    assert!(!body["refreshToken"].as_str().unwrap().is_empty());
    // E-mails are matched case-insensitively.
    let (status, _) = login(&sandbox, "SHOPPER@TalonForge.example", PASSWORD).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn login_with_bad_credentials_is_401_with_one_message() {
    let sandbox = start().await;
    for (email, password) in [
        (SHOPPER, "Password123?"),
        ("nobody@talonforge.example", PASSWORD),
    ] {
        let (status, body) = login(&sandbox, email, password).await;
        assert_eq!(status, 401, "{email}");
        assert_eq!(body["message"], "Invalid email or password");
    }
}

/// Timing must not tell which e-mails have accounts: a sign-in for an unknown e-mail spends a
/// password hash exactly like a wrong password for a known one (counted, not timed).
#[tokio::test]
async fn an_unknown_email_spends_a_password_hash_like_a_known_one() {
    let sandbox = start().await;
    let runs = || sandbox.state.passwords.stats().runs;
    let before = runs();
    let (status, _) = login(&sandbox, "nobody@talonforge.example", PASSWORD).await;
    assert_eq!(status, 401);
    assert_eq!(runs(), before + 1, "the unknown e-mail was hashed");
    let (status, _) = login(&sandbox, SHOPPER, "Password123?").await;
    assert_eq!(status, 401);
    assert_eq!(runs(), before + 2, "the wrong password was checked");
    let (status, _) = login(&sandbox, SHOPPER, PASSWORD).await;
    assert_eq!(status, 200);
    assert_eq!(runs(), before + 3);
}

/// A burst of sign-ins must not run one 19 MiB argon2 hash per request at once (the process
/// grew to ≈3 GB and kept it): at most one hash per core runs, the rest wait their turn, and
/// every sign-in is still answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_sign_ins_hashes_at_most_one_password_per_core_at_once() {
    let sandbox = Arc::new(start().await);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let before = sandbox.state.passwords.stats();
    assert_eq!(before.limit, cores);
    let burst: Vec<_> = (0..50)
        .map(|n| {
            let sandbox = sandbox.clone();
            tokio::spawn(async move {
                let (email, password) = match n % 3 {
                    0 => (SHOPPER, PASSWORD),
                    1 => (SHOPPER, "Password123?"),
                    _ => ("nobody@talonforge.example", PASSWORD),
                };
                login(&sandbox, email, password).await.0
            })
        })
        .collect();
    let mut answered = Vec::new();
    for sign_in in burst {
        answered.push(sign_in.await.unwrap());
    }
    assert_eq!(answered.iter().filter(|&&status| status == 200).count(), 17);
    assert_eq!(answered.iter().filter(|&&status| status == 401).count(), 33);
    let after = sandbox.state.passwords.stats();
    assert_eq!(after.runs - before.runs, 50, "one hash per sign-in");
    assert_eq!(after.in_flight, 0);
    assert!(
        after.peak >= 1 && after.peak <= cores,
        "at most {cores} hashes at once, saw {}",
        after.peak
    );
}
#[tokio::test]
async fn login_needs_a_valid_captcha_and_well_formed_fields() {
    let sandbox = start().await;
    let (status, body) = sandbox
        .post(
            "/Auth/login",
            None,
            json!({"email": SHOPPER, "password": PASSWORD}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["errors"]["captcha"], "Captcha is required");
    let (status, body) = sandbox
        .post(
            "/Auth/login",
            None,
            json!({"email": SHOPPER, "password": PASSWORD, "captcha": "forged"}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["errors"]["captcha"], "Captcha verification failed");
    let (status, body) = sandbox
        .post(
            "/Auth/login",
            None,
            json!({"email": "not-an-email", "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["errors"]["email"],
        "Email must be a valid email address"
    );
    assert_eq!(body["errors"]["password"], "Password is required");
}

#[tokio::test]
async fn a_body_that_is_not_json_is_a_json_400() {
    let sandbox = start().await;
    let response = sandbox
        .client
        .post(sandbox.url("/Auth/login"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await;
    assert_eq!(response.status().as_u16(), 400);
    let body: Value = response.json().unwrap();
    assert!(body["message"].is_string());
}

#[tokio::test]
async fn refresh_tokens_rotate_and_a_spent_one_is_refused_and_revokes_its_successor() {
    let sandbox = start().await;
    let (_, first) = login(&sandbox, SHOPPER, PASSWORD).await;
    let (status, second) = sandbox
        .post(
            "/Auth/refresh-token",
            None,
            json!({"refreshToken": first["refreshToken"]}),
        )
        .await;
    assert_eq!(status, 200, "{second}");
    assert_ne!(second["refreshToken"], first["refreshToken"]);
    assert_ne!(second["accessToken"], first["accessToken"]);
    profile(&sandbox, second["accessToken"].as_str().unwrap()).await;

    let (status, body) = sandbox
        .post(
            "/Auth/refresh-token",
            None,
            json!({"refreshToken": first["refreshToken"]}),
        )
        .await;
    assert_eq!(status, 401, "reuse of a spent token");
    assert!(body["message"].is_string());
    let (status, _) = sandbox
        .post(
            "/Auth/refresh-token",
            None,
            json!({"refreshToken": second["refreshToken"]}),
        )
        .await;
    assert_eq!(status, 401, "the reuse revoked the whole family");

    let (status, _) = sandbox.post("/Auth/refresh-token", None, json!({})).await;
    assert_eq!(status, 400);
    let (status, _) = sandbox
        .post(
            "/Auth/refresh-token",
            None,
            json!({"refreshToken": "unknown"}),
        )
        .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn logout_revokes_the_access_token_and_the_refresh_tokens() {
    let sandbox = start().await;
    let (_, tokens) = login(&sandbox, SHOPPER, PASSWORD).await;
    let access = tokens["accessToken"].as_str().unwrap();
    let response = sandbox
        .client
        .post(sandbox.url("/Auth/logout"))
        .bearer_auth(access)
        .send()
        .await;
    assert_eq!(response.status().as_u16(), 204);
    let (status, _) = sandbox.get_as("/User/profile", access).await;
    assert_eq!(status, 401, "a revoked token");
    let (status, _) = sandbox
        .post(
            "/Auth/refresh-token",
            None,
            json!({"refreshToken": tokens["refreshToken"]}),
        )
        .await;
    assert_eq!(status, 401);
    let (status, _) = sandbox.post("/Auth/logout", None, json!({})).await;
    assert_eq!(status, 401, "logout needs a token");
}

// ---------------------------------------------------------------------------------------------
// Registration and verification.

#[tokio::test]
async fn register_signs_in_an_unverified_account_and_mails_a_verification_link() {
    let sandbox = start().await;
    let email = "riley@example.com";
    let (status, body) = sandbox
        .post("/Auth/register", None, register_body(email))
        .await;
    assert_eq!(status, 201, "{body}");
    let token = body["accessToken"].as_str().unwrap().to_owned();
    let me = profile(&sandbox, &token).await;
    assert_eq!(me["email"], email);
    assert_eq!(me["fullName"], "Riley Stone");
    assert_eq!(me["isEmailVerified"], false);
    assert_eq!(me["isSubscribedToNewsletter"], false);
    assert_eq!(me["militaryStatus"], "None");
    assert_eq!(me["proDealStatus"], "None");
    assert!(last_email(&sandbox, "newsletter-verification", email).is_none());

    let verification = mailed_token(&sandbox, "verification", email, "/verify-email?token=");
    let (status, body) = sandbox
        .post(
            "/Auth/verify-registration",
            None,
            json!({"token": verification}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["message"], "Registration verified successfully");
    assert_eq!(profile(&sandbox, &token).await["isEmailVerified"], true);

    let (status, body) = sandbox
        .post(
            "/Auth/verify-registration",
            None,
            json!({"token": verification}),
        )
        .await;
    assert_eq!(status, 400, "a used link");
    assert_eq!(body["message"], "Invalid or expired verification token");
    let (status, _) = sandbox
        .post("/Auth/verify-registration", None, json!({"token": "nope"}))
        .await;
    assert_eq!(status, 400);

    let (status, _) = login(&sandbox, email, "correct horse").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn register_with_newsletter_subscribes_the_address() {
    let sandbox = start().await;
    let email = "news@example.com";
    let mut body = register_body(email);
    body["newsletter"] = json!(true);
    let (status, tokens) = sandbox.post("/Auth/register", None, body).await;
    assert_eq!(status, 201);
    let me = profile(&sandbox, tokens["accessToken"].as_str().unwrap()).await;
    assert_eq!(me["isSubscribedToNewsletter"], true);
    let (_, status) = sandbox
        .get_json(&format!("/Newsletter/status/{email}"))
        .await;
    assert_eq!(status["isSubscribed"], true);
    assert!(last_email(&sandbox, "newsletter-verification", email).is_some());
}

#[tokio::test]
async fn register_refuses_duplicates_short_passwords_and_missing_fields() {
    let sandbox = start().await;
    let (status, body) = sandbox
        .post(
            "/Auth/register",
            None,
            register_body("Shopper@TalonForge.example"),
        )
        .await;
    assert_eq!(status, 409);
    assert_eq!(body["message"], "An account with this email already exists");

    let mut short = register_body("short@example.com");
    short["password"] = json!("1234567");
    let (status, body) = sandbox.post("/Auth/register", None, short).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["message"],
        "Password must be at least 8 characters long"
    );
    assert_eq!(
        body["errors"]["password"],
        "Password must be at least 8 characters long"
    );

    let mut mismatch = register_body("mismatch@example.com");
    mismatch["confirmPassword"] = json!("something else");
    let (status, body) = sandbox.post("/Auth/register", None, mismatch).await;
    assert_eq!(status, 400);
    assert_eq!(body["errors"]["confirmPassword"], "Passwords do not match");

    let (status, body) = sandbox
        .post("/Auth/register", None, json!({"captcha": CAPTCHA}))
        .await;
    assert_eq!(status, 400);
    for (field, message) in [
        ("firstName", "First name is required"),
        ("lastName", "Last name is required"),
        ("email", "Email is required"),
        ("password", "Password is required"),
    ] {
        assert_eq!(body["errors"][field], message, "{body}");
    }

    let mut no_captcha = register_body("robot@example.com");
    no_captcha["captcha"] = json!("");
    let (status, _) = sandbox.post("/Auth/register", None, no_captcha).await;
    assert_eq!(status, 400);
    let mut bad_captcha = register_body("robot@example.com");
    bad_captcha["captcha"] = json!("forged");
    let (status, _) = sandbox.post("/Auth/register", None, bad_captcha).await;
    assert_eq!(status, 400);
    let (status, _) = login(&sandbox, "robot@example.com", "correct horse").await;
    assert_eq!(status, 401, "nothing was created");
}

#[tokio::test]
async fn resend_verification_mails_a_new_link_and_only_the_newest_works() {
    let sandbox = start().await;
    let token = token_of(&sandbox, NEW_USER).await;
    assert_eq!(profile(&sandbox, &token).await["isEmailVerified"], false);
    let (status, body) = sandbox
        .post("/Auth/resend-verification", Some(&token), json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["message"],
        "A verification link was sent to your email"
    );
    let first = mailed_token(&sandbox, "verification", NEW_USER, "/verify-email?token=");
    sandbox
        .post("/Auth/resend-verification", Some(&token), json!({}))
        .await;
    let second = mailed_token(&sandbox, "verification", NEW_USER, "/verify-email?token=");
    assert_ne!(first, second);
    let (status, _) = sandbox
        .post("/Auth/verify-registration", None, json!({"token": first}))
        .await;
    assert_eq!(status, 400, "superseded");
    let (status, _) = sandbox
        .post("/Auth/verify-registration", None, json!({"token": second}))
        .await;
    assert_eq!(status, 200);

    let (status, body) = sandbox
        .post("/Auth/resend-verification", Some(&token), json!({}))
        .await;
    assert_eq!(status, 400, "already verified");
    assert_eq!(body["message"], "Your email address is already verified");
    let (status, _) = sandbox
        .post("/Auth/resend-verification", None, json!({}))
        .await;
    assert_eq!(status, 401);
}

// ---------------------------------------------------------------------------------------------
// Password flows.

#[tokio::test]
async fn forgot_and_reset_password_through_the_mailed_link() {
    let sandbox = start().await;
    let (status, known) = sandbox
        .post(
            "/Auth/forgot-password",
            None,
            json!({"email": SHOPPER, "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 200);
    let (status, unknown) = sandbox
        .post(
            "/Auth/forgot-password",
            None,
            json!({"email": "nobody@talonforge.example", "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(known, unknown, "the answer does not reveal accounts");
    assert!(last_email(&sandbox, "password-reset", "nobody@talonforge.example").is_none());

    let reset = mailed_token(
        &sandbox,
        "password-reset",
        SHOPPER,
        "/auth/reset-password?token=",
    );
    let (status, body) = sandbox
        .post(
            "/Auth/reset-password",
            None,
            json!({"password": "short", "token": reset, "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["message"],
        "Password must be at least 8 characters long"
    );
    let (status, body) = sandbox
        .post(
            "/Auth/reset-password",
            None,
            json!({"password": "brand new pass", "token": reset}),
        )
        .await;
    assert_eq!(status, 400, "captcha required: {body}");

    let (_, before) = login(&sandbox, SHOPPER, PASSWORD).await;
    let (status, body) = sandbox
        .post(
            "/Auth/reset-password",
            None,
            json!({"password": "brand new pass", "token": reset, "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["message"], "Password reset successfully");
    assert_eq!(login(&sandbox, SHOPPER, PASSWORD).await.0, 401);
    assert_eq!(login(&sandbox, SHOPPER, "brand new pass").await.0, 200);
    let (status, _) = sandbox
        .post(
            "/Auth/refresh-token",
            None,
            json!({"refreshToken": before["refreshToken"]}),
        )
        .await;
    assert_eq!(status, 401, "a reset signs every session out");

    let (status, body) = sandbox
        .post(
            "/Auth/reset-password",
            None,
            json!({"password": "another pass", "token": reset, "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 400, "the link works once");
    assert_eq!(body["message"], "Invalid or expired password reset token");
    let (status, _) = sandbox
        .post(
            "/Auth/reset-password",
            None,
            json!({"password": "another pass", "token": "bogus", "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 400);

    let (status, body) = sandbox
        .post(
            "/Auth/forgot-password",
            None,
            json!({"email": "bad", "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["errors"]["email"],
        "Email must be a valid email address"
    );
}

#[tokio::test]
async fn change_password_checks_the_current_one_and_the_confirmation() {
    let sandbox = start().await;
    let token = token_of(&sandbox, SHOPPER).await;
    let change = |current: &str, new: &str, confirm: &str| json!({"currentPassword": current, "newPassword": new, "confirmPassword": confirm});
    let (status, body) = sandbox
        .post(
            "/Auth/change-password",
            Some(&token),
            change("wrong-password", "new password", "new password"),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["message"], "Current password is incorrect");
    let (status, body) = sandbox
        .post(
            "/Auth/change-password",
            Some(&token),
            change(PASSWORD, "new password", "new passwort"),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["message"], "Passwords do not match");
    let (status, body) = sandbox
        .post(
            "/Auth/change-password",
            Some(&token),
            change(PASSWORD, "short", "short"),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["message"],
        "Password must be at least 8 characters long"
    );
    let (status, _) = sandbox
        .post(
            "/Auth/change-password",
            None,
            change(PASSWORD, "new password", "new password"),
        )
        .await;
    assert_eq!(status, 401);

    let (status, body) = sandbox
        .post(
            "/Auth/change-password",
            Some(&token),
            change(PASSWORD, "new password", "new password"),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["message"], "Password updated successfully");
    assert_eq!(login(&sandbox, SHOPPER, PASSWORD).await.0, 401);
    assert_eq!(login(&sandbox, SHOPPER, "new password").await.0, 200);
    profile(&sandbox, &token).await;
}

// ---------------------------------------------------------------------------------------------
// Profile.

#[tokio::test]
async fn the_profile_needs_a_valid_unexpired_unrevoked_token() {
    let sandbox = start().await;
    let response = sandbox.get("/User/profile").await;
    assert_eq!(response.status().as_u16(), 401);
    let body: Value = response.json().unwrap();
    assert!(body["message"].is_string(), "a JSON 401");
    assert_eq!(sandbox.get_as("/User/profile", "not-a-jwt").await.0, 401);

    let user_id: i64 = sandbox
        .state
        .db
        .call(|conn| {
            Ok(
                conn.query_row("SELECT id FROM users WHERE email = ?1", [SHOPPER], |row| {
                    row.get(0)
                })?,
            )
        })
        .unwrap();
    let expired = sandbox
        .state
        .db
        .call(|conn| {
            sandbox::commerce::tokens::issue(conn, &sandbox.state.keys, user_id, SHOPPER, -5)
        })
        .unwrap();
    assert_eq!(
        sandbox
            .get_as("/User/profile", &expired.access_token)
            .await
            .0,
        401
    );
}

#[tokio::test]
async fn the_demo_shopper_profile_carries_its_lists() {
    let sandbox = start().await;
    let me = profile(&sandbox, &token_of(&sandbox, SHOPPER).await).await;
    assert_eq!(me["email"], SHOPPER);
    assert_eq!(me["firstName"], "Jordan");
    assert_eq!(me["fullName"], "Jordan Reyes");
    assert_eq!(me["phoneNumber"], "(208) 555-0142");
    assert_eq!(me["isEmailVerified"], true);
    assert_eq!(me["isSubscribedToNewsletter"], true);
    assert_eq!(me["militaryStatus"], "None");
    assert_eq!(me["proDealStatus"], "None");
    let addresses = me["addresses"].as_array().unwrap();
    assert_eq!(addresses.len(), 2);
    let shipping: Vec<_> = addresses
        .iter()
        .filter(|address| address["isDefaultShipping"] == true)
        .collect();
    let billing: Vec<_> = addresses
        .iter()
        .filter(|address| address["isDefaultBilling"] == true)
        .collect();
    assert_eq!((shipping.len(), billing.len()), (1, 1));
    assert_ne!(shipping[0]["id"], billing[0]["id"]);
    for field in [
        "id",
        "firstName",
        "lastName",
        "company",
        "mainContact",
        "faxContact",
        "addressName",
        "addressContact",
        "addressType",
        "addressLine1",
        "addressLine2",
        "city",
        "state",
        "postalCode",
        "country",
        "residential",
    ] {
        assert!(addresses[0].get(field).is_some(), "address.{field}");
    }
    assert!(me["orders"].is_array());
    assert!(me["favorites"].is_array());
    assert!(me["builds"].is_array());

    let mil = profile(&sandbox, &token_of(&sandbox, VERIFIED_MIL).await).await;
    assert_eq!(mil["militaryStatus"], "Verified");
    assert_eq!(mil["proDealStatus"], "Approved");
    let new = profile(&sandbox, &token_of(&sandbox, NEW_USER).await).await;
    assert_eq!(new["isEmailVerified"], false);
    assert_eq!(new["addresses"], json!([]));
    assert_eq!(new["phoneNumber"], Value::Null);
}

#[tokio::test]
async fn profile_orders_are_summaries_of_the_users_own_orders_newest_first() {
    let sandbox = start().await;
    let token = token_of(&sandbox, SHOPPER).await;
    sandbox
        .state
        .db
        .call(|conn| {
            let user_id: i64 =
                conn.query_row("SELECT id FROM users WHERE email = ?1", [SHOPPER], |row| {
                    row.get(0)
                })?;
            let other: i64 = conn.query_row(
                "SELECT id FROM users WHERE email = ?1",
                [VERIFIED_MIL],
                |row| row.get(0),
            )?;
            for (id, owner, created_at) in [
                (200_001, user_id, "2026-01-02T10:00:00Z"),
                (200_002, user_id, "2026-02-03T10:00:00Z"),
                (200_003, other, "2026-03-04T10:00:00Z"),
            ] {
                conn.execute(
                    "INSERT INTO orders (id, user_id, user_email, status, customer_info, subtotal_cents, \
                         shipping_cents, discount_cents, tax_cents, total_cents, payment_brand, \
                         payment_last4, created_at) \
                     VALUES (?1, ?2, 'x@example.com', 'Processing', '{}', 5000, 0, 0, 300, 5300, 'Visa', '1111', ?3)",
                    rusqlite::params![id, owner, created_at],
                )?;
                conn.execute(
                    "INSERT INTO order_items (order_id, product_id, product_name, product_url, options, \
                         unit_price_cents, quantity) \
                     VALUES (?1, 'TF-SLING', 'Quick Sling', '/product/quick%20sling', \
                         '[{\"label\":\"Color\",\"value\":\"Black\"}]', 2500, 2)",
                    [id],
                )?;
            }
            Ok(())
        })
        .unwrap();
    let me = profile(&sandbox, &token).await;
    let orders = me["orders"].as_array().unwrap();
    let ids: Vec<_> = orders.iter().map(|order| order["id"].clone()).collect();
    assert_eq!(
        ids,
        [json!(200_002), json!(200_001)],
        "own orders, newest first"
    );
    let order = &orders[0];
    assert_eq!(order["status"], "Processing");
    assert!(
        order["createdAt"]
            .as_str()
            .unwrap()
            .starts_with("2026-02-03")
    );
    assert_eq!(order["totalAmount"], 53.0);
    assert_eq!(order["shippingCost"], 0.0);
    assert_eq!(order["taxAmount"], 3.0);
    let item = &order["items"][0];
    assert_eq!(item["productName"], "Quick Sling");
    assert_eq!(item["productUrl"], "/product/quick%20sling");
    assert_eq!(item["options"], json!(["Black"]));
    assert_eq!(item["unitPrice"], 25.0);
    assert_eq!(item["quantity"], 2);
    assert_eq!(item["price"], 50.0);
}

#[tokio::test]
async fn profile_updates_names_and_phone_but_not_the_email() {
    let sandbox = start().await;
    let token = token_of(&sandbox, NEW_USER).await;
    let (status, me) = sandbox
        .send(
            Method::PUT,
            "/User/profile",
            Some(&token),
            json!({"firstName": "Casey Jo", "lastName": "Morgan-Lee", "email": NEW_USER, "phoneNumber": "(555) 010-0199"}),
        )
        .await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["fullName"], "Casey Jo Morgan-Lee");
    assert_eq!(me["phoneNumber"], "(555) 010-0199");

    let (status, body) = sandbox
        .send(
            Method::PUT,
            "/User/profile",
            Some(&token),
            json!({"firstName": "Casey", "email": "someone-else@example.com"}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["errors"]["email"], "Email cannot be changed");
    assert_eq!(
        profile(&sandbox, &token).await["firstName"],
        "Casey Jo",
        "nothing changed"
    );

    let (status, me) = sandbox
        .send(
            Method::PUT,
            "/User/profile",
            Some(&token),
            json!({"phoneNumber": "", "email": NEW_USER}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(me["phoneNumber"], Value::Null);
    assert_eq!(me["lastName"], "Morgan-Lee", "absent fields are kept");
    let (status, body) = sandbox
        .send(
            Method::PUT,
            "/User/profile",
            Some(&token),
            json!({"firstName": "Casey"}),
        )
        .await;
    assert_eq!(status, 400, "the specs' payload carries the e-mail: {body}");
    assert_eq!(body["errors"]["email"], "Email is required");
    let (status, _) = sandbox
        .send(
            Method::PUT,
            "/User/profile",
            None,
            json!({"firstName": "X"}),
        )
        .await;
    assert_eq!(status, 401);
}

// ---------------------------------------------------------------------------------------------
// Address book.

fn address_body(name: &str) -> Value {
    json!({
        "addressName": name,
        "firstName": "Casey",
        "lastName": "Morgan",
        "mainContact": "(555) 010-0199",
        "addressLine1": "9 Elm St",
        "city": "Austin",
        "state": "TX",
        "postalCode": "78701",
    })
}

#[tokio::test]
async fn addresses_are_created_with_defaults_updated_and_deleted() {
    let sandbox = start().await;
    let token = token_of(&sandbox, NEW_USER).await;
    let (status, first) = sandbox
        .post("/User/addresses", Some(&token), address_body("Home"))
        .await;
    assert_eq!(status, 201, "{first}");
    assert_eq!(first["country"], "United States");
    assert_eq!(first["addressType"], 10);
    assert_eq!(first["isDefaultShipping"], true);
    assert_eq!(first["isDefaultBilling"], true);
    assert_eq!(first["residential"], true);
    assert_eq!(first["company"], Value::Null);

    let mut shipping_only = address_body("Cabin");
    shipping_only["isDefaultBilling"] = json!(false);
    shipping_only["company"] = json!("Morgan Supply");
    let (status, second) = sandbox
        .post("/User/addresses", Some(&token), shipping_only)
        .await;
    assert_eq!(status, 201);
    let me = profile(&sandbox, &token).await;
    let by_id = |id: &Value| {
        me["addresses"]
            .as_array()
            .unwrap()
            .iter()
            .find(|address| &address["id"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(
        by_id(&first["id"])["isDefaultShipping"],
        false,
        "the new default won"
    );
    assert_eq!(
        by_id(&first["id"])["isDefaultBilling"],
        true,
        "billing untouched"
    );
    assert_eq!(by_id(&second["id"])["company"], "Morgan Supply");

    let path = format!("/User/addresses/{}", first["id"]);
    let mut changed = address_body("Home, renamed");
    changed["addressLine2"] = json!("Apt 4");
    changed["isDefaultShipping"] = json!(true);
    let (status, updated) = sandbox
        .send(Method::PUT, &path, Some(&token), changed)
        .await;
    assert_eq!(status, 200, "{updated}");
    assert_eq!(updated["addressName"], "Home, renamed");
    assert_eq!(updated["addressLine2"], "Apt 4");
    let me = profile(&sandbox, &token).await;
    let defaults: Vec<_> = me["addresses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|address| address["isDefaultShipping"] == true)
        .map(|address| address["id"].clone())
        .collect();
    assert_eq!(defaults, [first["id"].clone()]);

    let (status, _) = sandbox
        .send(Method::DELETE, &path, Some(&token), json!({}))
        .await;
    assert_eq!(status, 204);
    let (status, _) = sandbox
        .send(Method::DELETE, &path, Some(&token), json!({}))
        .await;
    assert_eq!(status, 404);
    assert_eq!(
        profile(&sandbox, &token).await["addresses"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn another_users_address_is_not_found_and_stays_intact() {
    let sandbox = start().await;
    let owner = token_of(&sandbox, SHOPPER).await;
    let stranger = token_of(&sandbox, NEW_USER).await;
    let address_id = profile(&sandbox, &owner).await["addresses"][0]["id"].clone();
    let path = format!("/User/addresses/{address_id}");
    let (status, body) = sandbox
        .send(
            Method::PUT,
            &path,
            Some(&stranger),
            address_body("Mine now"),
        )
        .await;
    assert_eq!(status, 404);
    assert_eq!(body["message"], "Address not found");
    let (status, _) = sandbox
        .send(Method::DELETE, &path, Some(&stranger), json!({}))
        .await;
    assert_eq!(status, 404);
    assert_eq!(
        profile(&sandbox, &owner).await["addresses"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let (status, _) = sandbox
        .post("/User/addresses", None, address_body("x"))
        .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn addresses_name_every_missing_required_field() {
    let sandbox = start().await;
    let token = token_of(&sandbox, NEW_USER).await;
    let (status, body) = sandbox
        .post(
            "/User/addresses",
            Some(&token),
            json!({"country": "", "company": "Acme"}),
        )
        .await;
    assert_eq!(status, 400);
    for field in [
        "addressName",
        "firstName",
        "lastName",
        "mainContact",
        "addressLine1",
        "city",
        "state",
        "postalCode",
        "country",
    ] {
        assert!(body["errors"][field].is_string(), "{field}: {body}");
    }
    assert_eq!(body["errors"]["mainContact"], "Phone is required");
}

// ---------------------------------------------------------------------------------------------
// LE/MIL verification.

/// Answers the verification service's authorize page like a person would and returns the
/// `code` and `state` it redirects back with.
async fn answer_idv(
    sandbox: &TestSandbox,
    authorization_url: &str,
    decision: &str,
) -> (String, String) {
    let page = sandbox.client.get(authorization_url).send().await;
    assert_eq!(page.status().as_u16(), 200);
    let handle = authorization_url.split_once("state=").unwrap().1;
    let response = sandbox
        .client
        .post(sandbox.url("/3p/idv/authorize"))
        .form(&[("state", handle), ("decision", decision)])
        .send()
        .await;
    assert_eq!(response.status().as_u16(), 303);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let expected = format!("{}/profile/le-mil?", sandbox.state.storefront_url());
    assert!(location.starts_with(&expected), "{location}");
    let query = &location[expected.len()..];
    let value = |name: &str| {
        query
            .split('&')
            .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
            .unwrap()
            .to_owned()
    };
    (value("code"), value("state"))
}

async fn start_idv(sandbox: &TestSandbox, token: &str) -> (u16, Value) {
    sandbox
        .post(
            "/military/veripass/session",
            Some(token),
            json!({"email": SHOPPER, "display": "popup", "goto": "login"}),
        )
        .await
}

#[tokio::test]
async fn military_verification_goes_pending_then_verified_and_cannot_repeat() {
    let sandbox = start().await;
    let token = token_of(&sandbox, SHOPPER).await;
    let (status, body) = start_idv(&sandbox, &token).await;
    assert_eq!(status, 200, "{body}");
    let url = body["authorizationUrl"].as_str().unwrap().to_owned();
    assert!(url.starts_with(&format!("{}/3p/idv/authorize?state=", sandbox.base)));
    assert_eq!(profile(&sandbox, &token).await["militaryStatus"], "Pending");

    let (code, handle) = answer_idv(&sandbox, &url, "approve").await;
    let stranger = token_of(&sandbox, NEW_USER).await;
    let callback = format!("/military/veripass/callback?code={code}&state={handle}");
    let (status, _) = sandbox.get_as(&callback, &stranger).await;
    assert_eq!(status, 400, "another account's code");
    let (status, body) = sandbox.get_as(&callback, &token).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["message"], "Your LE/MIL status has been verified");
    assert_eq!(body["militaryStatus"], "Verified");
    assert_eq!(
        profile(&sandbox, &token).await["militaryStatus"],
        "Verified"
    );

    let (status, body) = start_idv(&sandbox, &token).await;
    assert_eq!(status, 409);
    assert_eq!(body["message"], "Your LE/MIL status is already verified");
}

#[tokio::test]
async fn military_verification_can_be_rejected_and_retried() {
    let sandbox = start().await;
    let token = token_of(&sandbox, SHOPPER).await;
    let (_, body) = start_idv(&sandbox, &token).await;
    let (code, handle) = answer_idv(
        &sandbox,
        body["authorizationUrl"].as_str().unwrap(),
        "reject",
    )
    .await;
    let callback = format!("/military/veripass/callback?code={code}&state={handle}");
    let (status, body) = sandbox.get_as(&callback, &token).await;
    assert_eq!(status, 200);
    assert_eq!(body["militaryStatus"], "Rejected");
    assert_eq!(
        profile(&sandbox, &token).await["militaryStatus"],
        "Rejected"
    );
    let (status, _) = sandbox.get_as(&callback, &token).await;
    assert_eq!(status, 400, "a code works once");
    let (status, _) = start_idv(&sandbox, &token).await;
    assert_eq!(status, 200, "Rejected may reapply");
}

#[tokio::test]
async fn military_verification_needs_a_phone_an_address_and_good_parameters() {
    let sandbox = start().await;
    let token = token_of(&sandbox, NEW_USER).await;
    let (status, body) = start_idv(&sandbox, &token).await;
    assert_eq!(status, 400);
    assert!(body["message"].as_str().unwrap().contains("phone number"));
    assert_eq!(profile(&sandbox, &token).await["militaryStatus"], "None");

    sandbox
        .send(
            Method::PUT,
            "/User/profile",
            Some(&token),
            json!({"phoneNumber": "5550100199", "email": NEW_USER}),
        )
        .await;
    assert_eq!(start_idv(&sandbox, &token).await.0, 400, "still no address");
    sandbox
        .post("/User/addresses", Some(&token), address_body("Home"))
        .await;
    assert_eq!(start_idv(&sandbox, &token).await.0, 200);

    for query in ["", "?code=abc", "?code=abc&state=def"] {
        let (status, _) = sandbox
            .get_as(&format!("/military/veripass/callback{query}"), &token)
            .await;
        assert_eq!(status, 400, "{query}");
    }
    assert_eq!(
        sandbox
            .post("/military/veripass/session", None, json!({}))
            .await
            .0,
        401
    );
}
