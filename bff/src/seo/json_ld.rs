//! A product's schema.org `Product` as JSON-LD, encoded so it can sit inside a `<script>`
//! element: no text in it can close the element or open a comment, whatever the content says.

use serde_json::{Value, json};

use crate::http::json_in_html::script_safe;

/// What the `Product` states.
#[derive(Debug, Clone, PartialEq)]
pub struct ProductFacts<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub image: Option<&'a str>,
    pub sku: Option<&'a str>,
    pub brand: &'a str,
    pub url: &'a str,
    /// The composed final price and stock of the displayed sku; `None` when it has none to
    /// sell (no sku, or 'Coming Soon').
    pub offer: Option<(f64, bool)>,
}

/// The `Product` document, script-safe.
pub fn product(facts: &ProductFacts<'_>) -> String {
    let mut document = json!({
        "@context": "https://schema.org",
        "@type": "Product",
        "name": facts.name,
        "description": facts.description,
        "brand": {"@type": "Brand", "name": facts.brand},
        "url": facts.url,
    });
    if let Some(image) = facts.image {
        document["image"] = Value::from(image);
    }
    if let Some(sku) = facts.sku {
        document["sku"] = Value::from(sku);
    }
    if let Some((price, in_stock)) = facts.offer {
        let availability = if in_stock {
            "https://schema.org/InStock"
        } else {
            "https://schema.org/OutOfStock"
        };
        document["offers"] = json!({
            "@type": "Offer",
            "price": format!("{price:.2}"),
            "priceCurrency": "USD",
            "availability": availability,
            "url": facts.url,
        });
    }
    script_safe(&document.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_content_can_close_the_script() {
        let name = r#"</script><script>alert("x")</script> & <!--"#;
        let encoded = product(&ProductFacts {
            name,
            description: "",
            image: None,
            sku: Some("S-1"),
            brand: "B",
            url: "https://shop.example/product/x",
            offer: Some((10.0, true)),
        });
        assert!(
            !encoded.contains('<') && !encoded.contains('>'),
            "{encoded}"
        );
        assert!(!encoded.contains('&'), "{encoded}");
        let decoded: Value = serde_json::from_str(&encoded).unwrap();
        assert_eq!(decoded["name"], name);
        assert_eq!(decoded["offers"]["price"], "10.00");
        assert_eq!(
            decoded["offers"]["availability"],
            "https://schema.org/InStock"
        );
    }
}
