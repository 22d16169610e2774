//! Front ends: how a policy turns trimmed text into [`Parts`], and what it refuses.

use std::borrow::Cow;

use crate::error::{ErrorCode, KeyError};
use crate::text;
use crate::web::{HostKind, Pieces, WebUrl};

use super::parts::Parts;

/// Which schemes a WHATWG front end accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schemes {
    /// Any scheme the Standard parses.
    Any,
    /// Only http and https; others fail with this code.
    Web(ErrorCode),
}

/// How text becomes parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrontEnd {
    /// The URL Standard's parser.
    Whatwg {
        /// Which schemes are accepted.
        schemes: Schemes,
        /// Assume `https://` when no scheme is written (docs/policies.md, scheme inference).
        infer_scheme: bool,
    },
    /// `mapper@1` (docs/policies.md, the `mapper` front end): whitespace and non-HTTP
    /// schemes refused before parsing;
    /// path-only input stays path-only.
    Mapper,
    /// `document@1` (docs/policies.md, the `document` front end): a component split, not
    /// the WHATWG parser.
    Document,
}

/// The origin that `mapper@1` resolves path-only input against; never reported.
pub const PLACEHOLDER_BASE: &str = "https://path-only.urlkey.invalid/";
const PLACEHOLDER_HOST: &str = "path-only.urlkey.invalid";

/// What the WHATWG front end with scheme inference needs to parse: the text (maybe with
/// `https://` prepended) and whether the scheme was assumed. Kept apart so the caller owns
/// the [`WebUrl`] the parts borrow from.
pub fn whatwg_input(text: &str) -> (Cow<'_, str>, bool) {
    // Most text starts with a web scheme and `//`, which is a written scheme
    // ([`text::written_scheme`]): one comparison instead of a scan of the scheme.
    if text.starts_with("https://") || text.starts_with("http://") {
        return (Cow::Borrowed(text), false);
    }
    // The Standard removes tabs and newlines anywhere, so `ht\ttps://x` has a scheme.
    // Removing them cannot take away a scheme that the raw text already shows, so the
    // text is cleaned only when the raw text shows none.
    let written = if text::written_scheme(text).is_some() {
        true
    } else if text.bytes().any(|b| matches!(b, b'\t' | b'\n' | b'\r')) {
        let cleaned: String = text
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .collect();
        text::written_scheme(&cleaned).is_some()
    } else {
        false
    };
    if written {
        return (Cow::Borrowed(text), false);
    }
    if text.starts_with("//") {
        (Cow::Owned(format!("https:{text}")), true)
    } else if text.starts_with('/') || text.is_empty() {
        // A path alone names no site: left to fail as a relative URL.
        (Cow::Borrowed(text), false)
    } else {
        (Cow::Owned(format!("https://{text}")), true)
    }
}

/// An error with its message, or (`quiet`, the lean key path) with its code alone: the
/// message is made only for a caller that shows it.
pub(crate) fn refuse(code: ErrorCode, quiet: bool, message: impl FnOnce() -> String) -> KeyError {
    KeyError {
        code,
        message: if quiet { String::new() } else { message() },
    }
}

/// Checks the scheme after a WHATWG parse; reads it only when the policy restricts it.
pub fn check_scheme(url: &WebUrl, schemes: Schemes, quiet: bool) -> Result<(), KeyError> {
    match schemes {
        Schemes::Any => Ok(()),
        Schemes::Web(code) if !url.is_web() => Err(unsupported_scheme(code, url.scheme(), quiet)),
        Schemes::Web(_) => Ok(()),
    }
}

/// The refusal of a scheme that is not http(s), as the parser spells it (lowercase): one
/// message whether the text was parsed first or refused before parsing.
pub(crate) fn unsupported_scheme(code: ErrorCode, scheme: &str, quiet: bool) -> KeyError {
    refuse(code, quiet, || {
        format!("the scheme {scheme:?} is not http or https")
    })
}

