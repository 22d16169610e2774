//! Tracking parameters: the registries of names a policy may remove, each entry with the
//! public page or published list that documents it, and the sets a policy removes.
//!
//! - `matching`: what both registries share (how a name matches, where a parameter is);
//! - `registry1` ([`REGISTRY`]): `registry@1`, frozen with `mapper@1`, `citation@1` and `webkey@1`;
//! - `registry2` (read through [`TrackingSet::registry_v2`]; its tables are in `urlkey::internals::tracking`): `registry@2` (`clean@1`), entries with a scope, exceptions and sources;
//! - [`TrackingSet`]: one pinned list of those, plus a policy file's additions.
//!
//! A builtin is pinned to the entries it shipped with: registry 1 is frozen whole, and each
//! entry of registry 2 carries `since`, the registry version that added it, so that
//! `registry@2` (`clean@1`) never takes an entry added later. `tests/pinned.rs` fails when
//! a released policy's entries change (docs/policies.md, "Pinned lists").

pub(crate) mod matching;
pub(crate) mod registry1;
pub(crate) mod registry2;
mod set;

pub use matching::{on_site, MatchKind, Place};
pub use registry1::{TrackingRule, REGISTRY};
pub use set::TrackingSet;
