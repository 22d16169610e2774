//! The verified fast path: plain printable-ASCII `http(s)` URLs whose
//! WHATWG serialization can be written without running the parser's state machine.
//!
//! [`FastUrl::parse`] accepts only text for which every step of the basic URL parser
//! (<https://url.spec.whatwg.org/#concept-basic-url-parser>) is the identity or a trivial
//! rewrite (ASCII lowercase of scheme and host, a default or empty port dropped, an empty
//! path written `/`), and gives back `None` for anything else, which then goes to ada.
//! What it accepts, it must serialize exactly as ada does: [`FastUrl::pieces`] equals
//! [`crate::WebUrl::pieces`] field for field. `tests/fast_path.rs` checks that on the
//! corpus, every WPT input, the golden and hostile inputs and generated near-misses, and
//! `fuzz/fuzz_targets/fast_path.rs` on arbitrary bytes (its oracle, `check_fast_path` in
//! `fuzz/src/lib.rs`).

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

/// A serialization that is not the input itself was built in a buffer from the thread's
/// spares (`crate::scratch`): it goes back there.
impl Drop for FastUrl<'_> {
    fn drop(&mut self) {
        if let Cow::Owned(s) = &mut self.href {
            crate::scratch::give(std::mem::take(s));
        }
    }
}

/// Byte classes of [`CLASS`]: what each component's plain form allows.
const HOST_OK: u8 = 1;
const PATH_OK: u8 = 2;
const QUERY_OK: u8 = 4;
const FRAGMENT_OK: u8 = 8;
/// A host byte that needs no second look: a lowercase letter, a digit, `-` or `_` (not `.`,
/// which ends a label, nor a capital, which makes the serialization differ).
const HOST_PLAIN: u8 = 16;
/// `.`, a capital and `-`: what [`scan_host`] gathers over a host without a branch per byte.
const HOST_DOT: u8 = 32;
const HOST_UPPER: u8 = 64;
const HOST_HYPHEN: u8 = 128;

/// Printable ASCII but `\` (controls, space, DEL, `\` and non-ASCII are what the parser
/// trims, removes, treats as `/` or percent-encodes: #concept-basic-url-parser steps 1-3,
/// #special-authority-ignore-slashes-state, #path-state), less each component's
/// percent-encode set (https://url.spec.whatwg.org/#path-percent-encode-set,
/// #special-query-percent-encode-set, #fragment-percent-encode-set; `^` is kept out of
/// paths as well) and its own delimiters. A host byte is a letter, a digit, `-`, `_` or `.`.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0x21;
    while c < 0x7f {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.' {
            t[c] |= HOST_OK;
            if b != b'.' && !b.is_ascii_uppercase() {
                t[c] |= HOST_PLAIN;
            }
            if b == b'.' {
                t[c] |= HOST_DOT;
            }
            if b.is_ascii_uppercase() {
                t[c] |= HOST_UPPER;
            }
            if b == b'-' {
                t[c] |= HOST_HYPHEN;
            }
        }
        if !matches!(
            b,
            b'\\' | b'"' | b'<' | b'>' | b'`' | b'{' | b'}' | b'^' | b'?' | b'#'
        ) {
            t[c] |= PATH_OK;
        }
        if !matches!(b, b'\\' | b'"' | b'\'' | b'<' | b'>' | b'#') {
            t[c] |= QUERY_OK;
        }
        if !matches!(b, b'\\' | b'"' | b'<' | b'>' | b'`') {
            t[c] |= FRAGMENT_OK;
        }
        c += 1;
    }
    t
};

/// The first byte at or after `i` that `class` does not allow (or `b.len()`). Eight bytes
/// at a time while all eight are allowed (one AND of their classes, no branch per byte),
/// then byte by byte: about a third of the instructions of a plain byte loop.
#[inline]
fn run_of(b: &[u8], mut i: usize, class: u8) -> usize {
    while let Some(w) = b.get(i..i + 8) {
        let all = w.iter().fold(class, |all, &c| all & CLASS[c as usize]);
        if all == 0 {
            break;
        }
        i += 8;
    }
    while i < b.len() && CLASS[b[i] as usize] & class != 0 {
        i += 1;
    }
    i
}

