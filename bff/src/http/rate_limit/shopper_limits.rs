//! Limits on what a shopper's requests make the commerce upstream do, checked where it would
//! happen rather than per route:
//!
//! - **guest creation**: a write with no cart yet (the first add-to-cart of a visitor without a
//!   session cookie) creates a guest upstream; a client that drops its cookie every time made
//!   one per request. `rate_limit.guests_per_minute` per client.
//! - **promo codes**: every attempt is a guess at a code. `rate_limit.promo_codes_per_cart_per_minute`
//!   per cart (however many addresses guess for it) and
//!   `rate_limit.promo_codes_per_client_per_minute` per client (however many carts it makes).
//!
//! Clients are keyed as every per-client limit is ([`super::client_ip::ClientAddress`]: IPv6
//! by its /64).

use std::net::IpAddr;
use std::sync::Arc;

use super::budget::Budget;
use super::client_ip::ClientAddress;
use crate::config::RateLimitConfig;
use crate::coordination::replicas::Redis;
use crate::http::error::ApiError;
use crate::observe::metrics::Metrics;

#[derive(Debug, Clone)]
pub struct ShopperLimits {
    /// Who the client of a request is.
    pub client: ClientAddress,
    guests: Budget,
    promo_codes_per_cart: Budget,
    promo_codes_per_client: Budget,
}

impl ShopperLimits {
    pub fn new(config: &RateLimitConfig, metrics: Arc<Metrics>, redis: Option<Redis>) -> Self {
        Self {
            client: ClientAddress::new(config),
            guests: Budget::new(
                "guest_creation",
                config.guests_per_minute,
                metrics.clone(),
                redis.clone(),
            ),
            promo_codes_per_cart: Budget::new(
                "promo_code_cart",
                config.promo_codes_per_cart_per_minute,
                metrics.clone(),
                redis.clone(),
            ),
            promo_codes_per_client: Budget::new(
                "promo_code_client",
                config.promo_codes_per_client_per_minute,
                metrics,
                redis,
            ),
        }
    }

    /// Before a guest is created upstream for `client`.
    pub async fn guest_creation(&self, client: IpAddr) -> Result<(), ApiError> {
        self.guests.spend(&client.to_string()).await
    }

    /// Before a promo code is tried by `client`.
    pub async fn promo_code_by_client(&self, client: IpAddr) -> Result<(), ApiError> {
        self.promo_codes_per_client.spend(&client.to_string()).await
    }

    /// Before a promo code is tried on `cart` (a name of the cart: the guest token, or the
    /// account's).
    pub async fn promo_code_on_cart(&self, cart: &str) -> Result<(), ApiError> {
        self.promo_codes_per_cart.spend(cart).await
    }
}
