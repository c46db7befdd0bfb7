//! The BFF's copy of the app's route table (`bff::seo::routes::ROUTES`) must list exactly the
//! routes of `web/src/app/page-table.tsx`: a route added to one and not the other would answer 404
//! to a page the app renders, or 200 to one it does not.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;

use bff::seo::routes::ROUTES;

/// Every `path: '…'` literal of the router, in order (nested paths relative to their parent).
fn router_paths() -> Vec<String> {
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/src/app/page-table.tsx");
    let source = std::fs::read_to_string(file).unwrap();
    let mut paths = Vec::new();
    let mut rest = source.as_str();
    while let Some(at) = rest.find("path: '") {
        rest = &rest[at + "path: '".len()..];
        let end = rest.find('\'').unwrap();
        paths.push(rest[..end].to_owned());
        rest = &rest[end..];
    }
    paths
}

#[test]
fn the_bff_knows_exactly_the_routes_of_the_app() {
    let app: BTreeSet<String> = router_paths()
        .into_iter()
        // the root layout and the not-found catch-all are not pages of their own
        .filter(|path| path != "/" && path != "*")
        .collect();
    assert!(
        app.contains("product/:title"),
        "the router was read: {app:?}"
    );
    // nested routes are written relative to their parent (only `profile` has children)
    let bff: BTreeSet<String> = ROUTES
        .iter()
        .filter(|route| !route.pattern.is_empty())
        .map(|route| {
            route
                .pattern
                .strip_prefix("profile/")
                .unwrap_or(route.pattern)
                .to_owned()
        })
        .collect();
    let missing: Vec<_> = app.difference(&bff).collect();
    let extra: Vec<_> = bff.difference(&app).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "routes only in the app: {missing:?}; only in the BFF: {extra:?}"
    );
    assert!(
        router_paths().contains(&"*".to_owned()),
        "the app renders its not-found page"
    );
}
