//! Generated media, so the demo needs no binary assets and every media URL in the fixtures
//! resolves: `/media/{name}.svg` is a labelled placeholder image, `/media/{name}.pdf` a one-page
//! document (manuals, catalogues, downloads) and `/media/{name}.html` a video placeholder page
//! (promo and about-us videos).

use std::sync::Arc;

use axum::Router;
use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::SandboxState;

pub fn routes() -> Router<Arc<SandboxState>> {
    Router::new().route("/media/{file}", get(media))
}

async fn media(Path(file): Path<String>) -> Response {
    let Some((name, extension)) = file.rsplit_once('.') else {
        return not_found();
    };
    let (content_type, body) = match extension {
        "svg" => ("image/svg+xml", placeholder_svg(name).into_bytes()),
        "pdf" => ("application/pdf", placeholder_pdf(name)),
        "html" => (
            "text/html; charset=utf-8",
            placeholder_video(name).into_bytes(),
        ),
        _ => return not_found(),
    };
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        body,
    )
        .into_response()
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        "only generated .svg, .pdf and .html media exist",
    )
        .into_response()
}

/// The name with everything but ASCII letters and digits blanked: safe inside SVG, HTML and PDF
/// strings alike.
fn label(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect()
}

/// A 16:9 placeholder whose colour is derived from the name, so neighbouring images differ.
fn placeholder_svg(name: &str) -> String {
    let hue = name.bytes().fold(7u32, |acc, b| {
        acc.wrapping_mul(31).wrapping_add(u32::from(b))
    }) % 360;
    let label = label(name);
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="900" viewBox="0 0 1600 900" role="img"><rect width="1600" height="900" fill="hsl({hue},28%,30%)"/><text x="800" y="470" font-family="sans-serif" font-size="72" fill="#f4f1ea" text-anchor="middle">{label}</text></svg>"##
    )
}

/// A minimal, valid one-page PDF (letter size, Helvetica) titled after the name.
fn placeholder_pdf(name: &str) -> Vec<u8> {
    let text = format!(
        "BT /F1 28 Tf 72 700 Td (Talonforge Arms) Tj 0 -44 Td /F1 20 Tf ({}) Tj \
         0 -32 Td /F1 12 Tf (Sandbox placeholder document) Tj ET",
        label(name).trim()
    );
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
         /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_owned(),
        format!("<< /Length {} >>\nstream\n{text}\nendstream", text.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_owned(),
    ];
    let mut pdf = String::from("%PDF-1.4\n");
    let mut offsets = Vec::with_capacity(objects.len());
    for (index, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.push_str(&format!("{} 0 obj\n{object}\nendobj\n", index + 1));
    }
    let xref = pdf.len();
    pdf.push_str(&format!(
        "xref\n0 {}\n0000000000 65535 f \n",
        objects.len() + 1
    ));
    for offset in offsets {
        pdf.push_str(&format!("{offset:010} 00000 n \n"));
    }
    pdf.push_str(&format!(
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    ));
    pdf.into_bytes()
}

/// A page standing in for a hosted video: the poster image and a caption.
fn placeholder_video(name: &str) -> String {
    let label = label(name);
    let poster: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{label}</title></head><body style="margin:0;background:#111;color:#eee;font-family:sans-serif"><figure style="margin:0"><img src="{poster}.svg" alt="{label}" style="width:100%;height:auto"><figcaption style="padding:1rem">{label} (video placeholder)</figcaption></figure></body></html>"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_escapes_markup_in_names() {
        let svg = placeholder_svg("<script>");
        assert!(!svg.contains("<script>"));
        assert!(svg.starts_with("<svg"));
        let html = placeholder_video("\"><script>");
        assert!(!html.contains("<script>"));
        assert!(html.contains(r#"<img src="---script-.svg""#));
    }

    #[test]
    fn pdf_has_a_correct_cross_reference_table() {
        let pdf = String::from_utf8(placeholder_pdf("summit-lr-manual (1)")).unwrap();
        assert!(pdf.starts_with("%PDF-1.4\n") && pdf.ends_with("%%EOF\n"));
        assert!(pdf.contains("(summit lr manual  1) Tj"));
        let startxref: usize = pdf
            .rsplit("startxref\n")
            .next()
            .and_then(|tail| tail.lines().next())
            .and_then(|line| line.parse().ok())
            .unwrap();
        assert!(pdf[startxref..].starts_with("xref\n0 6\n"));
        let entries: Vec<&str> = pdf[startxref..].lines().skip(3).take(5).collect();
        for (index, entry) in entries.iter().enumerate() {
            assert_eq!(entry.len(), 19, "{entry:?}");
            let offset: usize = entry[..10].parse().unwrap();
            assert!(pdf[offset..].starts_with(&format!("{} 0 obj\n", index + 1)));
        }
        let length: usize = pdf
            .split("/Length ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        let stream = pdf.split("stream\n").nth(1).unwrap();
        assert_eq!(&stream[length..length + 1], "\n");
    }
}
