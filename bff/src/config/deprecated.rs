//! The duration keys' old spellings, in whole units (`stale_if_error_ms = 86400000`), accepted
//! for one more release beside their humantime successors (`stale_if_error = "1d"`).
//!
//! Before the layers are merged, an old key set in the file or the environment is rewritten to
//! its new key (the number turned into a humantime string) and a deprecation notice is given,
//! which start-up logs and `check-config` prints. Setting both the old and the new key, in any
//! layers, is an error naming both: which one wins would be a guess.
//!
//! Remove this module (and its call in `layers`) in the release after next.

use std::collections::HashMap;
use std::time::Duration;

use toml::{Table, Value};

use super::duration;

/// The unit an old key counted in: its name's suffix.
#[derive(Debug, Clone, Copy)]
pub(super) enum Unit {
    Millis,
    Seconds,
    Days,
}

impl Unit {
    fn suffix(self) -> &'static str {
        match self {
            Self::Millis => "_ms",
            Self::Seconds => "_seconds",
            Self::Days => "_days",
        }
    }

    fn duration(self, count: u64) -> Duration {
        match self {
            Self::Millis => Duration::from_millis(count),
            Self::Seconds => Duration::from_secs(count),
            Self::Days => Duration::from_secs(count.saturating_mul(86_400)),
        }
    }

    fn words(self) -> &'static str {
        match self {
            Self::Millis => "milliseconds",
            Self::Seconds => "seconds",
            Self::Days => "days",
        }
    }
}

/// Every old key, dotted, `*` standing for any one table name. Its new key is the same without
/// the unit's suffix.
const OLD_KEYS: &[(&str, Unit)] = &[
    ("server.request_timeout_ms", Unit::Millis),
    ("server.header_read_timeout_ms", Unit::Millis),
    ("server.body_read_timeout_ms", Unit::Millis),
    ("server.shutdown_grace_ms", Unit::Millis),
    ("server.shutdown_delay_ms", Unit::Millis),
    ("web.previous_assets_window_seconds", Unit::Seconds),
    ("readiness.cache_ms", Unit::Millis),
    ("upstreams.*.connect_timeout_ms", Unit::Millis),
    ("upstreams.*.timeout_ms", Unit::Millis),
    ("upstreams.*.queue_timeout_ms", Unit::Millis),
    ("upstreams.*.breaker_cool_off_ms", Unit::Millis),
    ("security.hsts_max_age_seconds", Unit::Seconds),
    ("cache.stale_wait_ms", Unit::Millis),
    ("cache.*.ttl_ms", Unit::Millis),
    ("cache.*.stale_while_revalidate_ms", Unit::Millis),
    ("cache.*.stale_if_error_ms", Unit::Millis),
    ("cache.*.negative_ttl_ms", Unit::Millis),
    ("session.max_age_days", Unit::Days),
    ("session.refresh_margin_ms", Unit::Millis),
    ("session.verify_after_ms", Unit::Millis),
    ("session.absolute_lifetime_ms", Unit::Millis),
    ("rate_limit.sign_in_failure_window_ms", Unit::Millis),
    ("redis.connect_timeout_ms", Unit::Millis),
    ("redis.command_timeout_ms", Unit::Millis),
    ("maps.connect_timeout_ms", Unit::Millis),
    ("maps.timeout_ms", Unit::Millis),
    ("maps.queue_timeout_ms", Unit::Millis),
    ("maps.breaker_cool_off_ms", Unit::Millis),
    ("uploads.form_wait_ms", Unit::Millis),
    ("uploads.body_deadline_ms", Unit::Millis),
    ("admin.header_read_timeout_ms", Unit::Millis),
    ("admin.request_timeout_ms", Unit::Millis),
    ("ssr.timeout_ms", Unit::Millis),
];

/// The unit of `path` when it is an old key.
pub(super) fn old_key(path: &[String]) -> Option<Unit> {
    OLD_KEYS.iter().find_map(|(pattern, unit)| {
        let parts: Vec<&str> = pattern.split('.').collect();
        let matches = parts.len() == path.len()
            && parts
                .iter()
                .zip(path)
                .all(|(part, key)| *part == "*" || part == key);
        matches.then_some(*unit)
    })
}

/// An old key's successor: its name without the unit's suffix.
fn new_name(old: &str, unit: Unit) -> String {
    old.strip_suffix(unit.suffix()).unwrap_or(old).to_owned()
}

/// One layer of user settings: the file (a table) or one environment variable (a value at a
/// path), with the name of where it came from.
pub struct Layer<'a> {
    pub path: &'a mut Vec<String>,
    pub value: &'a mut Value,
    pub source: &'a str,
}

