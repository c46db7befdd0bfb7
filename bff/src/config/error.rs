//! A configuration that cannot be loaded: the message names the file, the key and why.

use std::fmt;

/// A configuration that could not be loaded or is not allowed; the message names the key.
#[derive(Debug)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}
