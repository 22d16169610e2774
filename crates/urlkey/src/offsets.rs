//! Where each URL component sits in the input text as given, split the way the URL
//! Standard's basic URL parser (<https://url.spec.whatwg.org/#concept-basic-url-parser>)
//! splits it. Used to highlight parts of an observed URL, so spans index the original
//! input (UTF-8 bytes and UTF-16 code units), never a normalized copy.
//!
//! The Standard removes ASCII tab, LF and CR anywhere in the input before parsing. Every
//! delimiter is ASCII, so the split is done on the original bytes (removed characters are
//! never delimiters) and each span is then narrowed to its first and last kept character:
//! a span covers tabs and newlines inside a component but never starts or ends on one.
//!
//! Empty components: those the parsed URL always has (the path; the host whenever there
//! is an authority) are always `Some`, possibly empty. Those introduced by a delimiter
//! (userinfo `@`, port `:`, query `?`, fragment `#`) are `Some` exactly when the
//! delimiter is written, possibly empty. An empty span sits at the start of the text the
//! component would occupy (just after its delimiter, if it has one).

use crate::text::{trim_c0_space, SPECIAL_SCHEMES};

/// A half-open range `start..end` of offsets into the original input.
///
/// ```
/// let set = urlkey::PolicySet::builtin();
/// let i = urlkey::inspect("http://a.example/x", &set, &set.get("webkey@1").unwrap());
/// assert_eq!(i.offsets.path.unwrap().bytes, urlkey::Span { start: 16, end: 18 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Span {
    /// First offset in the span.
    pub start: usize,
    /// Offset just after the span.
    pub end: usize,
}

/// One component's position in the original input, in two units.
///
/// ```
/// let set = urlkey::PolicySet::builtin();
/// let input = "https://\u{1F600}.example/";
/// let host = urlkey::inspect(input, &set, &set.get("webkey@1").unwrap()).offsets.host.unwrap();
/// assert_eq!((host.bytes.start, host.bytes.end), (8, 20));
/// assert_eq!((host.utf16.start, host.utf16.end), (8, 18));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ComponentSpan {
    /// UTF-8 byte offsets (for slicing a Rust `str`).
    pub bytes: Span,
    /// UTF-16 code-unit offsets (for JavaScript strings).
    pub utf16: Span,
}

/// One raw query piece: the text between two `&`.
///
/// ```
/// let set = urlkey::PolicySet::builtin();
/// let input = "https://example.net/?utm_source=x&id=7";
/// let params = urlkey::inspect(input, &set, &set.get("webkey@1").unwrap()).offsets.params;
/// assert_eq!(params[0].name, "utm_source");
/// let s = params[1].span.bytes;
/// assert_eq!(&input[s.start..s.end], "id=7");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ParamSpan {
    /// The raw text before the first `=` (the whole piece if there is none), not decoded,
    /// with tabs and newlines dropped.
    pub name: String,
    /// The whole `name=value` piece.
    pub span: ComponentSpan,
}

/// The spans of a URL's components in the input as given. See the module docs for when
/// an empty component is `Some`.
///
/// ```
/// let set = urlkey::PolicySet::builtin();
/// let input = " https://ex\u{e4}mple.net/p?a=1&b#f";
/// let o = urlkey::inspect(input, &set, &set.get("webkey@1").unwrap()).offsets;
/// let host: urlkey::ComponentSpan = o.host.unwrap();
/// assert_eq!(&input[host.bytes.start..host.bytes.end], "ex\u{e4}mple.net");
/// assert_eq!((host.utf16.start, host.utf16.end), (9, 20));
/// let names: Vec<&str> = o.params.iter().map(|p: &urlkey::ParamSpan| p.name.as_str()).collect();
/// assert_eq!(names, ["a", "b"]);
/// let s: urlkey::Span = o.fragment.unwrap().bytes;
/// assert_eq!(&input[s.start..s.end], "f");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Offsets {
    /// The scheme, without the `:`; only when the scheme is written.
    pub scheme: Option<ComponentSpan>,
    /// The userinfo (everything before the authority's last `@`), without the `@`.
    pub userinfo: Option<ComponentSpan>,
    /// The host, brackets included for IPv6; present whenever there is an authority.
    pub host: Option<ComponentSpan>,
    /// The port, without the `:`.
    pub port: Option<ComponentSpan>,
    /// The path (an opaque path for non-special schemes without `//`); always present.
    pub path: Option<ComponentSpan>,
    /// The query, without the `?`.
    pub query: Option<ComponentSpan>,
    /// The fragment, without the `#`.
    pub fragment: Option<ComponentSpan>,
    /// The query's `&`-separated pieces, in order, empty pieces skipped.
    pub params: Vec<ParamSpan>,
}

