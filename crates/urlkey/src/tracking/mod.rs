//! Tracking parameters: the registries of names a policy may remove, each entry with the
//! public page or published list that documents it, and the sets a policy removes.
//!
//! - [`matching`]: what both registries share (how a name matches, where a parameter is);
//! - [`registry1`]: `registry@1`, frozen with `mapper@1`, `citation@1` and `webkey@1`;
//! - [`registry2`]: `registry@2` (`clean@1`), entries with a scope, exceptions and sources;
//! - [`TrackingSet`]: one pinned list of those, plus a policy file's additions.
//!
//! A builtin takes every entry of its registry: an entry added changes the keys of the
//! builtins that use it (registry 1: `mapper@1`, `citation@1`, `webkey@1`; registry 2:
//! `clean@1`). Until the first tagged release such a change lists every changed key in
//! CHANGELOG.md; after it, a changed registry is a new registry version and new policy
//! versions.

pub mod matching;
pub mod registry1;
pub mod registry2;
mod set;

pub use matching::{on_site, MatchKind, Place};
pub use registry1::{TrackingRule, REGISTRY};
pub use set::TrackingSet;
