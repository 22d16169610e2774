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
use crate::query::hex;
use crate::scratch;

use super::edit::{replace, utf8_len};
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
    let b = path.as_bytes();
    let mut needs = false;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() && hex(b[i + 1]).is_some() && hex(b[i + 2]).is_some() {
            i += 3;
            continue;
        }
        if b[i].is_ascii_uppercase() {
            needs = true;
            break;
        }
        i += 1;
    }
    if !needs {
        return None;
    }
    let mut out = scratch::string(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() && hex(b[i + 1]).is_some() && hex(b[i + 2]).is_some() {
            out.push_str(&path[i..i + 3]);
            i += 3;
            continue;
        }
        // Only ASCII letters change: a non-ASCII character is copied whole.
        let ch_len = utf8_len(b[i]);
        let ch = &path[i..i + ch_len];
        if ch_len == 1 {
            out.push(b[i].to_ascii_lowercase() as char);
        } else {
            out.push_str(ch);
        }
        i += ch_len;
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
