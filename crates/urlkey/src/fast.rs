//! The verified fast path (issue 19, target 3): plain printable-ASCII `http(s)` URLs whose
//! WHATWG serialization can be written without running the parser's state machine.
//!
//! [`FastUrl::parse`] accepts only text for which every step of the basic URL parser
//! (<https://url.spec.whatwg.org/#concept-basic-url-parser>) is the identity or a trivial
//! rewrite (ASCII lowercase of scheme and host, a default or empty port dropped, an empty
//! path written `/`), and gives back `None` for anything else, which then goes to ada.
//! What it accepts, it must serialize exactly as ada does: [`FastUrl::pieces`] equals
//! [`crate::WebUrl::pieces`] field for field. `tests/fast_path.rs` checks that on the
//! corpus, every WPT input, the golden and hostile inputs and generated near-misses, and
//! `fuzz/fuzz_targets/fast_path.rs` on arbitrary bytes.

use std::borrow::Cow;

use crate::web::{HostKind, Pieces};

/// A URL the fast path parsed: its serialization and where each component lies in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FastUrl<'a> {
    href: Cow<'a, str>,
    /// `http` or `https`: 4 or 5.
    scheme_end: usize,
    host_end: usize,
    /// Where the path starts (after `:port` when one is kept).
    path_start: usize,
    /// Where the path ends: the `?`, the `#` or the end.
    path_end: usize,
    /// The `?`, when there is a query.
    query_at: Option<usize>,
    /// The `#`, when there is a fragment.
    fragment_at: Option<usize>,
}

impl<'a> FastUrl<'a> {
    /// Parses `text` if it is plain enough; `None` means "ask the real parser".
    pub fn parse(text: &'a str) -> Option<FastUrl<'a>> {
        let b = text.as_bytes();
        // Controls, space, DEL, backslash, non-ASCII: the parser trims, removes tabs and
        // newlines, treats `\` as `/` and percent-encodes (#concept-basic-url-parser,
        // steps 1-3; #special-authority-ignore-slashes-state; #path-state).
        if crate::policy::first_unusual_byte(b).is_some() {
            return None;
        }
        // Seed 001's host-length limit runs before the parser: keep its answer.
        crate::web::check_host_length(text).map_or(Some(()), |_| None)?;
        // #scheme-state: the scheme is ASCII-lowercased; then exactly `//`
        // (#special-authority-slashes-state), anything else is left to the parser.
        let scheme_end = if b.len() >= 7 && b[..7].eq_ignore_ascii_case(b"http://") {
            4
        } else if b.len() >= 8 && b[..8].eq_ignore_ascii_case(b"https://") {
            5
        } else {
            return None;
        };
        let default_port: u32 = if scheme_end == 4 { 80 } else { 443 };
        let auth_start = scheme_end + 3;
        let rest = &b[auth_start..];
        let auth_len = memchr::memchr3(b'/', b'?', b'#', rest).unwrap_or(rest.len());
        let authority = &rest[..auth_len];
        // #authority-state: `@` means credentials; brackets mean IPv6: parser.
        let (host, port) = match memchr::memchr(b':', authority) {
            Some(i) => (&authority[..i], Some(&authority[i + 1..])),
            None => (authority, None),
        };
        if !plain_domain(host) {
            return None;
        }
        let port = match port {
            None => None,
            Some(p) => port_kept(p, default_port)?,
        };
        let after = &text[auth_start + auth_len..];
        let ab = after.as_bytes();
        let path_len = memchr::memchr2(b'?', b'#', ab).unwrap_or(ab.len());
        let path = &after[..path_len];
        if !plain_path(path.as_bytes()) {
            return None;
        }
        let tail = &after[path_len..];
        // The query runs to the first `#` (#query-state); the fragment is the rest.
        let (query, fragment) = match tail.as_bytes().first() {
            None => (None, None),
            Some(b'#') => (None, Some(&tail[1..])),
            Some(_) => {
                let q = &tail[1..];
                match memchr::memchr(b'#', q.as_bytes()) {
                    Some(j) => (Some(&q[..j]), Some(&q[j + 1..])),
                    None => (Some(q), None),
                }
            }
        };
        // https://url.spec.whatwg.org/#special-query-percent-encode-set: the bytes left in
        // it once controls, space and non-ASCII are excluded.
        if query.is_some_and(|q| q.bytes().any(|c| matches!(c, b'"' | b'\'' | b'<' | b'>'))) {
            return None;
        }
        // https://url.spec.whatwg.org/#fragment-percent-encode-set, likewise.
        if fragment.is_some_and(|f| f.bytes().any(|c| matches!(c, b'"' | b'<' | b'>' | b'`'))) {
            return None;
        }
        let verbatim = b[..scheme_end].iter().all(u8::is_ascii_lowercase)
            && !host.iter().any(u8::is_ascii_uppercase)
            && port.map(str::len) == authority.len().checked_sub(host.len() + 1)
            && !path.is_empty();
        let host_end = auth_start + host.len();
        let path_start = host_end + port.map_or(0, |p| p.len() + 1);
        let href = if verbatim {
            Cow::Borrowed(text)
        } else {
            // #url-serializing: lowercase scheme and host, the kept port, `/` for an
            // empty path of a special URL (#path-start-state), then query and fragment.
            let mut s = String::with_capacity(text.len() + 1);
            s.push_str(&text[..auth_start]);
            s.push_str(&text[auth_start..host_end]);
            s[..host_end].make_ascii_lowercase();
            if let Some(p) = port {
                s.push(':');
                s.push_str(p);
            }
            s.push_str(if path.is_empty() { "/" } else { path });
            s.push_str(tail);
            Cow::Owned(s)
        };
        let path_end = path_start + path.len().max(1);
        let query_at = query.map(|_| path_end);
        let fragment_at = fragment.map(|f| href.len() - f.len() - 1);
        Some(FastUrl {
            href,
            scheme_end,
            host_end,
            path_start,
            path_end,
            query_at,
            fragment_at,
        })
    }

    /// The serialization (`href`).
    pub fn href(&self) -> &str {
        &self.href
    }

    /// The components, as [`crate::WebUrl::pieces`] gives them for the same text.
    pub fn pieces(&self) -> Pieces<'_> {
        let h: &str = &self.href;
        let end_of_query = self.fragment_at.unwrap_or(h.len());
        Pieces {
            href: h,
            scheme: &h[..self.scheme_end],
            username: "",
            password: "",
            userinfo: "",
            hostname: &h[self.scheme_end + 3..self.host_end],
            port: h.get(self.host_end + 1..self.path_start).unwrap_or(""),
            pathname: &h[self.path_start..self.path_end],
            query: self.query_at.map(|q| &h[q + 1..end_of_query]),
            fragment: self.fragment_at.map(|f| &h[f + 1..]),
            host_kind: HostKind::Domain,
            opaque_path: false,
        }
    }
}

