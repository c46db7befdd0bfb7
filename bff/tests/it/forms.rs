//! The forms against the real sandbox: stock alerts, image requests, dealer registration and
//! Pro Deal uploads (type checked by extension and content, size limits, nothing forwarded when
//! a part is refused).

#![allow(clippy::unwrap_used)]

use crate::common;

use common::browser::{Answer, Browser, CAPTCHA};

use common::SandboxHooks;
use common::start;
use serde_json::json;

const RIFLE: &str = "TF-V15-556-16-BLK";
const PDF: &[u8] = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n";
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

/// A multipart body built by hand (the test client has no multipart support).
#[derive(Default)]
struct Form {
    parts: Vec<u8>,
}

const BOUNDARY: &str = "test-boundary-7d3f0c";

impl Form {
    fn text(mut self, name: &str, value: &str) -> Self {
        self.parts.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
        self
    }

    fn file(mut self, name: &str, file_name: &str, content: &[u8]) -> Self {
        self.parts.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        self.parts.extend_from_slice(content);
        self.parts.extend_from_slice(b"\r\n");
        self
    }

    fn body(mut self) -> Vec<u8> {
        self.parts
            .extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
        self.parts
    }
}

impl Browser<'_> {
    async fn multipart(&mut self, path: &str, form: Form) -> Answer {
        let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
        self.send_raw(
            reqwest::Method::POST,
            path,
            &[("content-type", &content_type)],
            form.body(),
        )
        .await
    }
}

fn dealer_form() -> Form {
    Form::default()
        .text("company", "Ridge Outfitters")
        .text("website", "https://ridge.example")
        .text("phone", "(208) 555-0100")
        .text("email", "dealer@ridge.example")
        .text("firstName", "Sam")
        .text("lastName", "Ridge")
        .text("streetAddress", "10 Main St")
        .text("city", "Boise")
        .text("state", "ID")
        .text("postalCode", "83702")
        .text("country", "United States")
        .text("appearInDealerLocator", "true")
        .text("useThisAddressInDealerLocator", "true")
        .text("hasFflSot", "true")
        .text("fflNumber", "1-23-456-78-9A-12345")
        .text("captcha", CAPTCHA)
}

