//! Who the client is, for per-client limits: the TCP peer, unless that peer is one of
//! `rate_limit.trusted_proxies` and sent `rate_limit.trusted_client_ip_header`.
//!
//! Such a header (`X-Forwarded-For: client, proxy1, proxy2`) is read right to left: each
//! proxy appends the address it saw, so entries a trusted proxy wrote are skipped and the first
//! address that is not a trusted proxy is the client. Entries left of it were written by the
//! client or by hops nobody vouches for, and are never believed. Any other peer, inside the
//! cluster or not, is keyed by its own address, whatever it sends.
//!
//! An IPv6 client is keyed by its /64: one subscriber, or one host, is routinely given a whole
//! /64, so keying the full address would give it 2^64 budgets.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use axum::extract::{ConnectInfo, Request};
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderMap};
use ipnet::IpNet;

use crate::config::RateLimitConfig;

/// Finds the client address of a request.
#[derive(Debug, Clone)]
pub struct ClientAddress {
    /// Lower-cased header name; `None` when not configured.
    header: Option<String>,
    trusted: Vec<IpNet>,
}

impl ClientAddress {
    pub fn new(config: &RateLimitConfig) -> Self {
        let header = config.trusted_client_ip_header.trim().to_lowercase();
        Self {
            header: (!header.is_empty()).then_some(header),
            trusted: config.trusted_proxies.clone(),
        }
    }

    /// The client, as every per-client limit keys it: its address, or for IPv6 the first
    /// address of its /64. A request without a peer address (only in process, with no socket)
    /// counts as `0.0.0.0`: limited like any other, never let through unlimited.
    pub fn of(&self, request: &Request) -> IpAddr {
        limit_key(self.address(request.headers(), request.extensions()))
    }

    /// [`Self::of`] for an extractor, from the request's parts.
    pub fn of_parts(&self, parts: &Parts) -> IpAddr {
        limit_key(self.address(&parts.headers, &parts.extensions))
    }

    /// The client's own address (believing the header only from a trusted proxy).
    fn address(&self, headers: &HeaderMap, extensions: &Extensions) -> IpAddr {
        let peer = extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |info| info.0.ip());
        match &self.header {
            Some(name) if self.is_trusted(peer) => self.forwarded(headers, name).unwrap_or(peer),
            _ => peer,
        }
    }

    fn is_trusted(&self, address: IpAddr) -> bool {
        let address = canonical(address);
        self.trusted.iter().any(|net| net.contains(&address))
    }

    /// The first untrusted entry of the header, right to left (all its lines, in order).
    /// `None` when the header is missing, when an entry before that one is no address (nothing
    /// left of it can be vouched for), or when every entry is a trusted proxy.
    fn forwarded(&self, headers: &HeaderMap, name: &str) -> Option<IpAddr> {
        let lines: Vec<&str> = headers
            .get_all(name)
            .iter()
            .map(|value| value.to_str().ok())
            .collect::<Option<_>>()?;
        for entry in lines.iter().rev().flat_map(|line| line.rsplit(',')) {
            let address = parse_entry(entry.trim())?;
            if !self.is_trusted(address) {
                return Some(address);
            }
        }
        None
    }
}

/// `203.0.113.7`, `203.0.113.7:51000`, `2001:db8::1` or `[2001:db8::1]:443`.
fn parse_entry(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|address| address.ip()))
        .map(canonical)
}

/// The key a limit counts `address` under: an IPv4 address as it is (after `canonical`), an
/// IPv6 address with its last 64 bits cleared.
pub fn limit_key(address: IpAddr) -> IpAddr {
    match canonical(address) {
        IpAddr::V6(v6) => {
            let prefix = u128::from(v6) & !u128::from(u64::MAX);
            IpAddr::V6(Ipv6Addr::from(prefix))
        }
        v4 @ IpAddr::V4(_) => v4,
    }
}

/// An IPv4 address seen through an IPv6 socket (`::ffff:10.0.0.1`) as IPv4, so IPv4 CIDRs
/// match it and it is counted under one key either way.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        IpAddr::V4(_) => address,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn behind(trusted: &[&str]) -> ClientAddress {
        ClientAddress::new(&RateLimitConfig {
            trusted_client_ip_header: "X-Forwarded-For".to_owned(),
            trusted_proxies: trusted.iter().map(|net| net.parse().unwrap()).collect(),
            ..RateLimitConfig::default()
        })
    }

    fn from(peer: [u8; 4], forwarded: &[&str]) -> Request {
        let mut request = Request::new(axum::body::Body::empty());
        for line in forwarded {
            request.headers_mut().append(
                "x-forwarded-for",
                axum::http::HeaderValue::from_str(line).unwrap(),
            );
        }
        request
            .extensions_mut()
            .insert(ConnectInfo(SocketAddr::from((peer, 51_000))));
        request
    }

    #[test]
    fn from_a_trusted_peer_the_first_untrusted_entry_from_the_right_is_the_client() {
        let client = behind(&["10.0.0.0/8"]);
        let ip = |forwarded: &[&str]| client.of(&from([10, 0, 0, 9], forwarded)).to_string();
        assert_eq!(ip(&["198.51.100.1, 203.0.113.7"]), "203.0.113.7");
        assert_eq!(ip(&["198.51.100.1, 203.0.113.7, 10.1.2.3"]), "203.0.113.7");
        assert_eq!(
            ip(&["198.51.100.1", "203.0.113.7, 10.1.2.3"]),
            "203.0.113.7"
        );
        assert_eq!(ip(&["203.0.113.7:51000"]), "203.0.113.7");
        // IPv6 clients by their /64.
        assert_eq!(ip(&["[2001:db8::1]:443"]), "2001:db8::");
        assert_eq!(ip(&["2001:db8::2"]), "2001:db8::");
        assert_eq!(ip(&["::ffff:203.0.113.8"]), "203.0.113.8");
        for unusable in [
            &[][..],
            &[""],
            &["unknown"],
            &["203.0.113.7, nonsense"],
            &["nonsense, 10.1.2.3"],
            &["10.1.2.3, 10.4.5.6"],
        ] {
            assert_eq!(ip(unusable), "10.0.0.9", "{unusable:?}: the peer");
        }
    }

    #[test]
    fn ipv6_addresses_are_keyed_by_their_64_and_ipv4_as_they_are() {
        let key = |text: &str| limit_key(text.parse().unwrap()).to_string();
        assert_eq!(key("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::");
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("203.0.113.7"), "203.0.113.7");
        assert_eq!(key("::ffff:203.0.113.7"), "203.0.113.7");
    }

    #[test]
    fn any_other_peer_is_keyed_by_its_own_address_whatever_it_sends() {
        let client = behind(&["10.0.0.0/8"]);
        let request = from([192, 168, 1, 20], &["203.0.113.7"]);
        assert_eq!(client.of(&request).to_string(), "192.168.1.20");
        let no_socket = Request::new(axum::body::Body::empty());
        assert_eq!(client.of(&no_socket).to_string(), "0.0.0.0");
    }

    #[test]
    fn without_the_header_configured_the_peer_is_the_client() {
        let client = ClientAddress::new(&RateLimitConfig::default());
        let request = from([10, 0, 0, 9], &["203.0.113.7"]);
        assert_eq!(client.of(&request).to_string(), "10.0.0.9");
    }
}
