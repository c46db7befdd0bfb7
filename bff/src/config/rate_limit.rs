//! `[rate_limit]`: per-client and per-account limits, and which proxy's client-IP header is
//! believed.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{cidrs, duration};

/// Per-client-IP limits on the sign-in, registration, password and verification endpoints and
/// on search; sign-in failures per account.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RateLimitConfig {
    /// Requests per minute per client IP on each limited auth endpoint.
    pub auth_per_minute: u32,
    /// Searches per minute per client IP.
    pub search_per_minute: u32,
    /// Wrong passwords (or unknown e-mails) per account and client (an address, or an IPv6
    /// /64) within `sign_in_failure_window`; past them, that client's sign-ins to that account
    /// answer 429, and every other client still signs in.
    pub sign_in_failures_per_client: u32,
    /// Wrong passwords per account within the window from any number of clients, a much higher
    /// ceiling; past it, every sign-in to that account answers 429.
    pub sign_in_failures_per_account: u32,
    /// The per-account window, counted from the account's first failure.
    #[serde(with = "duration")]
    pub sign_in_failure_window: Duration,
    /// Guests created upstream per client and minute (a write with no cart yet, e.g. a
    /// cookie-less add-to-cart, creates one).
    pub guests_per_minute: u32,
    /// Promo-code attempts per cart and minute, from any number of clients.
    pub promo_codes_per_cart_per_minute: u32,
    /// Promo-code attempts per client and minute, on any number of carts.
    pub promo_codes_per_client_per_minute: u32,
    /// A header set by a trusted proxy that carries the client IP (e.g. `x-forwarded-for`),
    /// believed only from a peer in `trusted_proxies`: read right to left, the first entry that
    /// is not a trusted proxy is the client. Empty, missing from a request, unparsable or sent
    /// by any other peer: the connection's peer address, which clients cannot forge.
    pub trusted_client_ip_header: String,
    /// The proxies (CIDRs, or single addresses) whose `trusted_client_ip_header` is believed,
    /// and whose own entries in it are skipped. Must not be empty when the header is set.
    #[serde(with = "cidrs")]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// Dealer registrations per minute per client IP (checked before the upload is read).
    pub dealer_registrations_per_minute: u32,
    /// Pro Deal applications per minute per client IP, and per account (from any number of
    /// clients): both checked before the upload is read.
    pub pro_deal_per_client_per_minute: u32,
    pub pro_deal_per_account_per_minute: u32,
    /// Image requests per minute per client IP.
    pub image_requests_per_minute: u32,
    /// 404 answers for products and collections per minute per client IP: past them the client
    /// gets 429 on those routes (cold misses that find the title are not counted).
    pub not_found_per_minute: u32,
    /// Server renders per minute per client IP, on each replica: past them the client's
    /// document misses get the shell with the page's data, unrendered (hits are not counted).
    pub renders_per_minute: u32,
    /// CSP violation reports per minute per client IP.
    pub csp_reports_per_minute: u32,
    /// Web Vitals reports (`POST /api/rum`) per minute per client IP.
    pub rum_reports_per_minute: u32,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        Self {
            auth_per_minute: 10,
            search_per_minute: 120,
            sign_in_failures_per_client: 10,
            sign_in_failures_per_account: 100,
            sign_in_failure_window: Duration::from_secs(15 * 60),
            guests_per_minute: 30,
            promo_codes_per_cart_per_minute: 10,
            promo_codes_per_client_per_minute: 30,
            trusted_client_ip_header: String::new(),
            trusted_proxies: Vec::new(),
            dealer_registrations_per_minute: 5,
            pro_deal_per_client_per_minute: 5,
            pro_deal_per_account_per_minute: 3,
            image_requests_per_minute: 5,
            not_found_per_minute: 60,
            renders_per_minute: 120,
            csp_reports_per_minute: 30,
            rum_reports_per_minute: 30,
        }
    }
}

impl RateLimitConfig {
    /// What is wrong with its keys: a limit of 0 would refuse everyone, and a client-IP header
    /// without the proxies it is believed from would never be believed (a setting that does
    /// nothing, silently).
    pub(super) fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (key, value) in [
            ("auth_per_minute", u64::from(self.auth_per_minute)),
            ("search_per_minute", u64::from(self.search_per_minute)),
            (
                "sign_in_failures_per_client",
                u64::from(self.sign_in_failures_per_client),
            ),
            (
                "sign_in_failures_per_account",
                u64::from(self.sign_in_failures_per_account),
            ),
        ] {
            if value == 0 {
                problems.push(format!("rate_limit.{key}: must be at least 1"));
            }
        }
        if self.sign_in_failure_window < Duration::from_millis(1) {
            problems.push("rate_limit.sign_in_failure_window: must be at least 1ms".to_owned());
        }
        if !self.trusted_client_ip_header.trim().is_empty() && self.trusted_proxies.is_empty() {
            problems.push(
                "rate_limit.trusted_client_ip_header: set, but rate_limit.trusted_proxies is \
                 empty; list the proxies (CIDRs) whose header is believed, or unset the header"
                    .to_owned(),
            );
        }
        problems
    }
}
