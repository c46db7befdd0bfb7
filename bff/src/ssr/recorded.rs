//! What one document's render read: each need, and its answer with the cache entries it is
//! made from. The document's inlined data, `ETag`, `Surrogate-Key` and freshness are composed
//! from these, as a composed API answer is from its parts.

use std::sync::Arc;

use crate::cache::Lookup;

use super::reads::{ApiAnswer, Need};

/// The reads of one document, in the order its render asked for them.
#[derive(Debug, Clone, Default)]
pub(super) struct Recorded {
    /// Every read asked for, answered or not.
    pub needs: Vec<Need>,
    pub answers: Vec<ApiAnswer>,
}

impl Recorded {
    /// Adds one round of reads and their answers.
    pub fn extend(&mut self, needs: Vec<Need>, answers: Vec<ApiAnswer>) {
        self.needs.extend(needs);
        self.answers.extend(answers);
    }

    /// The cache entries the answers are made from, in order.
    pub fn parts(&self) -> Vec<Lookup> {
        self.answers
            .iter()
            .flat_map(|answer| answer.parts.iter().flatten().cloned())
            .collect()
    }

    /// Whether every answer has cache entries behind it: else nothing describes the freshness
    /// of a document that inlines it (a problem the API answered without an entry: a search
    /// too short, a client over its search limit, an upstream that failed).
    pub fn described(&self) -> bool {
        self.answers.iter().all(|answer| answer.parts.is_some())
    }

    /// Whether every answer is made of fresh 200 entries at `now`.
    pub fn fresh(&self, now: std::time::Instant) -> bool {
        self.answers.iter().all(|answer| {
            answer.parts.iter().flatten().all(|part| {
                part.entry.status == axum::http::StatusCode::OK && part.freshness.is_fresh(now)
            })
        })
    }

    /// `{"/api/pages/app":{"status":200,"body":{…}},…}`: the answers by the app's key, bodies
    /// that are not JSON as `null`. What the render reads and the document inlines.
    pub fn json(&self) -> String {
        let mut json = String::from("{");
        for (index, answer) in self.answers.iter().enumerate() {
            if index > 0 {
                json.push(',');
            }
            let body = std::str::from_utf8(&answer.body)
                .ok()
                .filter(|text| serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok())
                .unwrap_or("null");
            json.push_str(&format!(
                r#"{}:{{"status":{},"body":{body}}}"#,
                serde_json::Value::String(answer.key.clone()),
                answer.status
            ));
        }
        json.push('}');
        json
    }

    /// The entries the answers are made from, each `key etag`: a failed render is remembered
    /// for these.
    pub fn signature(&self) -> Arc<str> {
        let mut signature = String::new();
        for part in self.parts() {
            signature.push_str(&part.key);
            signature.push(' ');
            signature.push_str(part.entry.etag.to_str().unwrap_or_default());
            signature.push('\n');
        }
        signature.into()
    }
}
