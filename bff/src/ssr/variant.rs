//! What makes a page's document: its canonical path, and at most one query parameter that
//! changes its first screen. `sku` picks a product's variant and `activeFilter` a tabbed
//! collection's tab; nothing else in a query (tracking parameters, the filterable grid's own
//! `q`, `sort` and filters, made-up names) names another document, so nothing else can make a
//! render or a cache entry.
//!
//! The value is keyed as the app reads it (trimmed, lower-cased: `initialSku`, `activeTab`), so
//! `?sku=TF-1` and `?sku=tf-1` are one document. Whether the value is real is for the page's
//! data to say ([`crate::seo`] checks it before a render); the hit path only looks the key up,
//! so an unknown value finds nothing and the router answers the canonical document.

/// A parameter that changes a first screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VariantParam {
    /// A product's sku (`/product/{title}?sku=`).
    Sku,
    /// A tabbed collection's tab (`/collection/{title}?activeFilter=`).
    ActiveFilter,
}

impl VariantParam {
    /// The parameter as the app writes it in links.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sku => "sku",
            Self::ActiveFilter => "activeFilter",
        }
    }

    /// The parameter a page at `path` reads for its first screen, if any.
    pub fn of_path(path: &str) -> Option<Self> {
        if path.starts_with("/product/") {
            Some(Self::Sku)
        } else if path.starts_with("/collection/") {
            Some(Self::ActiveFilter)
        } else {
            None
        }
    }
}

/// A variant of a page's document: the parameter and its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    pub param: VariantParam,
    /// As the request sent it (decoded), or as the page's data spells it once checked.
    pub value: String,
}

impl Variant {
    /// The variant `query` asks of the page at `path`: its parameter's first value, when it is
    /// not blank. Unchecked: a value the page does not have is the caller's to drop.
    pub fn requested(path: &str, query: Option<&str>) -> Option<Self> {
        let param = VariantParam::of_path(path)?;
        let value = url::form_urlencoded::parse(query?.as_bytes())
            .find(|(name, _)| name == param.name())
            .map(|(_, value)| value.trim().to_owned())?;
        (!value.is_empty()).then_some(Self { param, value })
    }

    /// The value as the document key holds it: how the app compares it (trimmed, lower-cased).
    pub fn key_value(&self) -> String {
        self.value.trim().to_lowercase()
    }

    /// `sku=TF-1`, for the URL the renderer is given.
    pub fn query(&self) -> String {
        url::form_urlencoded::Serializer::new(String::new())
            .append_pair(self.param.name(), &self.value)
            .finish()
    }
}

/// The remembered answers' key of the document at `path` (canonical: the router redirects any
/// other spelling) in `variant`, for the web build `build`: a pod never answers a document
/// whose chunks another build named.
pub fn document_key(build: &str, path: &str, variant: Option<&Variant>) -> String {
    match variant {
        None => format!("document:{build}:{path}"),
        Some(variant) => format!(
            "document:{build}:{path}?{}={}",
            variant.param.name(),
            variant.key_value()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_pages_own_parameter_names_a_variant() {
        let sku = Variant::requested("/product/a", Some("utm_source=x&sku=%20TF-1+&sku=TF-2"));
        assert_eq!(
            sku,
            Some(Variant {
                param: VariantParam::Sku,
                value: "TF-1".to_owned()
            })
        );
        for (path, query) in [
            ("/product/a", Some("activeFilter=Hats")),
            ("/product/a", Some("sku=%20")),
            ("/product/a", None),
            ("/collection/a", Some("sku=TF-1&q=x&sort=title-asc")),
            ("/about-us", Some("sku=TF-1")),
        ] {
            assert_eq!(Variant::requested(path, query), None, "{path}?{query:?}");
        }
        let tab = Variant::requested("/collection/rifles", Some("activeFilter=Semi-Auto"));
        assert_eq!(
            tab.map(|tab| tab.query()).as_deref(),
            Some("activeFilter=Semi-Auto")
        );
    }

    #[test]
    fn one_key_per_value_as_the_app_compares_it() {
        let key = |value: &str| {
            let variant = Variant {
                param: VariantParam::Sku,
                value: value.to_owned(),
            };
            document_key("b", "/product/a", Some(&variant))
        };
        assert_eq!(key("TF-1"), "document:b:/product/a?sku=tf-1");
        assert_eq!(key(" tf-1 "), key("TF-1"));
        assert_eq!(
            document_key("b", "/product/a", None),
            "document:b:/product/a"
        );
    }
}
