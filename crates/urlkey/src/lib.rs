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
//!
//! ## The API
//!
//! What a program calls, each with a runnable example:
//!
//! - **Keys**: [`PolicySet`] (the builtins, policy files, the Public Suffix List and the
//!   input limit) hands out a [`Policy`]; [`Policy::key`] gives an [`Outcome`] (its
//!   [`Status`], key, canonical form, [`Transformation`]s on each [`Component`], [`Fact`]s),
//!   [`Policy::key_into`] only the key, fast. [`policy::defaults`] names the policy each
//!   command uses; [`policy::DEFAULT_MAX_INPUT_BYTES`] is the default limit.
//! - **Looking at one text**: [`inspect()`] ([`Inspection`], with the [`Offsets`] of each
//!   component in the input as given), [`explain::explain`] (do several inputs share a
//!   key, and why), [`query_pairs`] and [`parse_form`], [`detect::looks_like_web_address`],
//!   [`profile::profile`], [`WebUrl`] (the URL Standard's parse, with this crate's codes),
//!   [`text_fragment`] (the `#:~:text=` directives of a fragment, parsed).
//! - **Columns**: [`fields`], the outcome's fields as one table (name, type, how each is
//!   read from an [`Outcome`]): every engine's columns come from it.
//! - **Lists**: [`PublicSuffixList`], the tracking sets ([`TrackingSet`], [`REGISTRY`]), the
//!   risk class of each rule ([`risk::risk_of`]).
//! - **Errors**: one table of stable codes, [`ErrorCode`]; [`KeyError`] (an input without a
//!   key), [`PolicyError`] and [`PslError`] each give theirs with `code()`.
//!
//! [`internals`] holds what urlkey's own crates (the command line, the batch engine, the
//! web page, the Python, Polars and DuckDB engines, the benchmarks, the fuzzers) share
//! beyond that: the rules, the front ends, the lean paths of `map`, the fast parse. It has
//! no stability promise.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod detect;
mod error;
pub mod explain;
mod fast;
pub mod fields;
pub mod inspect;
pub mod internals;
mod offsets;
pub mod outcome;
pub mod policy;
pub mod profile;
pub mod psl;
mod query;
pub mod risk;
mod scratch;
mod text;
pub mod text_fragment;
pub mod tracking;
mod unwrap;
pub mod web;

pub use error::{ErrorCode, KeyError};
pub use inspect::{inspect, ComponentSpan, Inspection, Offsets, ParamSpan, PolicyKey, Span};
pub use outcome::{Component, Fact, Outcome, Status, Transformation};
pub use policy::{Policy, PolicyError, PolicyInfo, PolicySet};
pub use psl::{PslError, PublicSuffixList};
pub use query::{parse_form, query_pairs};
pub use tracking::{TrackingRule, TrackingSet, REGISTRY};
pub use web::{HostKind, WebUrl};
