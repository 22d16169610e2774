//! The builtin policies, one file each. A released version's rules never change: a new
//! behaviour is a new version.
//!
//! Each `<name>.rs` beside this file defines one policy as a [`Builtin`] named `POLICY`; the
//! build script (`build.rs`) lists the files, so the registry below is every file in this
//! directory and nothing is kept by hand. [`BUILTIN_IDS`], the options each id allows and
//! [`builtin_variants`] come from the registry; the tests and the fuzz targets loop over
//! them, and fail for a builtin without a golden fixture (`tests/golden/<id>.tsv`) or a
//! section in `docs/policies.md`.

use std::sync::LazyLock;

use crate::error::ErrorCode;

use super::front::FrontEnd;
use super::rules::Rule;
use super::{KeyForm, PolicyDef, PolicyError};

/// What a builtin's file writes: `use super::prelude::*;` and a `POLICY`.
mod prelude {
    pub(super) use super::{Builtin, BuiltinOption};
    pub(super) use crate::error::ErrorCode;
    pub(super) use crate::policy::front::{FrontEnd, Schemes};
    pub(super) use crate::policy::rules::*;
    pub(super) use crate::policy::KeyForm;
    pub(super) use crate::tracking::TrackingSet;
}

// `mod <name>;` for every file of this directory, and `FILES: [&Builtin; N]`.
include!(concat!(env!("OUT_DIR"), "/builtin_registry.rs"));

/// One builtin policy, as its own file defines it.
#[derive(Debug)]
pub struct Builtin {
    /// `name@version`.
    pub id: &'static str,
    /// Where `urlkey policies` lists it: builtins are listed by this number, ascending.
    pub listed: u16,
    /// One line for `urlkey policies` and the web page.
    pub description: &'static str,
    /// How text becomes parts.
    pub front: FrontEnd,
    /// The rules, in order (a function: tracking sets are built at run time).
    pub rules: fn() -> Vec<Rule>,
    /// How the key is written.
    pub key_form: KeyForm,
    /// True when the policy resolves relative input against a base.
    pub accepts_base: bool,
    /// The options it takes after `+`.
    pub options: &'static [BuiltinOption],
    /// The error codes only this policy gives (its front end's refusals); `docs/cli.md`
    /// lists each of them.
    pub codes: &'static [ErrorCode],
}

/// An option of a builtin policy (`citation@1+keep-trailing-slash`).
#[derive(Debug)]
pub struct BuiltinOption {
    /// The name after `+`.
    pub name: &'static str,
    /// What it changes in the rule list.
    pub apply: fn(&mut Vec<Rule>),
}

impl Builtin {
    /// The definition with the given options applied, in the order given.
    fn definition(&self, id: &str, options: &[&str]) -> Result<PolicyDef, PolicyError> {
        let mut rules = (self.rules)();
        for &name in options {
            let Some(option) = self.options.iter().find(|o| o.name == name) else {
                return Err(PolicyError::UnknownOption {
                    id: id.to_string(),
                    option: name.to_string(),
                    allowed: self.options.iter().map(|o| o.name.to_string()).collect(),
                });
            };
            (option.apply)(&mut rules);
        }
        Ok(PolicyDef {
            id: id.to_string(),
            description: self.description.to_string(),
            front: self.front,
            rules,
            key_form: self.key_form,
            accepts_base: self.accepts_base,
        })
    }
}

/// Every builtin, in listing order.
pub fn registry() -> &'static [&'static Builtin] {
    static SORTED: LazyLock<Vec<&'static Builtin>> = LazyLock::new(|| {
        let mut all = FILES.to_vec();
        all.sort_by_key(|b| (b.listed, b.id));
        all
    });
    &SORTED
}

/// Ids of the builtin policies, in the order `urlkey policies` lists them.
///
/// ```
/// let set = urlkey::PolicySet::builtin();
/// for id in urlkey::policy::BUILTIN_IDS.iter() {
///     assert!(set.get(id).is_ok(), "{id}");
/// }
/// assert!(urlkey::policy::BUILTIN_IDS.contains(&"citation@1"));
/// ```
pub static BUILTIN_IDS: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| registry().iter().map(|b| b.id).collect());

/// Every builtin id, then every id with one of its options (`citation@1+keep-trailing-slash`):
/// each has its own golden fixture, and the tests and fuzz targets run them all.
pub fn builtin_variants() -> Vec<String> {
    let mut ids: Vec<String> = BUILTIN_IDS.iter().map(|id| id.to_string()).collect();
    for b in registry() {
        ids.extend(b.options.iter().map(|o| format!("{}+{}", b.id, o.name)));
    }
    ids
}

/// The definition of a builtin policy id, options included (`citation@1+keep-trailing-slash`);
/// `None` when no builtin has the id's `name@version`.
pub fn builtin(id: &str) -> Result<Option<PolicyDef>, PolicyError> {
    let (base, options) = match id.split_once('+') {
        Some((b, o)) => (b, o.split('+').collect::<Vec<_>>()),
        None => (id, Vec::new()),
    };
    match registry().iter().find(|b| b.id == base) {
        Some(b) => b.definition(id, &options).map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct_and_listing_positions_too() {
        let mut ids: Vec<&str> = registry().iter().map(|b| b.id).collect();
        let mut listed: Vec<u16> = registry().iter().map(|b| b.listed).collect();
        ids.sort_unstable();
        ids.dedup();
        listed.sort_unstable();
        listed.dedup();
        assert_eq!(ids.len(), registry().len());
        assert_eq!(listed.len(), registry().len());
    }

    #[test]
    fn a_builtin_owns_its_codes() {
        let mut seen: Vec<ErrorCode> = Vec::new();
        for b in registry() {
            for code in b.codes {
                assert!(!seen.contains(code), "{code} is claimed by two builtins");
                seen.push(*code);
            }
        }
    }
}
