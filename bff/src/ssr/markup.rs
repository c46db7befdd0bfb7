//! The rendered first screen and the page's data, put into the shell's `#root`.

/// The element the app mounts into, as Vite's `index.html` writes it.
const ROOT: &str = r#"<div id="root"></div>"#;

/// `json` made safe inside `<script type="application/json">`: nothing in it can close the
/// element or start a comment (`<`, `>`, `&` and the two JavaScript line separators are
/// written as escapes, which JSON reads back as the same characters).
pub fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// `shell` with `body` (the server-rendered markup, or nothing) inside `#root` and the page's
/// data (`answers`, JSON) right after it; the shell unchanged when it has no empty `#root`.
pub fn fill_root(shell: &str, body: &str, answers: &str) -> String {
    let Some(at) = shell.find(ROOT) else {
        return shell.to_owned();
    };
    let data = script_safe(answers);
    let mut html = String::with_capacity(shell.len() + body.len() + data.len() + 80);
    html.push_str(&shell[..at]);
    html.push_str(r#"<div id="root">"#);
    html.push_str(body);
    html.push_str(r#"</div><script type="application/json" id="document-data">"#);
    html.push_str(&data);
    html.push_str("</script>");
    html.push_str(&shell[at + ROOT.len()..]);
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_close_its_element() {
        let shell = r#"<body><div id="root"></div><script src="/a.js"></script></body>"#;
        let html = fill_root(shell, "<h1>x</h1>", r#"{"a":"</script><!-- &"}"#);
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
            fill_root("<body></body>", "<h1>x</h1>", "{}"),
            "<body></body>"
        );
    }
}
