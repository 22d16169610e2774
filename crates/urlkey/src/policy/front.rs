//! Front ends: how a policy turns trimmed text into [`Parts`], and what it refuses.

use std::borrow::Cow;

use crate::error::{ErrorCode, KeyError};
use crate::text;
use crate::web::{HostKind, WebUrl};

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
        /// Assume `https://` when no scheme is written (seed 001's rule).
        infer_scheme: bool,
    },
    /// `mapper@1` (seed 000): whitespace and non-HTTP schemes refused before parsing;
    /// path-only input stays path-only.
    Mapper,
    /// `document@1` (seed 002): a component split, not the WHATWG parser.
    Document,
}

/// The origin that `mapper@1` resolves path-only input against; never reported.
pub const PLACEHOLDER_BASE: &str = "https://path-only.urlkey.invalid/";
const PLACEHOLDER_HOST: &str = "path-only.urlkey.invalid";

/// The first character matching `pred`. `ascii` must agree with `pred` on ASCII: bytes are
/// scanned while the text is ASCII (nearly always), characters after the first other byte.
fn find_char(
    text: &str,
    ascii: impl Fn(u8) -> bool,
    pred: impl Fn(char) -> bool,
) -> Option<(usize, char)> {
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if b >= 0x80 {
            return text[i..]
                .char_indices()
                .find(|&(_, c)| pred(c))
                .map(|(j, c)| (i + j, c));
        }
        if ascii(b) {
            return Some((i, char::from(b)));
        }
    }
    None
}

/// What the WHATWG front end needs to parse: the text (maybe with `https://` prepended)
/// and whether the scheme was assumed. Kept apart so the caller owns the [`WebUrl`] the
/// parts borrow from.
pub fn whatwg_input(text: &str, infer_scheme: bool) -> (Cow<'_, str>, bool) {
    if !infer_scheme {
        return (Cow::Borrowed(text), false);
    }
    // The Standard removes tabs and newlines anywhere, so `ht\ttps://x` has a scheme.
    let written = if text.bytes().any(|b| matches!(b, b'\t' | b'\n' | b'\r')) {
        let cleaned: String = text
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .collect();
        text::written_scheme(&cleaned).is_some()
    } else {
        text::written_scheme(text).is_some()
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

/// Checks the scheme after a WHATWG parse.
pub fn check_scheme(url: &WebUrl, schemes: Schemes) -> Result<(), KeyError> {
    match schemes {
        Schemes::Any => Ok(()),
        Schemes::Web(code) if !text::is_web_scheme(url.scheme()) => Err(KeyError::new(
            code,
            format!("the scheme {:?} is not http or https", url.scheme()),
        )),
        Schemes::Web(_) => Ok(()),
    }
}

/// Seed 000's checks before parsing. Returns the base to parse against (the placeholder
/// for path-only input).
pub fn mapper_precheck(text: &str) -> Result<Option<&'static str>, KeyError> {
    if let Some((i, c)) = find_char(text, |b| matches!(b, 9..=13 | 32), char::is_whitespace) {
        return Err(KeyError::new(
            ErrorCode::MapperWhitespace,
            format!("whitespace {c:?} at byte {i} inside the URL"),
        ));
    }
    if text.starts_with("//") {
        return Err(KeyError::new(
            ErrorCode::MapperSchemeRelative,
            "scheme-relative input (starts with //): the scheme is unknown",
        ));
    }
    if text.starts_with('/') {
        return Ok(Some(PLACEHOLDER_BASE));
    }
    match text::leading_scheme(text) {
        Some(s) if text::is_web_scheme(s) => Ok(None),
        Some(s) => Err(KeyError::new(
            ErrorCode::MapperUnsupportedScheme,
            format!("the scheme {s:?} is not http or https"),
        )),
        None => Err(KeyError::new(
            ErrorCode::MapperUnsupportedScheme,
            "no http:// or https:// scheme, and not a path starting with /",
        )),
    }
}

/// The parts of a parsed URL, borrowed from it.
pub fn parts_from_url(url: &WebUrl, path_only: bool) -> Result<Parts<'_>, KeyError> {
    if path_only && url.hostname() != PLACEHOLDER_HOST {
        // `/\host/x` is scheme-relative under the Standard for special schemes.
        return Err(KeyError::new(
            ErrorCode::MapperSchemeRelative,
            "the path reparses as scheme-relative (a backslash after the first /)",
        ));
    }
    let userinfo: Cow<'_, str> = if url.password().is_empty() {
        Cow::Borrowed(url.username())
    } else {
        // `username:password`. Built rather than borrowed: an empty username
        // (`https://:pw@host/`) is not a slice of the href, so no pointer arithmetic.
        Cow::Owned(format!("{}:{}", url.username(), url.password()))
    };
    let host_kind = url.host_kind();
    let host = match host_kind {
        HostKind::None => None,
        _ => Some(Cow::Borrowed(url.hostname())),
    };
    Ok(Parts {
        scheme: Cow::Borrowed(url.scheme()),
        userinfo: if path_only {
            Cow::Borrowed("")
        } else {
            userinfo
        },
        host: if path_only { None } else { host },
        host_kind: if path_only { HostKind::None } else { host_kind },
        port: Cow::Borrowed(url.port()),
        path: Cow::Borrowed(url.pathname()),
        query: url.query().map(Cow::Borrowed),
        fragment: url.fragment().map(Cow::Borrowed),
        opaque_path: url.has_opaque_path(),
        path_only,
    })
}

