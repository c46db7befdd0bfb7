//! The shopping domain behind the cart, checkout and order endpoints: cart storage and the cart
//! as the API answers it, pricing (tax by state, shipping methods, promo codes), restrictions,
//! and orders. The HTTP handlers live in `cart.rs`, `checkout.rs` and `orders.rs`.

pub mod add_ons;
pub mod body;
pub mod carts;
pub mod money;
pub mod order_store;
pub mod pricing;
pub mod promos;
pub mod restrictions;
pub mod states;
