//! The doubles' server-rendered pages: one escaping function and one page shell, so every
//! interpolated value goes through the same door.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// A complete page. `title` is escaped here; `body` is markup the caller built with [`escape`].
pub fn page(title: &str, body: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
  body {{ font-family: system-ui, sans-serif; margin: 0; background: #f4f4f2; color: #1c1c1c; line-height: 1.5; }}
  main {{ max-width: 48rem; margin: 0 auto; padding: 2rem 1rem; }}
  h1 {{ margin-top: 0; }}
  a {{ color: #0b4f9c; }}
  .card {{ background: #fff; border: 1px solid #c8c8c4; border-radius: 8px; padding: 1rem 1.25rem; margin: 1rem 0; }}
  .actions {{ display: flex; gap: 1rem; flex-wrap: wrap; margin-top: 1.5rem; }}
  button {{ font: inherit; padding: 0.6rem 1.4rem; border-radius: 6px; border: 2px solid #1c1c1c; cursor: pointer; }}
  button.primary {{ background: #14532d; border-color: #14532d; color: #fff; }}
  button.secondary {{ background: #fff; color: #7f1d1d; border-color: #7f1d1d; }}
  button:focus-visible, a:focus-visible, input:focus-visible {{ outline: 3px solid #f59e0b; outline-offset: 2px; }}
  dl {{ display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; margin: 0.5rem 0; }}
  dt {{ font-weight: 600; }}
  dd {{ margin: 0; overflow-wrap: anywhere; }}
  pre {{ white-space: pre-wrap; overflow-wrap: anywhere; background: #f7f7f5; padding: 0.75rem; border-radius: 4px; }}
  .muted {{ color: #555; }}
</style>
</head>
<body>
<main>
{body}
</main>
</body>
</html>
"#,
        title = escape(title),
    )
}

/// An HTML response that is never cached and never framed (the pages carry one-time values
/// and buttons worth clickjacking).
pub fn response(status: StatusCode, html: String) -> Response {
    let mut response = (status, html).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// A page that only says what went wrong.
pub fn error_page(status: StatusCode, title: &str, message: &str) -> Response {
    response(
        status,
        page(
            title,
            &format!(
                "<h1>{}</h1>\n<p role=\"alert\">{}</p>",
                escape(title),
                escape(message)
            ),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape(r#"<a href="x" title='y'>&</a>"#),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;"
        );
    }

    #[test]
    fn the_title_is_escaped() {
        assert!(page("<b>", "").contains("<title>&lt;b&gt;</title>"));
    }
}
