//! The edge cache as `/admin/cache` reports it, and the catalogue the sandbox serves: what the
//! abuse tests fill the cache with and read back.

use serde_json::Value;

use super::in_process::{InProcess, get_request};

/// `/admin/cache`, read with `admin_token`.
pub async fn cache_stats(app: &InProcess, admin_token: &str) -> Value {
    let bearer = format!("Bearer {admin_token}");
    app.admin_send(get_request("/admin/cache", &[("authorization", &bearer)]))
        .await
        .json()
}

/// Entries per route in `/admin/cache`'s answer.
pub fn entries(stats: &Value, route: &str) -> u64 {
    stats["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|figures| figures["route"] == route)
        .and_then(|figures| figures["entries"].as_u64())
        .unwrap_or(0)
}

/// Every content page, product and collection the sandbox serves, as `/api` paths.
pub fn catalogue_and_pages() -> Vec<String> {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sandbox/fixtures");
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(fixtures.join("pages")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        paths.push(format!("/api/pages/{name}"));
    }
    for entry in std::fs::read_dir(fixtures.join("catalogue")).unwrap() {
        let path = entry.unwrap().path();
        let items: Vec<Value> = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let route = if path.file_name().unwrap() == "collections.json" {
            "collections"
        } else {
            "products"
        };
        for item in items {
            let title = item["title"].as_str().unwrap().to_lowercase();
            paths.push(format!(
                "/api/{route}/{}",
                title.replace('%', "%25").replace(' ', "%20")
            ));
        }
    }
    paths
}
