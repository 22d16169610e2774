//! A policy's definition: what a builtin's table or a policy file gives.

use super::{file, FrontEnd, KeyForm, Rule, TrailingSlash};

/// A policy's definition.
#[derive(Debug, Clone)]
pub struct PolicyDef {
    /// `name@version[+option...]`.
    pub id: String,
    /// One line for `urlkey policies` and the web page.
    pub description: String,
    /// How text becomes parts.
    pub front: FrontEnd,
    /// The rules, in order.
    pub rules: Vec<Rule>,
    /// How the key is written.
    pub key_form: KeyForm,
    /// True when the policy resolves relative input against a base.
    pub accepts_base: bool,
}

impl PolicyDef {
    /// This definition as a policy file (docs/policies.md, "Your own policies") of one
    /// policy named `id`, which [`crate::PolicySet::load_policy_file`] reads back into the same
    /// rules: every builtin can be written with the rule catalogue.
    ///
    /// ```
    /// use urlkey::internals::PolicyInternals;
    /// let set = urlkey::PolicySet::builtin();
    /// let toml = set.get("citation@1").unwrap().definition().to_policy_file("my-citation@1");
    /// assert!(toml.contains(r#"rule = "remove-trailing-slash""#));
    /// let mut mine = urlkey::PolicySet::builtin();
    /// assert_eq!(mine.load_policy_file(&toml, "mine.toml").unwrap(), ["my-citation@1"]);
    /// ```
    pub fn to_policy_file(&self, id: &str) -> String {
        file::write(self, id)
    }

    /// True when every key is a URL that the URL Standard's parser gives back unchanged
    /// (a path-only key against [`super::front::PLACEHOLDER_BASE`]): the key is written from parts the
    /// parser produced (front ends `whatwg` and `mapper`) as a URL (`href` or `url`).
    /// `document@1`'s keys are not (it does not run the Standard), nor are web keys, nor
    /// the `url` keys of a policy with `remove-trailing-slash` in mode `all`: it writes
    /// `https://example.com/` as `https://example.com`, which the Standard's serializer
    /// never gives (a special URL's empty path is written `/`,
    /// <https://url.spec.whatwg.org/#url-serializing>).
    pub fn key_is_whatwg_url(&self) -> bool {
        let drops_root_slash = || {
            self.rules
                .iter()
                .any(|r| matches!(r, Rule::RemoveTrailingSlash(s) if s.mode == TrailingSlash::All))
        };
        match self.key_form {
            KeyForm::WebKey => false,
            _ if self.front == FrontEnd::Document => false,
            KeyForm::Url => !drops_root_slash(),
            KeyForm::Href => true,
        }
    }
}
