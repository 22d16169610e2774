//! `lowercase-path`: ASCII letters of a hierarchical path lowercased, except the hex
//! digits of `%XX` escapes (which `decode-unreserved` uppercases); an opaque path is
//! lowercased whole (the `webkey@1` seed document, rules 6 and 7:
//! docs/policies.md#webkey1--comparison-key-v1-seed-001). Risky: paths are case-sensitive
//! (<https://url.spec.whatwg.org/#concept-url-path> keeps them as written) and many servers
//! answer `/A` and `/a` differently.

use std::borrow::Cow;

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::scratch;

use super::edit::replace;
use super::escapes::{pieces, Piece};
use super::step::{Example, RiskClass, Step};

/// The `lowercase-path` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct LowercasePath;

impl Step for LowercasePath {
    const NAME: &'static str = "lowercase-path";
    const RISK: RiskClass = RiskClass::Risky;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://a.example/X",
        after: "https://a.example/x",
    };

    #[inline(always)]
    fn may_apply(&self, _p: &Parts<'_>) -> bool {
        true
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        // An opaque path is lowercased whole, escapes included; a hierarchical path keeps
        // its escapes' hex digits, which `decode-unreserved` uppercases.
        if p.opaque_path {
            if p.path.bytes().any(|b| b.is_ascii_uppercase()) {
                let new = scratch::lowercase(&p.path);
                replace(
                    &mut p.path,
                    Cow::Owned(new),
                    Self::NAME,
                    Component::Path,
                    log,
                );
            }
            return;
        }
        if !p.path.bytes().any(|b| b.is_ascii_uppercase()) {
            return;
        }
        if !p.path.as_bytes().contains(&b'%') {
            lowercase_whole_path(p, log);
            return;
        }
        if let Some(new) = lowercase_outside_escapes(&p.path) {
            replace(
                &mut p.path,
                Cow::Owned(new),
                Self::NAME,
                Component::Path,
                log,
            );
        }
    }
}

/// `lowercase-path` on a hierarchical path with an ASCII capital and no `%` (so no
/// escape whose hex digits must stay): every ASCII letter lowercased. Also run by
/// `webkey@1`'s fused rules ([`crate::policy::fused`]), which know both from their scan.
pub(in crate::policy) fn lowercase_whole_path(p: &mut Parts<'_>, log: &mut Log) {
    let new = scratch::lowercase(&p.path);
    replace(
        &mut p.path,
        Cow::Owned(new),
        LowercasePath::NAME,
        Component::Path,
        log,
    );
}

/// ASCII letters lowercased, except the hex digits of `%XX` escapes (which
/// `decode-unreserved` uppercases).
fn lowercase_outside_escapes(path: &str) -> Option<String> {
    let needs =
        |p: &Piece<'_>| matches!(p, Piece::Text(t) if t.bytes().any(|c| c.is_ascii_uppercase()));
    if !pieces(path).any(|p| needs(&p)) {
        return None;
    }
    let mut out = scratch::string(path.len());
    for p in pieces(path) {
        match p {
            // Only ASCII letters change: the bytes of a non-ASCII character are all
            // above 0x7F, which ASCII lowercasing leaves alone.
            Piece::Text(t) => {
                let at = out.len();
                out.push_str(t);
                out[at..].make_ascii_lowercase();
            }
            Piece::Escape { digits, .. } => {
                out.push('%');
                out.extend(digits.map(char::from));
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercasing_paths() {
        assert_eq!(lowercase_outside_escapes("/A%2Fb"), Some("/a%2Fb".into()));
        assert_eq!(lowercase_outside_escapes("/a%2F"), None);
    }
}
