//! # urlkey
//!
//! Explainable, versioned comparison keys for URLs. Text comes in as an observation;
//! a named, versioned [`Policy`] turns it into an [`Outcome`]: a status, a canonical form,
//! a key, the [`Transformation`]s that produced it and the [`Fact`]s found on the way.
//! The observation itself is never rewritten.
//!
//! Parsing is the WHATWG URL Standard (through ada). The library is pure: no I/O, no
//! network, no global mutable state (the embedded Public Suffix List is parsed once and
//! never changes; each thread keeps a few spare text buffers for the key path, which no
//! result depends on).
//!
//! ## Quick start
//!
//! ```
//! use urlkey::PolicySet;
//!
//! let policies = PolicySet::builtin();
//! let mapper = policies.get("mapper@1").expect("a builtin policy");
//!
//! // Two spellings of one page get one key.
//! let a = mapper.key("HTTP://Example.com:80/a//b?utm_source=x&id=7");
//! let b = mapper.key("http://example.com/a/b?id=7#top");
//! assert_eq!(a.key.as_deref(), Some("http://example.com/a/b?id=7"));
//! assert_eq!(a.key, b.key);
//! // And the outcome says why: which rules changed what.
//! assert!(a.rule_names().contains(&"remove-tracking-parameters"));
//!
//! // Input that is not a URL under the policy gives a stable code, never a panic.
//! let o = mapper.key("javascript:alert(1)");
//! assert_eq!(o.error.map(|e| e.code.as_str()), Some("mapper.unsupported-scheme"));
//! ```
//!
//! Every builtin policy is listed in [`policy::BUILTIN_IDS`]; more are defined in TOML
//! with [`PolicySet::load_policy_file`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod detect;
pub mod error;
pub mod explain;
pub mod fast;
pub mod fields;
pub mod inspect;
pub mod offsets;
pub mod outcome;
pub mod policy;
pub mod profile;
pub mod psl;
pub mod query;
pub mod risk;
mod scratch;
pub mod text;
pub mod tracking;
pub mod unwrap;
pub mod web;

pub use error::{ErrorCode, KeyError};
pub use inspect::{inspect, Inspection, PolicyKey};
pub use outcome::{Component, Fact, Outcome, Status, Transformation};
pub use policy::{Policy, PolicyError, PolicyInfo, PolicySet};
pub use psl::PublicSuffixList;
pub use query::{parse_form, query_pairs};
pub use tracking::{TrackingRule, TrackingSet, REGISTRY};
pub use web::{HostKind, WebUrl};
