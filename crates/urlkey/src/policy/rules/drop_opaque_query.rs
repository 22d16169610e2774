//! `drop-opaque-query`: a URL with a non-empty opaque path
//! (<https://url.spec.whatwg.org/#url-opaque-path>) loses its query
//! (`mailto:a@b.example?subject=x` -> `mailto:a@b.example`); an empty opaque path keeps it
//! (`magnet:?xt=...`). Risky: the query may be what the URL is about.

use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;

use super::edit::replace_query;
use super::step::{Example, RiskClass, Step};

/// The `drop-opaque-query` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct DropOpaqueQuery;

impl Step for DropOpaqueQuery {
    const NAME: &'static str = "drop-opaque-query";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "mailto:a@b.example?subject=x",
        after: "mailto:a@b.example",
    };

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        p.opaque_path && p.query.is_some()
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        // `magnet:?xt=...` has an empty opaque path: dropping its query would give every
        // magnet link one key, so only a non-empty path stands for the URL.
        if p.opaque_path && !p.path.is_empty() && p.query.is_some() {
            replace_query(p, None, Self::NAME, log);
        }
    }
}
