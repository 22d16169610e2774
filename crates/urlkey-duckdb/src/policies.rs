//! The policies the functions run: the builtin [`PolicySet`], built once, and every
//! policy resolved by name, kept for the life of the process, so that a query resolves a
//! policy once and not once per row.
//!
//! A scalar function reads its policy argument row by row (it may be a column), but a
//! chunk nearly always holds one name: [`Resolver`] keeps the last name it resolved and
//! asks the shared cache only when the name changes.

use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use urlkey::{Policy, PolicySet};

/// The builtin policies with the embedded Public Suffix List, built once.
pub fn policy_set() -> &'static PolicySet {
    static SET: OnceLock<PolicySet> = OnceLock::new();
    SET.get_or_init(PolicySet::builtin)
}

/// Resolved policies by the name they were asked for (`citation@1`, `clean@1+keep-www`...).
fn cache() -> &'static RwLock<HashMap<Box<str>, Policy>> {
    static CACHE: OnceLock<RwLock<HashMap<Box<str>, Policy>>> = OnceLock::new();
    CACHE.get_or_init(|| RwLock::new(HashMap::new()))
}

/// A policy that cannot be had: the message starts with the stable code
/// (`policy.unknown: unknown policy "x"; known policies: citation@1, ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyFailure(pub String);

impl std::fmt::Display for PolicyFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PolicyFailure {}

/// The policy named `name`, from the cache or resolved (and then cached). Failures are
/// not cached: they end the query.
pub fn resolve(name: &str) -> Result<Policy, PolicyFailure> {
    lookup(name).map(|(p, _)| p)
}

/// [`resolve`], saying whether the cache had the policy already.
fn lookup(name: &str) -> Result<(Policy, bool), PolicyFailure> {
    // A poisoned lock only means a panic elsewhere while holding it; the map is still whole.
    if let Some(p) = cache().read().unwrap_or_else(|e| e.into_inner()).get(name) {
        return Ok((p.clone(), true));
    }
    let p = policy_set()
        .get(name)
        .map_err(|e| PolicyFailure(format!("{}: {e}", e.code())))?;
    cache()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .entry(name.into())
        .or_insert_with(|| p.clone());
    Ok((p, false))
}

/// Whether the cache holds a policy by this name.
pub fn is_cached(name: &str) -> bool {
    cache()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .contains_key(name)
}

/// The last policy resolved by one call of a function, by name.
#[derive(Default)]
pub struct Resolver {
    last: Option<(String, Policy)>,
}

impl Resolver {
    /// The policy named `name`: the last one if the name is the same, else from the cache.
    pub fn get(&mut self, name: &str) -> Result<&Policy, PolicyFailure> {
        let same = matches!(&self.last, Some((n, _)) if n == name);
        if !same {
            let p = resolve(name)?;
            self.last = Some((name.to_string(), p));
        }
        match &self.last {
            Some((_, p)) => Ok(p),
            None => unreachable!("set above"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The cache is the process's: the tests run in parallel, so each checks its own names.

    #[test]
    fn a_policy_is_resolved_once_and_kept() {
        let (a, _) = lookup("webkey@1").unwrap();
        assert!(is_cached("webkey@1"));
        let (b, hit) = lookup("webkey@1").unwrap();
        assert!(hit, "the second lookup is answered by the cache");
        assert_eq!(a.id(), b.id());
        let url = "https://Example.com/a/?utm_source=x";
        assert_eq!(a.key(url), b.key(url));
        // Options are part of the name.
        let (c, _) = lookup("citation@1+keep-trailing-slash").unwrap();
        assert_eq!(c.id(), "citation@1+keep-trailing-slash");
        assert!(lookup("citation@1+keep-trailing-slash").unwrap().1);
    }

    #[test]
    fn an_unknown_policy_says_its_code_first_and_names_the_builtins() {
        let e = resolve("nope@9").unwrap_err();
        assert!(e.0.starts_with("policy.unknown: "), "{e}");
        for id in urlkey::policy::BUILTIN_IDS.iter() {
            assert!(e.0.contains(id), "{id} in {e}");
        }
        assert!(resolve("nope@9").is_err());
        assert!(!is_cached("nope@9"), "failures are not cached");
        let e = resolve("citation@1+nope").unwrap_err();
        assert!(e.0.starts_with("policy.unknown-option: "), "{e}");
    }

    #[test]
    fn the_resolver_keeps_the_last_name() {
        let mut r = Resolver::default();
        assert_eq!(r.get("clean@1").unwrap().id(), "clean@1");
        assert_eq!(r.get("clean@1").unwrap().id(), "clean@1");
        assert_eq!(r.get("mapper@1").unwrap().id(), "mapper@1");
        assert!(r.get("x").is_err());
        // A failure leaves the last good policy in place.
        assert_eq!(r.get("mapper@1").unwrap().id(), "mapper@1");
    }
}
