//! Which policy an expression runs: a builtin by id, or a policy of a policy file whose
//! text the Python side read and passed along (the plugin does no I/O).
//!
//! Polars calls a plugin once per chunk with the expression's keyword arguments, so a
//! resolved policy is cached by its arguments: a policy file is parsed once per process,
//! not once per chunk.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Deserialize;
use urlkey::{Policy, PolicySet};

/// The keyword arguments every policy-taking expression carries (pickled by Polars).
#[derive(Debug, Clone, Deserialize, PartialEq, Eq, Hash)]
pub struct PolicyArgs {
    /// The policy id (`citation@1`, or an id the policy file defines).
    pub policy: String,
    /// The text of a policy file (TOML), when the policy comes from one.
    #[serde(default)]
    pub policy_text: Option<String>,
    /// Where that text came from (its path), for error messages.
    #[serde(default)]
    pub policy_origin: Option<String>,
}

impl PolicyArgs {
    /// A builtin policy by id.
    pub fn builtin(id: &str) -> Self {
        PolicyArgs {
            policy: id.to_string(),
            policy_text: None,
            policy_origin: None,
        }
    }
}

/// A policy that cannot be had: `code` is `policy.unknown`, `policy.unknown-option` or
/// `policy.file`, as everywhere else in urlkey.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyFailure {
    /// The stable code.
    pub code: &'static str,
    /// The message, which says what to do.
    pub message: String,
}

impl std::fmt::Display for PolicyFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

/// The builtin policies with the embedded Public Suffix List, built once.
pub fn builtin_set() -> &'static Arc<PolicySet> {
    static SET: OnceLock<Arc<PolicySet>> = OnceLock::new();
    SET.get_or_init(|| Arc::new(PolicySet::builtin()))
}

/// The set a policy lives in and the policy itself, as one cached value.
#[derive(Clone)]
pub struct Resolved {
    /// The set (builtins, plus the file's policies when there is a file).
    pub set: Arc<PolicySet>,
    /// The policy.
    pub policy: Policy,
}

/// Resolves `args`, from the cache when it was resolved before.
pub fn resolve(args: &PolicyArgs) -> Result<Resolved, PolicyFailure> {
    type Cache = Mutex<HashMap<PolicyArgs, Resolved>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(r) = cache.lock().ok().and_then(|c| c.get(args).cloned()) {
        return Ok(r);
    }
    let resolved = resolve_uncached(args)?;
    if let Ok(mut c) = cache.lock() {
        // Policy files are few per process; a bound keeps a loop that writes a new file
        // text per call from growing the cache without end.
        if c.len() >= 256 {
            c.clear();
        }
        c.insert(args.clone(), resolved.clone());
    }
    Ok(resolved)
}

fn failure(e: urlkey::PolicyError) -> PolicyFailure {
    PolicyFailure {
        code: e.code().as_str(),
        message: e.to_string(),
    }
}

fn resolve_uncached(args: &PolicyArgs) -> Result<Resolved, PolicyFailure> {
    let set = match &args.policy_text {
        None => builtin_set().clone(),
        Some(text) => {
            let origin = args.policy_origin.as_deref().unwrap_or("policy_file");
            let mut set = PolicySet::builtin();
            set.load_policy_file(text, origin).map_err(failure)?;
            Arc::new(set)
        }
    };
    let policy = set.get(&args.policy).map_err(failure)?;
    Ok(Resolved { set, policy })
}