/// The Legacy URL Mapper's checks before parsing ("Reject whitespace and non-HTTP schemes
/// before parsing so malformed input cannot become a plausible path"; docs/policies.md, the
/// `mapper` front end).
/// `text` is the line trimmed as the tool trims it ([`crate::text::trim_js`]) and `at` its
/// byte offset in the input, so that a message names the byte of the input as given.
/// Returns the base to parse against (the placeholder for path-only input).
///
/// Any white space left (JavaScript's `\s`, and U+0085, Unicode white space) is
/// `mapper.whitespace`; any control character (C0, DEL, C1: Unicode `Cc`) is
/// `mapper.control-character`, so `\0/clipart.html` is refused rather than read as the
/// path `/clipart.html` (a control character is not white space, so the tool's trim
/// leaves it for this check).
pub fn mapper_precheck(
    text: &str,
    at: usize,
    quiet: bool,
) -> Result<Option<&'static str>, KeyError> {
    let white = |c: char| c.is_whitespace() || c == '\u{feff}';
    // The first C0 control, space or DEL while the text is ASCII (eight bytes at a time);
    // from the first other byte on, characters.
    let found = match first_control_space_or_non_ascii(text.as_bytes()) {
        Some(i) if text.as_bytes()[i] < 0x80 => Some((i, char::from(text.as_bytes()[i]))),
        Some(i) => text[i..]
            .char_indices()
            .find(|&(_, c)| white(c) || c.is_control())
            .map(|(j, c)| (i + j, c)),
        None => None,
    };
    if let Some((i, c)) = found {
        let i = at + i;
        // U+0085 is both white space and a control: it keeps `mapper.whitespace`, the code
        // released `mapper@1` output gives it (a released policy's output never changes).
        if white(c) {
            return Err(refuse(ErrorCode::MapperWhitespace, quiet, || {
                format!("white space {c:?} at byte {i} inside the URL")
            }));
        }
        return Err(refuse(ErrorCode::MapperControlCharacter, quiet, || {
            format!(
                "control character U+{:04X} at byte {i}: refused before parsing, so that it cannot be dropped into a plausible URL",
                c as u32
            )
        }));
    }
    if text.starts_with("//") {
        return Err(refuse(ErrorCode::MapperSchemeRelative, quiet, || {
            "scheme-relative input (starts with //): the scheme is unknown".into()
        }));
    }
    if text.starts_with('/') {
        return Ok(Some(PLACEHOLDER_BASE));
    }
    // What nearly every line starts with, in the case nearly every line writes it.
    if text.starts_with("https:") || text.starts_with("http:") {
        return Ok(None);
    }
    match text::leading_scheme(text) {
        Some(s) if text::is_web_scheme(s) => Ok(None),
        Some(s) => Err(refuse(ErrorCode::MapperUnsupportedScheme, quiet, || {
            format!("the scheme {s:?} is not http or https")
        })),
        None => Err(refuse(ErrorCode::MapperUnsupportedScheme, quiet, || {
            "no http:// or https:// scheme, and not a path starting with /".into()
        })),
    }
}

/// The parts of a parsed URL, borrowed from it.
#[inline]
pub fn parts_from_url<'u>(
    u: &Pieces<'u>,
    path_only: bool,
    quiet: bool,
) -> Result<Parts<'u>, KeyError> {
    if path_only && u.hostname != PLACEHOLDER_HOST {
        // `/\host/x` is scheme-relative under the Standard for special schemes.
        return Err(refuse(ErrorCode::MapperSchemeRelative, quiet, || {
            "the path reparses as scheme-relative (a backslash after the first /)".into()
        }));
    }
    let host = match u.host_kind {
        HostKind::None => None,
        _ => Some(Cow::Borrowed(u.hostname)),
    };
    Ok(Parts {
        scheme: Cow::Borrowed(u.scheme),
        userinfo: Cow::Borrowed(if path_only { "" } else { u.userinfo }),
        host: if path_only { None } else { host },
        host_kind: if path_only {
            HostKind::None
        } else {
            u.host_kind
        },
        port: Cow::Borrowed(u.port),
        path: Cow::Borrowed(u.pathname),
        query: u.query.map(Cow::Borrowed),
        fragment: u.fragment.map(Cow::Borrowed),
        opaque_path: u.opaque_path,
        path_only,
    })
}

