//! The builtin policies. A released version's rules never change: a new behaviour is a
//! new version. Each has a golden fixture under `crates/urlkey/tests/golden/`.

use crate::error::ErrorCode;
use crate::tracking::TrackingSet;

use super::front::{FrontEnd, Schemes};
use super::rules::{Rule, SortOrder, TrailingSlash};
use super::{KeyForm, PolicyDef, PolicyError};

/// Ids of the builtin policies, in the order `urlkey policies` lists them.
pub const BUILTIN_IDS: [&str; 5] = [
    "whatwg@1",
    "mapper@1",
    "document@1",
    "citation@1",
    "webkey@1",
];

/// The definition of a builtin policy id, options included (`citation@1+keep-trailing-slash`).
pub fn builtin(id: &str) -> Result<Option<PolicyDef>, PolicyError> {
    let (base, options) = match id.split_once('+') {
        Some((b, o)) => (b, o.split('+').collect::<Vec<_>>()),
        None => (id, Vec::new()),
    };
    let allowed: &[&str] = match base {
        "citation@1" => &["keep-trailing-slash"],
        _ => &[],
    };
    let mut def = match base {
        "whatwg@1" => PolicyDef {
            id: String::new(),
            description: "The URL Standard's serialization (href), untouched: the baseline. Any scheme; honours --base.".into(),
            front: FrontEnd::Whatwg { schemes: Schemes::Any, infer_scheme: false },
            rules: vec![],
            key_form: KeyForm::Href,
            accepts_base: true,
        },
        "mapper@1" => PolicyDef {
            id: String::new(),
            description: "Legacy URL Mapper (seed 000): http(s) or path-only; slashes collapsed, tracking removed, empty pieces dropped, parameters sorted, fragment dropped.".into(),
            front: FrontEnd::Mapper,
            rules: vec![
                Rule::RemoveTrackingParameters(TrackingSet::registry_v1()),
                Rule::RemoveFragment { keep_routes: false },
                Rule::DropCredentials,
                Rule::CollapseSlashes,
                // Empty pieces are not parameters (issue 13, item 6): the browser's own
                // parsing skips them (https://url.spec.whatwg.org/#urlencoded-parsing).
                Rule::DropEmptyParameters,
                Rule::SortQuery(SortOrder::NameValue),
                Rule::DropEmptyQuery,
            ],
            key_form: KeyForm::Url,
            accepts_base: false,
        },
        "document@1" => PolicyDef {
            id: String::new(),
            description: "Document key (seed 002): a strict component split, not the WHATWG parser; scheme and host lowercased, default port and fragment removed, everything else byte for byte.".into(),
            front: FrontEnd::Document,
            rules: vec![
                Rule::LowercaseScheme,
                Rule::LowercaseHost,
                Rule::NormalizePort,
                Rule::EmptyPathToRoot,
                Rule::RemoveFragment { keep_routes: false },
                Rule::DropEmptyQuery,
            ],
            key_form: KeyForm::Url,
            accepts_base: false,
        },
        "citation@1" => PolicyDef {
            id: String::new(),
            description: "Citation key (seed 004): absolute http(s) only; fragment and analytics parameters removed, empty pieces dropped, parameters sorted, non-root trailing slash removed (+keep-trailing-slash keeps it).".into(),
            front: FrontEnd::Whatwg {
                schemes: Schemes::Web(ErrorCode::CitationUnsupportedScheme),
                infer_scheme: false,
            },
            rules: vec![
                Rule::RemoveFragment { keep_routes: false },
                Rule::RemoveTrackingParameters(TrackingSet::citation_v1()),
                Rule::DropCredentials,
                // As in mapper@1 (issue 13, item 6).
                Rule::DropEmptyParameters,
                Rule::SortQuery(SortOrder::NameValue),
                Rule::DropEmptyQuery,
                Rule::RemoveTrailingSlash(TrailingSlash::NonRoot),
            ],
            key_form: KeyForm::Url,
            accepts_base: false,
        },
        "webkey@1" => PolicyDef {
            id: String::new(),
            description: "Comparison key v1 (seed 001): scheme inferred, registrable domain, path case and escapes folded, default documents and trailing slash dropped, sorted query.".into(),
            front: FrontEnd::Whatwg { schemes: Schemes::Any, infer_scheme: true },
            rules: vec![
                // Seed 001's closed table, not the registry (issue 13, item 1).
                Rule::RemoveTrackingParameters(TrackingSet::webkey_v1()),
                Rule::RemoveFragment { keep_routes: false },
                Rule::DropCredentials,
                Rule::StripRootDot,
                Rule::RegistrableDomain,
                Rule::DecodeUnreserved,
                Rule::LowercasePath,
                Rule::CollapseSlashes,
                Rule::DropDefaultDocument,
                Rule::RemoveTrailingSlash(TrailingSlash::All),
                Rule::DropEmptyParameters,
                Rule::SortQuery(SortOrder::Ordinal),
                Rule::DropEmptyQuery,
                Rule::DropOpaqueQuery,
            ],
            key_form: KeyForm::WebKey,
            accepts_base: false,
        },
        _ => return Ok(None),
    };
    for opt in &options {
        if !allowed.contains(opt) {
            return Err(PolicyError::UnknownOption {
                id: id.to_string(),
                option: opt.to_string(),
                allowed: allowed.iter().map(|s| s.to_string()).collect(),
            });
        }
        if *opt == "keep-trailing-slash" {
            def.rules
                .retain(|r| !matches!(r, Rule::RemoveTrailingSlash(_)));
        }
    }
    def.id = id.to_string();
    Ok(Some(def))
}
