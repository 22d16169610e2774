//! `drop-empty-query`: a query that is empty (`?` alone) disappears. Risky: the URL
//! Standard keeps `?` (an empty query is not a null one,
//! <https://url.spec.whatwg.org/#concept-url-query>), and a server sees both forms.

use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;

use super::edit::replace_query;
use super::need;
use super::step::{Example, RiskClass, Step};

/// The `drop-empty-query` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct DropEmptyQuery;

impl Step for DropEmptyQuery {
    const NAME: &'static str = "drop-empty-query";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://a.example/x?",
        after: "https://a.example/x",
    };

    fn needs(&self) -> u16 {
        need::QUERY
    }

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        p.query.is_some()
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if p.query.as_deref() == Some("") {
            replace_query(p, None, Self::NAME, log);
        }
    }
}
