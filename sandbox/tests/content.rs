//! The content API over HTTP: pages, products, product groups, search, the price map and the
//! generated media they reference.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use sandbox::content::skus;
use serde_json::{Value, json};

const PAGE_NAMES: [&str; 20] = [
    "app",
    "footer",
    "home",
    "aboutus",
    "contactus",
    "dealerlocator",
    "dealerregistration",
    "faq",
    "limitededition",
    "medialibrary",
    "warranty",
    "resources",
    "support",
    "patent",
    "login",
    "register",
    "forgotpassword",
    "resetpassword",
    "terms",
    "privacy",
];

/// Every product group of the demo catalogue, by display type.
const GROUPS: [(&str, Option<&str>); 10] = [
    ("Rifles", Some("collection-tabbed-grid")),
    ("Pistols", Some("collection-cards")),
    ("Modern Sporting", Some("collection-simple-grid")),
    ("Receivers", Some("collection-simple-grid")),
    ("Upgrades", Some("collection-filterable-grid")),
    ("Mounts", Some("collection-simple-grid")),
    ("Apparel", Some("collection-tabbed-grid")),
    ("Hats", None),
    ("Shirts", Some("collection-simple-grid")),
    ("Cases", Some("collection-cards")),
];

/// Calls `visit` on `value` and everything nested in it.
fn walk<'a>(value: &'a Value, visit: &mut impl FnMut(&'a Value)) {
    visit(value);
    match value {
        Value::Array(items) => items.iter().for_each(|item| walk(item, visit)),
        Value::Object(fields) => fields.values().for_each(|field| walk(field, visit)),
        _ => {}
    }
}

fn encode(title: &str) -> String {
    title
        .replace('%', "%25")
        .replace(' ', "%20")
        .replace('"', "%22")
}

fn titles(products: &Value) -> Vec<String> {
    let Some(items) = products.as_array() else {
        panic!("not an array: {products}");
    };
    items
        .iter()
        .map(|p| match p["title"].as_str() {
            Some(title) => title.to_owned(),
            None => panic!("untitled: {p}"),
        })
        .collect()
}

fn assert_strapi_error(body: &Value, status: u64) {
    assert_eq!(body["data"], Value::Null, "{body}");
    assert_eq!(body["error"]["status"], status, "{body}");
    assert!(body["error"]["name"].is_string(), "{body}");
    assert!(body["error"]["message"].is_string(), "{body}");
}

/// The full product of every title listed by any product group.
async fn all_products(sandbox: &common::TestSandbox) -> Vec<Value> {
    let mut seen = BTreeSet::new();
    for (group, _) in GROUPS {
        let (status, body) = sandbox
            .get_json(&format!("/strapi/product-groups/{}", encode(group)))
            .await;
        assert_eq!(status, 200, "{group}");
        seen.extend(titles(&body["data"]["products"]));
    }
    let mut products = Vec::new();
    for title in seen {
        let (status, body) = sandbox
            .get_json(&format!("/strapi/products/{}", encode(&title)))
            .await;
        assert_eq!(status, 200);
        assert_eq!(body.as_array().map(Vec::len), Some(1), "{title}");
        products.push(body[0].clone());
    }
    products
}

#[tokio::test]
async fn every_page_answers_with_data_and_meta_data() {
    let sandbox = common::start().await;
    for name in PAGE_NAMES {
        let (status, body) = sandbox.get_json(&format!("/strapi/page/{name}")).await;
        assert_eq!(status, 200, "{name}");
        let data = &body["data"];
        assert!(data.is_object(), "{name}");
        assert!(data["metaData"]["title"].is_string(), "{name}");
        assert!(data["metaData"]["description"].is_string(), "{name}");
        assert!(
            !body.to_string().contains("{{media}}"),
            "{name} leaks the placeholder"
        );
    }
}

