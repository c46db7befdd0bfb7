//! The Grafana dashboard's ratio queries (`k8s/components/monitoring/dashboards/bff.json`),
//! read from the dashboard itself and evaluated over two scrapes of `/metrics` as Prometheus
//! evaluates them over the window between the scrapes: so a test that compares a figure with
//! the dashboard fails when the dashboard's query changes meaning.
//!
//! Only the shape the ratio panels use is understood, `sum [by (labels)] (rate(m{…}[w])) /
//! sum [by (labels)] (rate(m{…}[w]))`; any other shape panics, naming the query.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value;

use super::metrics::Scrape;

/// The labels Prometheus adds to every scraped series (the job, the pod's namespace), and the
/// dashboard's `$namespace` as a user picks it.
const TARGET_LABELS: [(&str, &str); 2] = [("job", "bff"), ("namespace", "storefront")];
const NAMESPACE: &str = "storefront";

pub struct Dashboard(Value);

impl Dashboard {
    pub fn load() -> Self {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../k8s/components/monitoring/dashboards/bff.json");
        Self(serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap())
    }

    /// The query of the panel titled `title` whose legend is `legend`.
    pub fn query(&self, title: &str, legend: &str) -> String {
        fn panels(list: &Value) -> Vec<&Value> {
            list.as_array()
                .into_iter()
                .flatten()
                .flat_map(|panel| {
                    let mut found = vec![panel];
                    found.extend(panels(&panel["panels"]));
                    found
                })
                .collect()
        }
        panels(&self.0["panels"])
            .into_iter()
            .filter(|panel| panel["title"] == title)
            .flat_map(|panel| panel["targets"].as_array().into_iter().flatten())
            .find(|target| target["legendFormat"] == legend)
            .and_then(|target| target["expr"].as_str())
            .unwrap_or_else(|| panic!("no query with legend {legend:?} in panel {title:?}"))
            .to_owned()
    }
}

/// One side of the ratio: which series are summed, grouped by which labels.
struct Sum {
    by: Vec<String>,
    metric: String,
    matchers: Vec<(String, String, String)>,
}

impl Sum {
    fn parse(text: &str) -> Option<Self> {
        let shape = Regex::new(
            r#"^\s*sum\s*(?:by\s*\(([^)]*)\)\s*)?\(\s*rate\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}\[[^\]]+\]\s*\)\s*\)\s*$"#,
        )
        .unwrap();
        let matcher = Regex::new(r#"([a-zA-Z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)""#).unwrap();
        let parts = shape.captures(text)?;
        let by = parts
            .get(1)
            .map(|labels| {
                labels
                    .as_str()
                    .split(',')
                    .map(|label| label.trim().to_owned())
                    .filter(|label| !label.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let matchers = matcher
            .captures_iter(&parts[3])
            .map(|m| (m[1].to_owned(), m[2].to_owned(), m[3].to_owned()))
            .collect();
        Some(Self {
            by,
            metric: parts[2].to_owned(),
            matchers,
        })
    }

    fn selects(&self, labels: &BTreeMap<String, String>) -> bool {
        self.matchers.iter().all(|(name, op, wanted)| {
            let value = TARGET_LABELS
                .iter()
                .find(|(label, _)| label == name)
                .map(|(_, value)| (*value).to_owned())
                .or_else(|| labels.get(name).cloned())
                .unwrap_or_default();
            // PromQL's regular expressions are anchored at both ends.
            let matches = |pattern: &str| {
                Regex::new(&format!("^(?:{pattern})$"))
                    .unwrap()
                    .is_match(&value)
            };
            match op.as_str() {
                "=" => value == *wanted,
                "!=" => value != *wanted,
                "=~" => matches(wanted),
                "!~" => !matches(wanted),
                _ => unreachable!(),
            }
        })
    }

    /// Per group (the `by` labels' values joined with `,`): the increase of the selected
    /// counters from `before` to `after`; with both scrapes of one process and no restart
    /// between them, `rate` over the window is this divided by its length, which a ratio cancels.
    fn increase(&self, before: &Scrape, after: &Scrape) -> BTreeMap<String, f64> {
        let mut sums = BTreeMap::new();
        for sample in after.samples() {
            if sample.name != self.metric && sample.name != format!("{}_total", self.metric) {
                continue;
            }
            if !self.selects(&sample.labels) {
                continue;
            }
            let pairs: Vec<(&str, &str)> = sample
                .labels
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let earlier = before.value(&sample.name, &pairs).unwrap_or(0.0);
            let group = self
                .by
                .iter()
                .map(|label| sample.labels.get(label).cloned().unwrap_or_default())
                .collect::<Vec<_>>()
                .join(",");
            *sums.entry(group).or_default() += sample.value - earlier;
        }
        sums
    }
}

/// `expr` (a dashboard ratio query) over the window from `before` to `after`: its value per
/// group, for the groups whose denominator is not 0 (Prometheus has NaN there).
pub fn ratio_over(expr: &str, before: &Scrape, after: &Scrape) -> BTreeMap<String, f64> {
    let expr = expr
        .replace("$namespace", NAMESPACE)
        .replace("$__rate_interval", "5m");
    let (numerator, denominator) = expr
        .split_once(") / sum")
        .map(|(top, bottom)| (format!("{top})"), format!("sum{bottom}")))
        .unwrap_or_else(|| panic!("not a ratio of two sums: {expr}"));
    let parse =
        |side: &str| Sum::parse(side).unwrap_or_else(|| panic!("a shape not understood: {side}"));
    let (top, bottom) = (
        parse(&numerator).increase(before, after),
        parse(&denominator).increase(before, after),
    );
    bottom
        .into_iter()
        .filter(|(_, total)| *total > 0.0)
        .map(|(group, total)| {
            let part = top.get(&group).copied().unwrap_or(0.0);
            (group, part / total)
        })
        .collect()
}
