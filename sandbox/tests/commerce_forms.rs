//! The public forms of the commerce API over HTTP: newsletter, stock alerts, image
//! requests, dealer registration and Pro Deal applications (with their uploads).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{CAPTCHA, TestSandbox, start};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

const SHOPPER: &str = "shopper@talonforge.example";
const VERIFIED_MIL: &str = "verified-mil@talonforge.example";
const PASSWORD: &str = "Password123!";

const PDF: &[u8] = b"%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n";
const TIFF: &[u8] = b"II*\0\x08\0\0\0\0\0";
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

async fn token_of(sandbox: &TestSandbox, email: &str) -> String {
    let (status, body) = sandbox
        .post(
            "/Auth/login",
            None,
            json!({"email": email, "password": PASSWORD, "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body["accessToken"].as_str().unwrap().to_owned()
}

fn count(sandbox: &TestSandbox, sql: &str) -> i64 {
    sandbox
        .state
        .db
        .call(|conn| Ok(conn.query_row(sql, [], |row| row.get(0))?))
        .unwrap()
}

async fn post_form(
    sandbox: &TestSandbox,
    path: &str,
    token: Option<&str>,
    form: Form,
) -> (u16, Value) {
    let mut request = sandbox.client.post(sandbox.url(path)).multipart(form);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await;
    let status = response.status().as_u16();
    (status, response.json().unwrap_or(Value::Null))
}

fn file(bytes: &[u8], name: &str) -> Part {
    Part::bytes(bytes.to_vec()).file_name(name.to_owned())
}

// ---------------------------------------------------------------------------------------------
// Newsletter.

#[tokio::test]
async fn newsletter_subscribe_verify_and_unsubscribe() {
    let sandbox = start().await;
    let email = "reader@example.com";
    let status_path = format!("/Newsletter/status/{email}");
    let (status, body) = sandbox.get_json(&status_path).await;
    assert_eq!(status, 200);
    assert_eq!(body["isSubscribed"], false);

    let (status, body) = sandbox
        .post(
            "/Newsletter/subscribe",
            None,
            json!({"email": email, "firstName": "Rea", "lastName": "Der", "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["message"],
        "You have been subscribed to the newsletter"
    );
    let (_, body) = sandbox.get_json(&status_path).await;
    assert_eq!(body["isSubscribed"], true);
    assert_eq!(body["isVerified"], false);

    let link = sandbox
        .state
        .db
        .call(|conn| sandbox::thirdparty::outbox::all(conn))
        .unwrap()
        .into_iter()
        .find(|mail| mail.kind == "newsletter-verification" && mail.recipient == email)
        .and_then(|mail| mail.link)
        .unwrap();
    let prefix = format!("{}/Newsletter/verify/", sandbox.state.storefront_url());
    let token = link.strip_prefix(&prefix).unwrap();
    let (status, body) = sandbox
        .get_json(&format!("/Newsletter/verify/{token}"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["message"], "Email verified successfully");
    assert_eq!(sandbox.get_json(&status_path).await.1["isVerified"], true);
    let (status, body) = sandbox
        .get_json(&format!("/Newsletter/verify/{token}"))
        .await;
    assert_eq!(status, 400, "the link works once");
    assert_eq!(body["message"], "Invalid or expired verification link");
    assert_eq!(sandbox.get_json("/Newsletter/verify/bogus").await.0, 400);

    let (status, body) = sandbox
        .post("/Newsletter/unsubscribe", None, json!({"email": email}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        body["message"],
        "You have been unsubscribed from the newsletter"
    );
    assert_eq!(
        sandbox.get_json(&status_path).await.1["isSubscribed"],
        false
    );

    // Resubscribing a confirmed address needs no new confirmation.
    let mails_before = count(&sandbox, "SELECT COUNT(*) FROM emails");
    sandbox
        .post(
            "/Newsletter/subscribe",
            None,
            json!({"email": email, "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(sandbox.get_json(&status_path).await.1["isSubscribed"], true);
    assert_eq!(count(&sandbox, "SELECT COUNT(*) FROM emails"), mails_before);
}

#[tokio::test]
async fn newsletter_forms_validate_email_and_captcha() {
    let sandbox = start().await;
    let (status, body) = sandbox
        .post(
            "/Newsletter/subscribe",
            None,
            json!({"email": "reader@example.com"}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["errors"]["captcha"], "Captcha is required");
    let (status, _) = sandbox
        .post(
            "/Newsletter/subscribe",
            None,
            json!({"email": "reader@example.com", "captcha": "forged"}),
        )
        .await;
    assert_eq!(status, 400);
    let (status, body) = sandbox
        .post(
            "/Newsletter/subscribe",
            None,
            json!({"email": "nope", "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["errors"]["email"],
        "Email must be a valid email address"
    );
    assert_eq!(sandbox.get_json("/Newsletter/status/nope").await.0, 400);
    assert_eq!(
        sandbox
            .post("/Newsletter/unsubscribe", None, json!({}))
            .await
            .0,
        400
    );
    assert_eq!(
        count(
            &sandbox,
            "SELECT COUNT(*) FROM newsletter_subscriptions WHERE email = 'reader@example.com'"
        ),
        0
    );
}

// ---------------------------------------------------------------------------------------------
// Stock alerts.

fn insert_sku(sandbox: &TestSandbox, code: &str) {
    let sku = sandbox::content::skus::Sku {
        code: code.to_owned(),
        product_title: "Test Alert Rifle".to_owned(),
        product_name: "Test Alert Rifle".to_owned(),
        price_cents: 99_900,
        discount_percent: 0.0,
        stock: 0,
        ffl_item: false,
        receiver_item: false,
        restricted_states: vec![],
        restricted_zips: vec![],
    };
    sandbox
        .state
        .db
        .call(|conn| sandbox::content::skus::insert(conn, &sku))
        .unwrap();
}

#[tokio::test]
async fn stock_alerts_are_recorded_once_per_sku_and_options() {
    let sandbox = start().await;
    insert_sku(&sandbox, "TEST-ALERT-1");
    let alert = json!({
        "email": "waiting@example.com",
        "productId": "TEST-ALERT-1",
        "productName": "Test Alert Rifle",
        "options": [{"label": "Color", "value": "Black"}],
        "captcha": CAPTCHA,
    });
    for _ in 0..2 {
        let (status, body) = sandbox
            .post("/ProductNotification/subscribe", None, alert.clone())
            .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            body["message"],
            "You will be notified when Test Alert Rifle is back in stock"
        );
    }
    assert_eq!(
        count(&sandbox, "SELECT COUNT(*) FROM product_notifications"),
        1
    );

    let mut unknown = alert.clone();
    unknown["productId"] = json!("NO-SUCH-SKU");
    let (status, body) = sandbox
        .post("/ProductNotification/subscribe", None, unknown)
        .await;
    assert_eq!(status, 404);
    assert!(body["message"].as_str().unwrap().contains("not found"));

    let (status, body) = sandbox
        .post(
            "/ProductNotification/subscribe",
            None,
            json!({"email": "bad", "productId": "", "captcha": ""}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["errors"]["email"],
        "Email must be a valid email address"
    );
    assert_eq!(body["errors"]["productId"], "Product is required");
    assert_eq!(body["errors"]["productName"], "Product name is required");
    assert_eq!(body["errors"]["captcha"], "Captcha is required");

    let mut forged = alert;
    forged["captcha"] = json!("forged");
    assert_eq!(
        sandbox
            .post("/ProductNotification/subscribe", None, forged)
            .await
            .0,
        400
    );
}

// ---------------------------------------------------------------------------------------------
// Image requests.

#[tokio::test]
async fn image_requests_are_kept_and_validated() {
    let sandbox = start().await;
    let request = json!({
        "firstName": "Pat",
        "lastName": "Lens",
        "email": "press@example.com",
        "lookingFor": "High-resolution images of the Summit LR",
        "captcha": CAPTCHA,
    });
    let (status, body) = sandbox
        .post("/Registration/image-request", None, request.clone())
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body["message"].is_string());
    assert_eq!(
        count(
            &sandbox,
            "SELECT COUNT(*) FROM applications WHERE kind = 'image-request'"
        ),
        1
    );

    let mut missing = request.clone();
    missing["lookingFor"] = json!(" ");
    let (status, body) = sandbox
        .post("/Registration/image-request", None, missing)
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["errors"]["lookingFor"], "Looking for is required");
    let mut forged = request;
    forged["captcha"] = json!("forged");
    assert_eq!(
        sandbox
            .post("/Registration/image-request", None, forged)
            .await
            .0,
        400
    );
}

// ---------------------------------------------------------------------------------------------
// Dealer registration.

fn dealer_form() -> Form {
    [
        ("company", "Ridge Line Arms"),
        ("website", "https://ridgeline.example"),
        ("phone", "(406) 555-0110"),
        ("email", "orders@ridgeline.example"),
        ("firstName", "Dana"),
        ("lastName", "Holt"),
        ("streetAddress", "200 Range Rd"),
        ("city", "Bozeman"),
        ("state", "MT"),
        ("postalCode", "59715"),
        ("country", "United States"),
        ("appearInDealerLocator", "true"),
        ("useThisAddressInDealerLocator", "true"),
        ("hasFflSot", "true"),
        ("fflNumber", "9-81-031-01-2A-12345"),
        ("sotEin", "12-3456789"),
        ("captcha", CAPTCHA),
    ]
    .into_iter()
    .fold(Form::new(), |form, (name, value)| form.text(name, value))
}

#[tokio::test]
async fn dealer_registration_keeps_the_form_and_its_documents() {
    let sandbox = start().await;
    let form = dealer_form()
        .part("fflDocument", file(PDF, "ffl licence.pdf"))
        .part("sotDocument", file(TIFF, "C:\\scans\\sot.TIF"));
    let (status, body) = post_form(&sandbox, "/Registration/dealer", None, form).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["message"].is_string());

    let (payload, files) = sandbox
        .state
        .db
        .call(|conn| {
            let payload: String = conn.query_row(
                "SELECT payload FROM applications WHERE kind = 'dealer'",
                [],
                |row| row.get(0),
            )?;
            let mut statement = conn.prepare(
                "SELECT field, file_name, content_type, stored_path, size_bytes FROM uploaded_files ORDER BY field",
            )?;
            let files = statement
                .query_map([], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                        row.get::<_, String>(3)?,
                        row.get::<_, i64>(4)?,
                    ))
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok((payload, files))
        })
        .unwrap();
    let payload: Value = serde_json::from_str(&payload).unwrap();
    assert_eq!(payload["company"], "Ridge Line Arms");
    assert_eq!(
        payload["locatorCity"], "Bozeman",
        "copied from the company address"
    );
    assert_eq!(payload["hasFflSot"], true);
    assert!(payload.get("captcha").is_none());
    assert_eq!(files.len(), 2);
    let (field, name, content_type, stored, size) = &files[0];
    assert_eq!(
        (field.as_str(), name.as_str()),
        ("fflDocument", "ffl licence.pdf")
    );
    assert_eq!(content_type, "application/pdf");
    assert_eq!(*size, PDF.len() as i64);
    assert!(stored.starts_with("uploads/"));
    let on_disk = std::fs::read(sandbox.state.options.data_dir.join(stored)).unwrap();
    assert_eq!(on_disk, PDF);
    assert_eq!(
        files[1].1, "sot.TIF",
        "directories are dropped from client names"
    );
}

#[tokio::test]
async fn dealer_documents_must_really_be_pdf_or_tiff() {
    let sandbox = start().await;
    let exe = dealer_form().part("fflDocument", file(b"MZ\x90\0\x03", "licence.exe"));
    let (status, body) = post_form(&sandbox, "/Registration/dealer", None, exe).await;
    assert_eq!(status, 400);
    let message = body["errors"]["fflDocument"].as_str().unwrap();
    assert!(message.contains("licence.exe"), "{message}");

    let fake = dealer_form().part("fflDocument", file(b"MZ\x90\0 not a pdf", "licence.pdf"));
    let (status, body) = post_form(&sandbox, "/Registration/dealer", None, fake).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["errors"]["fflDocument"],
        "licence.pdf is not a valid PDF file"
    );
    assert_eq!(count(&sandbox, "SELECT COUNT(*) FROM applications"), 0);
    assert_eq!(count(&sandbox, "SELECT COUNT(*) FROM uploaded_files"), 0);
}

#[tokio::test]
async fn dealer_registration_applies_the_form_rules() {
    let sandbox = start().await;
    // FFL/SOT dealers need the licence number and document.
    let (status, body) = post_form(
        &sandbox,
        "/Registration/dealer",
        None,
        Form::new()
            .text("hasFflSot", "true")
            .text("appearInDealerLocator", "true")
            .text("useThisAddressInDealerLocator", "false")
            .text("website", "not a url")
            .text("phone", "555-1234")
            .text("email", "nope"),
    )
    .await;
    assert_eq!(status, 400);
    let errors = &body["errors"];
    for field in [
        "company",
        "firstName",
        "lastName",
        "streetAddress",
        "city",
        "state",
        "postalCode",
        "country",
        "locatorStreetAddress",
        "locatorCity",
        "locatorState",
        "locatorPostalCode",
        "locatorCountry",
        "fflNumber",
        "fflDocument",
    ] {
        assert_eq!(errors[field], "Required", "{field}: {body}");
    }
    assert_eq!(errors["website"], "Website must be a valid URL");
    assert_eq!(errors["phone"], "Must be a valid phone number");
    assert_eq!(errors["email"], "Email must be a valid email address");
    assert_eq!(errors["captcha"], "Please complete the reCAPTCHA");

    // Without FFL/SOT and outside the locator, no document is needed.
    let form = dealer_form()
        .text("hasFflSot", "false")
        .text("appearInDealerLocator", "false");
    let (status, body) = post_form(&sandbox, "/Registration/dealer", None, form).await;
    assert_eq!(status, 200, "{body}");

    let forged = dealer_form()
        .text("captcha", "forged")
        .part("fflDocument", file(PDF, "licence.pdf"));
    // The later `captcha` part wins, as with any repeated text field.
    let (status, _) = post_form(&sandbox, "/Registration/dealer", None, forged).await;
    assert_eq!(status, 400);
    let (status, _) = sandbox.post("/Registration/dealer", None, json!({})).await;
    assert_eq!(status, 400, "not multipart");
}

// ---------------------------------------------------------------------------------------------
// Pro Deal.

#[tokio::test]
async fn pro_deal_application_sets_pending() {
    let sandbox = start().await;
    let token = token_of(&sandbox, SHOPPER).await;
    let form = Form::new()
        .text("email", SHOPPER)
        .part("supportingDocuments", file(PNG, "badge.png"))
        .part("supportingDocuments", file(PDF, "paystub.pdf"));
    let (status, body) = post_form(&sandbox, "/Registration/prodeal", Some(&token), form).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["message"].is_string());
    let (_, me) = sandbox.get_as("/User/profile", &token).await;
    assert_eq!(me["proDealStatus"], "Pending");
    assert_eq!(count(&sandbox, "SELECT COUNT(*) FROM uploaded_files"), 2);
    assert_eq!(
        count(
            &sandbox,
            "SELECT COUNT(*) FROM applications WHERE kind = 'prodeal' AND user_id IS NOT NULL"
        ),
        1
    );

    // Pending may apply again.
    let again = Form::new()
        .text("email", SHOPPER)
        .part("supportingDocuments", file(PDF, "work-id.pdf"));
    assert_eq!(
        post_form(&sandbox, "/Registration/prodeal", Some(&token), again)
            .await
            .0,
        200
    );
}

#[tokio::test]
async fn pro_deal_refuses_oversized_wrong_or_missing_documents() {
    let sandbox = start().await;
    let token = token_of(&sandbox, SHOPPER).await;
    let mut big = PDF.to_vec();
    big.resize(600_000, b' ');
    let form = Form::new()
        .text("email", SHOPPER)
        .part("supportingDocuments", file(PNG, "badge.png"))
        .part("supportingDocuments", file(&big, "huge-paystub.pdf"));
    let (status, body) = post_form(&sandbox, "/Registration/prodeal", Some(&token), form).await;
    assert_eq!(status, 400);
    let message = body["errors"]["supportingDocuments"].as_str().unwrap();
    assert!(
        message.contains("huge-paystub.pdf") && message.contains("0.5 MB"),
        "{message}"
    );

    let mut limit = PDF.to_vec();
    limit.resize(512_000, b' ');
    let form = Form::new()
        .text("email", SHOPPER)
        .part("supportingDocuments", file(&limit, "exactly-half.pdf"));
    let (status, _) = post_form(&sandbox, "/Registration/prodeal", Some(&token), form).await;
    assert_eq!(status, 400, "0.5 MB is not under 0.5 MB");

    let form = Form::new()
        .text("email", SHOPPER)
        .part("supportingDocuments", file(b"GIF89a....", "badge.gif"));
    let (status, body) = post_form(&sandbox, "/Registration/prodeal", Some(&token), form).await;
    assert_eq!(status, 400);
    assert!(body["message"].as_str().unwrap().contains("badge.gif"));

    let form = Form::new()
        .text("email", SHOPPER)
        .part("supportingDocuments", file(PDF, "actually-a-pdf.png"));
    let (status, body) = post_form(&sandbox, "/Registration/prodeal", Some(&token), form).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["errors"]["supportingDocuments"],
        "actually-a-pdf.png is not a valid PNG file"
    );

    let (status, body) = post_form(
        &sandbox,
        "/Registration/prodeal",
        Some(&token),
        Form::new().text("email", SHOPPER),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["errors"]["supportingDocuments"],
        "At least one supporting document is required"
    );

    let (_, me) = sandbox.get_as("/User/profile", &token).await;
    assert_eq!(me["proDealStatus"], "None", "nothing was accepted");
    assert_eq!(count(&sandbox, "SELECT COUNT(*) FROM applications"), 0);
    let uploads = sandbox.state.options.data_dir.join("uploads");
    assert!(!uploads.exists() || std::fs::read_dir(uploads).unwrap().next().is_none());
}

#[tokio::test]
async fn pro_deal_needs_sign_in_and_is_closed_once_approved() {
    let sandbox = start().await;
    let form = || {
        Form::new()
            .text("email", VERIFIED_MIL)
            .part("supportingDocuments", file(PDF, "id.pdf"))
    };
    let (status, _) = post_form(&sandbox, "/Registration/prodeal", None, form()).await;
    assert_eq!(status, 401);
    let token = token_of(&sandbox, VERIFIED_MIL).await;
    let (status, body) = post_form(&sandbox, "/Registration/prodeal", Some(&token), form()).await;
    assert_eq!(status, 409);
    assert_eq!(
        body["message"],
        "Your Pro Deal application has already been approved"
    );
}