/// Splits `input` into component spans.
///
/// `scheme_written`: pass `crate::text::written_scheme(trimmed).is_some()`. When true and
/// the input starts with a scheme (tabs and newlines inside it allowed), the scheme is
/// split off. Otherwise the text is split as if `https://` preceded it (authority first),
/// unless it starts with a single `/`: then it is path-only (path, query, fragment). A
/// leading `//` (or `/\`) is scheme-relative: the authority follows the slashes.
///
/// Leading and trailing C0 controls and spaces are in no span. Never panics; every span
/// lies within `input` on character boundaries.
pub fn offsets(input: &str, scheme_written: bool) -> Offsets {
    let (trimmed, lo) = trim_c0_space(input);
    let hi = lo + trimmed.len();
    let b = input.as_bytes();
    let mut out = Offsets::default();

    let mut i = lo;
    let mut special = true; // no written scheme: the caller reads it as https
    let mut file = false;
    let mut authority = true;
    match scheme_written.then(|| scheme_colon(b, lo, hi)).flatten() {
        Some(colon) => {
            out.scheme = Some(component(narrow(b, lo, colon)));
            special = SPECIAL_SCHEMES.iter().any(|s| kept_eq(&b[lo..colon], s));
            file = kept_eq(&b[lo..colon], "file");
            i = colon + 1;
            if special && !file {
                i = skip_slashes(b, i, hi);
            } else {
                // file: the file slash and file host states take `/` or `\`, exactly two.
                let slash = |c| c == b'/' || (file && c == b'\\');
                let after = two_slashes(b, i, hi, slash);
                authority = after.is_some();
                i = after.unwrap_or(i);
            }
        }
        None => {
            let first = next_kept(b, lo, hi);
            if first < hi && b[first] == b'/' {
                authority = two_slashes(b, lo, hi, is_slash).is_some();
            }
            if authority {
                i = skip_slashes(b, lo, hi);
            }
        }
    }

    if authority {
        let end = find(b, i, hi, |c| {
            matches!(c, b'/' | b'?' | b'#') || (special && c == b'\\')
        });
        if file {
            // The file host state has no userinfo or port, and a drive letter is a path.
            if !is_drive_letter(&b[i..end]) {
                out.host = Some(component(narrow(b, i, end)));
                i = end;
            }
        } else {
            let mut host_start = i;
            if let Some(at) = b[i..end].iter().rposition(|&c| c == b'@') {
                out.userinfo = Some(component(narrow(b, i, i + at)));
                host_start = i + at + 1;
            }
            // The host state stops at the first `:` outside brackets.
            let mut in_brackets = false;
            let colon = find(b, host_start, end, |c| {
                match c {
                    b'[' => in_brackets = true,
                    b']' => in_brackets = false,
                    _ => {}
                }
                c == b':' && !in_brackets
            });
            out.host = Some(component(narrow(b, host_start, colon)));
            if colon < end {
                out.port = Some(component(narrow(b, colon + 1, end)));
            }
            i = end;
        }
    }

    let end = find(b, i, hi, |c| c == b'?' || c == b'#');
    out.path = Some(component(narrow(b, i, end)));
    i = end;
    if i < hi && b[i] == b'?' {
        let end = find(b, i + 1, hi, |c| c == b'#');
        out.query = Some(component(narrow(b, i + 1, end)));
        out.params = params(input, i + 1, end);
        i = end;
    }
    if i < hi && b[i] == b'#' {
        out.fragment = Some(component(narrow(b, i + 1, hi)));
    }

    // utf16 starts equal to bytes, which is exact for ASCII input.
    if !input.is_ascii() {
        let mut cursor = Utf16Cursor::new(input);
        let comps = [
            &mut out.scheme,
            &mut out.userinfo,
            &mut out.host,
            &mut out.port,
            &mut out.path,
            &mut out.query,
        ];
        for c in comps.into_iter().flatten() {
            cursor.fix(c);
        }
        for p in &mut out.params {
            cursor.fix(&mut p.span);
        }
        if let Some(c) = &mut out.fragment {
            cursor.fix(c);
        }
    }
    out
}

