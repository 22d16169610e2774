//! The rule catalogue. Each rule reads and rewrites [`Parts`] and records what it changed
//! under its own name; `docs/policies.md`, "The rule catalogue", documents every rule under
//! that name.
//!
//! A rule lives in one file, `policy/rules/<name>.rs`: its type (the payload of its
//! [`Rule`] arm, whose serde form is its policy-file form), its docs, and its `Step`
//! (`step.rs`: name, risk class, an example pair, needs, `may_apply`, `apply`). Adding one is that file,
//! its `mod` line and its arm in [`Rule`] below, and its row in docs/policies.md: the
//! catalogue macro writes every `match` over the arms, and [`Rule::names`] reads the names
//! from serde, so no list of rule names is kept anywhere else.

mod edit;
mod escapes;
pub(crate) mod need;
mod serde_form;
mod step;

mod collapse_slashes;
mod decode_unreserved;
mod drop_credentials;
mod drop_default_document;
mod drop_empty_parameters;
mod drop_empty_query;
mod drop_opaque_query;
mod empty_path_to_root;
mod lowercase_host;
mod lowercase_path;
mod lowercase_scheme;
mod normalize_port;
mod registrable_domain;
mod remove_fragment;
mod remove_tracking_parameters;
mod remove_trailing_slash;
mod sort_query;
mod strip_root_dot;
mod strip_www;
mod unwrap_redirect;

#[cfg(test)]
mod tests;

pub use drop_default_document::DEFAULT_DOCUMENTS;
pub use remove_trailing_slash::TrailingSlash;
pub use sort_query::SortOrder;
pub use step::{Example, RiskClass};

pub(super) use drop_default_document::is_default_document;
pub(super) use lowercase_path::lowercase_whole_path;
pub(super) use need::present;
pub(super) use registrable_domain::registrable_domain;
pub(super) use remove_trailing_slash::drop_final_slash;

use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;

use serde_form::no_parameters;
use step::Step;

