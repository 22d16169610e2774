//! `urlkey inspect`: everything the library can say about one piece of text.

use crate::error::KeyError;
use crate::outcome::{Fact, Transformation};
use crate::policy::{Policy, PolicySet};
use crate::profile::Profile;
use crate::psl::Section;
use crate::text;

pub use crate::offsets::{ComponentSpan, Offsets, ParamSpan, Span};

/// The policy whose canonical form, facts and parse `inspect` reports (docs/policies.md,
/// "Inspecting one URL").
const SEED_POLICY: &str = "webkey@1";

/// The key of one policy, for side-by-side comparison.
///
/// ```
/// let set = urlkey::PolicySet::builtin();
/// let i = urlkey::inspect("mailto:a@example.net", &set, &set.get("citation@1").unwrap());
/// let k = i.keys.iter().find(|k| k.policy == "citation@1").unwrap();
/// assert_eq!((k.key.as_deref(), k.error_code), (None, Some("citation.unsupported-scheme")));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PolicyKey {
    /// The policy id.
    pub policy: String,
    /// The key, when valid.
    pub key: Option<String>,
    /// The error code, when invalid.
    pub error_code: Option<&'static str>,
}

/// What `inspect` reports.
///
/// ```
/// let set = urlkey::PolicySet::builtin();
/// let i = urlkey::inspect("https://www.example.co.uk/a?b=1#c", &set, &set.get("citation@1").unwrap());
/// assert!(i.valid && i.is_website && i.looks_like_web_address);
/// assert_eq!(i.registrable_domain.as_deref(), Some("example.co.uk"));
/// assert_eq!(i.public_suffix.as_deref(), Some("co.uk"));
/// assert_eq!(i.query_pairs, Some(vec![("b".to_string(), "1".to_string())]));
/// assert_eq!(i.key.as_deref(), Some("https://www.example.co.uk/a?b=1"));
/// // Spans index the input as given.
/// let host = i.offsets.host.unwrap().bytes;
/// assert_eq!(&i.input[host.start..host.end], "www.example.co.uk");
/// ```
#[derive(Debug, Clone, serde::Serialize)]
pub struct Inspection {
    /// The input as given.
    pub input: String,
    /// True when the text parses as a URL (with `https://` assumed when no scheme is written).
    pub valid: bool,
    /// Why it does not.
    pub error: Option<KeyError>,
    /// The canonical form (docs/policies.md, "Canonical form and key"): the Standard's
    /// serialization less tracking parameters
    /// and fragment.
    pub canonical: Option<String>,
    /// The Standard's serialization, untouched.
    pub href: Option<String>,
    /// True for http and https only.
    pub is_website: bool,
    /// Does the text look like a web address at all (docs/policies.md, "Inspecting one URL")?
    pub looks_like_web_address: bool,
    /// Facts.
    pub facts: Vec<Fact>,
    /// A social-profile shape, if the address has one.
    pub profile: Option<Profile>,
    /// Spans of the components in the input as given.
    pub offsets: Offsets,
    /// The query as form-decoded pairs, in order; `None` (JSON `null`) when the text is not
    /// a well-formed URL, since `query_pairs` "inspects a well-formed URL" (docs/policies.md,
    /// "Inspecting one URL") and an
    /// empty list would read as "no parameters".
    pub query_pairs: Option<Vec<(String, String)>>,
    /// The host's registrable domain (Public Suffix List).
    pub registrable_domain: Option<String>,
    /// The host's public suffix.
    pub public_suffix: Option<String>,
    /// The list section of that suffix.
    pub suffix_section: Option<Section>,
    /// The Public Suffix List version used.
    pub psl: String,
    /// The policy asked for.
    pub policy: String,
    /// Its key.
    pub key: Option<String>,
    /// Why the policy asked for gives no key (code and message), `None` when it gives one:
    /// `valid` and `error` describe the parse with `https://` assumed, which another
    /// policy may refuse.
    pub key_error: Option<KeyError>,
    /// Its transformations.
    pub transformations: Vec<Transformation>,
    /// The key under every policy of the set.
    pub keys: Vec<PolicyKey>,
}

/// Inspects `input`: canonical form and facts as docs/policies.md ("Inspecting one URL")
/// defines them (`webkey@1`'s
/// parse, scheme assumed when not written), and the key under `policy` and every other.
///
/// ```
/// let set = urlkey::PolicySet::builtin();
/// let webkey = set.get("webkey@1").unwrap();
/// let i = urlkey::inspect("github.com/rust-lang?utm_source=x", &set, &webkey);
/// assert_eq!(i.canonical.as_deref(), Some("https://github.com/rust-lang"));
/// assert_eq!(i.profile.unwrap().handle, "rust-lang");
/// assert_eq!(i.key.as_deref(), Some("github.com/rust-lang"));
/// ```
pub fn inspect(input: &str, set: &PolicySet, policy: &Policy) -> Inspection {
    // The definitions of docs/policies.md ("Inspecting one URL") are webkey@1's: its outcome
    // gives the canonical form and the facts, its front end (trimmed, scheme assumed) the
    // parse that `valid` and `href` describe. A builtin is
    // always in the set, and only a front end that runs the Standard has no parse.
    let webkey = set.get(SEED_POLICY).expect("webkey@1 is a builtin");
    let seed = webkey.key(input);
    let (trimmed, parsed) = webkey
        .standard_parse(input)
        .expect("webkey@1 runs the URL Standard's parser");
    let chosen = policy.key(input);
    let cleaned: String = trimmed
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let written = text::written_scheme(&cleaned).is_some();
    let psl = set.psl();
    let mut out = Inspection {
        input: input.to_string(),
        valid: parsed.is_ok(),
        error: parsed.as_ref().err().cloned(),
        canonical: seed.canonical,
        href: parsed.as_ref().ok().map(|u| u.href().to_string()),
        is_website: false,
        looks_like_web_address: crate::detect::looks_like_web_address(input, psl),
        facts: seed.facts,
        profile: None,
        offsets: crate::offsets::web_address_offsets(input, written),
        query_pairs: None,
        registrable_domain: None,
        public_suffix: None,
        suffix_section: None,
        psl: psl.version().to_string(),
        policy: policy.id().to_string(),
        key: chosen.key.clone(),
        key_error: chosen.error.clone(),
        transformations: chosen.transformations.clone(),
        keys: set
            .list()
            .iter()
            .filter_map(|info| set.get(&info.id).ok())
            .map(|p| {
                let o = p.key(input);
                PolicyKey {
                    policy: p.id().to_string(),
                    key: o.key,
                    error_code: o.error.map(|e| e.code.as_str()),
                }
            })
            .collect(),
    };
    if let Ok(url) = &parsed {
        out.is_website = text::is_web_scheme(url.scheme());
        out.profile = crate::profile::profile_with_query(
            url.scheme(),
            url.hostname(),
            url.pathname(),
            url.query(),
        );
        out.query_pairs = Some(url.query().map(crate::parse_form).unwrap_or_default());
        if url.host_kind() == crate::HostKind::Domain {
            let host = url.hostname().trim_end_matches('.');
            if let Some(info) = psl.lookup(host) {
                out.registrable_domain = info.registrable_domain;
                out.public_suffix = Some(info.suffix);
                out.suffix_section = Some(info.section);
            }
        }
    }
    out
}
