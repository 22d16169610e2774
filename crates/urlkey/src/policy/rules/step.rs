//! What a rule of the catalogue is: the [`Step`] each rule's type implements (its name, its
//! risk class, when it can change anything, and its work), and the [`RiskClass`] it has.

use crate::psl::PublicSuffixList;

use super::need;
use crate::policy::parts::{Log, Parts};

/// How much a merge made by a rule can be trusted without looking at the pages.
///
/// * `lossless`: what the URL Standard itself does to every URL (host and scheme case,
///   the default port, an empty path as `/`): no server can tell the forms apart.
/// * `documented`: a removal a published source vouches for: tracking parameters from a
///   sourced registry, the fragment and the userinfo (never sent in the request), escapes
///   of unreserved characters (RFC 3986, section 6.2.2.2, calls them equivalent).
/// * `risky`: a server may answer the forms differently: trailing slash, parameter order,
///   empty parameters and queries, path case, duplicate slashes, default documents, `www.`,
///   a root dot, the registrable domain, an assumed scheme, an opaque URL's query, a
///   redirect wrapper replaced by its target. A key merged by a risky rule is a merge to
///   review until the pages are compared.
///
/// ```
/// use urlkey::risk::{risk_of, RiskClass};
/// assert_eq!(risk_of("whatwg-parse"), Some(RiskClass::Lossless));
/// assert_eq!(risk_of("remove-trailing-slash"), Some(RiskClass::Risky));
/// assert!(RiskClass::Lossless < RiskClass::Risky);
/// assert_eq!(RiskClass::Documented.as_str(), "documented");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RiskClass {
    /// What the URL Standard does anyway.
    Lossless,
    /// Vouched for by a published source.
    Documented,
    /// A server may tell the forms apart.
    Risky,
}

impl RiskClass {
    /// `lossless`, `documented` or `risky`.
    ///
    /// ```
    /// assert_eq!(urlkey::risk::RiskClass::Risky.as_str(), "risky");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            RiskClass::Lossless => "lossless",
            RiskClass::Documented => "documented",
            RiskClass::Risky => "risky",
        }
    }
}

/// Two inputs that only the rule makes meet: under a policy file of this parser with the
/// rule alone, `before` gets the key of `after` (which the rule leaves as it is), and under
/// the parser with no rule they keep two keys. The command line's tests run every rule's
/// example through `urlkey explain`, and docs/policies.md's catalogue can show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Example {
    /// The policy file's `parser` (`whatwg` or `document`).
    pub parser: &'static str,
    /// An input the rule changes.
    pub before: &'static str,
    /// An input with the key the rule gives `before`, which the rule does not change.
    pub after: &'static str,
}

/// One rule of the catalogue. Each rule's file (`policy/rules/<name>.rs`) implements it for
/// the rule's type, which is the payload of its [`super::Rule`] arm; the enum's methods
/// reach it through the one `match` the catalogue macro writes for each.
pub(crate) trait Step {
    /// The rule's name in policy files, records and `docs/policies.md` (kebab-case, the
    /// same as serde's name of its arm: a test compares them).
    const NAME: &'static str;
    /// Its class in `docs/policies.md`, "The rule catalogue" (a test compares them).
    const RISK: RiskClass;
    /// True for rules that shape the canonical form (removals a reader of the URL would
    /// expect gone); the others shape only the key.
    const CANONICAL: bool = false;
    /// Two inputs only this rule makes meet ([`Example`]).
    const EXAMPLE: Example;

    /// A necessary condition for [`Step::apply`] to change the parts or the log, as
    /// [`need`] bits: when [`need::present`] has none of them, the rule does nothing (its
    /// [`Step::may_apply`] is false, or its `apply` returns at its first test). A rule with
    /// no cheaper test of its own needs [`need::ALWAYS`].
    fn needs(&self) -> u16 {
        need::ALWAYS
    }

    /// False when the rule certainly leaves `p` (and the log) alone: a test of a field or
    /// two, inlined into the rule loops, so that a rule with nothing to do costs no call.
    /// True means "maybe"; [`Step::apply`] decides.
    fn may_apply(&self, p: &Parts<'_>) -> bool;

    /// Applies the rule. A component that only shrinks (a trailing `/`, `www.`, a default
    /// document) stays borrowed from the input: the lean key path allocates only for text
    /// that is really new.
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, psl: Option<&PublicSuffixList>);
}
