//! The layers of the configuration, merged key by key: the built-in defaults, then the TOML file,
//! then `BFF__SECTION__KEY` environment variables. Then one typed deserialization, whose errors
//! name the key (`server.listen: …`) and where its value came from.
//!
//! Generic on purpose: a new key in any config struct needs nothing here. An environment value is
//! kept as written when the default of its key is a string (`BFF__SERVER__LISTEN=127.0.0.1:1`);
//! otherwise it is read as a TOML value (`true`, `8080`, `0.5`, `["/a", "/b"]`), falling back to
//! the string when it is not one (`10.0.0.0/8,192.0.2.7`, or a mistake the typed step then names).

use std::fmt::Write as _;
use std::path::Path;

use serde::de::DeserializeOwned;
use toml::{Table, Value};

use super::origin::{Origin, Origins};
use super::{ConfigError, deprecated};

/// The prefix of an override; `__` separates the path's parts (`BFF__UPSTREAMS__COMMERCE__BASE_URL`).
pub const ENV_PREFIX: &str = "BFF__";
const ENV_SEPARATOR: &str = "__";

/// A value loaded from the layers, with what the loading found out about it.
pub struct Layered<T> {
    pub value: T,
    /// The deprecation notices of the old keys it met (see [`deprecated`]).
    pub notices: Vec<String>,
    /// Where each key's value came from.
    pub origins: Origins,
}

/// Loads `T` from `defaults`, the TOML file at `path` and the `BFF__` variables among `env`.
pub fn load<T: DeserializeOwned>(
    defaults: Table,
    path: &Path,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<Layered<T>, ConfigError> {
    let file_name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|err| ConfigError(format!("config file {file_name}: {err}")))?;
    let file: Table = toml::from_str(&text)
        .map_err(|err| ConfigError(format!("config file {file_name}: {err}")))?;

    let mut file = Value::Table(file);
    let mut file_path = Vec::new();
    let mut overrides = env_overrides(&defaults, env);
    let mut layers = vec![deprecated::Layer {
        path: &mut file_path,
        value: &mut file,
        source: &file_name,
    }];
    for ((path, source), value) in &mut overrides {
        layers.push(deprecated::Layer {
            path,
            value,
            source,
        });
    }
    let notices =
        deprecated::rewrite(layers).map_err(|problems| ConfigError(problems.join("\n")))?;
    let Value::Table(file) = file else {
        return Err(ConfigError(format!("config file {file_name}: not a table")));
    };

    let mut origins = Origins::default();
    let mut merged = defaults.clone();
    merge(&mut merged, file, "", &mut origins);
    for ((path, variable), value) in overrides {
        set(&mut merged, &path, value);
        origins.insert(path.join("."), Origin::Environment { variable });
    }
    let value = deserialize(merged, &origins, &file_name)?;
    Ok(Layered {
        value,
        notices,
        origins,
    })
}

/// `BFF__A__B=x` -> (["a", "b"], "BFF__A__B") and its typed value, in a stable order.
fn env_overrides(
    defaults: &Table,
    env: impl IntoIterator<Item = (String, String)>,
) -> Vec<((Vec<String>, String), Value)> {
    let mut overrides: Vec<_> = env
        .into_iter()
        .filter_map(|(name, raw)| {
            let rest = name.strip_prefix(ENV_PREFIX)?;
            let path: Vec<String> = rest
                .split(ENV_SEPARATOR)
                .map(str::to_ascii_lowercase)
                .collect();
            if path.iter().any(String::is_empty) {
                return None;
            }
            let value = typed(lookup(defaults, &path), &raw);
            Some(((path, name), value))
        })
        .collect();
    overrides.sort_by(|a, b| a.0.1.cmp(&b.0.1));
    overrides
}

/// The environment's text as the value its key takes (see the module's documentation).
fn typed(default: Option<&Value>, raw: &str) -> Value {
    if matches!(default, Some(Value::String(_))) {
        return Value::String(raw.to_owned());
    }
    let mut document = String::from("value = ");
    document.push_str(raw);
    toml::from_str::<Table>(&document)
        .ok()
        .and_then(|mut table| table.remove("value"))
        .unwrap_or_else(|| Value::String(raw.to_owned()))
}

