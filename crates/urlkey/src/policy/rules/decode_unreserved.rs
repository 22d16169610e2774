//! `decode-unreserved`: in a hierarchical path, `%XX` escapes of unreserved characters
//! (ASCII letters, digits, `-._~`) are decoded and the hex digits of every other escape are
//! uppercased (`%7e%2f` -> `~%2F`); an opaque path is left alone (the `webkey@1` seed
//! document, rule 6: docs/policies.md#webkey1--comparison-key-v1-seed-001). Documented:
//! RFC 3986, section 6.2.2.2, calls the forms equivalent.

use std::borrow::Cow;

use crate::outcome::Component;
use crate::policy::parts::{Log, Parts};
use crate::psl::PublicSuffixList;
use crate::scratch;

use super::edit::replace;
use super::escapes::{pieces, Piece};
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
    let changes = |p: &Piece<'_>| {
        matches!(p, Piece::Escape { digits, value }
            if is_unreserved(*value) || digits.iter().any(u8::is_ascii_lowercase))
    };
    if !pieces(path).any(|p| changes(&p)) {
        return None;
    }
    let mut out = scratch::string(path.len());
    for p in pieces(path) {
        match p {
            Piece::Text(t) => out.push_str(t),
            Piece::Escape { value, .. } if is_unreserved(value) => out.push(value as char),
            Piece::Escape { digits, .. } => {
                out.push('%');
                out.extend(digits.map(|d| char::from(d.to_ascii_uppercase())));
            }
        }
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