/// A host the host parser (https://url.spec.whatwg.org/#concept-host-parser) only
/// lowercases: letters, digits, `-`, `_` and dots, no empty label but a final one, no
/// `xn--` label (domain to ASCII would check its Punycode: #concept-domain-to-ascii), and
/// a last label that does not start with a digit, so that "ends in a number"
/// (https://url.spec.whatwg.org/#ends-in-a-number-checker) is false: an all-digit or
/// `0x` last label would make it an IPv4 address.
fn plain_domain(host: &[u8]) -> bool {
    if host.is_empty() || host.len() > 253 {
        return false;
    }
    let ok = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.');
    if !host.iter().all(ok) {
        return false;
    }
    let body = host.strip_suffix(b".").unwrap_or(host);
    let mut last = &body[..0];
    for label in body.split(|&c| c == b'.') {
        if label.is_empty() || (label.len() >= 4 && label[..4].eq_ignore_ascii_case(b"xn--")) {
            return false;
        }
        last = label;
    }
    !last.first().is_some_and(u8::is_ascii_digit)
}

/// The port to keep (https://url.spec.whatwg.org/#port-state): `Some(None)` for an empty
/// or default port (the serializer writes none), `Some(Some(p))` for one written in
/// canonical decimal, `None` (the parser decides) for leading zeros, non-digits or a value
/// past 65535.
fn port_kept(p: &[u8], default: u32) -> Option<Option<&str>> {
    if p.is_empty() {
        return Some(None);
    }
    if p.len() > 5 || !p.iter().all(u8::is_ascii_digit) || (p[0] == b'0' && p.len() > 1) {
        return None;
    }
    let v = p.iter().fold(0u32, |v, &d| v * 10 + u32::from(d - b'0'));
    if v > 65535 {
        return None;
    }
    // The bytes are ASCII digits, so this cannot fail.
    let s = std::str::from_utf8(p).ok()?;
    Some((v != default).then_some(s))
}

/// A path (https://url.spec.whatwg.org/#path-state) the parser keeps byte for byte: no
/// byte of the path percent-encode set (#path-percent-encode-set; controls, space and
/// non-ASCII are already excluded), and no single- or double-dot segment, written or
/// percent-encoded (#single-dot-path-segment), so no `%2e` at all.
fn plain_path(path: &[u8]) -> bool {
    if path
        .iter()
        .any(|c| matches!(c, b'"' | b'<' | b'>' | b'`' | b'{' | b'}' | b'^'))
    {
        return false;
    }
    if memchr::memmem::find_iter(path, b"%2").any(|i| matches!(path.get(i + 2), Some(b'e' | b'E')))
    {
        return false;
    }
    !path.split(|&c| c == b'/').any(|s| s == b"." || s == b"..")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WebUrl;

    fn agrees(x: &str) -> bool {
        let Some(f) = FastUrl::parse(x) else {
            return false;
        };
        let u = WebUrl::parse(x, None).unwrap();
        assert_eq!(f.pieces(), u.pieces(), "{x}");
        true
    }

    #[test]
    fn plain_urls_are_accepted_and_serialized_as_ada_does() {
        for x in [
            "https://example.com/a/b?c=d#e",
            "HTTP://Example.COM",
            "http://a.example:80/x",
            "https://a.example:443",
            "https://a.example:8443/p",
            "http://a.example:/p?",
            "https://a.example?q#f",
            "https://a.example#f?x",
            "https://a_b.example./%41?x=%2e#%2e",
            "http://a.example/a%2/b",
        ] {
            assert!(agrees(x), "not accepted: {x}");
        }
    }

    #[test]
    fn anything_else_goes_to_the_parser() {
        for x in [
            " https://a.example/",
            "https://a.example/ b",
            "https://a\\b/",
            "https://u@a.example/",
            "https://[::1]/",
            "https://1.2.3.4/",
            "https://a.0x1f/",
            "https://a.123./",
            "https://xn--nxasmq6b.example/",
            "https://a..b/",
            "https:///a",
            "https:a",
            "https://a.example:080/",
            "https://a.example:65536/",
            "https://a.example/./x",
            "https://a.example/x/..",
            "https://a.example/%2E%2e/x",
            "https://a.example/a^b",
            "https://a.example/?q='",
            "https://a.example/#`",
            "https://é.example/",
            "ftp://a.example/",
        ] {
            assert!(FastUrl::parse(x).is_none(), "accepted: {x}");
        }
    }
}
