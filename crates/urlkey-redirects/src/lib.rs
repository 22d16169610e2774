//! Redirect maps for site migrations (docs/redirects.md).
//!
//! urlkey never decides a redirect (the Legacy URL Mapper's rule: a person does). It
//! **proposes** a target for each old URL with the evidence that points to it
//! ([`propose`]), **checks** a map a person approved under the matching rules of the
//! server that will run it ([`check`]), **compiles** it into that server's format
//! ([`compile`]) and **tests** it against the live site ([`live`]).
//!
//! The modules, and the rule between them: [`server`] names the servers and how each
//! matches a request to a map line; [`redirect_map`] reads a MAP (what `check`, `compile`
//! and `live` take); `check` uses both; `compile` uses `check` (it refuses a map that fails
//! it); `propose` uses neither (its output becomes a MAP once a person has reviewed it;
//! `redirect_map` reads its status names); `live` uses `redirect_map` and the SSRF-safe
//! client of `urlkey-fetch`.

pub mod redirect_map;
pub mod server;

pub mod check;
pub mod compile;
pub mod live;
pub mod propose;

pub use redirect_map::{MapEntry, MapError, RedirectMap};
pub use server::Server;
