//! The one place where the ledger calls the `urlkey` library: a policy by id, and what it
//! makes of one observed URL.

/// A normalization policy, resolved from its id (`citation@1`).
#[derive(Clone)]
pub struct Normalizer {
    policy: urlkey::Policy,
}

/// What the policy made of one observed URL. The observed text itself is stored apart
/// and never changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Normalized {
    /// The comparison key (`normalized_key`); `None` when the URL is invalid.
    pub key: Option<String>,
    /// The canonical form; `None` when invalid.
    pub canonical: Option<String>,
    /// The key's host name (`publisher_hostname`); `None` when invalid.
    pub host: Option<String>,
    /// The stable error code (`web.invalid-url`, `citation.unsupported-scheme`, ...).
    pub error_code: Option<String>,
    /// The error in words.
    pub error_message: Option<String>,
    /// Every rule applied, as a JSON array of `{rule, component, before, after}`.
    pub transformations_json: String,
    /// The analytics parameters removed, as a JSON array of names.
    pub removed_params_json: String,
}

impl Normalizer {
    /// The builtin policy with this id, or a message naming the ids that exist.
    pub fn new(id: &str) -> Result<Normalizer, String> {
        let set = urlkey::PolicySet::builtin();
        match set.get(id) {
            Ok(policy) => Ok(Normalizer { policy }),
            Err(e) => Err(format!(
                "unknown normalization policy {id:?} ({e}); `urlkey policies` lists the ids, \
                 and the ledger's default is citation@1"
            )),
        }
    }

    /// The policy id, e.g. `citation@1` (stored as `normalization_policy_version`).
    pub fn id(&self) -> &str {
        self.policy.id()
    }

    /// Runs the policy on one observed URL. Never panics.
    pub fn normalize(&self, observed: &str) -> Normalized {
        let o = self.policy.key(observed);
        let (error_code, error_message) = match &o.error {
            Some(e) => (Some(e.code.as_str().to_string()), Some(e.message.clone())),
            None => (None, None),
        };
        let valid = o.is_valid() && o.key.is_some();
        Normalized {
            key: if valid { o.key.clone() } else { None },
            canonical: if valid { o.canonical.clone() } else { None },
            host: if valid { o.host.clone() } else { None },
            error_code: if valid {
                None
            } else {
                Some(error_code.unwrap_or_else(|| "web.invalid-url".to_string()))
            },
            error_message: if valid { None } else { error_message },
            transformations_json: serde_json::to_string(&o.transformations)
                .unwrap_or_else(|_| "[]".to_string()),
            removed_params_json: serde_json::to_string(&o.removed_params)
                .unwrap_or_else(|_| "[]".to_string()),
        }
    }
}