/// The document key's component split (`document@1`; docs/policies.md, the `document` front
/// end). Not the WHATWG parser: everything the
/// rules below do not name stays byte for byte.
///
/// `text` is the input as given: nothing is trimmed ("no whitespace/control characters",
/// wherever they are: docs/policies.md, the `document` front end), so white space or a
/// control character at either end is refused like one inside.
pub fn document_parts(text: &str, quiet: bool) -> Result<Parts<'_>, KeyError> {
    let unusual = first_unusual_byte(text.as_bytes());
    if let Some(i) = unusual {
        let found = if text.as_bytes()[i] < 0x80 {
            Some((i, char::from(text.as_bytes()[i])))
        } else {
            // "No whitespace/control characters" (docs/policies.md): Unicode white space, and every
            // control character (`Cc`: C0, DEL and the C1 controls U+0080-U+009F).
            text[i..]
                .char_indices()
                .find(|&(_, c)| c.is_whitespace() || c.is_control() || c == '\\')
                .map(|(j, c)| (i + j, c))
        };
        if let Some((i, c)) = found {
            return Err(refuse(ErrorCode::DocumentForbiddenCharacter, quiet, || {
                let end = i == 0 || i + c.len_utf8() == text.len();
                format!(
                    "forbidden character {c:?} at byte {i}{}",
                    if end {
                        " (document@1 trims nothing: not even at either end)"
                    } else {
                        ""
                    }
                )
            }));
        }
    }
    // `http://` or `https://`, in any case: what `scheme:` + `//` with a web scheme is.
    let b = text.as_bytes();
    let scheme_len = if b.len() >= 7 && b[..7].eq_ignore_ascii_case(b"http://") {
        4
    } else if b.len() >= 8 && b[..8].eq_ignore_ascii_case(b"https://") {
        5
    } else {
        return Err(refuse(ErrorCode::DocumentUnsupportedScheme, quiet, || {
            "not an absolute http:// or https:// URL".into()
        }));
    };
    let scheme = &text[..scheme_len];
    let rest = &text[scheme_len + 3..];
    let auth_end = memchr::memchr3(b'/', b'?', b'#', rest.as_bytes()).unwrap_or(rest.len());
    let authority = &rest[..auth_end];
    if memchr::memchr(b'@', authority.as_bytes()).is_some() {
        return Err(refuse(ErrorCode::DocumentCredentials, quiet, || {
            "credentials (@) in the authority are not accepted".into()
        }));
    }
    let (host, port) = split_authority(authority);
    let host_kind = if host.starts_with('[') {
        // Brackets hold exactly an IPv6 address (`split_authority` left anything after
        // the `]` that is not `:port` in the host, so it fails here too).
        let inner = host.strip_prefix('[').and_then(|h| h.strip_suffix(']'));
        match inner {
            Some(i) if i.parse::<std::net::Ipv6Addr>().is_ok() => HostKind::Ipv6,
            _ => {
                return Err(refuse(ErrorCode::DocumentInvalidHost, quiet, || {
                    format!("{host:?} is not a bracketed IPv6 address")
                }))
            }
        }
    } else if host.is_empty()
        || memchr::memchr2(b'[', b']', host.as_bytes()).is_some()
        // Text with no unusual byte at all is ASCII.
        || (unusual.is_some() && !host.is_ascii())
    {
        return Err(refuse(ErrorCode::DocumentInvalidHost, quiet, || {
            format!("the host {host:?} must be non-empty ASCII")
        }));
    } else {
        HostKind::Domain
    };
    match port {
        None => {}
        Some("") => {
            return Err(refuse(ErrorCode::DocumentEmptyPort, quiet, || {
                "an explicit empty port (host:) is not accepted".into()
            }))
        }
        // "a port that Python can parse in range" (docs/policies.md, the `document` front
        // end): `urlsplit(...).port` takes
        // any run of ASCII digits (`isdigit() and isascii()`, then `int()`), so
        // `:000080` is the port 80. `u32` parsing skips leading zeros
        // without overflow; a value past 65535 fails either way.
        Some(p)
            if p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u32>().is_ok_and(|v| v <= 65535) => {}
        Some(p) => return Err(bad_port(p, quiet)),
    }
    // The path ends at the first `?` or `#`; a query at the first `#` after its `?`.
    let after = &rest[auth_end..];
    let (path, query, fragment) = match memchr::memchr2(b'?', b'#', after.as_bytes()) {
        None => (after, None, None),
        Some(i) if after.as_bytes()[i] == b'#' => (&after[..i], None, Some(&after[i + 1..])),
        Some(i) => {
            let tail = &after[i + 1..];
            match memchr::memchr(b'#', tail.as_bytes()) {
                Some(j) => (&after[..i], Some(&tail[..j]), Some(&tail[j + 1..])),
                None => (&after[..i], Some(tail), None),
            }
        }
    };
    Ok(Parts {
        scheme: Cow::Borrowed(scheme),
        userinfo: Cow::Borrowed(""),
        host: Some(Cow::Borrowed(host)),
        host_kind,
        port: Cow::Borrowed(port.unwrap_or("")),
        path: Cow::Borrowed(path),
        query: query.map(Cow::Borrowed),
        fragment: fragment.map(Cow::Borrowed),
        opaque_path: false,
        path_only: false,
    })
}