/// Writes [`Rule`] from its arms, one per rule type, with `pub use` of each type and the
/// methods that reach each type's [`Step`]: one `match` per method, written here once, so
/// an arm is the only line a rule adds to this file besides its `mod`.
macro_rules! catalogue {
    (
        $(#[$enum_meta:meta])*
        pub enum Rule {
            $(
                $(#[$arm_meta:meta])*
                $variant:ident($module:ident::$step:ident),
            )*
        }
    ) => {
        $( pub use $module::$step; )*

        $(#[$enum_meta])*
        pub enum Rule {
            $(
                $(#[$arm_meta])*
                $variant($step),
            )*
        }

        impl Rule {
            /// The rule's name in records and in `docs/policies.md`.
            pub const fn name(&self) -> &'static str {
                match self {
                    $( Rule::$variant(_) => <$step as Step>::NAME, )*
                }
            }

            /// How far a merge made by this rule can be trusted ([`RiskClass`]).
            pub const fn risk(&self) -> RiskClass {
                match self {
                    $( Rule::$variant(_) => <$step as Step>::RISK, )*
                }
            }

            /// True for rules that shape the canonical form (removals a reader of the URL
            /// would expect gone); the others shape only the key.
            pub const fn is_canonical(&self) -> bool {
                match self {
                    $( Rule::$variant(_) => <$step as Step>::CANONICAL, )*
                }
            }

            /// False when the rule certainly leaves `p` (and the log) alone: a test of a
            /// field or two, inlined into the rule loops, so that a rule with nothing to do
            /// costs no call. True means "maybe"; [`Rule::apply`] decides.
            #[inline(always)]
            pub fn may_apply(&self, p: &Parts<'_>) -> bool {
                match self {
                    $( Rule::$variant(rule) => rule.may_apply(p), )*
                }
            }

            /// Applies the rule. A component that only shrinks (a trailing `/`, `www.`, a
            /// default document) stays borrowed from the input: the lean key path
            /// allocates only for text that is really new.
            pub fn apply<'a>(
                &self,
                p: &mut Parts<'a>,
                log: &mut Log,
                psl: Option<&PublicSuffixList>,
            ) {
                match self {
                    $( Rule::$variant(rule) => rule.apply(p, log, psl), )*
                }
            }

            /// A necessary condition for [`Rule::apply`] to change the parts or the log, as
            /// [`need`] bits: when [`present`] has none of them, the rule does nothing.
            pub(crate) fn needs(&self) -> u16 {
                match self {
                    $( Rule::$variant(rule) => rule.needs(), )*
                }
            }

            /// Each rule's name and its [`Example`], in catalogue order.
            pub fn examples() -> Vec<(&'static str, Example)> {
                vec![ $( (<$step as Step>::NAME, <$step as Step>::EXAMPLE), )* ]
            }

            /// The risk class of the rule named `name`, None for a name not in the
            /// catalogue.
            fn risk_of_name(name: &str) -> Option<RiskClass> {
                $(
                    if name == <$step as Step>::NAME {
                        return Some(<$step as Step>::RISK);
                    }
                )*
                None
            }
        }
    };
}

catalogue! {
    /// One rule of a policy.
    ///
    /// A policy file names a rule as `{ rule = "<name>", <parameter> = ... }` (docs/policies.md,
    /// "The rule catalogue"): this enum is that form, through serde. Each arm holds its rule's
    /// type, whose serde form reads the parameters; a rule without parameters refuses any
    /// (`no_parameters`). Unknown names and unknown parameters are errors that name the line.
    #[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
    #[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields)]
    pub enum Rule {
        /// Removes the tracking parameters of a set; their names go to `removed_params`.
        RemoveTrackingParameters(remove_tracking_parameters::RemoveTrackingParameters),
        /// Removes the fragment; with `keep_routes`, `#!` and `#/` fragments stay.
        RemoveFragment(remove_fragment::RemoveFragment),
        /// Drops username and password from the key.
        #[serde(deserialize_with = "no_parameters")]
        DropCredentials(drop_credentials::DropCredentials),
        /// Collapses runs of `/` in the path to one.
        #[serde(deserialize_with = "no_parameters")]
        CollapseSlashes(collapse_slashes::CollapseSlashes),
        /// Sorts the query parameters.
        SortQuery(sort_query::SortQuery),
        /// Drops empty pieces (nothing between two `&`) from the query.
        #[serde(deserialize_with = "no_parameters")]
        DropEmptyParameters(drop_empty_parameters::DropEmptyParameters),
        /// A query left empty (`?` alone) disappears.
        #[serde(deserialize_with = "no_parameters")]
        DropEmptyQuery(drop_empty_query::DropEmptyQuery),
        /// Removes a trailing `/` from the path.
        RemoveTrailingSlash(remove_trailing_slash::RemoveTrailingSlash),
        /// Removes a leading `www.` label from a domain host.
        #[serde(deserialize_with = "no_parameters")]
        StripWww(strip_www::StripWww),
        /// Drops a root `.` at the end of a domain host.
        #[serde(deserialize_with = "no_parameters")]
        StripRootDot(strip_root_dot::StripRootDot),
        /// Reduces a domain host to its registrable domain (Public Suffix List).
        #[serde(deserialize_with = "no_parameters")]
        RegistrableDomain(registrable_domain::RegistrableDomain),
        /// Decodes `%XX` escapes of unreserved characters and uppercases other escapes
        /// (hierarchical paths only; an opaque path is left alone).
        #[serde(deserialize_with = "no_parameters")]
        DecodeUnreserved(decode_unreserved::DecodeUnreserved),
        /// Lowercases ASCII letters of the path (escapes keep their hex digits); an opaque
        /// path is lowercased whole.
        #[serde(deserialize_with = "no_parameters")]
        LowercasePath(lowercase_path::LowercasePath),
        /// Drops a final default-document segment (`index.html`, `default.aspx`, ...).
        #[serde(deserialize_with = "no_parameters")]
        DropDefaultDocument(drop_default_document::DropDefaultDocument),
        /// An opaque-path URL's key has no query (unless the opaque path is empty).
        #[serde(deserialize_with = "no_parameters")]
        DropOpaqueQuery(drop_opaque_query::DropOpaqueQuery),
        /// Lowercases the scheme (`document@1`; the WHATWG parser already does).
        #[serde(deserialize_with = "no_parameters")]
        LowercaseScheme(lowercase_scheme::LowercaseScheme),
        /// Lowercases an ASCII host (`document@1`; no IDNA).
        #[serde(deserialize_with = "no_parameters")]
        LowercaseHost(lowercase_host::LowercaseHost),
        /// Writes the port as its decimal value and drops the scheme's default port
        /// (`document@1`; the WHATWG parser already does).
        #[serde(deserialize_with = "no_parameters")]
        NormalizePort(normalize_port::NormalizePort),
        /// An empty path becomes `/`.
        #[serde(deserialize_with = "no_parameters")]
        EmptyPathToRoot(empty_path_to_root::EmptyPathToRoot),
        /// Replaces a redirect wrapper (`l.facebook.com/l.php?u=...`, Outlook Safe Links, the
        /// others of [`crate::unwrap::WRAPPERS`]) by the absolute http(s) URL in its query,
        /// up to [`crate::unwrap::MAX_DEPTH`] wrappers deep. Nothing is fetched.
        #[serde(deserialize_with = "no_parameters")]
        UnwrapRedirect(unwrap_redirect::UnwrapRedirect),
    }
}

impl Rule {
    /// Every rule name of the catalogue, in declaration order: the names a policy file may
    /// write and a transformation may carry (besides the front ends' `whatwg-parse` and
    /// `assume-https`). Read from the enum's own serde form, so the list is kept nowhere.
    pub fn names() -> &'static [&'static str] {
        static NAMES: std::sync::OnceLock<&'static [&'static str]> = std::sync::OnceLock::new();
        NAMES.get_or_init(|| serde_form::variant_names::<Rule>("rule"))
    }
}

