//! A policy's entry points that only urlkey's own crates call, re-exported as
//! `urlkey::internals::PolicyInternals` (no stability promise): the lean row and
//! signature paths of `map` and `diff`, the definition, and the fast-path switches the
//! benchmarks and the fuzz targets compare.

use super::front::Schemes;
use super::{trim_for, FrontEnd, Policy, PolicyDef};
use crate::error::ErrorCode;
use crate::fast::FastUrl;

/// A policy's entry points that only urlkey's own crates call: implemented by
/// [`crate::Policy`]; bring it into scope with `use urlkey::internals::PolicyInternals`.
pub trait PolicyInternals {
    /// The definition: front end, rules, key form.
    fn definition(&self) -> &PolicyDef;

    /// [`crate::Policy::key_into`] that also writes the grouping signature (the
    /// `signature` of [`crate::Policy::key`]'s outcome) into `signature`.
    fn key_signature_into(
        &self,
        input: &str,
        key: &mut String,
        signature: &mut String,
    ) -> Result<(), ErrorCode>;

    /// [`PolicyInternals::key_signature_into`] that also gives the names of the tracking
    /// parameters it removed (the outcome's `removed_params`, in order) in `removed`: what
    /// a `urlkey map` CSV row shows of a valid record.
    fn key_row_into(
        &self,
        input: &str,
        key: &mut String,
        signature: &mut String,
        removed: &mut Vec<String>,
    ) -> Result<(), ErrorCode>;

    /// This policy with the verified fast parse turned off: every input goes through ada.
    fn without_fast_path(&self) -> crate::Policy;

    /// True when the policy tries the fast parse before ada.
    fn has_fast_path(&self) -> bool;

    /// True when [`crate::Policy::key`] would take this input through the fast parse.
    fn takes_fast_path(&self, input: &str) -> bool;

    /// True when the policy refuses this input before parsing it (a scheme other than
    /// http(s) on which the parser provably cannot fail).
    fn refuses_early(&self, input: &str) -> bool;
}

/// The engine's own entry points for the sibling crates (see [`crate::internals`]).
impl PolicyInternals for Policy {
    fn definition(&self) -> &PolicyDef {
        &self.def
    }

    /// [`Policy::key_into`] that also writes the grouping signature (the `signature` of
    /// [`Policy::key`]'s outcome) into `signature`.
    fn key_signature_into(
        &self,
        input: &str,
        key: &mut String,
        signature: &mut String,
    ) -> Result<(), ErrorCode> {
        key.clear();
        signature.clear();
        self.run(input, None, true, |parts, log, href| {
            self.lean(parts, log, href, key, Some(signature))
        })
        .map_err(|e| e.code)
    }

    /// [`PolicyInternals::key_signature_into`](crate::internals::PolicyInternals::key_signature_into) that also gives the names of the tracking
    /// parameters it removed (the outcome's `removed_params`, in order) in `removed`
    /// (cleared first): what a `urlkey map` CSV row shows of a valid record, without
    /// the canonical form, facts or transformation log. An error gives only its code:
    /// take [`Policy::key`] for its message.
    ///
    /// ```
    /// use urlkey::internals::PolicyInternals;
    /// let mapper = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
    /// let (mut key, mut sig, mut removed) = (String::new(), String::new(), Vec::new());
    /// mapper
    ///     .key_row_into("https://example.net/a?utm_source=x&b=2", &mut key, &mut sig, &mut removed)
    ///     .unwrap();
    /// assert_eq!(key, "https://example.net/a?b=2");
    /// assert_eq!(removed, ["utm_source"]);
    /// ```
    fn key_row_into(
        &self,
        input: &str,
        key: &mut String,
        signature: &mut String,
        removed: &mut Vec<String>,
    ) -> Result<(), ErrorCode> {
        key.clear();
        signature.clear();
        removed.clear();
        self.run(input, None, true, |parts, mut log, href| {
            log.keep_removed = true;
            self.lean_log(parts, &mut log, href, key, Some(signature));
            removed.append(&mut log.removed_params);
        })
        .map_err(|e| e.code)
    }

    /// This policy with the verified fast parse (`crate::internals::fast`) turned off: every
    /// input goes through ada. For the tests that compare the two paths.
    fn without_fast_path(&self) -> Policy {
        Policy {
            fast_parse: false,
            ..self.clone()
        }
    }

    /// True when the policy tries the fast parse before ada (its front end allows it and
    /// `without_fast_path` did not turn it off).
    fn has_fast_path(&self) -> bool {
        self.fast_parse
    }

    /// True when [`Policy::key`] would take this input through the fast parse
    /// (`crate::internals::fast`) instead of ada.
    fn takes_fast_path(&self, input: &str) -> bool {
        if !self.fast_parse || input.len() > self.max_input_bytes {
            return false;
        }
        // `mapper` runs its precheck only when the fast parse declines (`Policy::run`): the
        // comparison with the fast path off checks that the precheck accepts the rest.
        let (text, _) = trim_for(self.def.front, input);
        FastUrl::parse(text).is_some()
    }

    /// True when the policy refuses this input before parsing it, because its scheme is
    /// not http(s) and the parser provably cannot fail on it
    /// ([`crate::fast::non_web_scheme_that_parses`]).
    fn refuses_early(&self, input: &str) -> bool {
        if !self.fast_parse || input.len() > self.max_input_bytes {
            return false;
        }
        match self.def.front {
            FrontEnd::Whatwg {
                schemes: Schemes::Web(_),
                infer_scheme: false,
            } => {
                let (text, _) = trim_for(self.def.front, input);
                crate::fast::non_web_scheme_that_parses(text).is_some()
            }
            _ => false,
        }
    }
}