/// The first byte that is a C0 control, a space, DEL, a backslash or not ASCII: the bytes
/// `document@1` refuses, and where Unicode white space may start.
pub(crate) fn first_unusual_byte(b: &[u8]) -> Option<usize> {
    first_flagged::<true>(b)
}

/// The first byte that is a C0 control, a space, DEL or not ASCII: where `mapper@1`'s
/// check for white space and controls must look.
pub(crate) fn first_control_space_or_non_ascii(b: &[u8]) -> Option<usize> {
    first_flagged::<false>(b)
}

/// The first byte below 0x21, DEL, not ASCII or (with `BACKSLASH`) a backslash. Eight
/// bytes at a time, with the classic "has a byte less than n / equal to v" word tricks: a
/// borrow only runs from a matching byte to the bytes above it, so the lowest flagged byte
/// of a word is the first match; then byte by byte in the tail.
fn first_flagged<const BACKSLASH: bool>(b: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let equal = |w: u64, v: u8| {
        let x = w ^ (ONES * u64::from(v));
        x.wrapping_sub(ONES) & !x
    };
    let mut chunks = b.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let mut m = (w.wrapping_sub(ONES * 0x21) & !w) | equal(w, 0x7f) | w;
        if BACKSLASH {
            m |= equal(w, b'\\');
        }
        let m = m & HIGH;
        if m != 0 {
            return Some(at + (m.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&c| c <= 0x20 || c >= 0x7f || (BACKSLASH && c == b'\\'))
        .map(|i| at + i)
}

/// Splits `host[:port]` for `document@1`: a bracketed host ends at its first `]`, which
/// must be followed by nothing or `:port` (else the whole text is returned as the host,
/// and fails as one); any other host ends at the first `:`, so `a:1:2` has the port `1:2`.
fn split_authority(authority: &str) -> (&str, Option<&str>) {
    if authority.starts_with('[') {
        if let Some(close) = authority.find(']') {
            let rest = &authority[close + 1..];
            if rest.is_empty() {
                return (authority, None);
            }
            if let Some(port) = rest.strip_prefix(':') {
                return (&authority[..=close], Some(port));
            }
        }
        return (authority, None);
    }
    match authority.split_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (authority, None),
    }
}

fn bad_port(p: &str, quiet: bool) -> KeyError {
    refuse(ErrorCode::DocumentInvalidPort, quiet, || {
        format!("the port {p:?} is not ASCII digits with a value from 0 to 65535")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each byte value at each position of words and tails: the word scan finds the same
    /// first byte as a byte loop, also with a second match after it.
    #[test]
    fn word_scan_finds_the_first_control_space_or_non_ascii_byte() {
        let slow = |b: &[u8]| b.iter().position(|&c| c <= 0x20 || c >= 0x7f);
        let slow_unusual = |b: &[u8]| b.iter().position(|&c| c <= 0x20 || c >= 0x7f || c == b'\\');
        for len in [0usize, 1, 7, 8, 9, 16, 23] {
            for at in 0..len {
                for v in 0..=255u8 {
                    let mut b = vec![b'a'; len];
                    b[at] = v;
                    assert_eq!(
                        first_control_space_or_non_ascii(&b),
                        slow(&b),
                        "{len} {at} {v}"
                    );
                    assert_eq!(first_unusual_byte(&b), slow_unusual(&b), "{len} {at} {v}");
                    if at + 1 < len {
                        b[at + 1] = b'\\';
                        assert_eq!(
                            first_unusual_byte(&b),
                            slow_unusual(&b),
                            "{len} {at} {v}+\\\\"
                        );
                        b[at + 1] = 0x00;
                        assert_eq!(
                            first_control_space_or_non_ascii(&b),
                            slow(&b),
                            "{len} {at} {v}+0"
                        );
                    }
                }
            }
        }
    }
}