#[tokio::test]
async fn pages_keep_the_fields_the_storefront_reads() {
    let sandbox = common::start().await;
    let page = |name: &'static str| {
        let sandbox = &sandbox;
        async move { sandbox.get_json(&format!("/strapi/page/{name}")).await.1["data"].clone() }
    };
    let app = page("app").await;
    let menus: Vec<&str> = app["menus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["title"].as_str().unwrap())
        .collect();
    assert_eq!(menus, ["Rifles", "Pistols", "Apparel & Gear", "Support"]);
    assert!(
        page("footer").await["nav_links"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["label"] == "Dealer Locator")
    );
    assert_eq!(
        page("home").await["carousel"][0]["title"],
        "Built for the Long Range"
    );

    let about = page("aboutus").await;
    for field in [
        "headingImageUrl",
        "lookingForImageUrl",
        "wantToTalkImageUrl",
    ] {
        assert!(about[field]["src"].is_string() && about[field]["alt"].is_string());
    }
    assert!(about["simpleCopySection"].is_array() && about["lookingForSubHeading"].is_array());
    assert!(about["headingVideoUrl"].is_string() && about["wantToTalkHeading"].is_string());

    let contact = page("contactus").await;
    for field in ["address1", "address2", "address3", "phone", "email"] {
        assert!(contact[field].is_string(), "{field}");
    }
    assert!(contact["socialLinks"][0]["iconUrl"].is_string());

    let patent = &page("patent").await["items"][0];
    for field in [
        "product_name",
        "patent_type",
        "colors_and_models",
        "patent_numbers",
    ] {
        assert!(!patent[field].is_null(), "{field}");
    }
    let faq = page("faq").await;
    assert!(faq["items"][0]["question"].is_string() && faq["items"][0]["answer"].is_array());
    let downloads = &page("medialibrary").await["downloads"];
    assert!(downloads[0]["category"].is_string());
    assert!(downloads[0]["items"][0]["file"]["url"].is_string());
    assert_eq!(downloads[0]["items"][0]["file"]["ext"], ".pdf");

    let limited = page("limitededition").await;
    assert!(limited["current"]["url"].is_string() && limited["current"]["content"].is_array());
    for past in limited["past"].as_array().unwrap() {
        assert_eq!(past["images"].as_array().map(Vec::len), Some(2));
    }
    let card = &page("support").await["cards"][0];
    for field in ["image", "title", "subtitle", "link"] {
        assert!(!card[field].is_null(), "{field}");
    }
    let warranty = page("warranty").await;
    assert!(warranty["breadcrumbs"].is_array() && warranty["title"].is_string());
    let sections = warranty["sections"].as_array().unwrap();
    assert!(sections.iter().any(|s| s["header"].is_null()));
    assert!(sections.iter().any(|s| s["header"].is_string()));
    for name in ["terms", "privacy"] {
        let copy = page(name).await;
        assert!(copy["backgroundImage"]["src"].is_string() && copy["richText"].is_array());
        assert!(copy["heading"].is_string() && copy["text"].is_string());
    }
    for name in ["login", "register", "forgotpassword", "resetpassword"] {
        let auth = page(name).await;
        assert!(auth["backgroundImage"]["src"].is_string() && auth["header"].is_string());
    }
    assert_eq!(page("resetpassword").await["header"], "Reset Password");
    let registration = page("dealerregistration").await;
    for field in ["title", "greeting", "subText"] {
        assert!(!registration[field].is_null(), "{field}");
    }
}

#[tokio::test]
async fn an_unknown_page_is_a_strapi_not_found() {
    let sandbox = common::start().await;
    let (status, body) = sandbox.get_json("/strapi/page/nosuchpage").await;
    assert_eq!(status, 404);
    assert_strapi_error(&body, 404);
}

