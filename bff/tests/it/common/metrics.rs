//! Metric assertions by name, labels and value over the parsed exposition (as Apollo Router's
//! `assert_counter!`), never by substring.

use std::collections::BTreeMap;

/// One sample line: `name{label="value",…} 3`.
#[derive(Debug)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

/// The samples of a text exposition (Prometheus or OpenMetrics).
pub struct Scrape(Vec<Sample>);

impl Scrape {
    pub fn parse(text: &str) -> Self {
        Self(
            text.lines()
                .filter(|line| !line.is_empty() && !line.starts_with('#'))
                .map(|line| parse_sample(line).unwrap_or_else(|| panic!("not a sample: {line}")))
                .collect(),
        )
    }

    /// The value of the sample `name` whose labels include `labels`.
    pub fn value(&self, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
        self.0
            .iter()
            .find(|sample| {
                sample.name == name
                    && labels.iter().all(|(key, value)| {
                        sample.labels.get(*key).map(String::as_str) == Some(value)
                    })
            })
            .map(|sample| sample.value)
    }

    /// The values of the samples `name` whose labels include `labels`, by their label `key`
    /// (every sample of the family is read, so a missing or extra series shows).
    pub fn by_label(&self, name: &str, labels: &[(&str, &str)], key: &str) -> BTreeMap<&str, f64> {
        self.0
            .iter()
            .filter(|sample| {
                sample.name == name
                    && labels.iter().all(|(label, value)| {
                        sample.labels.get(*label).map(String::as_str) == Some(value)
                    })
            })
            .map(|sample| {
                let value = sample.labels.get(key).map_or("", String::as_str);
                (value, sample.value)
            })
            .collect()
    }

    /// The number of observations of histogram `name` whose labels include `labels`.
    pub fn histogram_count(&self, name: &str, labels: &[(&str, &str)]) -> Option<u64> {
        self.value(&format!("{name}_count"), labels)
            .map(|count| count as u64)
    }

    /// Every sample.
    pub fn samples(&self) -> &[Sample] {
        &self.0
    }

    /// Every sample name, for failure messages.
    pub fn names(&self) -> BTreeMap<&str, usize> {
        let mut names = BTreeMap::new();
        for sample in &self.0 {
            *names.entry(sample.name.as_str()).or_default() += 1;
        }
        names
    }
}

fn parse_sample(line: &str) -> Option<Sample> {
    let name_end = line.find(['{', ' '])?;
    let name = line[..name_end].to_owned();
    let mut rest = &line[name_end..];
    let mut labels = BTreeMap::new();
    if let Some(inner) = rest.strip_prefix('{') {
        rest = inner;
        loop {
            if let Some(after) = rest.strip_prefix('}') {
                rest = after;
                break;
            }
            let eq = rest.find('=')?;
            let key = rest[..eq].trim_start_matches(',').to_owned();
            let mut chars = rest[eq + 1..].strip_prefix('"')?.char_indices();
            let mut value = String::new();
            let end = loop {
                match chars.next()? {
                    (_, '\\') => match chars.next()?.1 {
                        'n' => value.push('\n'),
                        other => value.push(other),
                    },
                    (index, '"') => break index,
                    (_, other) => value.push(other),
                }
            };
            labels.insert(key, value);
            rest = &rest[eq + 1..][1 + end + 1..];
            rest = rest.strip_prefix(',').unwrap_or(rest);
        }
    }
    let value = rest.split_whitespace().next()?;
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        other => other.parse().ok()?,
    };
    Some(Sample {
        name,
        labels,
        value,
    })
}

/// `assert_metric!(scrape, "bff_cache_lookups_total", {"route" => "pages", "state" => "hit"}, 2)`
#[macro_export]
macro_rules! assert_metric {
    ($scrape:expr, $name:expr, { $($key:expr => $value:expr),* $(,)? }, $expected:expr) => {{
        let labels: &[(&str, &str)] = &[$(($key, $value)),*];
        let actual = $scrape.value($name, labels);
        assert_eq!(
            actual,
            Some($expected as f64),
            "{}{:?}: names present: {:?}",
            $name,
            labels,
            $scrape.names()
        );
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_with_braces_quotes_and_commas_parse() {
        let scrape = Scrape::parse(
            "# TYPE x histogram\nx_count{route=\"/a/{name}\",note=\"a,\\\"b\\\"\"} 3\nup 1\n# EOF\n",
        );
        assert_eq!(
            scrape.value("x_count", &[("route", "/a/{name}")]),
            Some(3.0)
        );
        assert_eq!(scrape.value("x_count", &[("note", "a,\"b\"")]), Some(3.0));
        assert_eq!(scrape.histogram_count("x", &[]), Some(3));
        assert_eq!(scrape.value("up", &[]), Some(1.0));
        assert_eq!(scrape.value("x_count", &[("route", "/b")]), None);
    }
}
