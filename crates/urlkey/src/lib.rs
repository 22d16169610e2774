//! # urlkey
//!
//! Explainable, versioned comparison keys for URLs. Text comes in as an observation;
//! a named, versioned [`Policy`] turns it into an [`Outcome`]: a status, a canonical form,
//! a key, the [`Transformation`]s that produced it and the [`Fact`]s found on the way.
//! The observation itself is never rewritten.
//!
//! Parsing is the WHATWG URL Standard (through ada). The library is pure: no I/O, no
//! network, no global mutable state (the embedded Public Suffix List is parsed once and
//! never changes).

#![warn(missing_docs)]

pub mod detect;
pub mod error;
pub mod inspect;
pub mod offsets;
pub mod outcome;
pub mod policy;
pub mod profile;
pub mod psl;
pub mod query;
pub mod risk;
pub mod text;
pub mod tracking;
pub mod web;

pub use error::{ErrorCode, KeyError};
pub use inspect::{inspect, Inspection, PolicyKey};
pub use outcome::{Component, Fact, Outcome, Status, Transformation};
pub use policy::{Policy, PolicyError, PolicyInfo, PolicySet};
pub use psl::PublicSuffixList;
pub use query::{parse_form, query_pairs};
pub use tracking::{TrackingRule, TrackingSet, REGISTRY};
pub use web::{HostKind, WebUrl};
