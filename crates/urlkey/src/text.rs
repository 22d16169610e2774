//! Input text helpers shared by every front end: trimming and scheme detection.

/// Strips leading and trailing C0 controls and spaces (U+0000 to U+0020), as the URL
/// Standard's basic URL parser does first. Returns the trimmed text and its byte offset
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

/// Schemes that seed 001 counts as written even without `//` after the colon.
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

/// The URL Standard's special schemes.
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
    for (i, &b) in bytes.iter().enumerate().skip(1) {
        match b {
            b':' => return Some(&text[..i]),
            b'+' | b'-' | b'.' => {}
            _ if b.is_ascii_alphanumeric() => {}
            _ => return None,
        }
    }
    None
}

/// Seed 001's rule: a scheme counts as written when the text starts with `scheme:` and
/// the colon is followed by `//`, or the scheme is special or one of the slashless
/// schemes (`mailto`, `tel`, ...). So `localhost:3000/x` and `example.com:8080` are hosts
/// with a port. Returns the written scheme.
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

/// True for the URL Standard's special schemes (ASCII case-insensitive). Dispatches on the
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
