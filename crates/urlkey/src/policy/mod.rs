//! Policies: named, versioned, ordered lists of rules.
//!
//! A policy id is `name@version`, with options after `+` (`citation@1+keep-trailing-slash`);
//! the id alone determines the output. The run is: trim the text as the front end's seed
//! says (`trim_for`), a front end ([`FrontEnd`]) parses it into
//! [`Parts`], the canonical rules run (the canonical form is taken), the key rules run,
//! and the [`KeyForm`] writes the key.
//!
//! Here: a definition ([`PolicyDef`]), its errors and the run ([`Policy`]). Beside it: the
//! set that hands policies out (`set.rs`), the builtins, one file each (`builtin/`),
//! policy files (`file.rs`), front ends (`front.rs`), the rule catalogue (`rules.rs`), key
//! forms and the signature (`key_form.rs`), and what a record says besides the key
//! (`record.rs`).

pub(crate) mod builtin;
pub(crate) mod def;
pub mod defaults;
mod file;
pub(crate) mod front;
mod fused;
pub(crate) mod internal_api;
pub(crate) mod key_form;
pub(crate) mod parts;
mod record;
pub(crate) mod rules;
mod set;

use std::borrow::Cow;
use std::sync::Arc;

use crate::error::{ErrorCode, KeyError};
use crate::fast::FastUrl;
use crate::outcome::{Component, Fact, Outcome};
use crate::psl::PublicSuffixList;
use crate::text;
use crate::web::WebUrl;

pub use builtin::BUILTIN_IDS;
pub use set::{PolicyInfo, PolicySet};

pub(crate) use def::PolicyDef;
pub(crate) use front::{FrontEnd, Schemes};
pub(crate) use key_form::KeyForm;
pub(crate) use parts::{Log, Parts};
pub(crate) use rules::{Rule, TrailingSlash};

use key_form::{write_signature, write_webkey};
use record::{explain_assumed_scheme, initial_facts, record_parse_changes};

/// The default limit on one input, in bytes (64 KiB).
///
/// ```
/// use urlkey::policy::DEFAULT_MAX_INPUT_BYTES;
/// let citation = urlkey::PolicySet::builtin().get("citation@1").unwrap();
/// let long = format!("https://example.net/{}", "a".repeat(DEFAULT_MAX_INPUT_BYTES));
/// assert_eq!(citation.key(&long).error.unwrap().code.as_str(), "input.too-long");
/// ```
pub const DEFAULT_MAX_INPUT_BYTES: usize = 64 * 1024;

/// A policy that cannot be had, or a policy file that cannot be used. Each has a stable
/// code ([`PolicyError::code`]) that the Python module and the web API answer with.
///
/// ```
/// use urlkey::PolicyError;
/// match urlkey::PolicySet::builtin().get("nope@1") {
///     Err(e @ PolicyError::Unknown { .. }) => {
///         assert_eq!(e.code().as_str(), "policy.unknown");
///         assert!(e.to_string().contains("known policies: "));
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PolicyError {
    /// No policy has this id.
    Unknown {
        /// The id asked for.
        id: String,
        /// The ids there are.
        known: Vec<String>,
    },
    /// An option after `+` that the policy does not have.
    UnknownOption {
        /// The id asked for.
        id: String,
        /// The option.
        option: String,
        /// The options there are.
        allowed: Vec<String>,
    },
    /// A policy file that does not parse or names an unknown rule or parameter.
    File {
        /// Where (file name or `<policy file>`), and the line where known.
        origin: String,
        /// What is wrong.
        message: String,
    },
}