/// [`offsets`] of a web address as `webkey@1` reads it (docs/policies.md, "Inspecting one
/// URL"): the text `webkey@1` and `inspect` parse is `input` less Unicode white space and
/// C0 controls at both ends (`text::trim_white_space_and_c0`), so a leading U+00A0 or a
/// trailing U+3000 is in no span, as a leading space is. The spans are still offsets into
/// `input` as given ("in UTF-16 units of the input as given").
///
/// `scheme_written`: `crate::text::written_scheme` of that trimmed text, tabs and newlines
/// removed.
///
/// ```
/// let input = "\u{a0}example.com/p\u{3000}";
/// let o = urlkey::internals::offsets::web_address_offsets(input, false);
/// assert_eq!(o.host.unwrap().utf16, urlkey::internals::offsets::Span { start: 1, end: 12 });
/// assert_eq!(o.path.unwrap().utf16, urlkey::internals::offsets::Span { start: 12, end: 14 });
/// ```
pub fn web_address_offsets(input: &str, scheme_written: bool) -> Offsets {
    let (trimmed, lo) = crate::text::trim_white_space_and_c0(input);
    let mut out = offsets(trimmed, scheme_written);
    if lo > 0 {
        let units = input[..lo].encode_utf16().count();
        let shift = |c: &mut ComponentSpan| {
            c.bytes.start += lo;
            c.bytes.end += lo;
            c.utf16.start += units;
            c.utf16.end += units;
        };
        for c in [
            &mut out.scheme,
            &mut out.userinfo,
            &mut out.host,
            &mut out.port,
            &mut out.path,
            &mut out.query,
            &mut out.fragment,
        ]
        .into_iter()
        .flatten()
        {
            shift(c);
        }
        for p in &mut out.params {
            shift(&mut p.span);
        }
    }
    out
}

/// True for the characters the Standard removes anywhere in the input.
fn is_removed(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | b'\r')
}

fn is_slash(c: u8) -> bool {
    c == b'/' || c == b'\\'
}

/// The first index in `from..to` that is not a removed character, or `to`.
fn next_kept(b: &[u8], from: usize, to: usize) -> usize {
    find(b, from, to, |c| !is_removed(c))
}

/// The first index in `from..to` whose byte matches, or `to`. Only ASCII is ever
/// matched, so the result is a char boundary.
fn find(b: &[u8], from: usize, to: usize, mut pred: impl FnMut(u8) -> bool) -> usize {
    b[from..to]
        .iter()
        .position(|&c| pred(c))
        .map_or(to, |p| from + p)
}

/// If the first two kept characters at `from` match `slash`, the index after them.
fn two_slashes(b: &[u8], from: usize, to: usize, slash: impl Fn(u8) -> bool) -> Option<usize> {
    let first = next_kept(b, from, to);
    let second = next_kept(b, (first + 1).min(to), to);
    (second < to && slash(b[first]) && slash(b[second])).then_some(second + 1)
}

/// Skips a run of `/` and `\` (and removed characters), as the special authority
/// ignore-slashes state does.
fn skip_slashes(b: &[u8], from: usize, to: usize) -> usize {
    find(b, from, to, |c| !is_slash(c) && !is_removed(c))
}

/// `from..to` without leading and trailing removed characters; empty at `from` if
/// nothing is kept.
fn narrow(b: &[u8], from: usize, to: usize) -> Span {
    let start = next_kept(b, from, to);
    if start == to {
        return Span {
            start: from,
            end: from,
        };
    }
    let end = b[start..to]
        .iter()
        .rposition(|&c| !is_removed(c))
        .map_or(to, |p| start + p + 1);
    Span { start, end }
}

