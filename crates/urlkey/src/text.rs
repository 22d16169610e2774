//! Input text helpers shared by every front end: trimming and scheme detection.

/// Strips leading and trailing C0 controls and spaces (U+0000 to U+0020), as the URL
/// Standard's basic URL parser does first
/// (<https://url.spec.whatwg.org/#concept-basic-url-parser>, step 1). Returns the trimmed text and its byte offset
/// in `input`.
pub fn trim_c0_space(input: &str) -> (&str, usize) {
    let bytes = input.as_bytes();
    let start = bytes.iter().position(|&b| b > 0x20).unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b > 0x20)
        .map_or(start, |p| p + 1);
    (&input[start..end], start)
}

/// True for the white space that JavaScript's `String.prototype.trim` removes and its `\s`
/// matches: WhiteSpace and LineTerminator (<https://tc39.es/ecma262/#sec-white-space>,
/// <https://tc39.es/ecma262/#sec-line-terminators>): TAB, VT, FF, ZWNBSP (U+FEFF), every
/// `Zs` space (U+0020, U+00A0, U+1680, U+2000-U+200A, U+202F, U+205F, U+3000), LF, CR,
/// U+2028 and U+2029. Not U+0085 (a C1 control to JavaScript) and not U+180E (`Cf` since
/// Unicode 6.3).
pub fn is_js_white_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// Strips leading and trailing JavaScript white space ([`is_js_white_space`]), as
/// `String.prototype.trim` does: the Legacy URL Mapper's tool trims each line so
/// (docs/policies.md, the `mapper` front end). C0 controls other than TAB, LF, VT, FF and
/// CR stay, so that `mapper@1` can refuse them. Returns the trimmed text and its byte
/// offset in `input`.
pub fn trim_js(input: &str) -> (&str, usize) {
    // The white space is ASCII at or below U+0020, or not ASCII: text that starts and ends
    // with another ASCII byte (nearly every line) has nothing to trim.
    if let (Some(&first), Some(&last)) = (input.as_bytes().first(), input.as_bytes().last()) {
        if (0x21..0x80).contains(&first) && (0x21..0x80).contains(&last) {
            return (input, 0);
        }
    }
    let start = input.trim_start_matches(is_js_white_space);
    let lo = input.len() - start.len();
    (start.trim_end_matches(is_js_white_space), lo)
}

/// Strips leading and trailing Unicode white space (`White_Space`, Rust's
/// [`char::is_whitespace`]: U+0085, U+00A0, U+3000, ... included) and C0 controls and
/// spaces: "Input text is trimmed of white space" (docs/policies.md, scheme inference), plus
/// what the URL Standard's parser strips anyway (<https://url.spec.whatwg.org/#concept-basic-url-parser>,
/// "remove any leading and trailing C0 control or space"). U+FEFF is not white space and
/// stays. Returns the trimmed text and its byte offset in `input`.
pub fn trim_white_space_and_c0(input: &str) -> (&str, usize) {
    // What is stripped is ASCII at or below U+0020, or not ASCII: text that starts and
    // ends with another ASCII byte (nearly every line) has nothing to trim.
    if let (Some(&first), Some(&last)) = (input.as_bytes().first(), input.as_bytes().last()) {
        if (0x21..0x80).contains(&first) && (0x21..0x80).contains(&last) {
            return (input, 0);
        }
    }
    let strip = |c: char| c <= '\u{20}' || c.is_whitespace();
    let start = input.trim_start_matches(strip);
    let lo = input.len() - start.len();
    (start.trim_end_matches(strip), lo)
}

/// What a line reader does with one line of plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// A record: hand it to the policy as read.
    Record,
    /// Nothing but white space ([`is_js_white_space`]): skipped.
    Blank,
    /// Its first character after white space is `#`: skipped.
    Comment,
}

