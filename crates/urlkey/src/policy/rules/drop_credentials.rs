//! `drop-credentials`: removes `username[:password]` from the key. Documented: the
//! userinfo is never sent in the request (RFC 9110, section 4.2.4: a sender must not
//! generate it in an http(s) target URI).

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;

use super::need;
use super::step::{Example, RiskClass, Step};

/// The `drop-credentials` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct DropCredentials;

impl Step for DropCredentials {
    const NAME: &'static str = "drop-credentials";
    const RISK: RiskClass = RiskClass::Documented;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://u:p@a.example/x",
        after: "https://a.example/x",
    };

    fn needs(&self) -> u16 {
        need::USERINFO
    }

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        !p.userinfo.is_empty()
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if !p.userinfo.is_empty() {
            let before = std::mem::take(&mut p.userinfo);
            log.change(Self::NAME, Component::Userinfo, &before, "");
        }
    }
}
