//! The policy set: the builtins, policies loaded from files, and the Public Suffix List
//! they read; it hands out ready [`Policy`] values.

use std::sync::Arc;

use super::{
    builtin, fast_parse_applies, file, fused, rules, Policy, PolicyDef, PolicyError, Rule,
    BUILTIN_IDS, DEFAULT_MAX_INPUT_BYTES,
};
use crate::psl::PublicSuffixList;

/// Every policy a run can use: the builtins, policies loaded from files, and the Public
/// Suffix List they read.
///
/// ```
/// let set = urlkey::PolicySet::builtin().with_max_input_bytes(1024);
/// let ids: Vec<String> = set.list().into_iter().map(|i| i.id).collect();
/// assert!(ids.iter().any(|id| id == "citation@1"));
/// let o = set.get("citation@1").unwrap().key(&"x".repeat(2000));
/// assert_eq!(o.error.unwrap().code.as_str(), "input.too-long");
/// ```
#[derive(Debug, Clone)]
pub struct PolicySet {
    /// Set by `with_psl`, or the embedded list once something asked for it.
    psl: std::sync::OnceLock<PublicSuffixList>,
    custom: Vec<Arc<PolicyDef>>,
    max_input_bytes: usize,
}

/// One line of `urlkey policies`.
///
/// ```
/// let set = urlkey::PolicySet::builtin();
/// let info = set.list().into_iter().find(|i| i.id == "webkey@1").unwrap();
/// assert!(info.builtin && info.uses_psl);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PolicyInfo {
    /// The id.
    pub id: String,
    /// The description.
    pub description: String,
    /// True for builtin policies.
    pub builtin: bool,
    /// True when it reads the Public Suffix List.
    pub uses_psl: bool,
}

impl Default for PolicySet {
    fn default() -> Self {
        Self::builtin()
    }
}

impl PolicySet {
    /// The builtin policies with the embedded Public Suffix List.
    ///
    /// ```
    /// let set = urlkey::PolicySet::builtin();
    /// assert_eq!(set.psl().version(), urlkey::PublicSuffixList::embedded_version());
    /// ```
    pub fn builtin() -> Self {
        PolicySet {
            psl: std::sync::OnceLock::new(),
            custom: Vec::new(),
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
        }
    }

    /// Uses another Public Suffix List (`--psl FILE`).
    ///
    /// ```
    /// let list = "// VERSION: mine\n// ===BEGIN ICANN DOMAINS===\nexample\n";
    /// let psl = urlkey::PublicSuffixList::parse(list).unwrap();
    /// let set = urlkey::PolicySet::builtin().with_psl(psl);
    /// assert_eq!(set.psl().version(), "mine");
    /// let o = set.get("webkey@1").unwrap().key("https://www.shop.example/a");
    /// assert_eq!(o.psl.as_deref(), Some("mine"));
    /// ```
    pub fn with_psl(mut self, psl: PublicSuffixList) -> Self {
        self.psl = std::sync::OnceLock::from(psl);
        self
    }

    /// Sets the limit on one input (`input.too-long` beyond it).
    ///
    /// ```
    /// let set = urlkey::PolicySet::builtin().with_max_input_bytes(10);
    /// let e = set.get("citation@1").unwrap().key("https://example.net/").error.unwrap();
    /// assert_eq!(e.code, urlkey::ErrorCode::InputTooLong);
    /// ```
    pub fn with_max_input_bytes(mut self, limit: usize) -> Self {
        self.max_input_bytes = limit;
        self
    }

    /// The Public Suffix List in use.
    ///
    /// ```
    /// let set = urlkey::PolicySet::builtin();
    /// assert_eq!(set.psl().registrable_domain("a.example.co.uk"), Some("example.co.uk"));
    /// ```
    pub fn psl(&self) -> &PublicSuffixList {
        self.psl.get_or_init(PublicSuffixList::embedded)
    }