/// The Legacy URL Mapper's line rule, for every plain-text reader: "Trim each line; ignore
/// blank lines and comments beginning with #" (docs/policies.md, the `mapper` front end),
/// trimmed as the tool's `String.prototype.trim` does ([`trim_js`]). A line that is not
/// UTF-8 is a blank or a comment only by its valid start (`#` then invalid bytes is a
/// comment; white space then invalid bytes is a record, which the reader reports as
/// `input.invalid-utf8`). The line is never rewritten: a record goes to the policy as read,
/// which trims it its own way.
pub fn line_kind(line: &[u8]) -> LineKind {
    // Nearly every line starts with a printable ASCII byte: decided at the first byte.
    match line.first() {
        None => return LineKind::Blank,
        Some(b'#') => return LineKind::Comment,
        Some(&b) if b > 0x20 && b < 0x7f => return LineKind::Record,
        _ => {}
    }
    let valid = match std::str::from_utf8(line) {
        Ok(s) => s,
        Err(e) => std::str::from_utf8(&line[..e.valid_up_to()]).unwrap_or(""),
    };
    let rest = valid.trim_start_matches(is_js_white_space);
    if rest.starts_with('#') {
        LineKind::Comment
    } else if rest.is_empty() && valid.len() == line.len() {
        LineKind::Blank
    } else {
        LineKind::Record
    }
}

/// Schemes counted as written even without `//` after the colon (docs/policies.md, scheme
/// inference).
pub const SLASHLESS_SCHEMES: [&str; 13] = [
    "mailto",
    "tel",
    "sms",
    "urn",
    "geo",
    "callto",
    "skype",
    "magnet",
    "news",
    "data",
    "javascript",
    "about",
    "blob",
];

/// The URL Standard's special schemes (<https://url.spec.whatwg.org/#special-scheme>).
pub const SPECIAL_SCHEMES: [&str; 6] = ["http", "https", "ws", "wss", "ftp", "file"];

/// The scheme at the start of `text` (URL Standard scheme state: an ASCII letter, then
/// letters, digits, `+`, `-`, `.`, up to a `:`), without the colon. Tabs and newlines,
/// which the Standard removes anywhere, are not skipped here: callers pass trimmed text.
pub fn leading_scheme(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let first = *bytes.first()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    // An index loop: the `enumerate().skip(1)` iterator cost ~100 instructions for
    // `file:` (callgrind), on every line that is not http(s).
    let mut i = 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b':' => return Some(&text[..i]),
            b'+' | b'-' | b'.' => {}
            _ if b.is_ascii_alphanumeric() => {}
            _ => return None,
        }
        i += 1;
    }
    None
}

/// Scheme inference (docs/policies.md): a scheme counts as written when the text starts
/// with `scheme:` and the colon is followed by `//`, or the scheme is special or one of the
/// slashless schemes (`mailto`, `tel`, ...). So `localhost:3000/x` and `example.com:8080`
/// are hosts with a port. Returns the written scheme.
pub fn written_scheme(text: &str) -> Option<&str> {
    let scheme = leading_scheme(text)?;
    let rest = &text[scheme.len() + 1..];
    if rest.starts_with("//")
        || SPECIAL_SCHEMES
            .iter()
            .chain(SLASHLESS_SCHEMES.iter())
            .any(|s| s.eq_ignore_ascii_case(scheme))
    {
        Some(scheme)
    } else {
        None
    }
}

/// True for the URL Standard's special schemes
/// (<https://url.spec.whatwg.org/#special-scheme>), ASCII case-insensitive. Dispatches on the
/// length first: this runs once per URL.
pub fn is_special_scheme(scheme: &str) -> bool {
    let is = |s: &str| scheme.eq_ignore_ascii_case(s);
    match scheme.len() {
        2 => is("ws"),
        3 => is("wss") || is("ftp"),
        4 => is("http") || is("file"),
        5 => is("https"),
        _ => false,
    }
}

