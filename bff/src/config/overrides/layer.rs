//! The live override layer: `[cache.<route>]` policy values by dotted key (`cache.product.ttl`),
//! spelled as the TOML file spells them (`"30s"`, a number of bytes), laid over the file and the
//! environment. Only the keys a running cache can take at once are accepted: the five policy
//! values of each route (`jitter` and the byte budgets are the file's alone).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::config::duration;
use crate::config::{CacheConfig, CachePolicy, RouteKind};

/// The policy values an override may set, as `[cache.<route>]` names them.
pub const FIELDS: [&str; 5] = [
    "ttl",
    "stale_while_revalidate",
    "stale_if_error",
    "negative_ttl",
    "max_entry_bytes",
];

/// One overridable key: a route's policy value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverrideKey {
    pub route: RouteKind,
    field: &'static str,
}

impl OverrideKey {
    /// `cache.<route>.<field>`, or why the key cannot be overridden.
    pub fn parse(key: &str) -> Result<Self, String> {
        let refused = || {
            format!(
                "not a key an override can set: one of cache.<route>.<{}> (routes: {})",
                FIELDS.join("|"),
                RouteKind::ALL.map(RouteKind::as_str).join(", ")
            )
        };
        let mut parts = key.trim().split('.');
        let (Some("cache"), Some(route), Some(field), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(refused());
        };
        let route = RouteKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == route)
            .ok_or_else(refused)?;
        let field = FIELDS
            .into_iter()
            .find(|known| *known == field)
            .ok_or_else(refused)?;
        Ok(Self { route, field })
    }

    pub fn dotted(&self) -> String {
        format!("cache.{}.{}", self.route.as_str(), self.field)
    }

    /// `value` as this key takes it, or why not: a duration with its unit, or (for
    /// `max_entry_bytes`) a whole number of bytes, at least 1.
    pub fn value(&self, value: &Value) -> Result<OverrideValue, String> {
        if self.field == "max_entry_bytes" {
            return value
                .as_u64()
                .and_then(|bytes| usize::try_from(bytes).ok())
                .filter(|bytes| *bytes >= 1)
                .map(OverrideValue::Bytes)
                .ok_or_else(|| "a whole number of bytes, at least 1 (e.g. 1048576)".to_owned());
        }
        let text = value
            .as_str()
            .ok_or_else(|| "a duration with its unit, as in the file (e.g. \"30s\")".to_owned())?;
        duration::parse(text).map(OverrideValue::Duration)
    }

    /// This key's value in `cache`.
    pub fn read(&self, cache: &CacheConfig) -> OverrideValue {
        let policy = cache.policy(self.route);
        match self.field {
            "stale_while_revalidate" => OverrideValue::Duration(policy.stale_while_revalidate),
            "stale_if_error" => OverrideValue::Duration(policy.stale_if_error),
            "negative_ttl" => OverrideValue::Duration(policy.negative_ttl),
            "max_entry_bytes" => OverrideValue::Bytes(policy.max_entry_bytes),
            _ => OverrideValue::Duration(policy.ttl),
        }
    }

    fn set(&self, policy: &mut CachePolicy, value: OverrideValue) {
        match (self.field, value) {
            ("ttl", OverrideValue::Duration(value)) => policy.ttl = value,
            ("stale_while_revalidate", OverrideValue::Duration(value)) => {
                policy.stale_while_revalidate = value;
            }
            ("stale_if_error", OverrideValue::Duration(value)) => policy.stale_if_error = value,
            ("negative_ttl", OverrideValue::Duration(value)) => policy.negative_ttl = value,
            ("max_entry_bytes", OverrideValue::Bytes(value)) => policy.max_entry_bytes = value,
            // A value is only ever made by `Self::value` for its own key.
            _ => {}
        }
    }
}

/// A checked override value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverrideValue {
    Duration(Duration),
    Bytes(usize),
}

impl OverrideValue {
    /// As the file (and `GET /admin/config`) spells it: `"30s"`, `1048576`.
    pub fn to_json(self) -> Value {
        match self {
            Self::Duration(value) => Value::String(duration::format(value)),
            Self::Bytes(value) => Value::from(value),
        }
    }
}

