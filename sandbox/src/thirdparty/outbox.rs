//! The e-mail outbox: everything the sandbox "sends" is kept, and listed on a page
//! (`GET /3p/outbox`) and as JSON (`GET /3p/outbox.json`), newest first, optionally for one
//! recipient (`?to=`).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};

use super::html::{self, escape};
use crate::SandboxState;
use crate::error::SandboxError;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Email {
    pub recipient: String,
    /// `verification`, `password-reset`, `newsletter-verification` or `order-confirmation`.
    pub kind: String,
    pub subject: String,
    pub body: String,
    /// The absolute action link, if the mail has one.
    pub link: Option<String>,
}

pub fn send(conn: &Connection, email: &Email, now: &str) -> Result<(), SandboxError> {
    conn.execute(
        "INSERT INTO emails (recipient, kind, subject, body, link, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![email.recipient, email.kind, email.subject, email.body, email.link, now],
    )?;
    Ok(())
}

/// Every e-mail sent, newest first.
pub fn all(conn: &Connection) -> Result<Vec<Email>, SandboxError> {
    let mut statement =
        conn.prepare("SELECT recipient, kind, subject, body, link FROM emails ORDER BY id DESC")?;
    let rows = statement.query_map([], |row| {
        Ok(Email {
            recipient: row.get(0)?,
            kind: row.get(1)?,
            subject: row.get(2)?,
            body: row.get(3)?,
            link: row.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// An e-mail as the outbox lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SentEmail {
    pub id: i64,
    #[serde(flatten)]
    pub email: Email,
    pub sent_at: String,
}

/// E-mails sent, newest first; only those to `recipient` (case-insensitive) when given.
pub fn list(conn: &Connection, recipient: Option<&str>) -> Result<Vec<SentEmail>, SandboxError> {
    let mut statement = conn.prepare(
        "SELECT id, recipient, kind, subject, body, link, created_at FROM emails \
         WHERE ?1 IS NULL OR lower(recipient) = lower(?1) ORDER BY id DESC",
    )?;
    let rows = statement.query_map([recipient], |row| {
        Ok(SentEmail {
            id: row.get(0)?,
            email: Email {
                recipient: row.get(1)?,
                kind: row.get(2)?,
                subject: row.get(3)?,
                body: row.get(4)?,
                link: row.get(5)?,
            },
            sent_at: row.get(6)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct OutboxQuery {
    to: Option<String>,
}

impl OutboxQuery {
    fn recipient(&self) -> Option<&str> {
        self.to
            .as_deref()
            .map(str::trim)
            .filter(|to| !to.is_empty())
    }
}

/// `GET /3p/outbox.json[?to=email]`
pub async fn list_json(
    State(state): State<Arc<SandboxState>>,
    Query(query): Query<OutboxQuery>,
) -> Result<Json<Vec<SentEmail>>, SandboxError> {
    Ok(Json(state.db.call(|conn| list(conn, query.recipient()))?))
}

/// `GET /3p/outbox[?to=email]`
pub async fn page(
    State(state): State<Arc<SandboxState>>,
    Query(query): Query<OutboxQuery>,
) -> Response {
    let recipient = query.recipient();
    match state.db.call(|conn| list(conn, recipient)) {
        Ok(emails) => html::response(StatusCode::OK, render(&emails, recipient)),
        Err(err) => {
            tracing::error!(error = %err, "outbox page failed");
            html::error_page(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Outbox unavailable",
                "The outbox could not be read. Please try again.",
            )
        }
    }
}

fn render(emails: &[SentEmail], recipient: Option<&str>) -> String {
    let mut body = String::from("<h1>Sandbox outbox</h1>\n");
    body.push_str(&format!(
        r#"<p class="muted">Every e-mail the sandbox sent, newest first. Also as <a href="outbox.json{json_query}">JSON</a>.</p>
<form method="get" action="outbox" class="card">
<label for="to">Recipient</label>
<input id="to" name="to" type="email" value="{to}" autocomplete="off">
<button type="submit">Filter</button>
<a href="outbox">Show all</a>
</form>
"#,
        json_query = recipient
            .map(|to| format!("?to={}", escape(&percent_encode(to))))
            .unwrap_or_default(),
        to = escape(recipient.unwrap_or_default()),
    ));
    let count = match emails.len() {
        1 => "1 e-mail".to_owned(),
        n => format!("{n} e-mails"),
    };
    let scope = recipient
        .map(|to| format!(" to {}", escape(to)))
        .unwrap_or_default();
    body.push_str(&format!("<p role=\"status\">{count}{scope}.</p>\n"));
    for sent in emails {
        let email = &sent.email;
        let link = email
            .link
            .as_deref()
            .map(|link| {
                if is_web_link(link) {
                    format!(
                        "<dt>Link</dt><dd><a href=\"{href}\">{href}</a></dd>",
                        href = escape(link)
                    )
                } else {
                    format!("<dt>Link</dt><dd>{}</dd>", escape(link))
                }
            })
            .unwrap_or_default();
        body.push_str(&format!(
            r#"<article class="card" aria-labelledby="email-{id}">
<h2 id="email-{id}">{subject}</h2>
<dl>
<dt>To</dt><dd>{recipient}</dd>
<dt>Kind</dt><dd>{kind}</dd>
<dt>Sent</dt><dd><time datetime="{sent_at}">{sent_at}</time></dd>
{link}
</dl>
<pre>{body}</pre>
</article>
"#,
            id = sent.id,
            subject = escape(&email.subject),
            recipient = escape(&email.recipient),
            kind = escape(&email.kind),
            sent_at = escape(&sent.sent_at),
            body = escape(&email.body),
        ));
    }
    html::page("Sandbox outbox", &body)
}

/// Only http(s) links become anchors: a stored `javascript:` link must not run on this page.
fn is_web_link(link: &str) -> bool {
    let lower = link.trim_start().to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// Percent-encodes everything but unreserved characters, for a query value.
fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    fn email(to: &str, subject: &str, link: Option<&str>) -> Email {
        Email {
            recipient: to.to_owned(),
            kind: "verification".to_owned(),
            subject: subject.to_owned(),
            body: "Hello".to_owned(),
            link: link.map(str::to_owned),
        }
    }

    #[test]
    fn lists_newest_first_and_filters_by_recipient() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            send(conn, &email("a@x.test", "first", None), "t1")?;
            send(conn, &email("b@x.test", "second", None), "t2")?;
            send(conn, &email("A@x.test", "third", None), "t3")?;
            let all: Vec<_> = list(conn, None)?
                .into_iter()
                .map(|sent| sent.email.subject)
                .collect();
            assert_eq!(all, ["third", "second", "first"]);
            let to_a: Vec<_> = list(conn, Some("a@X.test"))?
                .into_iter()
                .map(|sent| sent.email.subject)
                .collect();
            assert_eq!(to_a, ["third", "first"]);
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn the_page_escapes_and_links_only_web_urls() {
        let sent = |id, link: &str| SentEmail {
            id,
            email: email("a@x.test", "<script>alert(1)</script>", Some(link)),
            sent_at: "t".to_owned(),
        };
        let html = render(
            &[
                sent(1, "https://shop.example/verify?token=a&b=\"c\""),
                sent(2, "javascript:alert(1)"),
            ],
            Some("a@x.test\"><b>"),
        );
        assert!(!html.contains("<script>alert"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(
            html.contains("<a href=\"https://shop.example/verify?token=a&amp;b=&quot;c&quot;\">")
        );
        assert!(!html.contains("href=\"javascript:"));
        assert!(!html.contains("<b>"));
        assert!(html.contains("outbox.json?to=a%40x.test%22%3E%3Cb%3E"));
    }
}