impl PolicyError {
    /// The stable code: [`ErrorCode::PolicyUnknown`] (`policy.unknown`),
    /// [`ErrorCode::PolicyUnknownOption`] (`policy.unknown-option`) or
    /// [`ErrorCode::PolicyFile`] (`policy.file`).
    ///
    /// ```
    /// let e = urlkey::PolicySet::builtin().get("citation@1+nope").unwrap_err();
    /// assert_eq!(e.code(), urlkey::ErrorCode::PolicyUnknownOption);
    /// assert_eq!(e.code().as_str(), "policy.unknown-option");
    /// ```
    pub const fn code(&self) -> ErrorCode {
        match self {
            PolicyError::Unknown { .. } => ErrorCode::PolicyUnknown,
            PolicyError::UnknownOption { .. } => ErrorCode::PolicyUnknownOption,
            PolicyError::File { .. } => ErrorCode::PolicyFile,
        }
    }
}

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PolicyError::Unknown { id, known } => write!(
                f,
                "unknown policy {id:?}; known policies: {}",
                known.join(", ")
            ),
            PolicyError::UnknownOption {
                id,
                option,
                allowed,
            } => {
                if allowed.is_empty() {
                    write!(
                        f,
                        "policy {id:?}: option {option:?} is unknown; this policy takes no options"
                    )
                } else {
                    write!(
                        f,
                        "policy {id:?}: option {option:?} is unknown; options: {}",
                        allowed.join(", ")
                    )
                }
            }
            PolicyError::File { origin, message } => write!(f, "{origin}: {message}"),
        }
    }
}

impl std::error::Error for PolicyError {}

/// A policy ready to run. Cheap to clone; `Send + Sync`.
///
/// ```
/// let policies = urlkey::PolicySet::builtin();
/// let citation = policies.get("citation@1").unwrap();
/// let o = citation.key("https://research.example.net/report/?gclid=example");
/// assert_eq!(o.key.as_deref(), Some("https://research.example.net/report"));
/// assert_eq!(o.rule_names(), ["remove-tracking-parameters", "remove-trailing-slash"]);
/// ```
#[derive(Debug, Clone)]
pub struct Policy {
    def: Arc<PolicyDef>,
    /// The rules that shape the canonical form, then the key-only rules, each in order.
    canonical_rules: Arc<[Rule]>,
    key_rules: Arc<[Rule]>,
    /// What a URL must have for a rule of each list to change anything
    /// ([`rules::need`]): the lean key path skips a list whose needs a URL lacks.
    canonical_needs: u16,
    key_needs: u16,
    /// The last key rule is `remove-trailing-slash` (non-root) and no other needs a
    /// non-root final `/` ([`rules::lone_last_non_root_slash_rule`]).
    key_slash_rule_last: bool,
    /// A single-pass path for this exact rule list, if there is one.
    fused: fused::Fused,
    /// Try [`FastUrl`] before ada ([`fast_parse_applies`]).
    fast_parse: bool,
    /// A list given with `--psl`; `None` reads the embedded snapshot, parsed on first use.
    psl: Option<PublicSuffixList>,
    psl_version: Arc<str>,
    uses_psl: bool,
    max_input_bytes: usize,
}

impl Policy {
    /// The id, e.g. `citation@1`.
    ///
    /// ```
    /// let p = urlkey::PolicySet::builtin().get("citation@1+keep-trailing-slash").unwrap();
    /// assert_eq!(p.id(), "citation@1+keep-trailing-slash");
    /// assert!(!p.description().is_empty());
    /// assert!(!p.accepts_base() && !p.uses_psl());
    /// let webkey = urlkey::PolicySet::builtin().get("webkey@1").unwrap();
    /// assert!(webkey.uses_psl());
    /// ```
    pub fn id(&self) -> &str {
        &self.def.id
    }

    /// The one-line description.
    ///
    /// ```
    /// let p = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
    /// assert!(p.description().starts_with("Legacy URL Mapper"));
    /// ```
    pub fn description(&self) -> &str {
        &self.def.description
    }

    /// True when the policy resolves relative input against a base (`whatwg@1`).
    ///
    /// ```
    /// let set = urlkey::PolicySet::builtin();
    /// assert!(set.get("whatwg@1").unwrap().accepts_base());
    /// assert!(!set.get("citation@1").unwrap().accepts_base());
    /// ```
    pub fn accepts_base(&self) -> bool {
        self.def.accepts_base
    }

    /// True when the policy reads the Public Suffix List.
    ///
    /// ```
    /// let set = urlkey::PolicySet::builtin();
    /// assert!(set.get("webkey@1").unwrap().uses_psl());
    /// assert!(!set.get("mapper@1").unwrap().uses_psl());
    /// ```
    pub fn uses_psl(&self) -> bool {
        self.uses_psl
    }

