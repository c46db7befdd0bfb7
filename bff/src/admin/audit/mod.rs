//! The audit log of admin actions: who (the token's name), what (method and route template),
//! with which arguments (shopper-typed text hashed), with what result, when. Kept in the
//! coordination tier with a bounded history, written as one `audit` log line each, and read at
//! `GET /admin/audit`.

pub mod entry;
pub mod layer;
pub mod log;
