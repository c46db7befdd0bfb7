//! JSON inside an HTML `<script>` element: the one escape every document uses for the data it
//! inlines (the runtime config, a product's JSON-LD, the first screen's API answers and route
//! chunks).

/// `json` made safe inside `<script type="application/json">` (or `application/ld+json`):
/// `<`, `>`, `&` and the two JavaScript line separators are written as `\u` escapes, which JSON
/// reads back as the same characters, so no value can close the element (`</script>`) or open a
/// comment (`<!--`).
pub fn script_safe(json: &str) -> String {
    let mut safe = String::with_capacity(json.len() + json.len() / 16);
    for character in json.chars() {
        match character {
            '<' => safe.push_str("\\u003c"),
            '>' => safe.push_str("\\u003e"),
            '&' => safe.push_str("\\u0026"),
            '\u{2028}' => safe.push_str("\\u2028"),
            '\u{2029}' => safe.push_str("\\u2029"),
            other => safe.push(other),
        }
    }
    safe
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_in_it_can_close_the_element_and_it_reads_back_the_same() {
        let value = serde_json::json!({"a": "</script><!-- & \u{2028}\u{2029} >"});
        let safe = script_safe(&value.to_string());
        for forbidden in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
            assert!(!safe.contains(forbidden), "{safe}");
        }
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&safe).unwrap(),
            value
        );
    }

    /// Every document inlines JSON through this one function: no other file under `bff/src`
    /// spells the escape.
    #[test]
    fn the_escape_is_written_once() {
        fn sources(dir: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    sources(&path, found);
                } else if path.extension().is_some_and(|ext| ext == "rs") {
                    found.push(path);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let needle = ["\\", "u003c\""].concat();
        let spelling: Vec<String> = files
            .iter()
            .filter(|file| std::fs::read_to_string(file).unwrap().contains(&needle))
            .map(|file| file.strip_prefix(&src).unwrap().display().to_string())
            .collect();
        assert_eq!(spelling, ["http/json_in_html.rs"]);
    }
}
