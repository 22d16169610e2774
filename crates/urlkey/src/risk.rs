//! How much a rule's merge can be trusted without looking at the pages: every rule of the
//! catalogue in `docs/policies.md` (and the two names the front ends record) has a
//! [`RiskClass`], `lossless`, `documented` or `risky`.
//!
//! Each rule declares its class beside its code (`policy/rules/<name>.rs`); this module is
//! where a rule is looked up by the name stored in a record's transformations
//! ([`risk_of`]).

pub use crate::policy::rules::{risk_of, RiskClass};
