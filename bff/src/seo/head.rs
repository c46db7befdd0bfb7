//! A page's head as crawlers and link unfurlers read it (they run no JavaScript): title,
//! description, canonical URL, Open Graph and Twitter tags, `noindex`, and a product's price,
//! availability and JSON-LD. Every tag carries `data-seo`, so the app's `PageMeta` can remove
//! them when it takes over after hydration instead of adding a second set.

use std::fmt::Write as _;

/// A product's offer, for `product:*` tags and the JSON-LD.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    /// What the shopper pays (the composed final price).
    pub price: f64,
    pub in_stock: bool,
}

/// Everything the head says; rendered with [`Head::render`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Head {
    pub title: String,
    pub description: String,
    /// Absolute URL.
    pub canonical: String,
    /// Absolute URL, if any.
    pub image: Option<String>,
    /// `website`, `product`.
    pub og_type: &'static str,
    pub site_name: String,
    pub noindex: bool,
    pub offer: Option<Offer>,
    /// The `application/ld+json` document, already script-safe (see [`super::json_ld`]).
    pub json_ld: Option<String>,
    /// The first screen's largest image (the LCP element: the hero slide, the product's main
    /// image, the first collection card), fetched early and first.
    pub preload_image: Option<String>,
}

impl Head {
    /// The tags, every text HTML-escaped.
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(1024);
        let _ = write!(out, "<title data-seo>{}</title>", escape(&self.title));
        meta(&mut out, "name", "description", &self.description);
        if self.noindex {
            meta(&mut out, "name", "robots", "noindex");
        }
        let _ = write!(
            out,
            r#"<link data-seo rel="canonical" href="{}">"#,
            escape(&self.canonical)
        );
        meta(&mut out, "property", "og:title", &self.title);
        meta(&mut out, "property", "og:description", &self.description);
        meta(&mut out, "property", "og:url", &self.canonical);
        meta(&mut out, "property", "og:type", self.og_type);
        if !self.site_name.is_empty() {
            meta(&mut out, "property", "og:site_name", &self.site_name);
        }
        let card = if let Some(image) = &self.image {
            meta(&mut out, "property", "og:image", image);
            meta(&mut out, "name", "twitter:image", image);
            "summary_large_image"
        } else {
            "summary"
        };
        meta(&mut out, "name", "twitter:card", card);
        meta(&mut out, "name", "twitter:title", &self.title);
        meta(&mut out, "name", "twitter:description", &self.description);
        if let Some(offer) = &self.offer {
            meta(
                &mut out,
                "property",
                "product:price:amount",
                &format!("{:.2}", offer.price),
            );
            meta(&mut out, "property", "product:price:currency", "USD");
            let availability = if offer.in_stock {
                "in stock"
            } else {
                "out of stock"
            };
            meta(&mut out, "property", "product:availability", availability);
        }
        if let Some(image) = &self.preload_image {
            let _ = write!(
                out,
                r#"<link data-seo rel="preload" as="image" href="{}" fetchpriority="high">"#,
                escape(image)
            );
        }
        if let Some(json_ld) = &self.json_ld {
            let _ = write!(
                out,
                r#"<script data-seo type="application/ld+json">{json_ld}</script>"#
            );
        }
        out
    }
}

fn meta(out: &mut String, attribute: &str, key: &str, content: &str) {
    let _ = write!(
        out,
        r#"<meta data-seo {attribute}="{key}" content="{}">"#,
        escape(content)
    );
}

/// Text and attribute values made inert: `&`, `<`, `>`, `"` and `'` as character references.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_text_is_escaped() {
        let head = Head {
            title: r#"A <b> "quoted" </script> & co"#.to_owned(),
            description: "it's".to_owned(),
            canonical: "https://shop.example/product/a%20b?x=1&y=2".to_owned(),
            og_type: "website",
            ..Head::default()
        };
        let html = head.render();
        assert!(!html.contains("<b>"), "{html}");
        assert!(!html.contains("</script>"), "{html}");
        assert!(html.contains("A &lt;b&gt; &quot;quoted&quot; &lt;/script&gt; &amp; co"));
        assert!(html.contains("it&#39;s"));
        assert!(html.contains("x=1&amp;y=2"));
    }

    #[test]
    fn an_offer_adds_price_and_availability() {
        let head = Head {
            og_type: "product",
            offer: Some(Offer {
                price: 1299.5,
                in_stock: false,
            }),
            ..Head::default()
        };
        let html = head.render();
        assert!(html.contains(r#"property="product:price:amount" content="1299.50""#));
        assert!(html.contains(r#"property="product:availability" content="out of stock""#));
        assert!(html.contains(r#"property="og:type" content="product""#));
    }
}
