//! `lowercase-scheme`: the scheme in ASCII lowercase. Lossless: the URL Standard's parser
//! already lowercases it (<https://url.spec.whatwg.org/#scheme-state>); `document@1`, which
//! does not run that parser, runs this rule.

use std::borrow::Cow;

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::scratch;

use super::edit::replace;
use super::step::{Example, RiskClass, Step};

/// The `lowercase-scheme` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct LowercaseScheme;

impl Step for LowercaseScheme {
    const NAME: &'static str = "lowercase-scheme";
    const RISK: RiskClass = RiskClass::Lossless;
    const EXAMPLE: Example = Example {
        parser: "document",
        before: "HTTPS://a.example/x",
        after: "https://a.example/x",
    };

    #[inline(always)]
    fn may_apply(&self, _p: &Parts<'_>) -> bool {
        true
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if p.scheme.bytes().any(|b| b.is_ascii_uppercase()) {
            let new = scratch::lowercase(&p.scheme);
            replace(
                &mut p.scheme,
                Cow::Owned(new),
                Self::NAME,
                Component::Scheme,
                log,
            );
        }
    }
}
