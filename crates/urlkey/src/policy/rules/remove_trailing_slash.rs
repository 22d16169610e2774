//! `remove-trailing-slash`: a hierarchical path's final `/` goes: in `non-root` mode only
//! from a path longer than `/`, in `all` mode from any path, so `/` becomes empty. Opaque
//! paths are left alone. Risky: `/a/` and `/a` are two paths to a server.

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;

use super::edit::{cut, replace};
use super::need;
use super::step::{Example, RiskClass, Step};

/// How `remove-trailing-slash` treats the root path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrailingSlash {
    /// A non-root path loses its final `/`; the root `/` stays (`citation@1`).
    NonRoot,
    /// Every final `/` goes, so `/` alone becomes empty (`webkey@1`).
    All,
}

/// The `remove-trailing-slash` rule; a policy file writes `mode = "all"` for the root too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct RemoveTrailingSlash {
    /// Whether the root path `/` loses its slash too.
    #[serde(default = "RemoveTrailingSlash::default_mode")]
    pub mode: TrailingSlash,
}

impl RemoveTrailingSlash {
    fn default_mode() -> TrailingSlash {
        TrailingSlash::NonRoot
    }
}

impl Step for RemoveTrailingSlash {
    const NAME: &'static str = "remove-trailing-slash";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://a.example/x/",
        after: "https://a.example/x",
    };

    fn needs(&self) -> u16 {
        match self.mode {
            // `apply` returns for `/` alone in this mode.
            TrailingSlash::NonRoot => need::NON_ROOT_FINAL_SLASH,
            TrailingSlash::All => need::FINAL_SLASH,
        }
    }

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        !p.opaque_path && p.path.ends_with('/')
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        if p.opaque_path || !p.path.ends_with('/') {
            return;
        }
        if self.mode == TrailingSlash::NonRoot && p.path.len() == 1 {
            return;
        }
        drop_final_slash(p, log);
    }
}

/// `remove-trailing-slash` once it has decided that the path's final `/` goes: the path
/// stays borrowed. Also run by `webkey@1`'s fused rules ([`crate::policy::fused`]).
#[inline]
pub(in crate::policy) fn drop_final_slash(p: &mut Parts<'_>, log: &mut Log) {
    let trimmed = cut(&p.path, 0..p.path.len() - 1);
    replace(
        &mut p.path,
        trimmed,
        RemoveTrailingSlash::NAME,
        Component::Path,
        log,
    );
}