/// The class of the step named `name` as recorded in transformations: a rule of the
/// catalogue ([`Rule::risk`]), or one of the two names the front ends record, which are
/// not rules: `whatwg-parse` (the URL Standard's own serialization, lossless) and
/// `assume-https` (a scheme the input did not write, risky). None for a name urlkey does
/// not know.
///
/// ```
/// use urlkey::risk::{risk_of, RiskClass};
/// assert_eq!(risk_of("assume-https"), Some(RiskClass::Risky));
/// assert_eq!(risk_of("remove-tracking-parameters"), Some(RiskClass::Documented));
/// assert_eq!(risk_of("no-such-rule"), None);
/// ```
pub fn risk_of(name: &str) -> Option<RiskClass> {
    match name {
        "whatwg-parse" => Some(RiskClass::Lossless),
        "assume-https" => Some(RiskClass::Risky),
        _ => Rule::risk_of_name(name),
    }
}

/// True when the last of `rules` is `remove-trailing-slash` (non-root) and no rule before
/// it needs a non-root final `/`: for a URL whose only [`need`] of these rules is
/// [`need::NON_ROOT_FINAL_SLASH`], running the list is [`drop_final_slash`] alone.
pub(crate) fn lone_last_non_root_slash_rule(rules: &[Rule]) -> bool {
    match rules.split_last() {
        Some((
            Rule::RemoveTrailingSlash(RemoveTrailingSlash {
                mode: TrailingSlash::NonRoot,
            }),
            before,
        )) => before
            .iter()
            .all(|r| r.needs() & need::NON_ROOT_FINAL_SLASH == 0),
        _ => false,
    }
}

/// The [`need`] bits of `rules` together.
pub(crate) fn needs_of(rules: &[Rule]) -> u16 {
    rules.iter().fold(0, |n, r| n | r.needs())
}

/// Runs `rules` in order; a rule that [`Rule::may_apply`] rules out costs no call.
#[inline]
pub(crate) fn apply_all<'a>(
    rules: &[Rule],
    p: &mut Parts<'a>,
    log: &mut Log,
    psl: Option<&PublicSuffixList>,
) {
    for rule in rules {
        if rule.may_apply(p) {
            rule.apply(p, log, psl);
        }
    }
}
