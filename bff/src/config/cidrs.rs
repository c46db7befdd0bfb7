//! `rate_limit.trusted_proxies`: networks in CIDR notation, from a TOML list
//! (`["10.0.0.0/8", "fd00::/8"]`) or one comma-separated string, which is what an environment
//! variable (`BFF__RATE_LIMIT__TRUSTED_PROXIES=10.0.0.0/8,10.1.0.0/16`) or a Kubernetes
//! ConfigMap key gives. A bare address is a network of one host.

use std::net::IpAddr;

use ipnet::IpNet;
use serde::{Deserialize, Deserializer};

/// A list or a comma-separated string of networks.
#[derive(Deserialize)]
#[serde(untagged)]
enum Written {
    List(Vec<String>),
    Joined(String),
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<IpNet>, D::Error> {
    let entries = match Written::deserialize(deserializer)? {
        Written::List(list) => list,
        Written::Joined(joined) => joined.split(',').map(str::to_owned).collect(),
    };
    entries
        .iter()
        .map(|entry| entry.trim())
        .filter(|entry| !entry.is_empty())
        .map(|entry| parse(entry).map_err(serde::de::Error::custom))
        .collect()
}

/// `10.0.0.0/8`, `fd00::/8`, or a single address (`192.0.2.7`: a /32).
pub fn parse(entry: &str) -> Result<IpNet, String> {
    entry
        .parse::<IpNet>()
        .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
        .map_err(|_| format!("{entry:?} is not a network in CIDR notation (e.g. 10.0.0.0/8)"))
}

pub fn serialize<S: serde::Serializer>(nets: &[IpNet], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(nets.iter().map(ToString::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_and_single_addresses_parse_and_anything_else_is_named() {
        assert_eq!(parse("10.0.0.0/8").unwrap().to_string(), "10.0.0.0/8");
        assert_eq!(parse("192.0.2.7").unwrap().to_string(), "192.0.2.7/32");
        assert_eq!(parse("fd00::/8").unwrap().to_string(), "fd00::/8");
        let err = parse("10.0.0.0/33").unwrap_err();
        assert!(err.contains("10.0.0.0/33"), "{err}");
        assert!(parse("gateway").is_err());
    }
}