fn lookup<'a>(table: &'a Table, path: &[String]) -> Option<&'a Value> {
    let (last, parents) = path.split_last()?;
    let mut current = table;
    for key in parents {
        current = current.get(key)?.as_table()?;
    }
    current.get(last)
}

/// Sets `path` to `value`, making (or replacing with) tables on the way.
fn set(table: &mut Table, path: &[String], value: Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut current = table;
    for key in parents {
        let entry = current
            .entry(key.clone())
            .or_insert_with(|| Value::Table(Table::new()));
        if !entry.is_table() {
            *entry = Value::Table(Table::new());
        }
        let Value::Table(inner) = entry else {
            return;
        };
        current = inner;
    }
    current.insert(last.clone(), value);
}

/// Merges `layer` into `base`: tables key by key, anything else replaced whole.
fn merge(base: &mut Table, layer: Table, prefix: &str, origins: &mut Origins) {
    for (key, value) in layer {
        let dotted = format!("{prefix}{key}");
        match (base.get_mut(&key), value) {
            (Some(Value::Table(inner)), Value::Table(layer_inner)) => {
                merge(inner, layer_inner, &format!("{dotted}."), origins);
            }
            (_, value) => {
                origins.insert(dotted, Origin::File);
                base.insert(key, value);
            }
        }
    }
}

/// The typed configuration, or one line per problem naming its key and the value's origin.
fn deserialize<T: DeserializeOwned>(
    merged: Table,
    origins: &Origins,
    file_name: &str,
) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(Value::Table(merged)).map_err(|err| {
        let path = err.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let message = err.inner().message().to_owned();
        // An unknown field: name the key itself. The path may stop at its parent or (as toml's
        // deserializer reports it now) already end with it.
        let (key, what) = match unknown_field(&message) {
            Some(field) if path.is_empty() => (field.to_owned(), "unknown key".to_owned()),
            Some(field) if path.rsplit('.').next() == Some(field) => {
                (path, "unknown key".to_owned())
            }
            Some(field) => (format!("{path}.{field}"), "unknown key".to_owned()),
            None => (path, message),
        };
        let mut line = if key.is_empty() {
            what
        } else {
            format!("{key}: {what}")
        };
        match origins.of(&key) {
            // A file is loaded before any override is laid over it.
            Origin::Default | Origin::Override { .. } => {}
            Origin::File => {
                let _ = write!(line, " (from {file_name})");
            }
            Origin::Environment { variable } => {
                let _ = write!(line, " (from {variable})");
            }
        }
        ConfigError(line)
    })
}

/// "unknown field `lisen`, expected one of …" -> "lisen".
fn unknown_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    rest.split('`').next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_text_takes_the_type_of_its_key() {
        let defaults: Table = toml::from_str(
            "[server]\nlisten = \"127.0.0.1:1\"\nport = 1\nflag = false\nlist = []\n",
        )
        .unwrap_or_default();
        let env = |name: &str, raw: &str| {
            let path: Vec<String> = name.split('.').map(str::to_owned).collect();
            typed(lookup(&defaults, &path), raw)
        };
        assert_eq!(env("server.listen", "8080"), Value::String("8080".into()));
        assert_eq!(env("server.port", "8080"), Value::Integer(8080));
        assert_eq!(env("server.flag", "true"), Value::Boolean(true));
        assert_eq!(
            env("server.list", "[\"/a\"]"),
            Value::Array(vec![Value::String("/a".into())])
        );
        assert_eq!(
            env("server.list", "10.0.0.0/8,192.0.2.7"),
            Value::String("10.0.0.0/8,192.0.2.7".into())
        );
        assert_eq!(env("server.port", "soon"), Value::String("soon".into()));
    }

    #[test]
    fn only_prefixed_variables_with_a_full_path_override() {
        let overrides = env_overrides(
            &Table::new(),
            [
                ("BFF__SERVER__LISTEN", "a"),
                ("BFF_ADMIN_TOKEN", "secret"),
                ("BFF__", "x"),
                ("BFF__SERVER____LISTEN", "x"),
                ("PATH", "/bin"),
            ]
            .map(|(name, value)| (name.to_owned(), value.to_owned())),
        );
        let paths: Vec<_> = overrides
            .iter()
            .map(|((path, _), _)| path.join("."))
            .collect();
        assert_eq!(paths, ["server.listen"]);
    }
}
