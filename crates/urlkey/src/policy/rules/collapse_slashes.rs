//! `collapse-slashes`: runs of `/` in a hierarchical path become one. Risky: `/a//b` and
//! `/a/b` are two paths to a server, which may answer them differently.

use std::borrow::Cow;

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::scratch;

use super::edit::replace;
use super::need;
use super::step::{Example, RiskClass, Step};

/// The `collapse-slashes` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct CollapseSlashes;

impl Step for CollapseSlashes {
    const NAME: &'static str = "collapse-slashes";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://a.example//x",
        after: "https://a.example/x",
    };

    /// `apply` returns when the path has no `//`.
    fn needs(&self) -> u16 {
        need::DOUBLE_SLASH
    }

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        !p.opaque_path
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if !p.opaque_path && p.path.contains("//") {
            let mut out = scratch::string(p.path.len());
            let mut prev_slash = false;
            for c in p.path.chars() {
                if c == '/' && prev_slash {
                    continue;
                }
                prev_slash = c == '/';
                out.push(c);
            }
            replace(
                &mut p.path,
                Cow::Owned(out),
                Self::NAME,
                Component::Path,
                log,
            );
        }
    }
}
