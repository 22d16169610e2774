//! `drop-default-document`: a final path segment that is a default document
//! ([`DEFAULT_DOCUMENTS`], ignoring ASCII case) is removed, its `/` kept; only the final
//! segment (`/index.php/x` stays). Risky: a server may serve another page at `/` than at
//! `/index.html`.

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;

use super::edit::{cut, replace};
use super::step::{Example, RiskClass, Step};

/// Final segments that `drop-default-document` removes (the `webkey@1` seed document, rule 9:
/// docs/policies.md#webkey1--comparison-key-v1-seed-001).
pub const DEFAULT_DOCUMENTS: [&str; 9] = [
    "index.html",
    "index.htm",
    "index.php",
    "index.asp",
    "index.aspx",
    "default.htm",
    "default.html",
    "default.asp",
    "default.aspx",
];

/// The `drop-default-document` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct DropDefaultDocument;

impl Step for DropDefaultDocument {
    const NAME: &'static str = "drop-default-document";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://a.example/x/index.html",
        after: "https://a.example/x/",
    };

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        !p.opaque_path
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if p.opaque_path {
            return;
        }
        let seg_start = p.path.rfind('/').map_or(0, |i| i + 1);
        if is_default_document(&p.path[seg_start..]) {
            let new = cut(&p.path, 0..seg_start);
            replace(&mut p.path, new, Self::NAME, Component::Path, log);
        }
    }
}

/// A default document segment, case-insensitively. Filters on the length and first
/// letter before comparing: nearly every segment fails the first test.
pub(in crate::policy) fn is_default_document(seg: &str) -> bool {
    matches!(seg.len(), 9..=12)
        && matches!(seg.as_bytes()[0], b'i' | b'I' | b'd' | b'D')
        && DEFAULT_DOCUMENTS
            .iter()
            .any(|d| d.eq_ignore_ascii_case(seg))
}
