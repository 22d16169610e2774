//! `empty-path-to-root`: an empty path becomes `/` (not an opaque path, nor path-only
//! input). Lossless: the URL Standard's parser gives a special URL's empty path one empty
//! segment, serialized as `/` (<https://url.spec.whatwg.org/#path-start-state>);
//! `document@1`, which does not run that parser, runs this rule.

use std::borrow::Cow;

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;

use super::edit::replace;
use super::step::{Example, RiskClass, Step};

/// The `empty-path-to-root` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct EmptyPathToRoot;

impl Step for EmptyPathToRoot {
    const NAME: &'static str = "empty-path-to-root";
    const RISK: RiskClass = RiskClass::Lossless;
    const EXAMPLE: Example = Example {
        parser: "document",
        before: "https://a.example",
        after: "https://a.example/",
    };

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        p.path.is_empty()
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if !p.opaque_path && !p.path_only && p.path.is_empty() {
            replace(
                &mut p.path,
                Cow::Borrowed("/"),
                Self::NAME,
                Component::Path,
                log,
            );
        }
    }
}