impl<'a> FastUrl<'a> {
    /// Parses `text` if it is plain enough; `None` means "ask the real parser".
    pub fn parse(text: &'a str) -> Option<FastUrl<'a>> {
        let b = text.as_bytes();
        // #scheme-state: the scheme is ASCII-lowercased; then exactly `//`
        // (#special-authority-slashes-state), anything else is left to the parser.
        // Written in lowercase nearly always: compare exactly first.
        let (scheme_end, scheme_lower) = if b.starts_with(b"https://") {
            (5, true)
        } else if b.starts_with(b"http://") {
            (4, true)
        } else if b.len() >= 8 && b[..8].eq_ignore_ascii_case(b"https://") {
            (5, false)
        } else if b.len() >= 7 && b[..7].eq_ignore_ascii_case(b"http://") {
            (4, false)
        } else {
            return None;
        };
        // The 4096-unit host limit runs before the parser: keep its answer.
        if text.len() > crate::web::MAX_NON_ASCII_HOST_UTF16
            && crate::web::check_host_length(text).is_some()
        {
            return None;
        }
        let auth_start = scheme_end + 3;
        // #host-state: the host runs to `:`, `/`, `?`, `#` or the end; anything else
        // (`@` for credentials, `[` for IPv6, `%`, controls...) goes to the parser.
        let (host_end, host_upper) = scan_host(b, auth_start)?;
        let default_port: u32 = if scheme_end == 4 { 80 } else { 443 };
        let (port, path_at) = if b.get(host_end) == Some(&b':') {
            // #port-state: ASCII digits up to the path; anything else goes to the parser
            // (the path check below refuses what follows unless it starts the path).
            let end = (host_end + 1..b.len())
                .find(|&j| !b[j].is_ascii_digit())
                .unwrap_or(b.len());
            (port_kept(&text[host_end + 1..end], default_port)?, end)
        } else {
            (None, host_end)
        };
        let path_end = run_of(b, path_at, PATH_OK);
        match b.get(path_end) {
            None | Some(b'?' | b'#') => {}
            Some(_) => return None,
        }
        // A path starts with `/` (#path-start-state writes one when it is empty).
        if path_at < path_end && b[path_at] != b'/' {
            return None;
        }
        if !plain_path(&b[path_at..path_end]) {
            return None;
        }
        // The query runs to the first `#` (#query-state); the fragment is the rest.
        let mut at = path_end;
        let mut query = None;
        if b.get(at) == Some(&b'?') {
            let end = run_of(b, at + 1, QUERY_OK);
            query = Some(at);
            at = end;
        }
        let mut fragment = None;
        if b.get(at) == Some(&b'#') {
            let end = run_of(b, at + 1, FRAGMENT_OK);
            fragment = Some(at);
            at = end;
        }
        if at != b.len() {
            return None;
        }
        let has_port_text = path_at > host_end;
        let empty_path = path_at == path_end;
        let verbatim =
            scheme_lower && !host_upper && port.is_some() == has_port_text && !empty_path;
        let href = if verbatim {
            Cow::Borrowed(text)
        } else {
            // #url-serializing: lowercase scheme and host, the kept port, `/` for an
            // empty path of a special URL (#path-start-state), then query and fragment.
            let mut s = crate::scratch::string(text.len() + 1);
            s.push_str(&text[..host_end]);
            s.make_ascii_lowercase();
            if let Some(p) = port {
                s.push(':');
                s.push_str(p);
            }
            s.push_str(if empty_path {
                "/"
            } else {
                &text[path_at..path_end]
            });
            s.push_str(&text[path_end..]);
            Cow::Owned(s)
        };
        // Offsets in `href`: it differs from `text` only up to the path's end.
        let shift = |i: usize| i + href.len() - text.len();
        let path_start = host_end + port.map_or(0, |p| p.len() + 1);
        Some(FastUrl {
            scheme_end,
            host_end,
            path_start,
            path_end: shift(path_end),
            query_at: query.map(shift),
            fragment_at: fragment.map(shift),
            href,
        })
    }

    /// The serialization (`href`).
    pub fn href(&self) -> &str {
        &self.href
    }

    /// The components, as [`crate::WebUrl::pieces`] gives them for the same text.
    #[inline]
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

/// The scheme, as written, of a text that is not `http(s)` and that the basic URL parser
/// (<https://url.spec.whatwg.org/#concept-basic-url-parser>, no base) cannot fail on, so
/// that a policy which refuses every other scheme may refuse it without parsing: `None`
/// for anything else (the parser decides). `text` is trimmed of C0 controls and spaces, as
/// the parser trims it. Every byte read below decides a state transition, so none of them
/// may be a tab or newline (the parser removes those first, and the next byte would
/// decide instead).
///
/// - #scheme-start-state, #scheme-state: an ASCII letter, then letters, digits, `+`, `-`,
///   `.`, then `:`. A special scheme other than `file` (`ws`, `wss`, `ftp`) is left to the
///   parser: its authority may fail.
/// - A non-special scheme then anything but `/` (or EOF) goes to #cannot-be-a-base-url-path-state,
///   or `/` then anything but `/` to #path-state: neither state nor the query and
///   fragment states after them ever returns failure. `scheme://` (an authority) is left
///   to the parser.
/// - `file:` (#file-state) then anything but `/` or `\`, or one slash (#file-slash-state)
///   then anything but a slash, goes to #path-state. Two slashes go to #file-host-state:
///   a host of `HOST_OK` bytes ended by EOF, `/`, `\`, `?` or `#` that is empty or
///   plain (`scan_host`: so no `%`, no Windows drive letter, no IPv4-like or `xn--` label)
///   cannot fail the host parser; `localhost` becomes the empty host, which is no failure.
///
/// The 4096-unit host limit (docs/policies.md), which `crate::WebUrl::parse` checks before
/// the parser, is kept: long text that it refuses is left to the parser's path.
pub fn non_web_scheme_that_parses(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let colon = 1 + b[1..]
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.')))?;
    if b[colon] != b':' {
        return None;
    }
    let scheme = &text[..colon];
    if text.len() > crate::web::MAX_NON_ASCII_HOST_UTF16
        && crate::web::check_host_length(text).is_some()
    {
        return None;
    }
    let at = |i: usize| b.get(colon + i).copied();
    let removed = |c: Option<u8>| matches!(c, Some(b'\t' | b'\n' | b'\r'));
    let slash = |c: Option<u8>| matches!(c, Some(b'/' | b'\\'));
    let (first, second) = (at(1), at(2));
    if removed(first) {
        return None;
    }
    if scheme.eq_ignore_ascii_case("file") {
        if !slash(first) {
            return Some(scheme);
        }
        if removed(second) {
            return None;
        }
        if !slash(second) {
            return Some(scheme);
        }
        let ends = |i: usize| matches!(b.get(i), None | Some(b'/' | b'\\' | b'?' | b'#'));
        let host_start = colon + 3;
        if ends(host_start) {
            return Some(scheme);
        }
        let (host_end, _) = scan_host(b, host_start)?;
        return ends(host_end).then_some(scheme);
    }
    if crate::text::is_special_scheme(scheme) {
        return None;
    }
    if first != Some(b'/') {
        return Some(scheme);
    }
    if removed(second) || second == Some(b'/') {
        return None;
    }
    Some(scheme)
}

/// Scans a host from `start` to the first byte that is not [`HOST_OK`]: its end and
/// whether it has capitals, if the host parser
/// (https://url.spec.whatwg.org/#concept-host-parser) only lowercases it; `None` otherwise.
/// That is: no empty label but a final one, no `xn--` label (domain to ASCII would check
/// its Punycode: #concept-domain-to-ascii), at most 253 bytes, and a last label that does
/// not start with a digit, so that "ends in a number"
/// (https://url.spec.whatwg.org/#ends-in-a-number-checker) is false: an all-digit or `0x`
/// last label would make it an IPv4 address. One pass; labels are checked at their dots.
#[inline(always)]
fn scan_host(b: &[u8], start: usize) -> Option<(usize, bool)> {
    // Eight bytes at a time, their classes as the bytes of one word, with no branch but
    // the loop's own: a branch per dot mispredicted about once per label (5.7 per URL on
    // the http(s) corpus lines), and so did a select of the last dot in the loop. Gathered:
    // the OR of the classes (capitals, hyphens) and a dot right after a dot (an empty
    // label; a dot before `start` makes a leading dot one).
    const LO: u64 = 0x0101_0101_0101_0101;
    let mut i = start;
    let (mut any, mut empty, mut prev_dot) = (0u64, 0u64, 1u64);
    loop {
        // Past the text's end a byte's class is 0, which is not HOST_OK.
        let mut cw = 0u64;
        if let Some(w) = b.get(i..i + 8) {
            for (j, &c) in w.iter().enumerate() {
                cw |= u64::from(CLASS[c as usize]) << (8 * j);
            }
        } else {
            for (j, &c) in b[i..].iter().enumerate() {
                cw |= u64::from(CLASS[c as usize]) << (8 * j);
            }
        }
        // Bit 0 of each byte that ends the host; the bytes below the first one are kept.
        let ends = !cw & (LO * u64::from(HOST_OK));
        cw &= (ends & ends.wrapping_neg()).wrapping_sub(1);
        any |= cw;
        let dots = (cw >> HOST_DOT.trailing_zeros()) & LO;
        empty |= dots & ((dots << 8) | prev_dot);
        prev_dot = dots >> 56;
        let n = ends.trailing_zeros() as usize / 8;
        i += n;
        if n < 8 {
            break;
        }
    }
    if i == start || i - start > 253 || empty != 0 {
        return None;
    }
    // A label cannot start with `xn--` without a hyphen in the host.
    if any & (LO * u64::from(HOST_HYPHEN)) != 0
        && b[start..i]
            .split(|&c| c == b'.')
            .any(|l| l.len() >= 4 && l[..4].eq_ignore_ascii_case(b"xn--"))
    {
        return None;
    }
    // The last label starts after the last dot of the host's last eight bytes; only a
    // last label of more than seven bytes, a final dot (it ends an empty label, which is
    // allowed, so the label before it is the last) or a short text take the slow way.
    let dots_in = |w: u64| {
        let x = w ^ (LO * u64::from(b'.'));
        !(((x & (LO * 0x7f)) + LO * 0x7f) | x | (LO * 0x7f))
    };
    let tail = i
        .checked_sub(8)
        .map(|s| u64::from_le_bytes(b[s..i].try_into().unwrap_or([0; 8])));
    let dm = tail.map_or(0, |w| {
        // Only the host's own bytes.
        dots_in(w)
            & (!0u64)
                .checked_shl(8 * (8 - (i - start).min(8)) as u32)
                .unwrap_or(0)
    });
    let last = if dm != 0 && b[i - 1] != b'.' {
        i - dm.leading_zeros() as usize / 8
    } else {
        let end = if b[i - 1] == b'.' { i - 1 } else { i };
        b[start..end]
            .iter()
            .rposition(|&c| c == b'.')
            .map_or(start, |d| start + d + 1)
    };
    (!b[last].is_ascii_digit()).then_some((i, any & (LO * u64::from(HOST_UPPER)) != 0))
}

/// The port to keep (https://url.spec.whatwg.org/#port-state): `Some(None)` for an empty
/// or default port (the serializer writes none), `Some(Some(p))` for one written in
/// canonical decimal, `None` (the parser decides) for leading zeros or a value past
/// 65535. `p` is ASCII digits.
fn port_kept(p: &str, default: u32) -> Option<Option<&str>> {
    let d = p.as_bytes();
    if d.is_empty() {
        return Some(None);
    }
    if d.len() > 5 || (d[0] == b'0' && d.len() > 1) {
        return None;
    }
    let v = d.iter().fold(0u32, |v, &c| v * 10 + u32::from(c - b'0'));
    if v > 65535 {
        return None;
    }
    Some((v != default).then_some(p))
}

/// A path (https://url.spec.whatwg.org/#path-state) of [`PATH_OK`] bytes that the parser
/// keeps byte for byte: no single- or double-dot segment, written or percent-encoded
/// (#single-dot-path-segment), so no `%2e` at all. Only the dots and `%` are looked at,
/// found eight bytes at a time: a dot that starts a segment must not end it or start `..`
/// that ends it. (`memchr2` found them too, at about 250 instructions per path: its
/// dispatch costs more than these short paths.)
fn plain_path(path: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of each zero byte of `x`, exactly (no carry crosses a byte).
    let zero = |x: u64| !(((x & LOW7) + LOW7) | x) & HIGH;
    let plain_at = |i: usize| {
        let next = &path[i + 1..];
        if path[i] == b'%' {
            !matches!(next, [b'2', b'e' | b'E', ..])
        } else {
            !((i == 0 || path[i - 1] == b'/')
                && matches!(next, [] | [b'/', ..] | [b'.'] | [b'.', b'/', ..]))
        }
    };
    let mut chunks = path.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let mut m = zero(w ^ (ONES * u64::from(b'.'))) | zero(w ^ (ONES * u64::from(b'%')));
        while m != 0 {
            if !plain_at(at + (m.trailing_zeros() / 8) as usize) {
                return false;
            }
            m &= m - 1;
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .enumerate()
        .all(|(j, &c)| !matches!(c, b'.' | b'%') || plain_at(at + j))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::WebUrl;

    // The first versions of the host and path checks, kept as references for the
    // one-pass ones.
    /// A host the host parser (https://url.spec.whatwg.org/#concept-host-parser) only
    /// lowercases (its bytes are [`HOST_OK`] already): no empty label but a final one, no
    /// `xn--` label (domain to ASCII would check its Punycode: #concept-domain-to-ascii), and
    /// a last label that does not start with a digit, so that "ends in a number"
    /// (https://url.spec.whatwg.org/#ends-in-a-number-checker) is false: an all-digit or
    /// `0x` last label would make it an IPv4 address.
    fn plain_domain_reference(host: &[u8]) -> bool {
        if host.is_empty() || host.len() > 253 {
            return false;
        }
        let body = host.strip_suffix(b".").unwrap_or(host);
        let mut last = 0;
        for (i, &c) in body.iter().chain(std::iter::once(&b'.')).enumerate() {
            if c == b'.' {
                let label = &body[last..i];
                if label.is_empty()
                    || (label.len() >= 4 && label[..4].eq_ignore_ascii_case(b"xn--"))
                {
                    return false;
                }
                if i < body.len() {
                    last = i + 1;
                }
            }
        }
        !body[last..].first().is_some_and(u8::is_ascii_digit)
    }

    /// A path (https://url.spec.whatwg.org/#path-state) of [`PATH_OK`] bytes that the parser
    /// keeps byte for byte: no single- or double-dot segment, written or percent-encoded
    /// (#single-dot-path-segment), so no `%2e` at all.
    fn plain_path_reference(path: &[u8]) -> bool {
        let mut seg = 0;
        for (i, &c) in path.iter().enumerate() {
            match c {
                b'/' => {
                    if matches!(&path[seg..i], b"." | b"..") {
                        return false;
                    }
                    seg = i + 1;
                }
                b'%' if path.get(i + 1) == Some(&b'2')
                    && matches!(path.get(i + 2), Some(b'e' | b'E')) =>
                {
                    return false
                }
                _ => {}
            }
        }
        !matches!(&path[seg..], b"." | b"..")
    }

    fn agrees(x: &str) -> bool {
        let Some(f) = FastUrl::parse(x) else {
            return false;
        };
        let u = WebUrl::parse(x, None).unwrap();
        assert_eq!(f.pieces(), u.pieces(), "{x}");
        true
    }

    /// Every string of up to `n` symbols of `alphabet`.
    fn all_strings(alphabet: &[u8], n: usize) -> Vec<Vec<u8>> {
        let mut out = vec![Vec::new()];
        let mut last = vec![Vec::new()];
        for _ in 0..n {
            let mut next = Vec::new();
            for s in &last {
                for &c in alphabet {
                    let mut t = s.clone();
                    t.push(c);
                    next.push(t);
                }
            }
            out.extend(next.iter().cloned());
            last = next;
        }
        out
    }

    #[test]
    fn one_pass_host_scan_equals_the_reference_checks() {
        let mut hosts = all_strings(b"aA0.xn-_/", 6);
        hosts.push([b"a.".repeat(126), b"b".to_vec()].concat());
        hosts.push([b"a.".repeat(126), b"bc".to_vec()].concat());
        hosts.push([b"a.".repeat(126), b"b.".to_vec()].concat());
        hosts.push([b"a.".repeat(126), b"bc.".to_vec()].concat());
        for h in hosts {
            let end = run_of(&h, 0, HOST_OK);
            let host = &h[..end];
            let want = plain_domain_reference(host)
                .then(|| (end, host.iter().any(u8::is_ascii_uppercase)));
            assert_eq!(scan_host(&h, 0), want, "{:?}", String::from_utf8_lossy(&h));
        }
    }

    #[test]
    fn dot_and_percent_path_check_equals_the_reference() {
        let mut paths = all_strings(b"/.%2eEa", 7);
        // And longer ones, over several words, from a fixed LCG.
        let mut r: u64 = 19;
        for _ in 0..200_000 {
            r = r
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = 8 + (r >> 59) as usize;
            let p: Vec<u8> = (0..len)
                .map(|k| b"/.%2eEa/."[((r >> (k % 20 * 3)) as usize + k) % 9])
                .collect();
            paths.push(p);
        }
        for p in paths {
            assert_eq!(
                plain_path(&p),
                plain_path_reference(&p),
                "{:?}",
                String::from_utf8_lossy(&p)
            );
        }
    }

    #[test]
    fn eight_at_a_time_run_equals_a_byte_loop() {
        let text = "https://a.example/ab/cd-ef_gh.html?q=1&r=%20#x`y{z}\\ \u{7f}é";
        let b = text.as_bytes();
        for class in [HOST_OK, PATH_OK, QUERY_OK, FRAGMENT_OK, HOST_PLAIN] {
            for i in 0..=b.len() {
                let want = (i..b.len())
                    .find(|&j| CLASS[b[j] as usize] & class == 0)
                    .unwrap_or(b.len());
                assert_eq!(run_of(b, i, class), want, "{class} {i}");
            }
        }
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
