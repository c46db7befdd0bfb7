//! Doing a thing once: in this process (`single_flight`), and across replicas through the Redis
//! they share (`lease`, `replicas`: the handle and the purge channel).

pub mod lease;
pub mod replica_identity;
pub mod replicas;
pub mod single_flight;
