//! Doing a thing once: in this process (`single_flight`), and across replicas through the Redis
//! they share (`lease`, `replicas`: the handle and the purge channel), whose values carry a MAC
//! (`shared_tier_mac`).

pub mod clock;
pub mod lease;
pub mod replica_identity;
pub mod replicas;
pub mod shared_tier_mac;
pub mod single_flight;