fn component(bytes: Span) -> ComponentSpan {
    ComponentSpan {
        bytes,
        utf16: bytes,
    }
}

/// The index of the `:` ending a scheme at `from` (scheme start and scheme states,
/// removed characters skipped), if there is one.
fn scheme_colon(b: &[u8], from: usize, to: usize) -> Option<usize> {
    let mut kept = (from..to).filter(|&i| !is_removed(b[i]));
    if !b[kept.next()?].is_ascii_alphabetic() {
        return None;
    }
    for i in kept {
        match b[i] {
            b':' => return Some(i),
            b'+' | b'-' | b'.' => {}
            c if c.is_ascii_alphanumeric() => {}
            _ => return None,
        }
    }
    None
}

/// ASCII case-insensitive comparison of the kept characters of `text` with `name`.
fn kept_eq(text: &[u8], name: &str) -> bool {
    text.iter()
        .filter(|&&c| !is_removed(c))
        .map(u8::to_ascii_lowercase)
        .eq(name.bytes())
}

/// A Windows drive letter (`C:` or `C|`), ignoring removed characters.
fn is_drive_letter(text: &[u8]) -> bool {
    let mut kept = text.iter().filter(|&&c| !is_removed(c));
    matches!(
        (kept.next(), kept.next(), kept.next()),
        (Some(l), Some(b':' | b'|'), None) if l.is_ascii_alphabetic()
    )
}

/// The non-empty `&`-separated pieces of the query at `from..to`.
fn params(input: &str, from: usize, to: usize) -> Vec<ParamSpan> {
    let b = input.as_bytes();
    let mut out = Vec::new();
    let mut start = from;
    while start <= to {
        let end = find(b, start, to, |c| c == b'&');
        let span = narrow(b, start, end);
        if span.start < span.end {
            let eq = find(b, span.start, span.end, |c| c == b'=');
            let raw = &input[span.start..eq];
            let name = if raw.bytes().any(is_removed) {
                raw.chars()
                    .filter(|&c| !matches!(c, '\t' | '\n' | '\r'))
                    .collect()
            } else {
                raw.to_owned()
            };
            out.push(ParamSpan {
                name,
                span: component(span),
            });
        }
        start = end + 1;
    }
    out
}

/// Converts byte offsets to UTF-16 offsets by walking from the previous offset, so
/// offsets visited in order cost one pass over the input in total.
struct Utf16Cursor<'a> {
    text: &'a str,
    byte: usize,
    unit: usize,
}