/// Seed 002's component split (`document@1`). Not the WHATWG parser: everything the
/// rules below do not name stays byte for byte.
pub fn document_parts(text: &str) -> Result<Parts<'_>, KeyError> {
    if let Some((i, c)) = find_char(
        text,
        |b| b <= 0x20 || b == 0x7f || b == b'\\',
        |c| c.is_whitespace() || c <= '\u{1f}' || c == '\u{7f}' || c == '\\',
    ) {
        return Err(KeyError::new(
            ErrorCode::DocumentForbiddenCharacter,
            format!("forbidden character {c:?} at byte {i}"),
        ));
    }
    let scheme = text::leading_scheme(text).filter(|s| text::is_web_scheme(s));
    let Some(scheme) = scheme.filter(|s| text[s.len() + 1..].starts_with("//")) else {
        return Err(KeyError::new(
            ErrorCode::DocumentUnsupportedScheme,
            "not an absolute http:// or https:// URL",
        ));
    };
    let rest = &text[scheme.len() + 3..];
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..auth_end];
    if authority.contains('@') {
        return Err(KeyError::new(
            ErrorCode::DocumentCredentials,
            "credentials (@) in the authority are not accepted",
        ));
    }
    let (host, port) = split_authority(authority);
    let host_kind = if host.starts_with('[') {
        // Brackets hold exactly an IPv6 address (`split_authority` left anything after
        // the `]` that is not `:port` in the host, so it fails here too).
        let inner = host.strip_prefix('[').and_then(|h| h.strip_suffix(']'));
        match inner {
            Some(i) if i.parse::<std::net::Ipv6Addr>().is_ok() => HostKind::Ipv6,
            _ => {
                return Err(KeyError::new(
                    ErrorCode::DocumentInvalidHost,
                    format!("{host:?} is not a bracketed IPv6 address"),
                ))
            }
        }
    } else if host.is_empty() || !host.is_ascii() || host.contains(['[', ']']) {
        return Err(KeyError::new(
            ErrorCode::DocumentInvalidHost,
            format!("the host {host:?} must be non-empty ASCII"),
        ));
    } else {
        HostKind::Domain
    };
    match port {
        None => {}
        Some("") => {
            return Err(KeyError::new(
                ErrorCode::DocumentEmptyPort,
                "an explicit empty port (host:) is not accepted",
            ))
        }
        Some(p)
            if p.len() <= 5
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u32>().is_ok_and(|v| v <= 65535) => {}
        Some(p) => return Err(bad_port(p)),
    }
    let after = &rest[auth_end..];
    let (before_frag, fragment) = match after.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (after, None),
    };
    let (path, query) = match before_frag.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (before_frag, None),
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

fn bad_port(p: &str) -> KeyError {
    KeyError::new(
        ErrorCode::DocumentInvalidPort,
        format!("the port {p:?} is not 1-5 digits from 0 to 65535"),
    )
}
