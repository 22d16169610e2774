//! `lowercase-host`: an ASCII host in lowercase, without IDNA. Lossless: the URL
//! Standard's host parser lowercases a domain (<https://url.spec.whatwg.org/#concept-host-parser>,
//! through domain to ASCII); `document@1`, which does not run that parser, runs this rule.

use std::borrow::Cow;

use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::scratch;

use super::edit::replace_host;
use super::step::{Example, RiskClass, Step};

/// The `lowercase-host` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct LowercaseHost;

impl Step for LowercaseHost {
    const NAME: &'static str = "lowercase-host";
    const RISK: RiskClass = RiskClass::Lossless;
    const EXAMPLE: Example = Example {
        parser: "document",
        before: "https://A.example/x",
        after: "https://a.example/x",
    };

    #[inline(always)]
    fn may_apply(&self, _p: &Parts<'_>) -> bool {
        true
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if let Some(h) = &p.host {
            if h.bytes().any(|b| b.is_ascii_uppercase()) {
                let new = scratch::lowercase(h);
                replace_host(p, Cow::Owned(new), Self::NAME, log);
            }
        }
    }
}
