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
//!
//! ## Example
//!
//! A map a person approved, checked for nginx before anything is written: nginx matches
//! its keys without regard to case, so `/About` and `/about` are one source there, and two
//! targets for one source fail the map. Once fixed, it compiles to an nginx `map` block.
//!
//! ```
//! use urlkey_redirects::check::{check, FindingKind};
//! use urlkey_redirects::compile::{compile, Options};
//! use urlkey_redirects::{RedirectMap, Server};
//!
//! let map = RedirectMap::from_csv(
//!     "map.csv",
//!     "source,target,decision\n/About,/company,accept\n/about,/team,accept\n/tmp,/,reject\n",
//! )?;
//! assert_eq!((map.entries.len(), map.set_aside.len()), (2, 1)); // the rejected row set aside
//! let report = check(&map, Server::Nginx);
//! assert!(!report.passes());
//! assert_eq!(report.of(FindingKind::Conflict).next().map(|f| f.lines.clone()), Some(vec![2, 3]));
//! // Apache tells the two apart.
//! assert!(check(&map, Server::Apache).passes());
//!
//! let map = RedirectMap::from_csv("map.csv", "source,target\n/About,/company\n")?;
//! let nginx = compile(&map, Server::Nginx, &Options::default()).expect("a map that passes");
//! assert!(nginx.text.contains("\"/About\" \"/company\";"));
//! assert_eq!(nginx.redirects, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod redirect_map;
pub mod server;

pub mod check;
pub mod compile;
pub mod live;
pub mod propose;

pub use redirect_map::{MapEntry, MapError, RedirectMap};
pub use server::Server;
