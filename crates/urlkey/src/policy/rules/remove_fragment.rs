//! `remove-fragment` (canonical): removes the fragment, an empty one (`#`) included; with
//! `keep_routes`, `#!` and `#/` fragments (client-side routes) stay. Documented: the
//! fragment is never sent in the request, so no server can tell the forms apart.

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;

use super::need;
use super::step::{Example, RiskClass, Step};

/// The `remove-fragment` rule; a policy file writes `keep_routes = true` to keep routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct RemoveFragment {
    /// Keep `#!...` and `#/...` (client-side routes).
    #[serde(default)]
    pub keep_routes: bool,
}

impl Step for RemoveFragment {
    const NAME: &'static str = "remove-fragment";
    const RISK: RiskClass = RiskClass::Documented;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://a.example/x#f",
        after: "https://a.example/x",
    };
    const CANONICAL: bool = true;

    fn needs(&self) -> u16 {
        need::FRAGMENT
    }

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        p.fragment.is_some()
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if let Some(f) = &p.fragment {
            if self.keep_routes && (f.starts_with('!') || f.starts_with('/')) {
                return;
            }
            log.fragment_removed = true;
            if let Some(f) = p.fragment.take() {
                if log.quiet {
                    log.changes += 1;
                } else {
                    log.record(
                        Self::NAME,
                        Component::Fragment,
                        format!("#{f}"),
                        String::new(),
                    );
                }
            }
        }
    }
}
