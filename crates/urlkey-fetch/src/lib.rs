//! The SSRF-safe HTTP client that `urlkey ledger verify` and `urlkey redirects test` share.
//!
//! - [`guard`]: where a request may connect ([`NetworkScope`]); the check sits in the
//!   resolver, so there is no gap between checking an address and connecting to it.
//! - [`client`]: one isolated client per run ([`Client`], [`FetchConfig`]): no cookies, no
//!   proxy, no referer, no automatic redirects, a user agent that names the purpose, a
//!   timeout per request and a least delay between two requests to one host.
//! - [`chain`]: a request and its redirects followed by hand, every hop checked against
//!   the scope and recorded ([`Chain`], [`Hop`]), ending on a response or a typed
//!   [`Stop`].
//! - [`failure`]: why a request got no response, typed.
//! - [`body`]: a response's body read up to a cap.
//!
//! The modules, and the rule between them: `chain` uses `client`, `failure` and `guard`;
//! `client` uses `guard`; `failure` uses `guard`; `body` uses `failure`'s [`error_chain`];
//! none is used by a module it uses.
//! Nothing here names a flag or a setting of a caller: a refusal says what would allow it
//! as a type ([`guard::Allowance`]) and each caller words it.

pub mod body;
pub mod chain;
pub mod client;
pub mod failure;
pub mod guard;

pub use body::{read_body, Body};
pub use chain::{Chain, End, Final, Hop, Outcome, Stop};
pub use client::{sanitize, user_agent, Client, FetchConfig, FetchError};
pub use failure::error_chain;
pub use guard::{AddressClass, Allowance, NetworkScope, Refused};
