//! The OpenAPI document: served at `/api/openapi.json`, committed for the web app's generated
//! types (and current), and describing only endpoints that exist, with references that resolve.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

/// Where the document is committed; the web app generates `schema.d.ts` from it.
fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../web/src/api/openapi.json")
}

async fn served_document() -> (common::TestServer, String) {
    let server = common::start().await;
    let response = server.get("/api/openapi.json").await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        common::header(&response, "content-type"),
        "application/json"
    );
    let text = response.text().await.unwrap();
    (server, text)
}

#[tokio::test]
async fn openapi_document_is_committed() {
    let (server, served) = served_document().await;
    server.stop().await;
    let path = committed_path();
    let served = format!("{served}\n");
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(&path, &served).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == served,
        "{} is stale: run `UPDATE_OPENAPI=1 cargo test -p bff --test it openapi::`, then \
         `npm run generate:api` in web/, and commit both",
        path.display()
    );
}

#[tokio::test]
async fn document_is_openapi_3_1_and_every_reference_resolves() {
    let (server, text) = served_document().await;
    server.stop().await;
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    let mut refs = BTreeSet::new();
    collect_refs(&doc, &mut refs);
    assert!(refs.len() > 20, "too few references: {refs:?}");
    for reference in refs {
        let pointer = reference.trim_start_matches('#');
        assert!(
            doc.pointer(pointer).is_some(),
            "{reference} does not resolve"
        );
    }
}

fn collect_refs(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                out.insert(reference.clone());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

/// The `/api` endpoints of the architecture's contract, each of which must be documented.
const CONTRACT: &[(&str, &str)] = &[
    ("get", "/api/pages/{name}"),
    ("get", "/api/products/{title}"),
    ("get", "/api/collections/{title}"),
    ("get", "/api/search"),
    ("get", "/api/dealers"),
    ("get", "/api/config"),
    ("get", "/api/session"),
    ("post", "/api/auth/login"),
    ("post", "/api/auth/register"),
    ("post", "/api/auth/logout"),
    ("post", "/api/auth/forgot-password"),
    ("post", "/api/auth/reset-password"),
    ("post", "/api/auth/change-password"),
    ("post", "/api/auth/resend-verification"),
    ("post", "/api/auth/verify-registration"),
    ("get", "/api/account"),
    ("put", "/api/account"),
    ("post", "/api/account/addresses"),
    ("put", "/api/account/addresses/{id}"),
    ("delete", "/api/account/addresses/{id}"),
    ("get", "/api/orders/{id}"),
    ("get", "/api/cart"),
    ("post", "/api/cart/items"),
    ("put", "/api/cart/items/{id}"),
    ("delete", "/api/cart/items/{id}"),
    ("post", "/api/cart/compute"),
    ("post", "/api/cart/promo-code"),
    ("get", "/api/cart/shipping-methods"),
    ("post", "/api/checkout"),
    ("get", "/api/newsletter/status"),
    ("post", "/api/newsletter/subscribe"),
    ("post", "/api/newsletter/unsubscribe"),
    ("post", "/api/newsletter/verify/{token}"),
    ("post", "/api/military/session"),
    ("post", "/api/military/callback"),
    ("post", "/api/stock-alerts"),
    ("post", "/api/image-requests"),
    ("post", "/api/dealer-registrations"),
    ("post", "/api/pro-deal"),
    ("post", "/api/csp-reports"),
];

#[tokio::test]
async fn every_contract_endpoint_is_documented_and_every_documented_one_exists() {
    let (server, text) = served_document().await;
    let doc: Value = serde_json::from_str(&text).unwrap();
    let paths = doc["paths"].as_object().unwrap();
    let mut documented = BTreeSet::new();
    let mut operation_ids = BTreeSet::new();
    for (path, item) in paths {
        for method in ["get", "put", "post", "delete", "patch"] {
            if let Some(operation) = item.get(method) {
                documented.insert((method.to_owned(), path.clone()));
                // Generated clients name their functions after these: unique and camelCase.
                let id = operation["operationId"].as_str().unwrap_or_default();
                assert!(
                    id.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                        && id.chars().all(|c| c.is_ascii_alphanumeric()),
                    "{method} {path}: operationId {id:?} is not camelCase"
                );
                assert!(
                    operation_ids.insert(id.to_owned()),
                    "operationId {id} twice"
                );
                let responses = operation["responses"].as_object().unwrap();
                assert!(
                    responses.keys().any(|status| status.starts_with('2')),
                    "{method} {path} documents no success answer"
                );
                for status in ["500", "502", "503", "504"] {
                    assert!(responses.contains_key(status), "{method} {path}: {status}");
                }
            }
        }
    }
    for (method, path) in CONTRACT {
        assert!(
            documented.contains(&((*method).to_owned(), (*path).to_owned())),
            "{method} {path} is not in the document"
        );
    }
    // A documented endpoint answers: not 405, and not the catch-all for unknown API paths.
    for (method, path) in &documented {
        let concrete = path
            .replace("{title}", "no-such-thing")
            .replace("{name}", "home")
            .replace("{id}", "1")
            .replace("{token}", "t");
        let request = server
            .client
            .request(
                method.to_uppercase().parse().unwrap(),
                server.url(&concrete),
            )
            .header("x-csrf", "1");
        let response = request.send().await.unwrap();
        assert_ne!(response.status(), 405, "{method} {path}");
        let body = response.text().await.unwrap();
        assert!(
            !body.contains("No API endpoint at this path"),
            "{method} {path} is documented but not routed"
        );
    }
    server.stop().await;
}
