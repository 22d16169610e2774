//! `strip-www`: a domain host starting with `www.` loses it when what is left still has a
//! dot (`www.com` stays). Risky: `www.example.com` and `example.com` are two hosts, which
//! may serve different sites.

use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::web::HostKind;

use super::edit::{cut, replace_host};
use super::step::{Example, RiskClass, Step};

/// The `strip-www` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct StripWww;

impl Step for StripWww {
    const NAME: &'static str = "strip-www";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://www.a.example/x",
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
                if let Some(rest) = h.strip_prefix("www.") {
                    if rest.contains('.') {
                        let rest = cut(h, 4..h.len());
                        replace_host(p, rest, Self::NAME, log);
                    }
                }
            }
        }
    }
}
