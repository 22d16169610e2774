//! `decode-unreserved`: in a hierarchical path, `%XX` escapes of unreserved characters
//! (ASCII letters, digits, `-._~`) are decoded and the hex digits of every other escape are
//! uppercased (`%7e%2f` -> `~%2F`); an opaque path is left alone (the `webkey@1` seed
//! document, rule 6: docs/policies.md#webkey1--comparison-key-v1-seed-001). Documented:
//! RFC 3986, section 6.2.2.2, calls the forms equivalent.

use std::borrow::Cow;

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::query::hex;
use crate::scratch;

use super::edit::{replace, utf8_len};
use super::step::{Example, RiskClass, Step};

/// The `decode-unreserved` rule (no parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct DecodeUnreserved;

impl Step for DecodeUnreserved {
    const NAME: &'static str = "decode-unreserved";
    const RISK: RiskClass = RiskClass::Documented;
    const EXAMPLE: Example = Example {
        parser: "whatwg",
        before: "https://a.example/%7Ex",
        after: "https://a.example/~x",
    };

    #[inline(always)]
    fn may_apply(&self, p: &Parts<'_>) -> bool {
        !p.opaque_path
    }

    #[inline]
    fn apply(&self, p: &mut Parts<'_>, log: &mut Log, _psl: Option<&PublicSuffixList>) {
        // An opaque path (`mailto:`) is only lowercased (`lowercase-path`).
        if p.opaque_path {
            return;
        }
        // Most paths have no escape at all: one memchr decides.
        if !p.path.as_bytes().contains(&b'%') {
            return;
        }
        if let Some(new) = decode_unreserved(&p.path) {
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

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// The path with unreserved escapes decoded and other escapes' hex uppercased, or `None`
/// when that changes nothing.
fn decode_unreserved(path: &str) -> Option<String> {
    let b = path.as_bytes();
    let mut changed = false;
    let mut i = 0;
    while i + 2 < b.len() {
        if b[i] == b'%' {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                let v = h << 4 | l;
                if is_unreserved(v)
                    || b[i + 1].is_ascii_lowercase()
                    || b[i + 2].is_ascii_lowercase()
                {
                    changed = true;
                    break;
                }
            }
        }
        i += 1;
    }
    if !changed {
        return None;
    }
    let mut out = scratch::string(path.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                let v = h << 4 | l;
                if is_unreserved(v) {
                    out.push(v as char);
                } else {
                    out.push('%');
                    out.push(b[i + 1].to_ascii_uppercase() as char);
                    out.push(b[i + 2].to_ascii_uppercase() as char);
                }
                i += 3;
                continue;
            }
        }
        // Copy one whole character (the path may hold non-ASCII text as written).
        let ch_len = utf8_len(b[i]);
        out.push_str(&path[i..i + ch_len]);
        i += ch_len;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_paths() {
        assert_eq!(decode_unreserved("/%41%2f%7e"), Some("/A%2F~".into()));
        assert_eq!(decode_unreserved("/a%2Fb"), None);
        assert_eq!(decode_unreserved("/é%41"), Some("/éA".into()));
    }
}
