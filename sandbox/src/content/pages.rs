//! Content pages, Strapi-shaped: `GET /strapi/page/{name}` answers `{"data": {...}}`.
//!
//! A page may also have named variants that show a state its default content does not (About Us
//! without open positions). A request picks one with `?variant=`; without it, the variant stored
//! through `PUT /sandbox/pages/{name}/variant` applies, so a demo through the BFF can switch too.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use axum::Json;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::strapi;
use crate::SandboxState;
use crate::error::SandboxError;

/// Page fixtures, embedded so the binary runs from anywhere. `{{media}}` stands for the
/// sandbox's public origin, filled in per request.
const PAGES: &[(&str, &str)] = &[
    ("app", include_str!("../../fixtures/pages/app.json")),
    ("footer", include_str!("../../fixtures/pages/footer.json")),
    ("home", include_str!("../../fixtures/pages/home.json")),
    ("aboutus", include_str!("../../fixtures/pages/aboutus.json")),
    (
        "contactus",
        include_str!("../../fixtures/pages/contactus.json"),
    ),
    (
        "dealerlocator",
        include_str!("../../fixtures/pages/dealerlocator.json"),
    ),
    (
        "dealerregistration",
        include_str!("../../fixtures/pages/dealerregistration.json"),
    ),
    ("faq", include_str!("../../fixtures/pages/faq.json")),
    (
        "limitededition",
        include_str!("../../fixtures/pages/limitededition.json"),
    ),
    (
        "medialibrary",
        include_str!("../../fixtures/pages/medialibrary.json"),
    ),
    (
        "warranty",
        include_str!("../../fixtures/pages/warranty.json"),
    ),
    (
        "resources",
        include_str!("../../fixtures/pages/resources.json"),
    ),
    ("support", include_str!("../../fixtures/pages/support.json")),
    ("patent", include_str!("../../fixtures/pages/patent.json")),
    ("login", include_str!("../../fixtures/pages/login.json")),
    (
        "register",
        include_str!("../../fixtures/pages/register.json"),
    ),
    (
        "forgotpassword",
        include_str!("../../fixtures/pages/forgotpassword.json"),
    ),
    (
        "resetpassword",
        include_str!("../../fixtures/pages/resetpassword.json"),
    ),
    ("terms", include_str!("../../fixtures/pages/terms.json")),
    ("privacy", include_str!("../../fixtures/pages/privacy.json")),
];

/// The variant every page is served in unless another is chosen.
const DEFAULT_VARIANT: &str = "default";

/// A named alternative rendering of one page.
struct Variant {
    page: &'static str,
    name: &'static str,
    apply: fn(&mut Value),
}

const VARIANTS: &[Variant] = &[
    Variant {
        page: "aboutus",
        name: "no-positions",
        apply: without_open_positions,
    },
    Variant {
        page: "faq",
        name: "items-renamed",
        apply: with_items_renamed,
    },
    Variant {
        page: "footer",
        name: "unrenderable",
        apply: with_rich_text_label,
    },
];

/// About Us with no open positions: the storefront then hides its careers section.
fn without_open_positions(page: &mut Value) {
    page["data"]["lookingForListContent"] = json!([]);
}

/// The FAQ after a CMS edit that renamed its required `items` to `questions`: the page no longer
/// has the shape the API documents (the BFF counts it and serves it as sent).
fn with_items_renamed(page: &mut Value) {
    if let Some(data) = page["data"].as_object_mut()
        && let Some(items) = data.remove("items")
    {
        data.insert("questions".to_owned(), items);
    }
}

/// The footer after a CMS edit that made its last bottom text a rich-text field (nested lists):
/// every page's frame includes it, and no renderer can draw blocks where the footer shows text.
/// The BFF relays it (counted as a shape break), and the server render of every document fails.
fn with_rich_text_label(page: &mut Value) {
    let text = |text: &str| json!({"type": "text", "text": text});
    let mut list = json!({"type": "list", "format": "unordered", "children": [
        {"type": "list-item", "children": [text("© 2026 Talonforge Arms")]}
    ]});
    for _ in 0..20 {
        list = json!({"type": "list", "format": "unordered", "children": [list]});
    }
    if let Some(last) = page["data"]["bottom_texts"]
        .as_array_mut()
        .and_then(|texts| texts.last_mut())
    {
        last["label"] = json!([list]);
    }
}

/// Parsed once; a broken fixture is reported by every page call and by the unit tests.
static PARSED: LazyLock<Result<HashMap<&'static str, Value>, String>> = LazyLock::new(|| {
    PAGES
        .iter()
        .map(|(name, text)| {
            serde_json::from_str(text)
                .map(|value| (*name, value))
                .map_err(|err| format!("page fixture {name}: {err}"))
        })
        .collect()
});

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new().route("/strapi/page/{name}", get(page)).route(
        "/sandbox/pages/{name}/variant",
        get(current_variant).put(set_variant).delete(reset_variant),
    )
}

#[derive(Debug, Deserialize)]
struct PageQuery {
    variant: Option<String>,
}

async fn page(
    State(state): State<Arc<SandboxState>>,
    Path(name): Path<String>,
    Query(query): Query<PageQuery>,
) -> Response {
    let pages = match PARSED.as_ref() {
        Ok(pages) => pages,
        Err(err) => return strapi::error(StatusCode::INTERNAL_SERVER_ERROR, err),
    };
    let Some(body) = pages.get(name.as_str()) else {
        return strapi::error(StatusCode::NOT_FOUND, &format!("page '{name}' not found"));
    };
    let variant = match query.variant {
        Some(variant) => variant,
        None if has_variants(&name) => match state.db.call(|conn| stored_variant(conn, &name)) {
            Ok(variant) => variant,
            Err(err) => return strapi::error(StatusCode::INTERNAL_SERVER_ERROR, &err.to_string()),
        },
        None => DEFAULT_VARIANT.to_owned(),
    };
    match render(&name, body, &variant) {
        Some(body) => strapi::json_with_media(state.public_url(), &body),
        None => strapi::error(
            StatusCode::BAD_REQUEST,
            &format!("page '{name}' has no variant '{variant}'"),
        ),
    }
}