/// The override values by dotted key, every one checked against its key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OverrideLayer(BTreeMap<String, OverrideValue>);

impl OverrideLayer {
    /// Sets `key` to `value` (as JSON), or says why not (the message names neither: the caller
    /// names the key).
    pub fn insert(&mut self, key: &str, value: &Value) -> Result<(), String> {
        let parsed = OverrideKey::parse(key)?;
        let value = parsed.value(value)?;
        self.0.insert(parsed.dotted(), value);
        Ok(())
    }

    pub fn remove(&mut self, key: &str) -> bool {
        self.0.remove(key).is_some()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.keys()
    }

    /// The value of `key` as JSON (`None`: not overridden).
    pub fn get(&self, key: &str) -> Option<Value> {
        self.0.get(key).map(|value| value.to_json())
    }

    /// The layer as the API shows it: `{"cache.product.ttl": "30s"}`.
    pub fn to_json(&self) -> BTreeMap<String, Value> {
        self.0
            .iter()
            .map(|(key, value)| (key.clone(), value.to_json()))
            .collect()
    }

    /// `cache` with this layer over it.
    pub fn apply_to(&self, cache: &mut CacheConfig) {
        for (key, value) in &self.0 {
            let Ok(parsed) = OverrideKey::parse(key) else {
                continue;
            };
            parsed.set(policy_mut(cache, parsed.route), *value);
        }
    }

    /// The layer without the keys `gone` picks.
    pub fn without(&self, gone: impl Fn(&str) -> bool) -> Self {
        Self(
            self.0
                .iter()
                .filter(|(key, _)| !gone(key))
                .map(|(key, value)| (key.clone(), *value))
                .collect(),
        )
    }
}

/// One override that differs from what the file (and the environment) say.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drift {
    pub key: String,
    /// The value below the override: the file's, the environment's or the default.
    pub file: Value,
    #[serde(rename = "override")]
    pub overridden: Value,
}

impl OverrideLayer {
    /// Its keys whose value differs from `layered`'s (the configuration without overrides):
    /// drift until the file says the same (or the override is unset).
    pub fn drift(&self, layered: &CacheConfig) -> Vec<Drift> {
        self.0
            .iter()
            .filter_map(|(key, value)| {
                let file = OverrideKey::parse(key).ok()?.read(layered);
                (file != *value).then(|| Drift {
                    key: key.clone(),
                    file: file.to_json(),
                    overridden: value.to_json(),
                })
            })
            .collect()
    }

    /// The layer as a TOML patch to commit into the file (`[cache.product]\nttl = "30s"`).
    pub fn to_toml_patch(&self) -> String {
        let mut cache = toml::Table::new();
        for (key, value) in &self.0 {
            let Ok(parsed) = OverrideKey::parse(key) else {
                continue;
            };
            let value = match value {
                OverrideValue::Duration(value) => toml::Value::String(duration::format(*value)),
                OverrideValue::Bytes(value) => {
                    toml::Value::Integer(i64::try_from(*value).unwrap_or(i64::MAX))
                }
            };
            if let toml::Value::Table(route) = cache
                .entry(parsed.route.as_str())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            {
                route.insert(parsed.field.to_owned(), value);
            }
        }
        let mut document = toml::Table::new();
        document.insert("cache".to_owned(), toml::Value::Table(cache));
        toml::to_string(&document).unwrap_or_default()
    }
}

/// The keys whose value differs between `from` and `to`, each with both values (`null`: not
/// overridden, so the file's value applies), in key order.
pub fn diff(from: &OverrideLayer, to: &OverrideLayer) -> Vec<Change> {
    let keys: BTreeSet<&String> = from.0.keys().chain(to.0.keys()).collect();
    keys.into_iter()
        .filter(|key| from.0.get(*key) != to.0.get(*key))
        .map(|key| Change {
            key: key.clone(),
            from: from.get(key).unwrap_or(Value::Null),
            to: to.get(key).unwrap_or(Value::Null),
        })
        .collect()
}