#[tokio::test]
async fn about_us_is_served_with_and_without_open_positions() {
    let sandbox = common::start().await;
    let positions = |body: &Value| {
        body["data"]["lookingForListContent"]
            .as_array()
            .map(Vec::len)
    };
    let (_, with) = sandbox.get_json("/strapi/page/aboutus").await;
    assert!(positions(&with).is_some_and(|n| n > 0));
    let (status, without) = sandbox
        .get_json("/strapi/page/aboutus?variant=no-positions")
        .await;
    assert_eq!(status, 200);
    assert_eq!(positions(&without), Some(0));
    assert_eq!(
        without["data"]["lookingForHeading"],
        with["data"]["lookingForHeading"]
    );

    let (status, body) = sandbox.get_json("/strapi/page/aboutus?variant=nope").await;
    assert_eq!(status, 400);
    assert_strapi_error(&body, 400);

    // The stored toggle applies when a request names no variant, and survives until reset.
    let (status, state) = sandbox
        .send(
            reqwest::Method::PUT,
            "/sandbox/pages/aboutus/variant",
            None,
            json!({"variant": "no-positions"}),
        )
        .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["variant"], "no-positions");
    assert_eq!(
        positions(&sandbox.get_json("/strapi/page/aboutus").await.1),
        Some(0)
    );
    assert!(
        positions(
            &sandbox
                .get_json("/strapi/page/aboutus?variant=default")
                .await
                .1
        )
        .is_some_and(|n| n > 0)
    );
    let (status, state) = sandbox.get_json("/sandbox/pages/aboutus/variant").await;
    assert_eq!((status, &state["variant"]), (200, &json!("no-positions")));

    let (status, _) = sandbox
        .send(
            reqwest::Method::DELETE,
            "/sandbox/pages/aboutus/variant",
            None,
            Value::Null,
        )
        .await;
    assert_eq!(status, 200);
    assert!(positions(&sandbox.get_json("/strapi/page/aboutus").await.1).is_some_and(|n| n > 0));

    let (status, body) = sandbox
        .send(
            reqwest::Method::PUT,
            "/sandbox/pages/home/variant",
            None,
            json!({"variant": "no-positions"}),
        )
        .await;
    assert_eq!(status, 400);
    assert!(body["errors"]["variant"].is_string());
    let (status, _) = sandbox.get_json("/sandbox/pages/nosuchpage/variant").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn rich_text_uses_every_block_type_and_modifier() {
    let sandbox = common::start().await;
    let mut blocks = BTreeSet::new();
    let mut modifiers = BTreeSet::new();
    let mut headings = BTreeSet::new();
    let mut list_formats = BTreeSet::new();
    for name in PAGE_NAMES {
        let (_, body) = sandbox.get_json(&format!("/strapi/page/{name}")).await;
        walk(&body, &mut |node| {
            let Some(kind) = node.get("type").and_then(Value::as_str) else {
                return;
            };
            blocks.insert(kind.to_owned());
            match kind {
                "text" => {
                    assert!(node["text"].is_string(), "{node}");
                    for modifier in ["bold", "italic", "underline", "strikethrough", "code"] {
                        if node[modifier] == true {
                            modifiers.insert(modifier);
                        }
                    }
                }
                "heading" => {
                    headings.insert(node["level"].as_u64().unwrap());
                }
                "list" => {
                    list_formats.insert(node["format"].as_str().unwrap().to_owned());
                    assert!(
                        node["children"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .all(|item| item["type"] == "list-item")
                    );
                }
                "link" => assert!(node["url"].is_string(), "{node}"),
                "image" => {
                    assert!(node["image"]["url"].is_string(), "{node}");
                    assert!(node["image"]["alternativeText"].is_string(), "{node}");
                }
                _ => {}
            }
        });
    }
    for block in [
        "paragraph",
        "heading",
        "quote",
        "code",
        "link",
        "list",
        "list-item",
        "image",
        "text",
    ] {
        assert!(blocks.contains(block), "no {block} block in any page");
    }
    assert_eq!(
        modifiers,
        BTreeSet::from(["bold", "italic", "underline", "strikethrough", "code"])
    );
    assert_eq!(headings, (1..=6).collect());
    assert_eq!(
        list_formats,
        BTreeSet::from(["ordered".to_owned(), "unordered".to_owned()])
    );
}

#[tokio::test]
async fn a_product_is_found_by_title_ignoring_case() {
    let sandbox = common::start().await;
    for path in [
        "/strapi/products/Summit%20LR",
        "/strapi/products/summit%20lr",
        "/strapi/products/SUMMIT%20Lr",
    ] {
        let (status, body) = sandbox.get_json(path).await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(titles(&body), ["Summit LR"], "{path}");
    }
    let (_, body) = sandbox.get_json("/strapi/products/summit%20lr").await;
    let product = &body[0];
    assert_eq!(product["display_type"], "product-long");
    assert_eq!(product["url"], "/product/summit%20lr");
    assert!(product["fflItem"] == true && product["receiverItem"] == false);
    assert!(
        !body.to_string().contains("inventory"),
        "stock is not content"
    );
    let sku = &product["skus"][0];
    for field in [
        "sku",
        "price",
        "variants",
        "imgUrl",
        "imageLibrary",
        "description",
    ] {
        assert!(!sku[field].is_null(), "{field}");
    }
    let variant = &sku["variants"][0];
    assert!(variant["id"].is_u64() && variant["fieldName"].is_string());
    assert_eq!(
        variant["product_variant_type"],
        json!({"title": "caliber", "display_title": "Caliber"})
    );
    let related = &product["relatedProducts"][0];
    assert!(related["title"].is_string() && related["skus"].is_array());
    let about = &product["about"];
    for field in [
        "title",
        "subtitle",
        "summary",
        "techSpecs",
        "details",
        "imgUrl",
        "patents",
        "disclaimer",
    ] {
        assert!(!about[field].is_null(), "about.{field}");
    }
    assert!(about["details"][0]["listItems"].is_array());
    assert!(
        about["readMore"]["url"]
            .as_str()
            .unwrap()
            .ends_with("-manual.pdf")
    );
    assert!(product["breadcrumbs"].as_array().unwrap().len() >= 2);
    assert!(product["metaData"]["title"].is_string());

    let (status, body) = sandbox.get_json("/strapi/products/no%20such%20rifle").await;
    assert_eq!((status, body), (200, json!([])));
}

#[tokio::test]
async fn product_groups_cover_every_display_type() {
    let sandbox = common::start().await;
    let mut display_types = BTreeSet::new();
    for (title, display) in GROUPS {
        let path = format!("/strapi/product-groups/{}", encode(&title.to_uppercase()));
        let (status, body) = sandbox.get_json(&path).await;
        assert_eq!(status, 200, "{title}");
        let group = &body["data"];
        assert_eq!(group["title"], title);
        assert_eq!(group["display_type"], json!(display), "{title}");
        display_types.insert(display);
        assert!(group["background_image"]["src"].is_string());
        assert!(group["breadcrumbs"].is_array() && group["metaData"].is_object());
        let products = group["products"].as_array().unwrap();
        assert!(!products.is_empty(), "{title}");
        for product in products {
            assert!(product["skus"].as_array().is_some_and(|s| !s.is_empty()));
            assert!(product["filter_options"].is_array());
            assert!(product["compatibility"].is_array());
            assert!(product["ffl_item"].is_boolean() && product["receiver_item"].is_boolean());
        }
        for category in group["filter_categories"].as_array().unwrap() {
            assert!(category["title"].is_string() && category["multi"].is_boolean());
            assert!(category["options"][0]["value"].is_string());
        }
    }
    assert_eq!(
        display_types,
        BTreeSet::from([
            None,
            Some("collection-simple-grid"),
            Some("collection-tabbed-grid"),
            Some("collection-cards"),
            Some("collection-filterable-grid"),
        ])
    );
    let (_, pistols) = sandbox.get_json("/strapi/product-groups/pistols").await;
    let promo = &pistols["data"]["promo_cards"][0];
    assert!(promo["title"].is_string() && promo["image"]["src"].is_string());

    let (status, body) = sandbox
        .get_json("/strapi/product-groups/no%20such%20group")
        .await;
    assert_eq!(status, 404);
    assert_strapi_error(&body, 404);
}

#[tokio::test]
async fn the_tabbed_grid_has_an_empty_tab() {
    let sandbox = common::start().await;
    let (_, body) = sandbox.get_json("/strapi/product-groups/rifles").await;
    let group = &body["data"];
    let tabs = &group["filter_categories"][0];
    let category = tabs["title"].as_str().unwrap();
    let mut counts: BTreeMap<String, usize> = tabs["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["value"].as_str().unwrap().to_owned(), 0))
        .collect();
    for product in group["products"].as_array().unwrap() {
        for tag in product["filter_options"].as_array().unwrap() {
            if tag["filterCategory"] == category {
                *counts
                    .get_mut(tag["filterValue"].as_str().unwrap())
                    .unwrap() += 1;
            }
        }
    }
    assert!(counts.values().any(|&n| n > 1), "{counts:?}");
    assert!(
        counts.values().any(|&n| n == 0),
        "a tab shows 'No items found'"
    );
}

#[tokio::test]
async fn the_filterable_grid_has_host_manufacturer_and_a_dependent_model() {
    let sandbox = common::start().await;
    let (_, body) = sandbox.get_json("/strapi/product-groups/upgrades").await;
    let group = &body["data"];
    assert_eq!(group["display_type"], "collection-filterable-grid");
    let categories = group["filter_categories"].as_array().unwrap();
    let category = |title: &str| {
        categories
            .iter()
            .find(|c| c["title"] == title)
            .unwrap_or_else(|| panic!("no {title} filter"))
    };
    let makers: HashSet<&str> = category("Host Manufacturer")["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["value"].as_str().unwrap())
        .collect();
    let model = category("Model");
    assert_eq!(model["depends_on"], "Host Manufacturer");
    let models = model["options"].as_array().unwrap();
    assert!(models.len() > makers.len());
    for option in models {
        assert!(makers.contains(option["parent_value"].as_str().unwrap()));
    }
    // Every product names its host manufacturers and models.
    for product in group["products"].as_array().unwrap() {
        let categories: HashSet<&str> = product["filter_options"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tag| tag["filterCategory"].as_str().unwrap())
            .collect();
        assert!(
            categories.contains("Host Manufacturer") && categories.contains("Model"),
            "{}",
            product["title"]
        );
    }
}

#[tokio::test]
async fn the_catalogue_shows_every_case_the_storefront_handles() {
    let sandbox = common::start().await;
    let products = all_products(&sandbox).await;
    assert!(products.len() >= 40, "{} products", products.len());
    let (_, prices) = sandbox.get_json("/Products").await;
    let prices = &prices["products"];
    let any = |check: &dyn Fn(&Value) -> bool| products.iter().any(check);
    let skus = |p: &Value| p["skus"].as_array().unwrap().clone();
    let selects = |p: &Value| skus(p)[0]["variants"].as_array().unwrap().len();

    // Sparse combinations: a product with 3 selects where some combination of values is no sku.
    let sparse = |p: &Value| {
        let skus = skus(p);
        let n = selects(p);
        if n < 2 {
            return false;
        }
        let distinct: usize = (0..n)
            .map(|i| {
                skus.iter()
                    .map(|s| s["variants"][i]["label"].as_str().unwrap().to_owned())
                    .collect::<HashSet<_>>()
                    .len()
            })
            .product();
        distinct > skus.len()
    };
    assert!(any(&|p| selects(p) == 3 && sparse(p)));
    assert!(any(&|p| selects(p) == 2 && sparse(p)));
    for product in &products {
        assert!(selects(product) <= 3, "{}", product["title"]);
    }

    assert!(any(&|p| {
        p["colorOptions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["title"].is_string() && c["value"].as_str().unwrap().starts_with('#'))
    }));
    assert!(any(&|p| {
        let add_on = &p["addOns"][0];
        add_on["id"].is_u64()
            && add_on["fieldName"].is_string()
            && add_on["label"].is_string()
            && add_on["add_on_price"].is_number()
            && add_on["image"]["src"].is_string()
    }));
    assert!(any(&|p| {
        p["compatibilityOptions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["options"] == json!([]))
    }));
    assert!(any(&|p| skus(p).len() == 1));
    assert!(any(&|p| p["fflItem"] == true));
    assert!(any(&|p| p["receiverItem"] == true));
    assert!(any(&|p| skus(p)
        .iter()
        .any(|s| s["restrictedStates"] != json!([]))));
    assert!(any(&|p| skus(p)
        .iter()
        .any(|s| s["restrictedZips"] != json!([]))));
    assert!(any(&|p| p["relatedProducts"] != json!([])));
    assert!(any(&|p| p["moreDetails"][0]["question"].is_string()));
    assert!(any(&|p| {
        let videos = &p["promoVideos"];
        videos["title"].is_string()
            && videos["accentTitle"].is_string()
            && videos["cards"][0]["image"]["src"].is_string()
            && videos["cards"][0]["videoUrl"].is_string()
    }));
    for display in ["product-short-alt", "product-short", "product-long"] {
        assert!(any(&|p| p["display_type"] == display), "{display}");
    }
    for product in &products {
        assert!(product["filterTags"][0]["filterValue"].is_string());
        assert!(product["filterTags"][0]["filterCategory"].is_string());
        assert!(product["breadcrumbs"].is_array() && product["metaData"]["title"].is_string());
        if product["display_type"] == "product-long" {
            assert!(product["about"]["readMore"]["url"].is_string());
        }
    }

    let stock = |p: &Value, in_stock: bool| {
        skus(p)
            .iter()
            .any(|s| prices[s["sku"].as_str().unwrap()]["inStock"] == in_stock)
    };
    assert!(any(&|p| stock(p, false)), "an out-of-stock sku");
    assert!(products.iter().filter(|p| stock(p, true)).count() >= 30);
    assert!(any(&|p| {
        skus(p)
            .iter()
            .any(|s| prices[s["sku"].as_str().unwrap()]["bestDiscountPercentage"] != 0)
    }));
    assert!(any(&|p| skus(p)
        .iter()
        .any(|s| s["price"].as_f64() == Some(0.0))));
}

#[tokio::test]
async fn search_matches_title_or_subtitle_sorted_ignoring_case() {
    let sandbox = common::start().await;
    let (status, body) = sandbox.get_json("/strapi/products/search/FALCON").await;
    assert_eq!(status, 200);
    let found = titles(&body);
    assert!(found.len() >= 5, "{found:?}");
    let mut sorted = found.clone();
    sorted.sort_by_key(|title| title.to_lowercase());
    assert_eq!(found, sorted);
    for product in body.as_array().unwrap() {
        let text = format!("{} {}", product["title"], product["subtitle"]).to_lowercase();
        assert!(text.contains("falcon"), "{text}");
    }
    assert_eq!(
        titles(&sandbox.get_json("/strapi/products/search/falcon").await.1),
        found
    );

    // Titles mixing case and digits ("TF-15 ...", "Talon ...", "Thread ...") sort ignoring case.
    let (_, body) = sandbox.get_json("/strapi/products/search/t").await;
    let found = titles(&body);
    let mut sorted = found.clone();
    sorted.sort_by_key(|title| title.to_lowercase());
    assert_eq!(found, sorted);

    // Only the subtitle says "CD-47".
    let (_, body) = sandbox.get_json("/strapi/products/search/cd-47").await;
    assert_eq!(titles(&body), ["Cobalt Dust Cover"]);
    assert!(body[0]["skus"].is_array() && body[0]["ffl_item"].is_boolean());
    let (_, body) = sandbox
        .get_json("/strapi/products/search/long%20range")
        .await;
    assert!(titles(&body).contains(&"Long Range Tee".to_owned()));

    let (status, body) = sandbox.get_json("/strapi/products/search/zzzz").await;
    assert_eq!((status, body), (200, json!([])));
}

#[tokio::test]
async fn the_price_map_covers_every_sku_with_the_discount_applied() {
    let sandbox = common::start().await;
    let products = all_products(&sandbox).await;
    let (status, body) = sandbox.get_json("/Products").await;
    assert_eq!(status, 200);
    let prices = body["products"].as_object().unwrap();
    let mut codes = HashSet::new();
    for product in &products {
        for sku in product["skus"].as_array().unwrap() {
            let code = sku["sku"].as_str().unwrap();
            codes.insert(code.to_owned());
            let entry = &prices[code];
            assert_eq!(entry["price"].as_f64(), sku["price"].as_f64(), "{code}");
            let price = entry["price"].as_f64().unwrap();
            let discount = entry["bestDiscountPercentage"].as_f64().unwrap();
            let best = entry["bestDiscountedPrice"].as_f64().unwrap();
            let expected = (price * (100.0 - discount)).round() / 100.0;
            assert!((best - expected).abs() < 0.005, "{code}: {entry}");
            if discount == 0.0 {
                assert_eq!(best, price, "{code}");
            } else {
                assert!(best < price, "{code}");
            }
            assert!(entry["inStock"].is_boolean());
        }
    }
    assert_eq!(
        codes.len(),
        prices.len(),
        "every seeded sku is in some product"
    );
    assert!(prices.len() >= 100);
    assert!(
        prices
            .values()
            .any(|p| p["price"] == 0 && p["bestDiscountedPrice"] == 0)
    );
}

#[tokio::test]
async fn the_price_map_reads_live_stock() {
    let sandbox = common::start().await;
    let (_, body) = sandbox.get_json("/strapi/products/range%20mat").await;
    let code = body[0]["skus"][0]["sku"].as_str().unwrap().to_owned();
    let in_stock = |body: &Value| body["products"][&code]["inStock"].clone();
    assert_eq!(in_stock(&sandbox.get_json("/Products").await.1), true);
    let taken = code.clone();
    sandbox
        .state
        .db
        .call(move |conn| skus::take_stock(conn, &taken, 1))
        .unwrap();
    assert_eq!(in_stock(&sandbox.get_json("/Products").await.1), false);
}

#[tokio::test]
async fn the_dealer_locator_lists_dealers_across_the_country() {
    let sandbox = common::start().await;
    let (_, body) = sandbox.get_json("/strapi/page/dealerlocator").await;
    let dealers = body["data"]["dealers"].as_array().unwrap();
    let at_origin = dealers
        .iter()
        .filter(|d| d["coordinates"] == json!({"latitude": 0, "longitude": 0}))
        .count();
    assert_eq!(at_origin, 2);
    let placed: Vec<&Value> = dealers
        .iter()
        .filter(|d| d["coordinates"]["latitude"] != 0)
        .collect();
    assert!(placed.len() >= 30);
    for dealer in placed {
        let lat = dealer["coordinates"]["latitude"].as_f64().unwrap();
        let lng = dealer["coordinates"]["longitude"].as_f64().unwrap();
        // The United States, Alaska included.
        assert!(
            (18.0..72.0).contains(&lat) && (-170.0..-66.0).contains(&lng),
            "{dealer}"
        );
        for field in ["name", "phone", "address_1", "address_2"] {
            assert!(dealer[field].is_string(), "{field}");
        }
    }
    assert!(body["data"]["dealerSignup"].is_string());
}

/// Every media URL a response mentions, grouped by the content type it must be served with.
fn media_urls(body: &Value, base: &str, into: &mut BTreeSet<String>) {
    walk(body, &mut |node| {
        if let Some(text) = node.as_str()
            && text.contains("/media/")
        {
            assert!(text.starts_with(base), "{text} is not absolute");
            into.insert(text.to_owned());
        }
    });
}

#[tokio::test]
async fn every_media_url_resolves() {
    let sandbox = common::start().await;
    let mut urls = BTreeSet::new();
    for product in all_products(&sandbox).await {
        let before = urls.len();
        media_urls(&product, &sandbox.base, &mut urls);
        assert!(urls.len() > before, "{} has no images", product["title"]);
    }
    for name in PAGE_NAMES {
        let (_, body) = sandbox.get_json(&format!("/strapi/page/{name}")).await;
        media_urls(&body, &sandbox.base, &mut urls);
    }
    for group in GROUPS.map(|(title, _)| title) {
        let (_, body) = sandbox
            .get_json(&format!("/strapi/product-groups/{}", encode(group)))
            .await;
        media_urls(&body, &sandbox.base, &mut urls);
    }
    let mut by_type: BTreeMap<String, usize> = BTreeMap::new();
    for url in &urls {
        let response = sandbox.client.get(url).send().await;
        assert_eq!(response.status(), 200, "{url}");
        let content_type = response.headers()[reqwest::header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .to_owned();
        let expected = match url.rsplit('.').next() {
            Some("svg") => "image/svg+xml",
            Some("pdf") => "application/pdf",
            Some("html") => "text/html; charset=utf-8",
            other => panic!("unexpected media {other:?} at {url}"),
        };
        assert_eq!(content_type, expected, "{url}");
        let body = response.bytes();
        if expected == "application/pdf" {
            assert!(body.starts_with(b"%PDF-") && body.ends_with(b"%%EOF\n"));
        }
        *by_type.entry(content_type).or_default() += 1;
    }
    assert!(by_type.len() == 3, "{by_type:?}");
}

#[tokio::test]
async fn every_storefront_link_in_content_names_a_real_product_or_group() {
    let sandbox = common::start().await;
    let mut bodies = Vec::new();
    for name in PAGE_NAMES {
        bodies.push(sandbox.get_json(&format!("/strapi/page/{name}")).await.1);
    }
    for (group, _) in GROUPS {
        let path = format!("/strapi/product-groups/{}", encode(group));
        bodies.push(sandbox.get_json(&path).await.1);
    }
    bodies.extend(all_products(&sandbox).await);
    let mut links = BTreeSet::new();
    for body in &bodies {
        walk(body, &mut |node| {
            if let Some(text) = node.as_str()
                && (text.starts_with("/product/") || text.starts_with("/collection/"))
            {
                links.insert(text.to_owned());
            }
        });
    }
    assert!(links.len() > 50, "{links:?}");
    for link in links {
        // Links are already encoded, as the storefront builds them.
        if let Some(title) = link.strip_prefix("/product/") {
            let (_, found) = sandbox.get_json(&format!("/strapi/products/{title}")).await;
            assert_eq!(found.as_array().map(Vec::len), Some(1), "{link}");
        } else if let Some(title) = link.strip_prefix("/collection/") {
            let path = format!("/strapi/product-groups/{title}");
            assert_eq!(sandbox.get_json(&path).await.0, 200, "{link}");
        }
    }
}
