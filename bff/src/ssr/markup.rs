//! The rendered first screen and the page's data, put into the shell's `#root`.

use crate::http::json_in_html::script_safe;

/// The element the app mounts into, as Vite's `index.html` writes it.
const ROOT: &str = r#"<div id="root"></div>"#;

/// `shell` with `body` (the server-rendered markup, or nothing) inside `#root`, then the page's
/// data (`answers`, JSON) and the scripts of its route (`chunks`, paths such as
/// `/assets/product-…js`, when there are any); the shell unchanged when it has no empty `#root`.
///
/// The chunks are a list, not `<link rel="modulepreload">`s: the browser would fetch those at
/// once, beside the stylesheet and the largest image. The app's boot script (`web/src/boot.ts`)
/// preloads them once the first screen has painted.
pub fn fill_root(shell: &str, body: &str, answers: &str, chunks: &[String]) -> String {
    let Some(at) = shell.find(ROOT) else {
        return shell.to_owned();
    };
    let data = script_safe(answers);
    let chunks = match chunks {
        [] => String::new(),
        chunks => script_safe(&serde_json::Value::from(chunks.to_vec()).to_string()),
    };
    let mut html =
        String::with_capacity(shell.len() + body.len() + data.len() + chunks.len() + 140);
    html.push_str(&shell[..at]);
    html.push_str(r#"<div id="root">"#);
    html.push_str(body);
    html.push_str(r#"</div><script type="application/json" id="document-data">"#);
    html.push_str(&data);
    html.push_str("</script>");
    if !chunks.is_empty() {
        html.push_str(r#"<script type="application/json" id="route-chunks">"#);
        html.push_str(&chunks);
        html.push_str("</script>");
    }
    html.push_str(&shell[at + ROOT.len()..]);
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_close_its_element() {
        let shell = r#"<body><div id="root"></div><script src="/a.js"></script></body>"#;
        let html = fill_root(shell, "<h1>x</h1>", r#"{"a":"</script><!-- &"}"#, &[]);
        assert!(
            html.contains(r#"<div id="root"><h1>x</h1></div>"#),
            "{html}"
        );
        assert_eq!(html.matches("</script>").count(), 2, "{html}");
        assert!(!html.contains("<!--"), "{html}");
        assert!(
            html.contains(r#"\u003c/script\u003e\u003c!-- \u0026"#),
            "{html}"
        );
    }

    #[test]
    fn a_shell_without_an_empty_root_is_left_alone() {
        assert_eq!(
            fill_root(
                "<body></body>",
                "<h1>x</h1>",
                "{}",
                &["/assets/a.js".to_owned()]
            ),
            "<body></body>"
        );
    }

    #[test]
    fn the_route_chunks_follow_the_data_as_an_inert_list() {
        let shell =
            r#"<body><div id="root"></div><script type="module" src="/b.js"></script></body>"#;
        let chunks = [
            "/assets/product-1.js".to_owned(),
            "/assets/x</script>.js".to_owned(),
        ];
        let html = fill_root(shell, "<h1>x</h1>", "{}", &chunks);
        assert!(
            html.contains(
                r#"<script type="application/json" id="document-data">{}</script><script type="application/json" id="route-chunks">["/assets/product-1.js","/assets/x\u003c/script\u003e.js"]</script><script type="module""#
            ),
            "{html}"
        );
        assert!(!html.contains("modulepreload"), "{html}");
        // no route, no list
        let html = fill_root(shell, "", "{}", &[]);
        assert!(!html.contains("route-chunks"), "{html}");
    }
}
