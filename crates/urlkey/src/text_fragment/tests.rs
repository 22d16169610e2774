//! The spec's examples (WICG "URL Fragment Text Directives", section 3.3 "Syntax" and the
//! examples of 3.4/3.5), malformed directives, and properties over arbitrary input.

use super::*;
use proptest::prelude::*;

fn one(fragment: &str) -> Result<TextDirective, DirectiveError> {
    let d = parse_fragment(fragment);
    assert_eq!(d.directives.len(), 1, "{fragment}");
    d.directives.into_iter().next().unwrap()
}

/// prefix, start, end, suffix.
type Terms<'a> = (Option<&'a str>, &'a str, Option<&'a str>, Option<&'a str>);

fn terms(t: &TextDirective) -> Terms<'_> {
    (
        t.prefix.as_deref(),
        t.start.as_str(),
        t.end.as_deref(),
        t.suffix.as_deref(),
    )
}

#[test]
fn the_specs_examples_parse_into_their_terms() {
    let cases: &[(&str, Terms)] = &[
        (
            ":~:text=an%20example%20text%20fragment",
            (None, "an example text fragment", None, None),
        ),
        (
            ":~:text=an%20example,text%20fragment",
            (None, "an example", Some("text fragment"), None),
        ),
        (
            ":~:text=this%20is-,an%20example",
            (Some("this is"), "an example", None, None),
        ),
        (
            ":~:text=an%20example,-text%20fragment",
            (None, "an example", None, Some("text fragment")),
        ),
        (
            ":~:text=this%20is-,an,text%20fragment,-that%20is",
            (
                Some("this is"),
                "an",
                Some("text fragment"),
                Some("that is"),
            ),
        ),
        // "Syntax": a dash inside a term is percent-encoded.
        (
            ":~:text=The%20quick%20brown%20fox-,jumps,-over",
            (Some("The quick brown fox"), "jumps", None, Some("over")),
        ),
        (":~:text=1%2D2%2C3%264", (None, "1-2,3&4", None, None)),
        // Non-ASCII, percent-encoded UTF-8 and as written.
        (":~:text=caf%C3%A9", (None, "café", None, None)),
        (":~:text=café", (None, "café", None, None)),
        // A `%` not followed by two hex digits stays itself.
        (":~:text=100%", (None, "100%", None, None)),
        // A term that merely contains a dash (not at its end) is the start.
        (":~:text=e-mail", (None, "e-mail", None, None)),
    ];
    for (fragment, want) in cases {
        let t = one(fragment).unwrap_or_else(|e| panic!("{fragment}: {e}"));
        assert_eq!(terms(&t), *want, "{fragment}");
        assert_eq!(t.raw, fragment.trim_start_matches(":~:"));
    }
}

#[test]
fn several_directives_and_the_fragment_before_the_delimiter() {
    let d = parse_url(
        "https://example.org/page?x=1#sec-2:~:text=one&text=two,three&unknown=1&text=four",
    );
    assert_eq!(d.fragment, "sec-2");
    assert!(d.has_delimiter);
    let starts: Vec<&str> = d
        .directives
        .iter()
        .map(|t| t.as_ref().unwrap().start.as_str())
        .collect();
    assert_eq!(starts, ["one", "two", "four"]);
    assert_eq!(d.other, ["unknown=1"]);
    // Only the first `:~:` delimits; a later one is part of the directive's text.
    let d = parse_fragment(":~:text=a:~:text=b");
    assert_eq!(d.directives.len(), 1);
    assert_eq!(d.directives[0].as_ref().unwrap().start, "a:~:text=b");
    // `#` in the fragment: the first `#` of the URL starts it.
    let d = parse_url("https://example.org/#a#:~:text=x");
    assert_eq!(d.fragment, "a#");
    assert_eq!(d.directives.len(), 1);
    // No fragment, or no delimiter: nothing.
    assert!(parse_url("https://example.org/").is_empty());
    let d = parse_url("https://example.org/#text=x");
    assert!(!d.has_delimiter && d.is_empty() && d.fragment == "text=x");
    // An empty directive list.
    let d = parse_url("https://example.org/#:~:");
    assert!(d.has_delimiter && d.is_empty());
}

#[test]
fn malformed_directives_are_reported_with_their_reason() {
    let cases = [
        (":~:text=", "empty-term"),
        (":~:text=a,,b", "empty-term"),
        (":~:text=-,a", "empty-term"),
        (":~:text=a,-", "empty-term"),
        (":~:text=a,b,c,d,e", "too-many-terms"),
        (":~:text=a,b,c", "too-many-terms"),
        (":~:text=p-,a,b,c", "too-many-terms"),
        (":~:text=a-", "no-start"),
        (":~:text=-a", "no-start"),
        (":~:text=a-,-b", "no-start"),
        (":~:text=%FF", "not-utf8"),
        (":~:text=ok,%C3", "not-utf8"),
    ];
    for (fragment, reason) in cases {
        let e = one(fragment).expect_err(fragment);
        assert_eq!(e.reason(), reason, "{fragment}");
        assert_eq!(e.raw(), fragment.trim_start_matches(":~:"));
        assert!(e.to_string().contains(e.raw()), "{e}");
    }
    // The good directives beside a bad one are still read.
    let d = parse_fragment(":~:text=a,,b&text=fine");
    assert!(d.directives[0].is_err());
    assert_eq!(d.directives[1].as_ref().unwrap().start, "fine");
}

fn term() -> impl Strategy<Value = String> {
    // Any text, including the characters that must be escaped.
    prop::string::string_regex("[a-zA-Z0-9 ,&%#:~\\-éü✓\\t]{1,12}").unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn parsing_never_panics(s in ".{0,64}") {
        let _ = parse_url(&s);
        let _ = parse_fragment(&s);
        let _ = parse_directive(&s);
    }

    #[test]
    fn encoded_terms_read_back(
        prefix in prop::option::of(term()),
        start in term(),
        end in prop::option::of(term()),
        suffix in prop::option::of(term()),
    ) {
        let mut raw = String::from("text=");
        if let Some(p) = &prefix { raw.push_str(&format!("{}-,", encode_term(p))); }
        raw.push_str(&encode_term(&start));
        if let Some(e) = &end { raw.push_str(&format!(",{}", encode_term(e))); }
        if let Some(x) = &suffix { raw.push_str(&format!(",-{}", encode_term(x))); }
        let url = format!("https://example.org/#top:~:{raw}&text={}", encode_term(&start));
        let d = parse_url(&url);
        prop_assert_eq!(d.fragment.as_str(), "top");
        prop_assert_eq!(d.directives.len(), 2);
        let t = d.directives[0].clone().unwrap();
        prop_assert_eq!(t.prefix, prefix);
        prop_assert_eq!(t.start, start.clone());
        prop_assert_eq!(t.end, end);
        prop_assert_eq!(t.suffix, suffix);
        prop_assert_eq!(d.directives[1].clone().unwrap().start, start);
    }
}
