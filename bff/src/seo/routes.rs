//! The web app's route table, as the BFF needs it: which paths the app renders (anything else
//! is a 404), which content page gives a path its head, and which pages crawlers must not
//! index. It mirrors `web/src/app/page-table.tsx`; `tests/seo_routes.rs` fails when the two differ.

use percent_encoding::percent_decode_str;

/// Where a route's head comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadSource {
    /// `/home`: a permanent redirect to `/`.
    RedirectHome,
    /// The content page of this name (its `metaData`).
    Page(&'static str),
    /// The product named by the path's parameter.
    Product,
    /// The collection named by the path's parameter.
    Collection,
    /// Search results for the path's parameter.
    Search,
    /// Nothing to look up: the route's own title and the site defaults.
    Fixed,
}

/// One route of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppRoute {
    /// The app's pattern without the leading `/` (`product/:title`); `:name` matches one
    /// segment.
    pub pattern: &'static str,
    pub source: HeadSource,
    /// The page's own title as the app's `PageMeta` shows it (the brand name is appended);
    /// empty for the site's default title.
    pub title: &'static str,
    /// Personal, transactional or verification pages: `noindex`.
    pub noindex: bool,
}

const fn route(
    pattern: &'static str,
    source: HeadSource,
    title: &'static str,
    noindex: bool,
) -> AppRoute {
    AppRoute {
        pattern,
        source,
        title,
        noindex,
    }
}

use HeadSource::{Collection, Fixed, Page, Product, RedirectHome, Search};

/// Every route of `web/src/app/page-table.tsx`, nested routes with their full path.
pub const ROUTES: &[AppRoute] = &[
    route("", Page("home"), "", false),
    route("home", RedirectHome, "", false),
    // shopping
    route("checkout", Fixed, "Checkout", true),
    route("confirm/:orderId", Fixed, "Order Confirmation", true),
    route(
        "limited-edition",
        Page("limitededition"),
        "Limited Edition",
        false,
    ),
    route(
        "dealer-locator",
        Page("dealerlocator"),
        "Dealer Locator",
        false,
    ),
    route(
        "dealer-registration",
        Page("dealerregistration"),
        "Dealer Registration",
        false,
    ),
    route("search/:query", Search, "Search", false),
    route("product/:title", Product, "", false),
    route("collection/:title", Collection, "", false),
    route("3dbuilder", Fixed, "3D Builder", false),
    // authentication
    route("login", Page("login"), "Sign In", true),
    route("register", Page("register"), "Create an Account", true),
    route(
        "forgot-password",
        Page("forgotpassword"),
        "Forgot Password",
        true,
    ),
    route(
        "auth/reset-password",
        Page("resetpassword"),
        "Reset Password",
        true,
    ),
    route("verify-email", Fixed, "Verify Email", true),
    route(
        "Newsletter/verify/:token",
        Fixed,
        "Newsletter Verification",
        true,
    ),
    // content
    route("about-us", Page("aboutus"), "About Us", false),
    route("contact-us", Page("contactus"), "Contact Us", false),
    route(
        "media-library",
        Page("medialibrary"),
        "Media Library",
        false,
    ),
    route("support", Page("support"), "Support", false),
    route("warranty", Page("warranty"), "Warranty", false),
    route("faq", Page("faq"), "FAQ", false),
    route("reviews", Fixed, "Customer Reviews", false),
    route("resources", Page("resources"), "Resources", false),
    route("patents", Page("patent"), "Patents", false),
    route("copy/:copyId", Fixed, "", false),
    route("terms-of-service", Page("terms"), "Terms of Service", false),
    // account area
    route("profile", Fixed, "My Account", true),
    route("profile/details", Fixed, "My Account", true),
    route("profile/update-password", Fixed, "My Account", true),
    route("profile/newsletter", Fixed, "My Account", true),
    route("profile/address-book", Fixed, "My Account", true),
    route("profile/address-book/:id", Fixed, "My Account", true),
    route("profile/orders", Fixed, "My Account", true),
    route("profile/orders/:id", Fixed, "My Account", true),
    route("profile/account-information", Fixed, "My Account", true),
    route("profile/my-reviews", Fixed, "My Account", true),
    route("profile/discount-programs", Fixed, "My Account", true),
    route("profile/pro-deal", Fixed, "My Account", true),
    route("profile/le-mil", Fixed, "My Account", true),
];

/// A path matched to its route, with the parameter (decoded) when the pattern has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    pub route: &'static AppRoute,
    pub param: Option<String>,
}

/// The route `path` renders, if any. Matching is exact and case-sensitive, as React Router's
/// is by default, except for one trailing slash, which it ignores too. A parameter that is
/// not valid UTF-8 once decoded matches nothing.
pub fn match_path(path: &str) -> Option<Matched> {
    let trimmed = path.strip_prefix('/')?;
    let trimmed = match trimmed.strip_suffix('/') {
        Some(rest) if !rest.is_empty() => rest,
        _ => trimmed,
    };
    let segments: Vec<&str> = if trimmed.is_empty() {
        Vec::new()
    } else {
        trimmed.split('/').collect()
    };
    ROUTES.iter().find_map(|route| {
        let pattern: Vec<&str> = if route.pattern.is_empty() {
            Vec::new()
        } else {
            route.pattern.split('/').collect()
        };
        if pattern.len() != segments.len() {
            return None;
        }
        let mut param = None;
        for (expected, actual) in pattern.iter().zip(&segments) {
            if expected.starts_with(':') {
                if actual.is_empty() {
                    return None;
                }
                param = Some(percent_decode_str(actual).decode_utf8().ok()?.into_owned());
            } else if expected != actual {
                return None;
            }
        }
        Some(Matched { route, param })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_their_routes() {
        assert_eq!(match_path("/").map(|m| m.route.pattern), Some(""));
        let product = match_path("/product/summit%20lr").unwrap();
        assert_eq!(product.route.source, HeadSource::Product);
        assert_eq!(product.param.as_deref(), Some("summit lr"));
        assert_eq!(
            match_path("/profile/orders/7/").map(|m| m.route.pattern),
            Some("profile/orders/:id")
        );
        assert!(match_path("/about-us").is_some());
    }

    #[test]
    fn anything_else_matches_nothing() {
        for path in [
            "/nope",
            "/product",
            "/product/",
            "/product/a/b",
            "/About-Us",
            "/profile/unknown",
            "//",
            "/product/%FF",
        ] {
            assert_eq!(match_path(path), None, "{path}");
        }
    }

    #[test]
    fn every_page_named_is_a_content_page() {
        for route in ROUTES {
            if let HeadSource::Page(name) = route.source {
                assert!(crate::content::PAGE_NAMES.contains(&name), "{name}");
            }
        }
    }
}