#[tokio::test]
async fn a_stock_alert_is_recorded_and_missing_fields_are_422() {
    let server = start().await;
    let mut browser = Browser::new(&server);
    let answer = browser
        .post(
            "/api/stock-alerts",
            json!({"email": "watcher@talonforge.example", "productId": RIFLE,
                   "productName": "Vanguard 15", "options": ["5.56 NATO"], "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(
        answer.body["message"],
        "You will be notified when Vanguard 15 is back in stock"
    );
    let missing = browser
        .post("/api/stock-alerts", json!({"email": "bad"}))
        .await;
    assert_eq!(missing.status, 422, "{}", missing.text);
    let errors = &missing.body["errors"];
    assert_eq!(errors["email"], "Email must be a valid email address");
    assert_eq!(errors["productId"], "Product is required");
    assert_eq!(errors["productName"], "Product name is required");
    assert_eq!(errors["captcha"], "Captcha is required");
    // An unknown sku is the commerce service's 404, with its message for the shopper.
    let unknown = browser
        .post(
            "/api/stock-alerts",
            json!({"email": "watcher@talonforge.example", "productId": "TF-NO-SUCH-SKU",
                   "productName": "Nothing", "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(unknown.status, 404, "{}", unknown.text);
    assert_eq!(unknown.body["detail"], "Product TF-NO-SUCH-SKU not found");
    server.stop().await;
}

#[tokio::test]
async fn an_image_request_is_received_and_missing_fields_are_422() {
    let server = start().await;
    let mut browser = Browser::new(&server);
    let answer = browser
        .post(
            "/api/image-requests",
            json!({"firstName": "Ada", "lastName": "Byron", "email": "ada@talonforge.example",
                   "lookingFor": "Summit LR product shots", "captcha": CAPTCHA}),
        )
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert!(
        answer.body["message"]
            .as_str()
            .unwrap()
            .contains("image request has been received")
    );
    let missing = browser.post("/api/image-requests", json!({})).await;
    assert_eq!(missing.status, 422, "{}", missing.text);
    let errors = &missing.body["errors"];
    assert_eq!(errors["firstName"], "First name is required");
    assert_eq!(errors["lastName"], "Last name is required");
    assert_eq!(errors["email"], "Email is required");
    assert_eq!(errors["lookingFor"], "Looking for is required");
    assert_eq!(errors["captcha"], "Captcha is required");
    server.stop().await;
}

#[tokio::test]
async fn a_dealer_registration_with_a_pdf_succeeds() {
    let server = start().await;
    let mut browser = Browser::new(&server);
    let answer = browser
        .multipart(
            "/api/dealer-registrations",
            dealer_form().file("fflDocument", "licence.pdf", PDF),
        )
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert!(
        answer.body["message"]
            .as_str()
            .unwrap()
            .starts_with("Thank you for registering")
    );
    assert_eq!(server.upstream_calls("/Registration/dealer").await, 1);
    server.stop().await;
}

#[tokio::test]
async fn dealer_registration_rules_give_422_with_the_specs_messages() {
    let server = start().await;
    let mut browser = Browser::new(&server);
    let answer = browser
        .multipart(
            "/api/dealer-registrations",
            Form::default()
                .text("website", "not a site")
                .text("phone", "555-1234")
                .text("email", "nope")
                .text("useThisAddressInDealerLocator", "false")
                .text("hasFflSot", "true"),
        )
        .await;
    assert_eq!(answer.status, 422, "{}", answer.text);
    let errors = &answer.body["errors"];
    assert_eq!(errors["company"], "Required");
    assert_eq!(errors["website"], "Website must be a valid URL");
    assert_eq!(errors["phone"], "Must be a valid phone number");
    assert_eq!(errors["email"], "Email must be a valid email address");
    assert_eq!(errors["locatorCity"], "Required");
    assert_eq!(errors["fflNumber"], "Required");
    assert_eq!(errors["fflDocument"], "Required");
    assert_eq!(errors["captcha"], "Please complete the reCAPTCHA");
    assert_eq!(server.upstream_calls("/Registration/dealer").await, 0);
    server.stop().await;
}

#[tokio::test]
async fn a_wrong_upload_type_is_a_415_naming_the_file() {
    let server = start().await;
    let mut browser = Browser::new(&server);
    let exe = browser
        .multipart(
            "/api/dealer-registrations",
            dealer_form().file("fflDocument", "licence.exe", b"MZ\x90\0\x03"),
        )
        .await;
    assert_eq!(exe.status, 415, "{}", exe.text);
    assert_eq!(exe.content_type, "application/problem+json");
    assert!(exe.body["detail"].as_str().unwrap().contains("licence.exe"));
    assert!(
        exe.body["errors"]["fflDocument"]
            .as_str()
            .unwrap()
            .contains("licence.exe")
    );

    let disguised = browser
        .multipart(
            "/api/dealer-registrations",
            dealer_form().file("fflDocument", "licence.pdf", PNG),
        )
        .await;
    assert_eq!(disguised.status, 415, "{}", disguised.text);
    assert_eq!(
        disguised.body["detail"],
        "licence.pdf is not a valid PDF file"
    );
    assert_eq!(server.upstream_calls("/Registration/dealer").await, 0);
    server.stop().await;
}

#[tokio::test]
async fn an_oversized_pro_deal_document_is_a_413_naming_the_file() {
    let server = start().await;
    let mut browser = Browser::new(&server);
    browser.login().await;
    let mut big = PNG.to_vec();
    big.resize(600 * 1024, 0);
    let answer = browser
        .multipart(
            "/api/pro-deal",
            Form::default()
                .file("supportingDocuments", "id.png", PNG)
                .file("supportingDocuments", "paystub.png", &big),
        )
        .await;
    assert_eq!(answer.status, 413, "{}", answer.text);
    assert_eq!(answer.content_type, "application/problem+json");
    assert_eq!(
        answer.body["detail"],
        "paystub.png is too large: each file must be under 0.5 MB"
    );
    assert_eq!(server.upstream_calls("/Registration/prodeal").await, 0);
    server.stop().await;
}

#[tokio::test]
async fn a_pro_deal_application_with_a_small_png_succeeds() {
    let server = start().await;
    let mut browser = Browser::new(&server);
    let anonymous = browser
        .multipart(
            "/api/pro-deal",
            Form::default().file("supportingDocuments", "id.png", PNG),
        )
        .await;
    assert_eq!(anonymous.status, 401, "{}", anonymous.text);

    browser.login().await;
    let none = browser.multipart("/api/pro-deal", Form::default()).await;
    assert_eq!(none.status, 422, "{}", none.text);
    assert_eq!(
        none.body["errors"]["supportingDocuments"],
        "At least one supporting document is required"
    );

    let answer = browser
        .multipart(
            "/api/pro-deal",
            Form::default().file("supportingDocuments", "id.png", PNG),
        )
        .await;
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(
        answer.body["message"],
        "Your Pro Deal application has been submitted and is pending verification."
    );
    assert_eq!(server.upstream_calls("/Registration/prodeal").await, 1);
    server.stop().await;
}