    /// Loads the policies of a TOML policy file (see `docs/policies.md`, "Your own
    /// policies"). `origin` names the file in errors, which also give the line. Returns
    /// the ids added.
    ///
    /// ```
    /// let mut set = urlkey::PolicySet::builtin();
    /// let toml = r#"
    /// [[policy]]
    /// id = "shop@1"
    /// description = "citation@1 without www."
    /// parser = "whatwg"
    /// schemes = "web"
    /// key = "url"
    /// rules = [
    ///   { rule = "remove-fragment" },
    ///   { rule = "remove-tracking-parameters", list = "citation@1", add_names = ["ref"] },
    ///   { rule = "strip-www" },
    ///   { rule = "sort-query" },
    /// ]
    /// "#;
    /// assert_eq!(set.load_policy_file(toml, "shop.toml").unwrap(), ["shop@1"]);
    /// let o = set.get("shop@1").unwrap().key("https://www.example.com/p?ref=x&b=2&a=1#top");
    /// assert_eq!(o.key.as_deref(), Some("https://example.com/p?a=1&b=2"));
    ///
    /// // A mistake names the file, the policy and the rule's line.
    /// let e = set
    ///     .load_policy_file("[[policy]]\nid = \"x@1\"\nparser = \"whatwg\"\nkey = \"url\"\nrules = [{ rule = \"strip-wwww\" }]\n", "x.toml")
    ///     .unwrap_err();
    /// assert_eq!(e.code().as_str(), "policy.file");
    /// assert!(e.to_string().starts_with("x.toml: policy \"x@1\" (line 2): rule at line 5:"));
    /// ```
    pub fn load_policy_file(
        &mut self,
        toml_text: &str,
        origin: &str,
    ) -> Result<Vec<String>, PolicyError> {
        let defs = file::parse(toml_text, origin)?;
        let mut ids = Vec::new();
        for (def, line) in defs {
            let builtin = builtin::builtin(&def.id).ok().flatten().is_some();
            if builtin || self.custom.iter().any(|c| c.id == def.id) {
                return Err(PolicyError::File {
                    origin: origin.to_string(),
                    message: format!(
                        "policy {:?} (line {line}) is already defined{}; give it another name or version",
                        def.id,
                        if builtin { " (a builtin policy)" } else { " (by an earlier policy file)" }
                    ),
                });
            }
            ids.push(def.id.clone());
            self.custom.push(Arc::new(def));
        }
        Ok(ids)
    }

    /// The policy with this id.
    ///
    /// ```
    /// let set = urlkey::PolicySet::builtin();
    /// assert_eq!(set.get("citation@1").unwrap().id(), "citation@1");
    /// assert_eq!(set.get("nope@1").unwrap_err().code().as_str(), "policy.unknown");
    /// ```
    pub fn get(&self, id: &str) -> Result<Policy, PolicyError> {
        let def = match builtin::builtin(id)? {
            Some(d) => Arc::new(d),
            None => match self.custom.iter().find(|c| c.id == id) {
                Some(c) => c.clone(),
                None => {
                    return Err(PolicyError::Unknown {
                        id: id.to_string(),
                        known: self.list().into_iter().map(|i| i.id).collect(),
                    })
                }
            },
        };
        let split = |canonical: bool| -> Arc<[Rule]> {
            def.rules
                .iter()
                .filter(|r| r.is_canonical() == canonical)
                .cloned()
                .collect()
        };
        let (canonical_rules, key_rules) = (split(true), split(false));
        Ok(Policy {
            fused: fused::Fused::for_definition(&def),
            fast_parse: fast_parse_applies(def.front),
            canonical_needs: rules::needs_of(&canonical_rules),
            key_needs: rules::needs_of(&key_rules),
            key_slash_rule_last: rules::lone_last_non_root_slash_rule(&key_rules),
            canonical_rules,
            key_rules,
            uses_psl: def
                .rules
                .iter()
                .any(|r| matches!(r, Rule::RegistrableDomain(_))),
            def,
            psl_version: self
                .psl
                .get()
                .map_or(
                    PublicSuffixList::embedded_version(),
                    PublicSuffixList::version,
                )
                .into(),
            psl: self.psl.get().cloned(),
            max_input_bytes: self.max_input_bytes,
        })
    }

    /// Every policy, builtins first.
    ///
    /// ```
    /// let list = urlkey::PolicySet::builtin().list();
    /// assert_eq!(list.len(), urlkey::policy::BUILTIN_IDS.len());
    /// assert!(list.iter().all(|i| i.builtin));
    /// ```
    pub fn list(&self) -> Vec<PolicyInfo> {
        let mut out: Vec<PolicyInfo> = BUILTIN_IDS
            .iter()
            .filter_map(|id| builtin::builtin(id).ok().flatten())
            .map(|d| info(&d, true))
            .collect();
        out.extend(self.custom.iter().map(|d| info(d, false)));
        out
    }
}

fn info(d: &PolicyDef, builtin: bool) -> PolicyInfo {
    PolicyInfo {
        id: d.id.clone(),
        description: d.description.clone(),
        builtin,
        uses_psl: d
            .rules
            .iter()
            .any(|r| matches!(r, Rule::RegistrableDomain(_))),
    }
}