/// An old key found in a layer.
struct Found {
    old: String,
    new: String,
    source: String,
    unit: Unit,
    value: Value,
}

/// Rewrites the old keys of `layers` to their new keys, in place. The deprecation notices, one
/// per old key set; or every problem (both spellings set, an old value that is no whole number).
pub fn rewrite(layers: Vec<Layer<'_>>) -> Result<Vec<String>, Vec<String>> {
    let mut set: HashMap<String, String> = HashMap::new();
    let mut found = Vec::new();
    for layer in layers {
        collect_leaves(layer.path, layer.value, layer.source, &mut set);
        rename(layer.path, layer.value, layer.source, &mut found);
    }
    let mut notices = Vec::new();
    let mut problems = Vec::new();
    for found in found {
        let Found {
            old,
            new,
            source,
            unit,
            value,
        } = found;
        if let Some(new_source) = set.get(&new) {
            problems.push(format!(
                "{old} (from {source}) and {new} (from {new_source}) are both set: they are the \
                 same setting, {old} its deprecated spelling; keep {new} only"
            ));
            continue;
        }
        match value
            .as_integer()
            .and_then(|count| u64::try_from(count).ok())
        {
            Some(_) => notices.push(format!(
                "{old} (from {source}) is deprecated and will be removed in the next release: \
                 write {new} = {value}",
                value = humantime_of(&value, unit)
                    .as_ref()
                    .map_or_else(|| "\"…\"".to_owned(), ToString::to_string),
            )),
            None => problems.push(format!(
                "{old}: {value} is not a whole number of {words} (from {source}); this key is \
                 deprecated: write {new} with a unit instead, e.g. {new} = \"30s\"",
                words = unit.words(),
            )),
        }
    }
    if problems.is_empty() {
        Ok(notices)
    } else {
        Err(problems)
    }
}

/// The humantime string an old key's whole number stands for.
fn humantime_of(value: &Value, unit: Unit) -> Option<Value> {
    let count = u64::try_from(value.as_integer()?).ok()?;
    Some(Value::String(duration::format(unit.duration(count))))
}

/// Every key `value` sets (a table's leaves, or the value itself), dotted, with `source`.
fn collect_leaves(
    path: &mut Vec<String>,
    value: &Value,
    source: &str,
    set: &mut HashMap<String, String>,
) {
    match value {
        Value::Table(table) => {
            for (key, inner) in table {
                path.push(key.clone());
                collect_leaves(path, inner, source, set);
                path.pop();
            }
        }
        _ => {
            set.insert(path.join("."), source.to_owned());
        }
    }
}

/// Renames the old keys in `value` (at `path`) to their new ones, converting whole numbers to
/// humantime strings (anything else is kept for the problem report).
fn rename(path: &mut Vec<String>, value: &mut Value, source: &str, found: &mut Vec<Found>) {
    if let Value::Table(table) = value {
        rename_in_table(path, table, source, found);
        return;
    }
    // One environment variable naming an old key itself.
    let Some(unit) = old_key(path) else {
        return;
    };
    let old = path.join(".");
    let Some(last) = path.last_mut() else {
        return;
    };
    *last = new_name(last, unit);
    found.push(Found {
        old,
        new: path.join("."),
        source: source.to_owned(),
        unit,
        value: value.clone(),
    });
    if let Some(converted) = humantime_of(value, unit) {
        *value = converted;
    }
}

fn rename_in_table(
    path: &mut Vec<String>,
    table: &mut Table,
    source: &str,
    found: &mut Vec<Found>,
) {
    let keys: Vec<String> = table.keys().cloned().collect();
    for key in keys {
        path.push(key.clone());
        if let Some(Value::Table(_)) = table.get(&key) {
            if let Some(inner) = table.get_mut(&key) {
                rename(path, inner, source, found);
            }
        } else if let Some(unit) = old_key(path) {
            let new = new_name(&key, unit);
            if let Some(value) = table.remove(&key) {
                let old_dotted = path.join(".");
                path.pop();
                path.push(new.clone());
                found.push(Found {
                    old: old_dotted,
                    new: path.join("."),
                    source: source.to_owned(),
                    unit,
                    value: value.clone(),
                });
                // Both spellings in this table: keep the new one; the conflict is reported.
                if !table.contains_key(&new) {
                    table.insert(new, humantime_of(&value, unit).unwrap_or(value));
                }
            }
        }
        path.pop();
    }
}