/// The page in `variant`, or `None` when the page has no such variant.
fn render<'a>(name: &str, body: &'a Value, variant: &str) -> Option<Cow<'a, Value>> {
    if variant == DEFAULT_VARIANT {
        return Some(Cow::Borrowed(body));
    }
    let found = VARIANTS
        .iter()
        .find(|v| v.page == name && v.name == variant)?;
    let mut changed = body.clone();
    (found.apply)(&mut changed);
    Some(Cow::Owned(changed))
}

fn has_variants(name: &str) -> bool {
    VARIANTS.iter().any(|variant| variant.page == name)
}

fn stored_variant(conn: &Connection, name: &str) -> Result<String, SandboxError> {
    Ok(conn
        .query_row(
            "SELECT variant FROM content_page_variants WHERE page = ?1",
            [name],
            |row| row.get(0),
        )
        .optional()?
        .unwrap_or_else(|| DEFAULT_VARIANT.to_owned()))
}

/// The answer of the `/sandbox/pages/{name}/variant` routes.
#[derive(Debug, Serialize)]
struct VariantState {
    page: String,
    variant: String,
    variants: Vec<&'static str>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct VariantChoice {
    variant: String,
}

fn variant_state(conn: &Connection, name: String) -> Result<VariantState, SandboxError> {
    let mut variants = vec![DEFAULT_VARIANT];
    variants.extend(
        VARIANTS
            .iter()
            .filter(|variant| variant.page == name)
            .map(|variant| variant.name),
    );
    Ok(VariantState {
        variant: stored_variant(conn, &name)?,
        page: name,
        variants,
    })
}

fn known_page(name: &str) -> Result<(), SandboxError> {
    if PAGES.iter().any(|(page, _)| *page == name) {
        Ok(())
    } else {
        Err(SandboxError::NotFound(format!("page '{name}' not found")))
    }
}

async fn current_variant(
    State(state): State<Arc<SandboxState>>,
    Path(name): Path<String>,
) -> Result<Json<VariantState>, SandboxError> {
    known_page(&name)?;
    Ok(Json(state.db.call(|conn| variant_state(conn, name))?))
}

async fn set_variant(
    State(state): State<Arc<SandboxState>>,
    Path(name): Path<String>,
    Json(choice): Json<VariantChoice>,
) -> Result<Json<VariantState>, SandboxError> {
    known_page(&name)?;
    let variant = choice.variant;
    let known =
        variant == DEFAULT_VARIANT || VARIANTS.iter().any(|v| v.page == name && v.name == variant);
    if !known {
        return Err(SandboxError::field(
            "variant",
            &format!("page '{name}' has no variant '{variant}'"),
        ));
    }
    Ok(Json(state.db.call(|conn| {
        if variant == DEFAULT_VARIANT {
            conn.execute("DELETE FROM content_page_variants WHERE page = ?1", [&name])?;
        } else {
            conn.execute(
                "INSERT OR REPLACE INTO content_page_variants (page, variant) VALUES (?1, ?2)",
                params![name, variant],
            )?;
        }
        variant_state(conn, name)
    })?))
}

async fn reset_variant(
    State(state): State<Arc<SandboxState>>,
    Path(name): Path<String>,
) -> Result<Json<VariantState>, SandboxError> {
    known_page(&name)?;
    Ok(Json(state.db.call(|conn| {
        conn.execute("DELETE FROM content_page_variants WHERE page = ?1", [&name])?;
        variant_state(conn, name)
    })?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    fn parsed() -> &'static HashMap<&'static str, Value> {
        PARSED.as_ref().unwrap_or_else(|err| panic!("{err}"))
    }

    #[test]
    fn every_fixture_has_data_with_meta_data() {
        for (name, value) in parsed() {
            let meta = &value["data"]["metaData"];
            assert!(
                meta["title"].is_string() && meta["description"].is_string(),
                "{name} lacks metaData"
            );
        }
        assert_eq!(parsed().len(), PAGES.len());
    }

    #[test]
    fn variants_exist_only_where_declared() {
        let about = &parsed()["aboutus"];
        assert!(
            about["data"]["lookingForListContent"]
                .as_array()
                .is_some_and(|positions| !positions.is_empty())
        );
        let empty = render("aboutus", about, "no-positions").unwrap();
        assert_eq!(empty["data"]["lookingForListContent"], json!([]));
        assert!(matches!(
            render("aboutus", about, DEFAULT_VARIANT),
            Some(Cow::Borrowed(_))
        ));
        assert!(render("home", &parsed()["home"], "no-positions").is_none());
        assert!(VARIANTS.iter().all(|v| parsed().contains_key(v.page)));
    }

    #[test]
    fn the_stored_variant_defaults_and_persists() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            assert_eq!(stored_variant(conn, "aboutus")?, DEFAULT_VARIANT);
            conn.execute(
                "INSERT INTO content_page_variants (page, variant) VALUES ('aboutus', 'no-positions')",
                [],
            )?;
            let state = variant_state(conn, "aboutus".to_owned())?;
            assert_eq!(state.variant, "no-positions");
            assert_eq!(state.variants, vec![DEFAULT_VARIANT, "no-positions"]);
            Ok(())
        })
        .unwrap();
    }
}