/// The routes whose policy the keys of `changes` belong to (`["product"]`).
pub fn routes_of(changes: &[Change]) -> Vec<&'static str> {
    let routes: BTreeSet<&'static str> = changes
        .iter()
        .filter_map(|change| OverrideKey::parse(&change.key).ok())
        .map(|key| key.route.as_str())
        .collect();
    routes.into_iter().collect()
}

/// One key's change between two layers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub key: String,
    pub from: Value,
    pub to: Value,
}

fn policy_mut(cache: &mut CacheConfig, route: RouteKind) -> &mut CachePolicy {
    match route {
        RouteKind::Pages => &mut cache.pages,
        RouteKind::Product => &mut cache.product,
        RouteKind::Collection => &mut cache.collection,
        RouteKind::Search => &mut cache.search,
        RouteKind::Prices => &mut cache.prices,
        RouteKind::Tiles => &mut cache.tiles,
    }
}

impl Serialize for OverrideLayer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

/// As stored: a key or value this build does not take (written by a newer one) is left out
/// rather than failing the whole layer.
impl<'de> Deserialize<'de> for OverrideLayer {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = BTreeMap::<String, Value>::deserialize(deserializer)?;
        let mut layer = Self::default();
        for (key, value) in stored {
            if let Err(problem) = layer.insert(&key, &value) {
                tracing::warn!(%key, %problem, "stored override left out: not understood");
            }
        }
        Ok(layer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_and_values_are_checked_as_the_file_spells_them() {
        let mut layer = OverrideLayer::default();
        assert!(layer.insert("cache.product.ttl", &json!("30s")).is_ok());
        assert!(
            layer
                .insert("cache.tiles.max_entry_bytes", &json!(4096))
                .is_ok()
        );
        for (key, value) in [
            ("cache.product.ttl", json!("soon")),
            ("cache.product.ttl", json!(30)),
            ("cache.product.max_entry_bytes", json!(0)),
            ("cache.product.max_entry_bytes", json!("1MB")),
            ("cache.product.jitter", json!(0.1)),
            ("cache.capacity_bytes", json!(1)),
            ("cache.basket.ttl", json!("1s")),
            ("server.listen", json!("0.0.0.0:1")),
        ] {
            assert!(layer.insert(key, &value).is_err(), "{key} = {value}");
        }
        let mut cache = CacheConfig::default();
        layer.apply_to(&mut cache);
        assert_eq!(cache.product.ttl, Duration::from_secs(30));
        assert_eq!(cache.tiles.max_entry_bytes, 4096);
        assert_eq!(cache.pages, CacheConfig::default().pages);
        let drift = layer.drift(&CacheConfig::default());
        assert_eq!(drift.len(), 2);
        assert_eq!(drift[0].file, json!("2m"));
        assert_eq!(drift[0].overridden, json!("30s"));
        assert!(layer.drift(&cache).is_empty());
        assert_eq!(
            layer.to_toml_patch(),
            "[cache.product]\nttl = \"30s\"\n\n[cache.tiles]\nmax_entry_bytes = 4096\n"
        );
    }

    #[test]
    fn the_diff_names_the_changed_keys_and_their_routes() {
        let mut from = OverrideLayer::default();
        let _ = from.insert("cache.product.ttl", &json!("30s"));
        let _ = from.insert("cache.pages.ttl", &json!("1m"));
        let mut to = from.clone();
        let _ = to.insert("cache.product.ttl", &json!("45s"));
        to.remove("cache.pages.ttl");
        let _ = to.insert("cache.search.negative_ttl", &json!("5s"));
        let changes = diff(&from, &to);
        assert_eq!(
            changes,
            vec![
                Change {
                    key: "cache.pages.ttl".into(),
                    from: json!("1m"),
                    to: Value::Null
                },
                Change {
                    key: "cache.product.ttl".into(),
                    from: json!("30s"),
                    to: json!("45s")
                },
                Change {
                    key: "cache.search.negative_ttl".into(),
                    from: Value::Null,
                    to: json!("5s")
                },
            ]
        );
        assert_eq!(routes_of(&changes), ["pages", "product", "search"]);
    }
}