    /// Runs the policy on one observation. Never panics; bad input gives an invalid
    /// outcome with a stable code.
    ///
    /// ```
    /// let mapper = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
    /// assert_eq!(mapper.key("HTTP://Example.net:80/a").key.as_deref(), Some("http://example.net/a"));
    /// assert!(mapper.key("not a url").error.is_some());
    /// ```
    pub fn key(&self, input: &str) -> Outcome {
        self.key_with_base(input, None)
    }

    /// Runs the policy, resolving relative input against `base` when the policy
    /// accepts one (others ignore it; the CLI refuses the combination).
    ///
    /// ```
    /// let whatwg = urlkey::PolicySet::builtin().get("whatwg@1").unwrap();
    /// assert!(whatwg.accepts_base());
    /// let o = whatwg.key_with_base("../b?x=1", Some("https://example.net/a/c"));
    /// assert_eq!(o.key.as_deref(), Some("https://example.net/b?x=1"));
    /// ```
    pub fn key_with_base(&self, input: &str, base: Option<&str>) -> Outcome {
        match self.run(input, base, false, |parts, log, href| {
            self.finish(parts, log, href)
        }) {
            Ok(o) => o,
            Err(e) => Outcome::invalid(e),
        }
    }

    /// The lean key path: writes only the key into `out` (cleared first), or returns
    /// the error code. It runs the same front end and rules as [`Policy::key`] and gives
    /// the same key, byte for byte, but builds no canonical form, signature, facts,
    /// transformation log or error message, so a caller that reuses `out` allocates
    /// only for components a rule really rewrites. Use [`Policy::key`] for the rest.
    ///
    /// ```
    /// let citation = urlkey::PolicySet::builtin().get("citation@1").unwrap();
    /// let mut key = String::new();
    /// citation.key_into("https://Example.net/a/?utm_source=x&b=2&a=1#top", &mut key).unwrap();
    /// assert_eq!(key, "https://example.net/a?a=1&b=2");
    /// assert_eq!(
    ///     citation.key_into("mailto:someone@example.net", &mut key),
    ///     Err(urlkey::ErrorCode::CitationUnsupportedScheme)
    /// );
    /// assert_eq!(key, "");
    /// ```
    pub fn key_into(&self, input: &str, out: &mut String) -> Result<(), ErrorCode> {
        out.clear();
        if self.fused == fused::Fused::Document && input.len() <= self.max_input_bytes {
            // document@1 trims nothing (white space at either end is refused like inside:
            // docs/policies.md, the `document` front end): the fused pass reads the input as given.
            if let Some(done) = fused::document(input, out) {
                return done;
            }
            out.clear();
        }
        self.run(input, None, true, |parts, log, href| {
            self.lean(parts, log, href, out, None)
        })
        .map_err(|e| e.code)
    }

