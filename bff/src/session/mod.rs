//! Sessions: the token handler. The browser holds one sealed HttpOnly cookie; tokens stay here.

pub mod csrf;
pub mod handle;
pub mod identity;
pub mod model;
pub mod refresh_lease;
pub mod revocation;
pub mod seal;
pub mod tokens;

pub use handle::{SessionHandle, Sessions};
pub use model::{Session, UserTokens};