/// True for `http` and `https` (ASCII case-insensitive).
pub fn is_web_scheme(scheme: &str) -> bool {
    match scheme.len() {
        4 => scheme.eq_ignore_ascii_case("http"),
        5 => scheme.eq_ignore_ascii_case("https"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheme_classes_ignore_case_and_match_the_lists() {
        for s in SPECIAL_SCHEMES {
            assert!(is_special_scheme(s) && is_special_scheme(&s.to_ascii_uppercase()));
        }
        for s in ["", "h", "htt", "httpss", "mailto", "blob", "wss2", "fil"] {
            assert!(!is_special_scheme(s), "{s}");
        }
        assert!(is_web_scheme("HTTP") && is_web_scheme("https") && is_web_scheme("hTTpS"));
        assert!(!is_web_scheme("ws") && !is_web_scheme("httpx") && !is_web_scheme(""));
    }

    #[test]
    fn trims_c0_and_space_only() {
        assert_eq!(trim_c0_space("\u{0}\t https://a/ \n"), ("https://a/", 3));
        assert_eq!(trim_c0_space("   "), ("", 3));
        assert_eq!(trim_c0_space("\u{a0}x\u{a0}"), ("\u{a0}x\u{a0}", 0));
    }

    #[test]
    fn js_trim_is_string_prototype_trim() {
        // Every Zs space, the line terminators and U+FEFF go; U+0085, U+180E, U+200B and
        // C0 controls other than TAB/LF/VT/FF/CR stay.
        for ws in [
            "\t", "\n", "\u{b}", "\u{c}", "\r", " ", "\u{a0}", "\u{1680}", "\u{2000}", "\u{200a}",
            "\u{2028}", "\u{2029}", "\u{202f}", "\u{205f}", "\u{3000}", "\u{feff}",
        ] {
            assert_eq!(trim_js(&format!("{ws}x{ws}")), ("x", ws.len()), "{ws:?}");
        }
        for kept in [
            "\u{85}", "\u{180e}", "\u{200b}", "\u{0}", "\u{1f}", "\u{7f}",
        ] {
            let s = format!("{kept}x{kept}");
            assert_eq!(trim_js(&s), (s.as_str(), 0), "{kept:?}");
        }
        assert_eq!(trim_js(" \u{3000} "), ("", 5));
    }

    #[test]
    fn white_space_trim_takes_unicode_white_space_and_c0() {
        assert_eq!(
            trim_white_space_and_c0("\u{a0}\u{0}example.com/A\u{3000}\u{1f}"),
            ("example.com/A", 3)
        );
        assert_eq!(trim_white_space_and_c0("\u{85}x\u{2029}"), ("x", 2));
        // U+FEFF is not Unicode white space; DEL and C1 controls are not C0.
        assert_eq!(trim_white_space_and_c0("\u{feff}x").0, "\u{feff}x");
        assert_eq!(trim_white_space_and_c0("\u{7f}x\u{9f}").0, "\u{7f}x\u{9f}");
    }

    #[test]
    fn line_kinds_follow_seed_000() {
        use LineKind::*;
        for (line, kind) in [
            (&b""[..], Blank),
            (b"   ", Blank),
            (b"\t\r\x0b\x0c", Blank),
            ("\u{a0}\u{3000}\u{feff}".as_bytes(), Blank),
            (b"#x", Comment),
            (b"  # x", Comment),
            ("\u{feff}#x".as_bytes(), Comment),
            ("\u{3000}#".as_bytes(), Comment),
            (b"#\xff", Comment),
            (b"https://a/", Record),
            (b" https://a/", Record),
            (b"\x00", Record),
            (b"\x00#x", Record),
            ("\u{85}".as_bytes(), Record),
            (b" \xff", Record),
            (b"/a#b", Record),
        ] {
            assert_eq!(line_kind(line), kind, "{line:?}");
        }
    }

    #[test]
    fn scheme_written_follows_seed_001() {
        assert_eq!(written_scheme("https://a"), Some("https"));
        assert_eq!(written_scheme("HTTP:example.com"), Some("HTTP"));
        assert_eq!(written_scheme("mailto:a@b.c"), Some("mailto"));
        assert_eq!(written_scheme("foo://x"), Some("foo"));
        assert_eq!(written_scheme("localhost:3000/x"), None);
        assert_eq!(written_scheme("example.com:8080"), None);
        assert_eq!(written_scheme("foo:bar"), None);
        assert_eq!(written_scheme("/path"), None);
        assert_eq!(written_scheme("1http://x"), None);
    }
}