    /// The front end: trims, refuses or parses, and hands the parts, the log so far and
    /// the parser's serialization (when the parts come from one) to `then`. A `quiet`
    /// run builds no log text and no error message (the code is all it returns).
    fn run<R>(
        &self,
        input: &str,
        base: Option<&str>,
        quiet: bool,
        then: impl FnOnce(Parts<'_>, Log, Option<&str>) -> R,
    ) -> Result<R, KeyError> {
        if input.len() > self.max_input_bytes {
            return Err(front::refuse(ErrorCode::InputTooLong, quiet, || {
                crate::error::too_long_message(input.len(), self.max_input_bytes)
            }));
        }
        let (text, trimmed_at) = trim_for(self.def.front, input);
        let base = if self.def.accepts_base { base } else { None };
        let mut log = Log {
            quiet,
            ..Log::default()
        };
        match self.def.front {
            FrontEnd::Whatwg {
                schemes,
                infer_scheme,
            } => {
                let (to_parse, assumed) = if infer_scheme {
                    front::whatwg_input(text)
                } else {
                    (Cow::Borrowed(text), false)
                };
                // Plain http(s) text needs no state machine (`crate::fast`): it is
                // accepted by either scheme list.
                let fast = match (self.fast_parse, base, &to_parse) {
                    (true, None, Cow::Borrowed(t)) => FastUrl::parse(t),
                    _ => None,
                };
                // Else a policy that refuses other schemes refuses them before parsing when
                // the parser provably cannot fail on the text
                // ([`crate::fast::non_web_scheme_that_parses`]): the same code, and the
                // same message (the parser's scheme is the written one, lowercased).
                if let (true, None, false, Schemes::Web(code)) =
                    (fast.is_none() && self.fast_parse, base, assumed, schemes)
                {
                    if let Some(s) = crate::fast::non_web_scheme_that_parses(&to_parse) {
                        let s: Cow<'_, str> = if quiet || !s.bytes().any(|c| c.is_ascii_uppercase())
                        {
                            Cow::Borrowed(s)
                        } else {
                            Cow::Owned(s.to_ascii_lowercase())
                        };
                        return Err(front::unsupported_scheme(code, &s, quiet));
                    }
                }
                let url;
                let u = match &fast {
                    Some(f) => f.pieces(),
                    None => {
                        url = WebUrl::parse(&to_parse, base).map_err(|e| {
                            if assumed && !quiet {
                                explain_assumed_scheme(e)
                            } else {
                                e
                            }
                        })?;
                        // Refuse before slicing the components: most refused lines stop here.
                        front::check_scheme(&url, schemes, quiet)?;
                        url.pieces()
                    }
                };
                log.scheme_assumed = assumed;
                if assumed && !quiet {
                    log.record(
                        "assume-https",
                        Component::Scheme,
                        String::new(),
                        "https".into(),
                    );
                }
                let parts = front::parts_from_url(&u, false, quiet)?;
                if base.is_none() && !quiet {
                    record_parse_changes(text, !assumed, u.href, &parts, &mut log);
                }
                Ok(then(parts, log, Some(u.href)))
            }
            FrontEnd::Mapper => {
                // Text the fast parse takes is printable ASCII that starts with `http://`
                // or `https://` (in any case): the precheck finds no white space or
                // control in it and accepts its scheme (`Ok(None)`), so it is not run.
                let fast = if self.fast_parse {
                    FastUrl::parse(text)
                } else {
                    None
                };
                let base = match fast {
                    Some(_) => None,
                    None => front::mapper_precheck(text, trimmed_at, quiet)?,
                };
                let path_only = base.is_some();
                let url;
                let u = match &fast {
                    Some(f) => f.pieces(),
                    None => {
                        url = WebUrl::parse(text, base)?;
                        url.pieces()
                    }
                };
                let parts = front::parts_from_url(&u, path_only, quiet)?;
                if !quiet {
                    record_parse_changes(text, !path_only, u.href, &parts, &mut log);
                }
                Ok(then(parts, log, (!path_only).then_some(u.href)))
            }
            FrontEnd::Document => {
                let parts = front::document_parts(text, quiet)?;
                Ok(then(parts, log, None))
            }
        }
    }

    /// The Public Suffix List, for policies that read it. Parsing the embedded list
    /// costs milliseconds: only policies that read it pay for it.
    fn psl(&self) -> Option<&PublicSuffixList> {
        self.uses_psl.then(|| {
            self.psl
                .as_ref()
                .unwrap_or_else(|| PublicSuffixList::embedded_static())
        })
    }

    /// The lean end of [`Policy::key_into`]: the rules with a quiet log, then the key.
    fn lean(
        &self,
        parts: Parts<'_>,
        mut log: Log,
        href: Option<&str>,
        key: &mut String,
        signature: Option<&mut String>,
    ) {
        self.lean_log(parts, &mut log, href, key, signature);
        // A quiet log's lists stay empty and unallocated: nothing to free, so its drop
        // (an out-of-line call per URL) is skipped. A log that did allocate is dropped.
        if log.transformations.capacity() == 0 && log.removed_params.capacity() == 0 {
            std::mem::forget(log);
        }
    }

    /// [`Policy::lean`] on a log the caller reads afterwards.
    fn lean_log(
        &self,
        mut parts: Parts<'_>,
        log: &mut Log,
        href: Option<&str>,
        key: &mut String,
        signature: Option<&mut String>,
    ) {
        // What the URL has of what the rules need ([`rules::need`]), looked at once: taken
        // again only after a canonical rule ran (it may have removed the query, say).
        let mut has = 0;
        if self.fused == fused::Fused::WebKey {
            // webkey@1's canonical rules (remove-tracking-parameters, remove-fragment)
            // work on a query or a fragment only: most URLs have neither.
            if parts.query.is_some() || parts.fragment.is_some() {
                rules::apply_all(&self.canonical_rules, &mut parts, log, self.psl());
            }
        } else {
            has = rules::present(&parts, self.canonical_needs | self.key_needs);
            if has & self.canonical_needs != 0 {
                rules::apply_all(&self.canonical_rules, &mut parts, log, self.psl());
                has = rules::present(&parts, self.key_needs);
            }
        }
        if self.def.key_form == KeyForm::Href {
            // The key is the canonical form: the href itself unless a rule changed a part.
            match href {
                Some(h) if !log.changed_by_rules() => key.push_str(h),
                _ => parts.write_url(key, true, true),
            }
        }
        // True when the key rules' one change was a non-root final `/` dropped.
        let mut slash_only = false;
        if self.fused == fused::Fused::WebKey {
            fused::webkey_key_rules(&mut parts, log, self.psl());
        } else if has & self.key_needs == rules::need::NON_ROOT_FINAL_SLASH
            && self.key_slash_rule_last
        {
            // A non-root final `/` is all the URL has of what the key rules need, and the
            // one rule that needs it is the last (`remove-trailing-slash`, non-root; a
            // third of web URLs): the rules before it find nothing to do, so it runs alone.
            rules::drop_final_slash(&mut parts, log);
            slash_only = log.changes == 1;
        } else if has & self.key_needs != 0 {
            rules::apply_all(&self.key_rules, &mut parts, log, self.psl());
        }
        match self.def.key_form {
            KeyForm::Href => {}
            // Nothing changed: every part is the parse's, and the URL form of the parse's
            // parts is its serialization (what `Policy::finish` takes as the canonical form).
            KeyForm::Url => match href {
                Some(h) if !log.changed_by_rules() => key.push_str(h),
                // Only the path's final `/` went, and the path ends the serialization (no
                // query or fragment; with a host, so no `/.` before a `//` path): the
                // serialization without its last byte.
                Some(h)
                    if slash_only
                        && parts.query.is_none()
                        && parts.fragment.is_none()
                        && parts.host.is_some()
                        && h.ends_with('/') =>
                {
                    key.push_str(&h[..h.len() - 1]);
                }
                _ => parts.write_url(key, true, true),
            },
            KeyForm::WebKey => write_webkey(&parts, key),
        }
        if let Some(s) = signature {
            write_signature(&parts, s);
        }
        // A cut of the parse's path stays borrowed: nothing to hand back then.
        if log.changed_by_rules() && !slash_only {
            parts.recycle();
        }
    }

    fn finish(&self, mut parts: Parts<'_>, mut log: Log, href: Option<&str>) -> Outcome {
        let mut facts = initial_facts(&parts);
        let psl = self.psl();
        rules::apply_all(&self.canonical_rules, &mut parts, &mut log, psl);
        if log.unwrapped {
            // The facts describe the URL the record keys: the wrapper's target.
            facts = initial_facts(&parts);
        }
        let canonical = match href {
            Some(h) if !log.changed_by_rules() => h.to_string(),
            _ => {
                let mut s = String::with_capacity(href.map_or(64, str::len));
                parts.write_url(&mut s, true, true);
                s
            }
        };
        rules::apply_all(&self.key_rules, &mut parts, &mut log, psl);
        let key = match self.def.key_form {
            KeyForm::Href => canonical.clone(),
            KeyForm::Url => {
                // Everything the rules left, credentials and fragment included: a removal
                // is a rule's recorded transformation, never the key form's silent choice
                // (the builtins drop both with `drop-credentials` and `remove-fragment`;
                // a policy file may keep `#!`/`#/` routes).
                let mut s = String::with_capacity(canonical.len());
                parts.write_url(&mut s, true, true);
                s
            }
            KeyForm::WebKey => {
                let mut s = String::with_capacity(parts.path.len() + 32);
                write_webkey(&parts, &mut s);
                s
            }
        };
        if log.scheme_assumed {
            facts.push(Fact::SchemeAssumed);
        }
        if !log.removed_params.is_empty() {
            facts.push(Fact::TrackingParametersRemoved);
        }
        if log.fragment_removed {
            facts.push(Fact::FragmentRemoved);
        }
        if log.wrapper_kept {
            facts.push(Fact::RedirectWrapperKept);
        }
        facts.sort();
        let mut sig = String::with_capacity(parts.path.len() + 32);
        write_signature(&parts, &mut sig);
        Outcome {
            host: parts
                .host
                .as_deref()
                .filter(|h| !h.is_empty())
                .map(str::to_string),
            signature: Some(sig),
            key: Some(key),
            canonical: Some(canonical),
            error: None,
            transformations: log.transformations,
            removed_params: log.removed_params,
            facts,
            psl: log.used_psl.then(|| self.psl_version.clone()),
        }
    }
}

/// True when a front end may try [`FastUrl`] before ada: it replaces the parser only,
/// so every rule still runs. `mapper` (absolute input; path-only input is resolved against
/// a base, which the fast parse does not do) and `whatwg`. With scheme inference
/// (`webkey@1`) only text that shows its scheme goes to the fast parse, as it is: text
/// given an assumed `https://` is built first and goes to ada, and the fast parse accepts
/// nothing without a written `http:` or `https:`. `document` runs no parser.
pub(crate) fn fast_parse_applies(front: FrontEnd) -> bool {
    matches!(front, FrontEnd::Mapper | FrontEnd::Whatwg { .. })
}

impl Policy {
    /// The URL Standard's parse behind this policy's front end, as `inspect` reports it:
    /// the text trimmed as the front end trims ([`trim_for`]), `https://` put before it
    /// when the front end infers a scheme ([`front::whatwg_input`]), parsed with no base.
    /// Unlike [`Policy::key`], no length limit, scheme list or fast parse applies, and a
    /// parse error keeps the parser's own message. `None` for a front end other than
    /// `whatwg`. Gives the trimmed text too (where `inspect` looks for a written scheme).
    pub(crate) fn standard_parse<'a>(
        &self,
        input: &'a str,
    ) -> Option<(&'a str, Result<WebUrl, KeyError>)> {
        let FrontEnd::Whatwg { infer_scheme, .. } = self.def.front else {
            return None;
        };
        let (text, _) = trim_for(self.def.front, input);
        let parsed = if infer_scheme {
            WebUrl::parse(&front::whatwg_input(text).0, None)
        } else {
            WebUrl::parse(text, None)
        };
        Some((text, parsed))
    }
}

/// The text a front end reads, and its byte offset in `input`. Each front end trims as
/// docs/policies.md ("How a policy runs", step 2) says, and the source it cites:
///
/// - `mapper`: JavaScript white space and U+FEFF at both ends, as the tool's
///   `String.prototype.trim` (the Legacy URL Mapper's "Trim each line"); C0 controls
///   stay, for the front end to refuse.
/// - `document`: nothing (the document key's "no whitespace/control characters"); the line reader
///   removes only the line end.
/// - `whatwg` with scheme inference (`webkey@1`): Unicode white space and C0 controls and
///   spaces (the comparison key's "Input text is trimmed of white space").
/// - `whatwg` otherwise: C0 controls and spaces, as the URL Standard's parser does
///   (<https://url.spec.whatwg.org/#concept-basic-url-parser>).
pub(crate) fn trim_for(front: FrontEnd, input: &str) -> (&str, usize) {
    match front {
        FrontEnd::Mapper => text::trim_js(input),
        FrontEnd::Document => (input, 0),
        FrontEnd::Whatwg {
            infer_scheme: true, ..
        } => text::trim_white_space_and_c0(input),
        FrontEnd::Whatwg { .. } => text::trim_c0_space(input),
    }
}