impl<'a> Utf16Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Utf16Cursor {
            text,
            byte: 0,
            unit: 0,
        }
    }

    fn at(&mut self, byte: usize) -> usize {
        let units = |s: &str| s.chars().map(char::len_utf16).sum::<usize>();
        if byte >= self.byte {
            self.unit += units(&self.text[self.byte..byte]);
        } else {
            self.unit -= units(&self.text[byte..self.byte]);
        }
        self.byte = byte;
        self.unit
    }

    fn fix(&mut self, c: &mut ComponentSpan) {
        c.utf16 = Span {
            start: self.at(c.bytes.start),
            end: self.at(c.bytes.end),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn s(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    /// An ASCII component: utf16 equals bytes.
    fn a(start: usize, end: usize) -> Option<ComponentSpan> {
        Some(ComponentSpan {
            bytes: s(start, end),
            utf16: s(start, end),
        })
    }

    fn c(bytes: (usize, usize), utf16: (usize, usize)) -> Option<ComponentSpan> {
        Some(ComponentSpan {
            bytes: s(bytes.0, bytes.1),
            utf16: s(utf16.0, utf16.1),
        })
    }

    fn text(input: &str, c: Option<ComponentSpan>) -> Option<&str> {
        c.map(|c| &input[c.bytes.start..c.bytes.end])
    }

    fn names(o: &Offsets) -> Vec<&str> {
        o.params.iter().map(|p| p.name.as_str()).collect()
    }

    #[test]
    fn full_absolute_url() {
        let input = "https://user:pw@Example.com:8080/a/b?x=1&utm_source=y#frag";
        let o = offsets(input, true);
        assert_eq!(o.scheme, a(0, 5));
        assert_eq!(o.userinfo, a(8, 15));
        assert_eq!(o.host, a(16, 27));
        assert_eq!(o.port, a(28, 32));
        assert_eq!(o.path, a(32, 36));
        assert_eq!(o.query, a(37, 53));
        assert_eq!(o.fragment, a(54, 58));
        assert_eq!(text(input, o.userinfo), Some("user:pw"));
        assert_eq!(text(input, o.host), Some("Example.com"));
        assert_eq!(text(input, o.query), Some("x=1&utm_source=y"));
        assert_eq!(names(&o), ["x", "utm_source"]);
        assert_eq!(Some(o.params[0].span), a(37, 40));
        assert_eq!(Some(o.params[1].span), a(41, 53));
    }

    #[test]
    fn non_ascii_has_utf16_offsets() {
        let input = "https://bücher.example/straße?q=ü#é";
        let o = offsets(input, true);
        assert_eq!(o.scheme, a(0, 5));
        assert_eq!(o.host, c((8, 23), (8, 22)));
        assert_eq!(o.path, c((23, 31), (22, 29)));
        assert_eq!(o.query, c((32, 36), (30, 33)));
        assert_eq!(o.fragment, c((37, 39), (34, 35)));
        assert_eq!(Some(o.params[0].span), o.query);
        assert_eq!(names(&o), ["q"]);
        assert_eq!(text(input, o.path), Some("/straße"));

        // An astral character is two UTF-16 units.
        let input = "https://a.b/x😀y?z";
        let o = offsets(input, true);
        assert_eq!(o.host, a(8, 11));
        assert_eq!(o.path, c((11, 18), (11, 16)));
        assert_eq!(o.query, c((19, 20), (17, 18)));
    }

    #[test]
    fn spans_cover_tabs_and_newlines_but_not_trimmed_ends() {
        // text::written_scheme does not skip the tab, so pass `true` directly.
        let input = " \u{1}ht\ttps://exa\nmple.com/p\ta \u{0}";
        let o = offsets(input, true);
        assert_eq!(o.scheme, a(2, 8));
        assert_eq!(o.host, a(11, 23));
        assert_eq!(text(input, o.host), Some("exa\nmple.com"));
        assert_eq!(o.path, a(23, 27));
        assert_eq!(text(input, o.path), Some("/p\ta"));
        assert_eq!(
            (o.userinfo, o.port, o.query, o.fragment),
            (None, None, None, None)
        );

        // Removed characters at a component's edges are left out.
        let input = "https://\texample.com\t/x?\ta\t=1\t&\t#";
        let o = offsets(input, true);
        assert_eq!(text(input, o.host), Some("example.com"));
        assert_eq!(o.path, a(21, 23));
        assert_eq!(text(input, o.query), Some("a\t=1\t&"));
        assert_eq!(names(&o), ["a"]);
        assert_eq!(Some(o.params[0].span), a(25, 29));
        assert_eq!(o.fragment, a(33, 33));
    }

    #[test]
    fn empty_components() {
        let o = offsets("http://@h:/?#", true);
        assert_eq!(o.userinfo, a(7, 7));
        assert_eq!(o.host, a(8, 9));
        assert_eq!(o.port, a(10, 10));
        assert_eq!(o.path, a(10, 11));
        assert_eq!(o.query, a(12, 12));
        assert_eq!(o.fragment, a(13, 13));
        assert!(o.params.is_empty());

        let o = offsets("https://example.com", true);
        assert_eq!(o.host, a(8, 19));
        assert_eq!(o.path, a(19, 19));
        assert_eq!((o.query, o.fragment), (None, None));

        let o = offsets("https://h/?&&a&", true);
        assert_eq!(names(&o), ["a"]);
        assert_eq!(Some(o.params[0].span), a(13, 14));
    }

    #[test]
    fn scheme_not_written() {
        let input = "example.com:8080/x?q";
        let o = offsets(input, false);
        assert_eq!(o.scheme, None);
        assert_eq!(o.host, a(0, 11));
        assert_eq!(o.port, a(12, 16));
        assert_eq!(o.path, a(16, 18));
        assert_eq!(o.query, a(19, 20));

        let o = offsets("localhost:3000/x", false);
        assert_eq!(
            (o.scheme, o.host, o.port, o.path),
            (None, a(0, 9), a(10, 14), a(14, 16))
        );

        // Written-looking text is still read as a host when the caller says so.
        let o = offsets("foo:bar", false);
        assert_eq!((o.scheme, o.host, o.port), (None, a(0, 3), a(4, 7)));
    }

    #[test]
    fn path_only_and_scheme_relative() {
        let o = offsets("/a//b?x=1#f", false);
        assert_eq!((o.scheme, o.host), (None, None));
        assert_eq!(o.path, a(0, 5));
        assert_eq!(o.query, a(6, 9));
        assert_eq!(o.fragment, a(10, 11));
        assert_eq!(names(&o), ["x"]);

        let o = offsets("//host/x", false);
        assert_eq!(o.host, a(2, 6));
        assert_eq!(o.path, a(6, 8));
        assert_eq!(o.scheme, None);

        // A scheme claimed but absent falls back to the unwritten rules.
        let o = offsets("/x", true);
        assert_eq!((o.scheme, o.host, o.path), (None, None, a(0, 2)));
    }

    #[test]
    fn opaque_path() {
        let input = "mailto:a@b.c?subject=hi";
        let o = offsets(input, true);
        assert_eq!(o.scheme, a(0, 6));
        assert_eq!((o.userinfo, o.host, o.port), (None, None, None));
        assert_eq!(o.path, a(7, 12));
        assert_eq!(o.query, a(13, 23));
        assert_eq!(names(&o), ["subject"]);

        // Non-special with `//` has an authority, and extra slashes start the path.
        let o = offsets("foo:///x", true);
        assert_eq!((o.host, o.path), (a(6, 6), a(6, 8)));
    }

    #[test]
    fn ipv6_host_keeps_brackets() {
        let input = "http://[::1]:80/";
        let o = offsets(input, true);
        assert_eq!(o.host, a(7, 12));
        assert_eq!(text(input, o.host), Some("[::1]"));
        assert_eq!(o.port, a(13, 15));
        assert_eq!(o.path, a(15, 16));
    }

    #[test]
    fn backslashes_in_special_urls() {
        let input = "https:\\\\example.com\\a";
        let o = offsets(input, true);
        assert_eq!(o.scheme, a(0, 5));
        assert_eq!(o.host, a(8, 19));
        assert_eq!(o.path, a(19, 21));

        // Not special: `\` is an ordinary host character.
        let o = offsets("foo://a\\b/c", true);
        assert_eq!((o.host, o.path), (a(6, 9), a(9, 11)));
    }

    #[test]
    fn file_urls() {
        let o = offsets("file:///etc/x", true);
        assert_eq!((o.host, o.path), (a(7, 7), a(7, 13)));
        let o = offsets("file://server/share", true);
        assert_eq!((o.host, o.path), (a(7, 13), a(13, 19)));
        let o = offsets("file:/x", true);
        assert_eq!((o.host, o.path), (None, a(5, 7)));
        let o = offsets("file://C:/x", true);
        assert_eq!((o.host, o.path), (None, a(7, 11)));
    }

    #[test]
    fn agrees_with_ada_on_normalized_urls() {
        for input in [
            "https://user:pw@example.com:8080/a/b?x=1&y#frag",
            "http://[::1]:81/p",
            "mailto:a@b.c?subject=hi#x",
            "foo://u@h:9/x?y",
            "foo:///x",
            "file:///etc/x",
            "file://server/share",
            "https://example.com/",
            "wss://a.b/%20?%C3%A9#%F0%9F%98%80",
        ] {
            let url = ada_url::Url::parse(input, None).unwrap();
            assert_eq!(url.href(), input, "test inputs must be normalized");
            let o = offsets(input, true);
            let t = |c| text(input, c).unwrap_or("");
            let userinfo = match url.password() {
                "" => url.username().to_owned(),
                pw => format!("{}:{pw}", url.username()),
            };
            assert_eq!(format!("{}:", t(o.scheme)), url.protocol(), "{input}");
            assert_eq!(t(o.userinfo), userinfo, "{input}");
            assert_eq!(t(o.host), url.hostname(), "{input}");
            assert_eq!(t(o.port), url.port(), "{input}");
            assert_eq!(t(o.path), url.pathname(), "{input}");
            assert_eq!(
                o.query
                    .map(|_| format!("?{}", t(o.query)))
                    .unwrap_or_default(),
                url.search()
            );
            assert_eq!(
                o.fragment
                    .map(|_| format!("#{}", t(o.fragment)))
                    .unwrap_or_default(),
                url.hash()
            );
        }
    }

    fn check(input: &str, o: &Offsets) -> Result<(), TestCaseError> {
        let check_span = |cs: &ComponentSpan| -> Result<(), TestCaseError> {
            let Span { start, end } = cs.bytes;
            prop_assert!(start <= end && end <= input.len(), "{cs:?}");
            prop_assert!(input.is_char_boundary(start) && input.is_char_boundary(end));
            for (byte, unit) in [(start, cs.utf16.start), (end, cs.utf16.end)] {
                prop_assert_eq!(unit, input[..byte].encode_utf16().count());
            }
            if start < end {
                let b = input.as_bytes();
                prop_assert!(!is_removed(b[start]) && !is_removed(b[end - 1]));
            }
            Ok(())
        };
        let mut prev = 0;
        let comps = [
            o.scheme, o.userinfo, o.host, o.port, o.path, o.query, o.fragment,
        ];
        for cs in comps.iter().flatten() {
            check_span(cs)?;
            prop_assert!(prev <= cs.bytes.start, "out of order: {o:?}");
            prev = cs.bytes.end;
        }
        let query = o.query.map(|q| q.bytes);
        prop_assert!(o.params.is_empty() || query.is_some());
        let mut prev = query.map_or(0, |q| q.start);
        for p in &o.params {
            check_span(&p.span)?;
            prop_assert!(prev <= p.span.bytes.start && p.span.bytes.end <= query.unwrap().end);
            prop_assert!(p.span.bytes.start < p.span.bytes.end);
            prev = p.span.bytes.end;
        }
        Ok(())
    }

    fn urlish() -> impl Strategy<Value = String> {
        let prefix = prop::sample::select(vec![
            "",
            "https:",
            "http://",
            "HTTPS:\\\\",
            "file:",
            "file://",
            "foo://",
            "mailto:",
            "//",
            "/",
            " \t",
        ]);
        let chars = prop::collection::vec(
            prop::sample::select(vec![
                'a', 'B', '1', ':', '/', '?', '#', '@', '[', ']', '%', '&', '=', '\t', '\n', '\r',
                '\\', ' ', 'é', '😀', '\u{0}',
            ]),
            0..40,
        );
        (prefix, chars).prop_map(|(p, cs)| p.chars().chain(cs).collect())
    }

    #[test]
    fn degenerate_inputs() {
        for input in [
            "", " \t\u{0}", "mailto:", "file:", "file:/", "foo:/", "https:", "/", "//", "?", "#",
            "@", ":", "[", "\t/",
        ] {
            for written in [true, false] {
                check(input, &offsets(input, written)).unwrap();
            }
        }
        assert_eq!(
            offsets("   ", true),
            Offsets {
                path: a(3, 3),
                host: a(3, 3),
                ..Offsets::default()
            }
        );
        let o = offsets("mailto:", true);
        assert_eq!((o.scheme, o.host, o.path), (a(0, 6), None, a(7, 7)));
        let o = offsets("https:", true);
        assert_eq!((o.host, o.path), (a(6, 6), a(6, 6)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn spans_are_in_bounds_and_ordered(
            input in prop_oneof![
                any::<String>(),
                urlish(),
                prop::collection::vec(any::<char>(), 0..30).prop_map(String::from_iter),
            ],
            written in any::<bool>(),
        ) {
            check(&input, &offsets(&input, written))?;
        }
    }
}
