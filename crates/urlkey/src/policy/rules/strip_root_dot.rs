//! `strip-root-dot`: a domain host ending in `.` loses that one dot (`example.com.` ->
//! `example.com`). Risky: the URL Standard keeps the dot (`http://example.com./`
//! serializes as written), and a server may answer the two host names differently.

use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::web::HostKind;

use super::edit::{cut, replace_host};
use super::step::{Example, RiskClass, Step};

/// The `strip-root-dot` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct StripRootDot;

impl Step for StripRootDot {
    const NAME: &'static str = "strip-root-dot";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://a.example./x",
        after: "https://a.example/x",
    };

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        p.host_kind == HostKind::Domain
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if p.host_kind == HostKind::Domain {
            if let Some(h) = &p.host {
                if h.len() > 1 && h.ends_with('.') {
                    let trimmed = cut(h, 0..h.len() - 1);
                    replace_host(p, trimmed, Self::NAME, log);
                }
            }
        }
    }
}
