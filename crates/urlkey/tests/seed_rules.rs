//! Seed rules, sentence by sentence. Each test quotes the seed sentence it checks (the
//! seeds are `../shared/seeds/000_*` (Legacy URL Mapper, `mapper@1`), `001_*` (Web addresses:
//! `webkey@1`, `inspect`, the detector, the profile shapes) and `002_*` (document key,
//! `document@1`, `query_pairs`)), and checks it with several inputs: the seed's example when
//! it has one, then boundaries (lengths either side of a limit, upper case, percent-encoded
//! spellings, IP hosts, root dots). Where a sentence can be read two ways, the test's doc
//! comment says which reading the product takes.
//!
//! `tests/seed_rules.md` maps every stated rule to the test that checks it (here, in
//! `tests/seed_conformance.rs`, in the golden fixtures, in unit tests or in the CLI tests).
//!
//! [`key`] runs both library paths (`Policy::key` and `Policy::key_into`) and fails if they
//! disagree, so every key case here is also a case of "the lean path gives the outcome's key".

use urlkey::detect::looks_like_web_address;
use urlkey::internals::offsets::Span;
use urlkey::profile::Network;
use urlkey::{Inspection, Outcome, PolicySet, PublicSuffixList};

/// The key, or `!code`; fails if the lean path disagrees with the outcome.
fn key(policy: &str, input: &str) -> String {
    let p = PolicySet::builtin().get(policy).unwrap();
    let o = p.key(input);
    let mut lean = String::new();
    let lean_result = p.key_into(input, &mut lean);
    match lean_result {
        Ok(()) => assert_eq!(Some(&lean), o.key.as_ref(), "{policy} lean {input:?}"),
        Err(code) => assert_eq!(
            Some(code),
            o.error.as_ref().map(|e| e.code),
            "{policy} lean error {input:?}"
        ),
    }
    match (&o.key, &o.error) {
        (Some(k), _) => k.clone(),
        (None, Some(e)) => format!("!{}", e.code.as_str()),
        (None, None) => unreachable!("an outcome has a key or an error"),
    }
}

fn outcome(policy: &str, input: &str) -> Outcome {
    PolicySet::builtin().get(policy).unwrap().key(input)
}

fn facts(policy: &str, input: &str) -> Vec<&'static str> {
    outcome(policy, input)
        .facts
        .iter()
        .map(|f| f.as_str())
        .collect()
}

fn canonical(policy: &str, input: &str) -> String {
    let o = outcome(policy, input);
    o.canonical
        .unwrap_or_else(|| panic!("{policy} {input:?}: no canonical form ({:?})", o.error))
}

fn inspect(input: &str) -> Inspection {
    let set = PolicySet::builtin();
    let p = set.get("webkey@1").unwrap();
    urlkey::inspect(input, &set, &p)
}

/// Runs every `(input, want)` row and reports every row that fails, with the rule.
fn table(rule: &str, policy: &str, rows: &[(&str, &str)]) {
    let bad: Vec<String> = rows
        .iter()
        .filter_map(|&(input, want)| {
            let got = key(policy, input);
            (got != want).then(|| format!("  {input:?}: got {got:?}, want {want:?}"))
        })
        .collect();
    assert!(
        bad.is_empty(),
        "{policy}: seed rule \"{rule}\":\n{}",
        bad.join("\n")
    );
}

// =======================================================================================
/// Seed 000, "The pipeline" and "What normalisation cannot prove" (`mapper@1`).
mod seed_000 {
    use super::*;

    /// "Reject whitespace and non-HTTP schemes before parsing so malformed input cannot
    /// become a plausible path." (The scheme is matched ignoring ASCII case.)
    #[test]
    fn non_http_schemes_are_rejected_and_http_in_any_case_is_not() {
        for input in [
            "javascript:alert(1)",
            "ftp://a.test/x",
            "file:///etc/passwd",
            "ws://a.test/",
            "wss://a.test/",
            "mailto:a@b.test",
            "data:text/html,x",
            "httpx://a.test/",
            "example.com/x",
            "a.test:80/x",
        ] {
            assert_eq!(
                key("mapper@1", input),
                "!mapper.unsupported-scheme",
                "{input}"
            );
        }
        table(
            "Reject ... non-HTTP schemes",
            "mapper@1",
            &[
                ("HTTP://a.test/x", "http://a.test/x"),
                ("hTTpS://a.test/x", "https://a.test/x"),
                ("HTTPS://A.TEST", "https://a.test/"),
            ],
        );
    }

    /// "For absolute URLs, lowercase the host and remove default ports."
    #[test]
    fn absolute_urls_lowercase_the_host_and_drop_default_ports() {
        table(
            "For absolute URLs, lowercase the host and remove default ports.",
            "mapper@1",
            &[
                ("HTTP://EXAMPLE.COM:80/", "http://example.com/"),
                ("https://Ex.Test:443/x", "https://ex.test/x"),
                ("https://ex.test:0443/x", "https://ex.test/x"),
                // Another scheme's default is not this scheme's.
                ("http://ex.test:443/x", "http://ex.test:443/x"),
                ("https://ex.test:80/x", "https://ex.test:80/x"),
                ("https://ex.test:8443/x", "https://ex.test:8443/x"),
                ("http://[2001:DB8::1]:80/x", "http://[2001:db8::1]/x"),
                ("https://BÜCHER.de/", "https://xn--bcher-kva.de/"),
                // The path keeps its case: "The tool does not lowercase paths."
                ("HTTP://EX.TEST/A/B", "http://ex.test/A/B"),
            ],
        );
    }

    /// "For path-only input, keep it path-only."
    #[test]
    fn path_only_input_stays_path_only() {
        table(
            "For path-only input, keep it path-only.",
            "mapper@1",
            &[
                ("/x", "/x"),
                ("/a/b?q=1#f", "/a/b?q=1"),
                ("/", "/"),
                ("/A/B/", "/A/B/"),
                ("/x?b=2&a=1", "/x?a=1&b=2"),
            ],
        );
        let o = outcome("mapper@1", "/a/b?q=1");
        assert_eq!(o.canonical.as_deref(), Some("/a/b?q=1"));
        assert_eq!(o.signature.as_deref(), Some("/a/b?q"));
    }

    /// "Collapse repeated slashes in the path. The tool does not lowercase paths."
    #[test]
    fn repeated_slashes_collapse_in_the_path_only_and_case_stays() {
        table(
            "Collapse repeated slashes in the path. The tool does not lowercase paths.",
            "mapper@1",
            &[
                ("/a//b", "/a/b"),
                ("/a///b////c", "/a/b/c"),
                ("/A//B//", "/A/B/"),
                ("https://a.test//x//y/", "https://a.test/x/y/"),
                ("HTTP://Example.com:80/a//b", "http://example.com/a/b"),
                // Not in the query.
                ("/x?u=a//b", "/x?u=a//b"),
                (
                    "https://a.test/Guide/INDEX.html",
                    "https://a.test/Guide/INDEX.html",
                ),
            ],
        );
    }

    /// "Remove known tracking parameters from the grouping key, but retain their names in
    /// the record and CSV."
    #[test]
    fn tracking_names_leave_the_key_but_stay_in_the_record() {
        for (input, want_key, want_removed) in [
            (
                "HTTP://Example.com:80/a//b?utm_source=x&id=7",
                "http://example.com/a/b?id=7",
                &["utm_source"][..],
            ),
            (
                "/x?fbclid=1&a=2&UTM_Medium=3&gclid=4",
                "/x?a=2",
                &["fbclid", "UTM_Medium", "gclid"][..],
            ),
            ("/x?utm_source=1", "/x", &["utm_source"][..]),
            ("/x?a=1", "/x?a=1", &[][..]),
        ] {
            let o = outcome("mapper@1", input);
            assert_eq!(o.key.as_deref(), Some(want_key), "{input}");
            assert_eq!(o.removed_params, want_removed, "{input}");
            let signature = o.signature.unwrap();
            for name in want_removed {
                assert!(!signature.contains(name), "{input}: {signature}");
            }
            assert_eq!(
                o.facts
                    .iter()
                    .any(|f| f.as_str() == "tracking-parameters-removed"),
                !want_removed.is_empty(),
                "{input}"
            );
        }
    }

    /// "Sort remaining parameters by name and value"
    #[test]
    fn parameters_sort_by_name_then_value() {
        table(
            "Sort remaining parameters by name and value",
            "mapper@1",
            &[
                ("/x?b=2&a=1", "/x?a=1&b=2"),
                ("/x?a=2&a=1&a=10", "/x?a=1&a=10&a=2"),
                ("/x?b=1&a=2&A=3", "/x?A=3&a=2&b=1"),
                // By name first: "a" sorts before "a-b" although "a-b=..." < "a=..." bytewise.
                ("/x?a-b=1&a=2", "/x?a=2&a-b=1"),
                ("https://a.test/?z&y=&x=1", "https://a.test/?x=1&y=&z"),
            ],
        );
    }

    /// "then group by host, path and parameter-name signature." and the examples table:
    /// "Same path and parameter signature, but two distinct value sets. The tool will not
    /// collapse them." / "Parameter order differs, meaning does not."
    #[test]
    fn grouping_is_by_host_path_and_parameter_names() {
        let sig = |i: &str| outcome("mapper@1", i).signature.unwrap();
        // Distinct values, one signature: a review group (two keys).
        let one = "/main/scripts.html?script=One";
        let two = "/main/scripts.html?script=Two";
        assert_eq!(sig(one), sig(two));
        assert_ne!(key("mapper@1", one), key("mapper@1", two));
        assert_eq!(sig(one), "/main/scripts.html?script");
        // Order only: one key (duplicates).
        assert_eq!(key("mapper@1", "/x?a=1&b=2"), key("mapper@1", "/x?b=2&a=1"));
        // The host is part of the signature, the values and the repeats are not.
        assert_ne!(sig("https://a.test/x?q=1"), sig("https://b.test/x?q=1"));
        assert_eq!(
            sig("https://a.test/x?q=1&q=2&r=3"),
            sig("https://A.TEST/x?r=0&q=9")
        );
        assert_eq!(sig("https://a.test/x?q=1&q=2&r=3"), "a.test/x?q&r");
        // The path after collapsing, and its case kept.
        assert_eq!(sig("https://a.test//x"), sig("https://a.test/x"));
        assert_ne!(sig("https://a.test/X"), sig("https://a.test/x"));
        // A port is part of the host.
        assert_eq!(sig("https://a.test:8443/x"), "a.test:8443/x");
        // Tracking names are not in the signature.
        assert_eq!(sig("/x?utm_source=1&a=2"), sig("/x?a=3"));
    }

    /// "Fragments are dropped because servers do not receive them"
    #[test]
    fn fragments_are_dropped() {
        table(
            "Fragments are dropped because servers do not receive them",
            "mapper@1",
            &[
                ("/x#frag", "/x"),
                ("/x#", "/x"),
                ("https://a.test/x#a#b", "https://a.test/x"),
                ("https://a.test/x?q=1#f", "https://a.test/x?q=1"),
            ],
        );
        assert_eq!(facts("mapper@1", "/x#f"), ["fragment-removed"]);
        assert_eq!(facts("mapper@1", "/x"), Vec::<&str>::new());
    }

    /// "Percent-decoding is bounded by the platform parser; the tool does not repeatedly
    /// decode attacker-controlled values."
    #[test]
    fn escapes_are_left_as_the_parser_leaves_them() {
        table(
            "the tool does not repeatedly decode attacker-controlled values",
            "mapper@1",
            &[
                ("/x?%2541=1", "/x?%2541=1"),
                ("/x?a=%2541", "/x?a=%2541"),
                ("/%252F", "/%252F"),
                ("/%41%2f", "/%41%2f"),
                ("https://a.test/%7e", "https://a.test/%7e"),
                // What the parser itself does stays: it encodes a space in the query.
                ("/x?a=%", "/x?a=%"),
            ],
        );
    }

    /// "The tracking list is finite and visible. Unknown parameters are kept."
    #[test]
    fn unknown_parameters_are_kept() {
        table(
            "Unknown parameters are kept.",
            "mapper@1",
            &[
                ("/x?ref=1", "/x?ref=1"),
                ("/x?utm=1", "/x?utm=1"),
                ("/x?xgclid=1", "/x?xgclid=1"),
                ("/x?fbclid2=1", "/x?fbclid2=1"),
                ("/x?gclid_=1", "/x?gclid_=1"),
                ("/x?utm%5Fsource=1", "/x?utm%5Fsource=1"),
            ],
        );
    }

    /// "Trim each line; ignore blank lines and comments beginning with #." A `#` later in
    /// the line is a fragment, not a comment.
    #[test]
    fn a_hash_inside_a_line_is_a_fragment() {
        assert_eq!(key("mapper@1", "/x#not-a-comment"), "/x");
        assert_eq!(key("mapper@1", "  /x#y  "), "/x");
        assert_eq!(
            urlkey::internals::text::line_kind(b"  # c"),
            urlkey::internals::text::LineKind::Comment
        );
        assert_eq!(
            urlkey::internals::text::line_kind(b"/x#c"),
            urlkey::internals::text::LineKind::Record
        );
        assert_eq!(
            urlkey::internals::text::line_kind(b" \t "),
            urlkey::internals::text::LineKind::Blank
        );
    }
}

// =======================================================================================
/// Seed 001, "Parsing".
mod seed_001_parsing {
    use super::*;

    /// "A missing scheme is assumed to be `https` and the result carries
    /// `WebFacts.SchemeAssumed`."
    #[test]
    fn a_missing_scheme_is_https_and_said() {
        for (input, canon) in [
            ("example.com/x", "https://example.com/x"),
            ("Example.COM", "https://example.com/"),
            ("//example.com/x", "https://example.com/x"),
            (
                "www.example.com:8443/x?q#f",
                "https://www.example.com:8443/x?q",
            ),
            ("192.168.0.1/x", "https://192.168.0.1/x"),
            ("[::1]:8080/", "https://[::1]:8080/"),
        ] {
            assert_eq!(canonical("webkey@1", input), canon, "{input}");
            assert!(
                facts("webkey@1", input).contains(&"scheme-assumed"),
                "{input}"
            );
        }
        for input in [
            "https://example.com/x",
            "http://example.com/x",
            "HTTPS://example.com",
        ] {
            assert!(
                !facts("webkey@1", input).contains(&"scheme-assumed"),
                "{input}"
            );
        }
    }

    /// "A scheme counts as written when the text starts with `scheme:` and the colon is
    /// followed by `//`"
    #[test]
    fn any_scheme_followed_by_two_slashes_is_written() {
        table(
            "the text starts with `scheme:` and the colon is followed by `//`",
            "webkey@1",
            &[
                ("foo://bar/x", "foo://bar/x"),
                ("git+ssh://host.example/x", "git+ssh://host.example/x"),
                ("a.b-c://h/x", "a.b-c://h/x"),
                ("FOO://bar/x", "foo://bar/x"),
            ],
        );
        for input in ["foo://bar/x", "git+ssh://host.example/x"] {
            assert_eq!(facts("webkey@1", input), ["non-web-scheme"], "{input}");
        }
    }

    /// "or the scheme is one that is written without slashes (`mailto`, `tel`, `sms`,
    /// `urn`, `geo`, `callto`, `skype`, `magnet`, `news`, `data`, `javascript`, `about`,
    /// `blob`)"
    #[test]
    fn the_slashless_schemes_are_written_without_slashes() {
        for (input, want) in [
            ("mailto:a@b.example", "mailto:a@b.example"),
            ("tel:+15550100", "tel:+15550100"),
            ("sms:+15550100", "sms:+15550100"),
            ("urn:isbn:0451450523", "urn:isbn:0451450523"),
            ("geo:37.78,-122.41", "geo:37.78,-122.41"),
            ("callto:someone", "callto:someone"),
            ("skype:someone", "skype:someone"),
            ("magnet:?xt=urn:btih:abc", "magnet:?xt=urn:btih:abc"),
            ("news:comp.lang.rust", "news:comp.lang.rust"),
            ("data:text/plain,hi", "data:text/plain,hi"),
            ("javascript:void(0)", "javascript:void(0)"),
            ("about:blank", "about:blank"),
            ("blob:https://a.example/1234", "blob:https://a.example/1234"),
            ("MAILTO:a@b.example", "mailto:a@b.example"),
            ("Tel:+1", "tel:+1"),
        ] {
            assert_eq!(key("webkey@1", input), want, "{input}");
            let f = facts("webkey@1", input);
            assert!(!f.contains(&"scheme-assumed"), "{input}: {f:?}");
            assert!(f.contains(&"non-web-scheme"), "{input}: {f:?}");
        }
    }

    /// "or a special scheme" (http, https, ws, wss, ftp, file): written even without `//`.
    #[test]
    fn special_schemes_are_written_without_slashes_too() {
        table(
            "or a special scheme",
            "webkey@1",
            &[
                ("http:example.com/x", "example.com/x"),
                ("HTTPS:example.com/x", "example.com/x"),
                ("https:/example.com/x", "example.com/x"),
                ("ws:a.example/x", "ws://a.example/x"),
                ("wss:a.example", "wss://a.example"),
                ("ftp:f.example/x", "ftp://f.example/x"),
                ("file:/etc/hosts", "file:///etc/hosts"),
            ],
        );
        for input in ["http:example.com/x", "ws:a.example/x", "file:/etc/hosts"] {
            assert!(
                !facts("webkey@1", input).contains(&"scheme-assumed"),
                "{input}"
            );
        }
    }

    /// "So `localhost:3000/x` and `example.com:8080` are hosts with a port, not schemes."
    /// Any other `name:` without `//` is a host too, with whatever port follows.
    #[test]
    fn host_colon_port_is_not_a_scheme() {
        table(
            "So `localhost:3000/x` and `example.com:8080` are hosts with a port, not schemes.",
            "webkey@1",
            &[
                ("localhost:3000/x", "localhost:3000/x"),
                ("example.com:8080", "example.com:8080"),
                ("www.example.com:8080/a?b=1", "example.com:8080/a?b=1"),
                ("example.com:443/x", "example.com/x"),
                ("LOCALHOST:3000", "localhost:3000"),
                ("example.com:", "example.com"),
                ("foo:bar", "!web.invalid-port"),
                ("example.com:99999", "!web.invalid-port"),
                ("intranet:8080/wiki", "intranet:8080/wiki"),
                // One slash is not two: the host "foo" with an empty port.
                ("foo:/x", "foo/x"),
            ],
        );
        for input in ["localhost:3000/x", "example.com:8080", "intranet:8080/wiki"] {
            assert!(
                facts("webkey@1", input).contains(&"scheme-assumed"),
                "{input}"
            );
        }
    }

    /// "A failed parse reports one of `web.host-missing`, `web.invalid-host`,
    /// `web.invalid-port`, `web.invalid-url`."
    #[test]
    fn failures_have_one_of_four_codes() {
        table(
            "A failed parse reports one of web.host-missing, web.invalid-host, web.invalid-port, web.invalid-url.",
            "webkey@1",
            &[
                ("https://", "!web.host-missing"),
                ("http://?x", "!web.host-missing"),
                ("?", "!web.host-missing"),
                ("https://exa mple.com/", "!web.invalid-host"),
                ("https://a<b.example/", "!web.invalid-host"),
                ("http://1.2.3.4.5/", "!web.invalid-host"),
                ("https://[::1/", "!web.invalid-host"),
                ("https://a.test:99999/", "!web.invalid-port"),
                ("https://a.test:8x/", "!web.invalid-port"),
                ("/relative/path", "!web.invalid-url"),
                ("", "!web.invalid-url"),
            ],
        );
        let allowed = [
            "web.host-missing",
            "web.invalid-host",
            "web.invalid-port",
            "web.invalid-url",
        ];
        for input in [
            "https://",
            "x y",
            "http://a:b@",
            "::",
            "https://%zz/",
            "a:99999999",
        ] {
            if let Some(e) = outcome("webkey@1", input).error {
                assert!(allowed.contains(&e.code.as_str()), "{input}: {}", e.code);
            }
        }
    }

    /// "Hardening limits that are not in the Standard: a host that is not ASCII and is
    /// longer than 4096 UTF-16 units fails" — in UTF-16 units: a character outside the
    /// BMP counts two.
    #[test]
    fn the_host_limit_counts_utf16_units() {
        let host = |s: &str| format!("https://{s}.com/");
        // 2046 emoji = 4092 units (+ ".com" = 4096): accepted; 2047 = 4098 units: refused.
        assert!(!key("webkey@1", &host(&"😀".repeat(2046))).starts_with('!'));
        assert_eq!(
            key("webkey@1", &host(&"😀".repeat(2047))),
            "!web.invalid-host"
        );
        // 4092 BMP characters + 4 = 4096: accepted; one more: refused.
        assert!(!key("webkey@1", &host(&"ü".repeat(4092))).starts_with('!'));
        assert_eq!(
            key("webkey@1", &host(&"ü".repeat(4093))),
            "!web.invalid-host"
        );
        // An opaque host (another scheme) is measured as written.
        assert!(!key("webkey@1", &format!("foo://{}/", "ü".repeat(4096))).starts_with('!'));
        assert_eq!(
            key("webkey@1", &format!("foo://{}/", "ü".repeat(4097))),
            "!web.invalid-host"
        );
    }

    /// "ASCII hosts are never run through UTS #46, as the Standard says." (so the 4096-unit
    /// limit is not theirs).
    #[test]
    fn ascii_hosts_are_not_limited() {
        let long = format!("https://{}.example.com/", "a".repeat(5000));
        assert!(!key("webkey@1", &long).starts_with('!'));
        let labels = format!("https://{}example.com/", "ab.".repeat(2000));
        assert_eq!(key("webkey@1", &labels), "example.com");
    }
}

// =======================================================================================
/// Seed 001, "Parsing", offsets: "`ParseDetail.Fields` holds `scheme` (only when written),
/// `host`, `port`, `path`, `query` and `fragment` spans, in UTF-16 units of the input as
/// given (tabs and newlines the Standard removes are skipped, so spans cover them)."
mod seed_001_offsets {
    use super::*;

    fn u16s(i: &Inspection) -> [Option<Span>; 6] {
        let o = &i.offsets;
        [o.scheme, o.host, o.port, o.path, o.query, o.fragment].map(|c| c.map(|c| c.utf16))
    }

    fn s(start: usize, end: usize) -> Option<Span> {
        Some(Span { start, end })
    }

    #[test]
    fn spans_are_utf16_units_of_the_input_as_given() {
        // ASCII: units are bytes.
        assert_eq!(
            u16s(&inspect("https://a.test:8080/p?q=1#f")),
            [
                s(0, 5),
                s(8, 14),
                s(15, 19),
                s(19, 21),
                s(22, 25),
                s(26, 27)
            ]
        );
        // "é" is one unit (two bytes), "😀" two units (four bytes).
        let i = inspect("https://é.test/😀?q=😀#😀");
        assert_eq!(
            u16s(&i),
            [s(0, 5), s(8, 14), None, s(14, 17), s(18, 22), s(23, 25)]
        );
        assert_eq!(i.offsets.host.unwrap().bytes, Span { start: 8, end: 15 });
    }

    #[test]
    fn the_scheme_has_a_span_only_when_written() {
        let i = inspect("example.com:8080/x");
        assert_eq!(u16s(&i), [None, s(0, 11), s(12, 16), s(16, 18), None, None]);
        let i = inspect("mailto:a@b.example");
        assert_eq!(i.offsets.scheme.unwrap().utf16, Span { start: 0, end: 6 });
        let i = inspect("localhost:3000/x");
        assert!(i.offsets.scheme.is_none());
        assert_eq!(i.offsets.port.unwrap().utf16, Span { start: 10, end: 14 });
    }

    #[test]
    fn removed_tabs_and_newlines_are_covered_not_counted_out() {
        // A tab inside the scheme and a newline inside the host: the spans cover them.
        let i = inspect("ht\ttps://ex\nample.com:8080/p?q#f");
        assert_eq!(
            u16s(&i),
            [
                s(0, 6),
                s(9, 21),
                s(22, 26),
                s(26, 28),
                s(29, 30),
                s(31, 32)
            ]
        );
        // A span never starts or ends on one.
        let i = inspect("https://\ta.test\t/x");
        assert_eq!(i.offsets.host.unwrap().utf16, Span { start: 9, end: 15 });
        // After a non-ASCII character, still in UTF-16 units.
        let i = inspect("https://é\t.test/x");
        assert_eq!(i.offsets.host.unwrap().utf16, Span { start: 8, end: 15 });
    }

    /// "Input text is trimmed of white space": the spans index the input as given, and
    /// the white space trimmed at either end (U+00A0, U+3000, ...) is in no span, like a
    /// trimmed space; a scheme written after it is still written.
    #[test]
    fn trimmed_unicode_white_space_is_in_no_span() {
        let i = inspect("\u{a0}example.com/p\u{3000}");
        assert_eq!(u16s(&i), [None, s(1, 12), None, s(12, 14), None, None]);
        assert_eq!(i.offsets.host.unwrap().bytes, Span { start: 2, end: 13 });
        let i = inspect("\u{a0}https://example.com/p");
        assert_eq!(u16s(&i), [s(1, 6), s(9, 20), None, s(20, 22), None, None]);
        let i = inspect("\u{3000}\u{2028} https://a.test/?utm_source=1&b=2 \u{a0}");
        assert_eq!(i.offsets.scheme.unwrap().utf16, Span { start: 3, end: 8 });
        let params: Vec<(String, Span)> = i
            .offsets
            .params
            .iter()
            .map(|p| (p.name.clone(), p.span.utf16))
            .collect();
        assert_eq!(
            params,
            [
                ("utm_source".to_string(), Span { start: 19, end: 31 }),
                ("b".to_string(), Span { start: 32, end: 35 }),
            ]
        );
        // The plain ASCII case is unchanged.
        let i = inspect("  https://a.test/p  ");
        assert_eq!(u16s(&i), [s(2, 7), s(10, 16), None, s(16, 18), None, None]);
    }
}

// =======================================================================================
/// Seed 001, "Canonical form" (`webkey@1`'s canonical form, which `inspect` reports).
mod seed_001_canonical {
    use super::*;

    /// "host lowercased and processed by UTS #46 (non-transitional, `CheckBidi` and
    /// `CheckJoiners` on, `UseSTD3ASCIIRules` off), so internationalized hosts appear in
    /// their `xn--` form; IPv4 numbers normalized to dotted decimal; IPv6 compressed"
    #[test]
    fn the_host_is_the_standards() {
        for (input, want) in [
            ("https://EXAMPLE.com/", "https://example.com/"),
            ("https://Bücher.DE/", "https://xn--bcher-kva.de/"),
            ("https://faß.de/", "https://xn--fa-hia.de/"), // non-transitional: ß stays
            ("https://ＥＸＡＭＰＬＥ．ｃｏｍ/", "https://example.com/"),
            ("https://a_b.example/", "https://a_b.example/"), // STD3 rules off
            ("https://0x7f.1/", "https://127.0.0.1/"),
            ("https://3232235521/", "https://192.168.0.1/"),
            ("https://0300.0250.0.1/", "https://192.168.0.1/"),
            ("https://[2001:DB8:0:0:0:0:0:1]/", "https://[2001:db8::1]/"),
            ("https://[0:0:0:0:0:0:0:1]:8080/", "https://[::1]:8080/"),
        ] {
            assert_eq!(canonical("webkey@1", input), want, "{input}");
        }
        // CheckBidi: a label mixing right-to-left and left-to-right is refused.
        assert_eq!(key("webkey@1", "https://aא.example/"), "!web.invalid-host");
        // CheckJoiners: a ZWJ out of context is refused.
        assert_eq!(
            key("webkey@1", "https://a\u{200d}b.example/"),
            "!web.invalid-host"
        );
    }

    /// "default port left out (the Standard's rule)"
    #[test]
    fn the_default_port_is_left_out() {
        for (input, want) in [
            ("https://a.test:443/", "https://a.test/"),
            ("http://a.test:80/", "http://a.test/"),
            ("http://a.test:0080/", "http://a.test/"),
            ("ws://a.test:80/", "ws://a.test/"),
            ("wss://a.test:443/", "wss://a.test/"),
            ("ftp://a.test:21/", "ftp://a.test/"),
            ("http://a.test:443/", "http://a.test:443/"),
            ("https://a.test:80/", "https://a.test:80/"),
            ("foo://a.test:80/", "foo://a.test:80/"),
        ] {
            assert_eq!(canonical("webkey@1", input), want, "{input}");
        }
    }

    /// "tracking parameters removed from the query (below); a query that becomes empty
    /// disappears with its `?`; a query that was empty and had nothing removed stays"
    /// (a query of only empty pieces once the tracking is gone disappears too).
    #[test]
    fn the_query_loses_tracking_and_an_empty_query_stays() {
        for (input, want) in [
            ("https://a.test/x?utm_source=1", "https://a.test/x"),
            ("https://a.test/x?utm_source=1&gclid=2", "https://a.test/x"),
            ("https://a.test/x?utm_source=1&", "https://a.test/x"),
            ("https://a.test/x?a=1&utm_source=2", "https://a.test/x?a=1"),
            (
                "https://a.test/x?utm_source=2&a=1#f",
                "https://a.test/x?a=1",
            ),
            ("https://a.test/x?", "https://a.test/x?"),
            ("https://a.test/?", "https://a.test/?"),
            ("https://a.test/x?#f", "https://a.test/x?"),
            ("https://a.test/x?&", "https://a.test/x?&"),
            ("https://a.test/x", "https://a.test/x"),
        ] {
            assert_eq!(canonical("webkey@1", input), want, "{input}");
        }
    }

    /// "the fragment removed." and "Credentials, path case and every other query
    /// parameter stay as written."
    #[test]
    fn the_fragment_goes_and_everything_else_stays() {
        for (input, want) in [
            ("https://a.test/x#f", "https://a.test/x"),
            ("https://a.test/x#", "https://a.test/x"),
            (
                "https://u:p@a.test/Guide/INDEX.HTML?Z=1&b=%41&a#f",
                "https://u:p@a.test/Guide/INDEX.HTML?Z=1&b=%41&a",
            ),
            ("https://a.test//A//?b=2&a=1", "https://a.test//A//?b=2&a=1"),
            ("https://www.a.test/", "https://www.a.test/"),
        ] {
            assert_eq!(canonical("webkey@1", input), want, "{input}");
        }
    }

    /// "Removing a fragment or tracking parameters is reported in `Flags`, never silent."
    #[test]
    fn removals_are_reported() {
        for (input, want) in [
            ("https://a.test/x#f", &["fragment-removed"][..]),
            ("https://a.test/x#", &["fragment-removed"][..]),
            (
                "https://a.test/x?utm_source=1",
                &["tracking-parameters-removed"][..],
            ),
            (
                "https://a.test/x?fbclid=1#f",
                &["tracking-parameters-removed", "fragment-removed"][..],
            ),
            ("https://a.test/x?a=1", &[][..]),
        ] {
            assert_eq!(facts("webkey@1", input), want, "{input}");
        }
        let o = outcome("webkey@1", "https://a.test/x?UTM_Source=1&a=2#f");
        assert_eq!(o.removed_params, ["UTM_Source"]);
        let rules = o.rule_names();
        assert!(rules.contains(&"remove-tracking-parameters"), "{rules:?}");
        assert!(rules.contains(&"remove-fragment"), "{rules:?}");
    }

    /// "Names are matched ignoring ASCII case, on the name as written (not
    /// percent-decoded)." A piece without `=` is a name too; the value is never looked at.
    #[test]
    fn tracking_names_as_written_in_any_ascii_case() {
        table(
            "Names are matched ignoring ASCII case, on the name as written (not percent-decoded).",
            "webkey@1",
            &[
                ("https://a.test/?utm_source", "a.test"),
                ("https://a.test/?GCLID=&x=1", "a.test?x=1"),
                ("https://a.test/?Li_Fat_Id=1", "a.test"),
                ("https://a.test/?x=utm_source", "a.test?x=utm_source"),
                ("https://a.test/?%75tm_source=1", "a.test?%75tm_source=1"),
                ("https://a.test/?utm_source%3D1", "a.test?utm_source%3D1"),
                ("https://a.test/?fbclid%20=1", "a.test?fbclid%20=1"),
                ("https://a.test/?utm_source_=1", "a.test?utm_source_=1"),
                // U+017F folds to "s" in Unicode, not in ASCII (and is encoded anyway).
                ("https://a.test/?utm_ſource=1", "a.test?utm_%C5%BFource=1"),
            ],
        );
    }
}

// =======================================================================================
/// Seed 001, "Key, version 1" (`webkey@1`).
mod seed_001_key {
    use super::*;

    /// "1. The scheme is left out for `http` and `https`; every other scheme is kept as
    /// `scheme:` (and `//` when the address has a host)."
    #[test]
    fn rule_1_scheme() {
        table(
            "The scheme is left out for http and https; every other scheme is kept as scheme: (and // when the address has a host).",
            "webkey@1",
            &[
                ("http://a.test/x", "a.test/x"),
                ("https://a.test/x", "a.test/x"),
                ("HTTP://a.test/x", "a.test/x"),
                ("ws://a.test/x", "ws://a.test/x"),
                ("ftp://a.test/x", "ftp://a.test/x"),
                ("foo://h/x", "foo://h/x"),
                ("file:///etc/passwd", "file:///etc/passwd"),
                ("file://Host/x", "file://host/x"),
                ("foo:///x", "foo:///x"),
                ("mailto:a@b.example", "mailto:a@b.example"),
            ],
        );
        // http and https keys are one key.
        assert_eq!(
            key("webkey@1", "http://a.test/x"),
            key("webkey@1", "https://a.test/x")
        );
    }

    /// "2. A domain host becomes its registrable domain (the public suffix plus one label,
    /// from the Public Suffix List with its private section), so `www.`, `m.` and any other
    /// subdomain do not tell two addresses of one organization apart."
    #[test]
    fn rule_2_registrable_domain() {
        table(
            "A domain host becomes its registrable domain (the public suffix plus one label, from the Public Suffix List with its private section)",
            "webkey@1",
            &[
                ("https://www.example.com/", "example.com"),
                ("https://m.example.com/", "example.com"),
                ("https://a.b.c.example.com/", "example.com"),
                ("https://news.example.com.au/", "example.com.au"),
                ("https://www.example.co.uk/x", "example.co.uk/x"),
                ("https://shop.example.co.jp/", "example.co.jp"),
                // The private section: github.io and blogspot.com are suffixes.
                ("https://alice.github.io/", "alice.github.io"),
                ("https://x.alice.github.io/", "alice.github.io"),
                ("https://a.b.blogspot.com/", "b.blogspot.com"),
                // Wildcard and exception rules.
                ("https://x.y.www.ck/", "www.ck"),
                ("https://www.city.kawasaki.jp/", "city.kawasaki.jp"),
                // Any scheme with a domain host.
                ("ws://www.example.com/", "ws://example.com"),
                ("ftp://www.example.co.uk/x", "ftp://example.co.uk/x"),
                // Punycode hosts.
                ("https://www.bücher.de/", "xn--bcher-kva.de"),
                // The list's default rule: an unknown top-level domain is a suffix.
                ("https://a.b.unknowntld/", "b.unknowntld"),
            ],
        );
    }

    /// "A root dot is dropped."
    #[test]
    fn rule_2_root_dot() {
        table(
            "A root dot is dropped.",
            "webkey@1",
            &[
                ("https://example.com./", "example.com"),
                ("https://www.example.com./x", "example.com/x"),
                ("https://WWW.EXAMPLE.CO.UK./", "example.co.uk"),
                ("https://co.uk./", "co.uk"),
                ("https://localhost./x", "localhost/x"),
                ("example.com.", "example.com"),
                ("https://example.com.:8080/", "example.com:8080"),
                // One dot only: what is left has an empty label, and is kept whole.
                ("https://example.com../x", "example.com./x"),
            ],
        );
        assert_eq!(
            key("webkey@1", "https://example.com./"),
            key("webkey@1", "https://example.com/")
        );
    }

    /// "A host with no registrable domain (an IP address, an opaque host, a name that is
    /// itself a public suffix) is kept whole."
    #[test]
    fn rule_2_hosts_without_a_registrable_domain() {
        table(
            "A host with no registrable domain (an IP address, an opaque host, a name that is itself a public suffix) is kept whole.",
            "webkey@1",
            &[
                ("https://192.168.0.1/x", "192.168.0.1/x"),
                ("https://0x7f.1/", "127.0.0.1"),
                ("https://[2001:db8::1]/x", "[2001:db8::1]/x"),
                ("https://[::ffff:1.2.3.4]/", "[::ffff:102:304]"),
                ("foo://www.example.com/x", "foo://www.example.com/x"),
                ("foo://1.2.3.4/", "foo://1.2.3.4"),
                ("https://co.uk/x", "co.uk/x"),
                ("https://github.io/", "github.io"),
                ("https://com/", "com"),
                ("https://localhost/x", "localhost/x"),
                ("https://example.ck/", "example.ck"),
            ],
        );
    }

    /// "3. A port that is not the scheme's default is kept as `:port`."
    #[test]
    fn rule_3_port() {
        table(
            "A port that is not the scheme's default is kept as :port.",
            "webkey@1",
            &[
                ("https://a.test:8080/", "a.test:8080"),
                ("https://a.test:0/", "a.test:0"),
                ("https://a.test:65535/", "a.test:65535"),
                ("http://a.test:443/", "a.test:443"),
                ("https://a.test:80/", "a.test:80"),
                ("https://a.test:443/", "a.test"),
                ("http://a.test:80/", "a.test"),
                ("ws://a.test:443/", "ws://a.test:443"),
                ("wss://a.test:443/", "wss://a.test"),
                ("https://www.a.test:08080/x", "a.test:8080/x"),
                ("https://[::1]:8080/", "[::1]:8080"),
            ],
        );
    }

    /// "4. The path is normalized: ASCII letters lowercased; `%XX` escapes of unreserved
    /// characters (letters, digits, `-` `.` `_` `~`) decoded and the hex digits of the
    /// other escapes uppercased" (the hex digits of an escape are not letters of the path:
    /// they stay uppercase).
    #[test]
    fn rule_4_case_and_escapes() {
        table(
            "ASCII letters lowercased; %XX escapes of unreserved characters decoded and the hex digits of the other escapes uppercased",
            "webkey@1",
            &[
                ("https://a.test/Guide/ABC", "a.test/guide/abc"),
                ("https://a.test/%41%42", "a.test/ab"),
                ("https://a.test/%7e%7E", "a.test/~~"),
                ("https://a.test/%2d%2e%5f%30%39", "a.test/-._09"),
                ("https://a.test/a%2fb", "a.test/a%2Fb"),
                ("https://a.test/%c3%a9", "a.test/%C3%A9"),
                ("https://a.test/é", "a.test/%C3%A9"),
                ("https://a.test/%3a%3A", "a.test/%3A%3A"),
                ("https://a.test/%20", "a.test/%20"),
                ("https://a.test/%zz", "a.test/%zz"),
                ("https://a.test/%2", "a.test/%2"),
                ("https://a.test/%7e%2f", "a.test/~%2F"),
                // The query is not the path: its case and escapes stay.
                ("https://a.test/X?Q=%7e", "a.test/x?Q=%7e"),
            ],
        );
    }

    /// "runs of `/` collapsed"
    #[test]
    fn rule_4_slashes() {
        table(
            "runs of / collapsed",
            "webkey@1",
            &[
                ("https://a.test//x", "a.test/x"),
                ("https://a.test/a///b////c", "a.test/a/b/c"),
                ("https://a.test/a//", "a.test/a"),
                ("https://a.test//", "a.test"),
                ("https://a.test/x?u=a//b", "a.test/x?u=a//b"),
            ],
        );
    }

    /// "a final segment that is a default document (`index.html`, `index.htm`,
    /// `index.php`, `index.asp`, `index.aspx`, `default.htm`, `default.html`,
    /// `default.asp`, `default.aspx`) dropped"
    #[test]
    fn rule_4_default_documents() {
        for doc in [
            "index.html",
            "index.htm",
            "index.php",
            "index.asp",
            "index.aspx",
            "default.htm",
            "default.html",
            "default.asp",
            "default.aspx",
        ] {
            for spelled in [doc.to_string(), doc.to_ascii_uppercase()] {
                assert_eq!(
                    key("webkey@1", &format!("https://a.test/x/{spelled}")),
                    "a.test/x",
                    "{spelled}"
                );
                assert_eq!(
                    key("webkey@1", &format!("https://a.test/{spelled}?b=1")),
                    "a.test?b=1",
                    "{spelled}"
                );
            }
        }
        table(
            "a final segment that is a default document ... dropped",
            "webkey@1",
            &[
                ("https://a.test/index.php/x", "a.test/index.php/x"),
                ("https://a.test/x/index.html/", "a.test/x/index.html"),
                ("https://a.test/x/index.shtml", "a.test/x/index.shtml"),
                ("https://a.test/x/index.html5", "a.test/x/index.html5"),
                ("https://a.test/x/myindex.html", "a.test/x/myindex.html"),
                ("https://a.test/x/%69ndex.html", "a.test/x"),
                ("https://a.test/x//index.html", "a.test/x"),
            ],
        );
    }

    /// "the trailing `/` dropped (so `/` alone is empty)."
    #[test]
    fn rule_4_trailing_slash() {
        table(
            "the trailing / dropped (so / alone is empty)",
            "webkey@1",
            &[
                ("https://a.test/", "a.test"),
                ("https://a.test", "a.test"),
                ("https://a.test/x/", "a.test/x"),
                ("https://a.test/x/?q=1", "a.test/x?q=1"),
                ("https://a.test/?q=1", "a.test?q=1"),
                ("ws://a.test/", "ws://a.test"),
            ],
        );
    }

    /// "5. The query's parameters (already without tracking parameters) are sorted
    /// ordinally and joined with `&`; empty parameters are dropped." Reading: "ordinally"
    /// is the whole raw `name=value` piece compared code unit by code unit (C#'s
    /// `StringComparer.Ordinal`; the serialized query is ASCII, so bytes); an empty
    /// parameter is an empty piece (`&&`, a leading or trailing `&`), not a name with an
    /// empty value, which is a parameter (`x=` and seed 002's `empty=` stay).
    #[test]
    fn rule_5_query() {
        table(
            "The query's parameters (already without tracking parameters) are sorted ordinally and joined with &; empty parameters are dropped.",
            "webkey@1",
            &[
                ("https://a.test/?b=2&a=1", "a.test?a=1&b=2"),
                ("https://a.test/?b=1&a=2&A=3", "a.test?A=3&a=2&b=1"),
                // Ordinal on the piece: '-' (0x2D) < '.' < '=' (0x3D).
                ("https://a.test/?a=1&a-b=2&a.b=3", "a.test?a-b=2&a.b=3&a=1"),
                ("https://a.test/?a=2&a=10&a=1", "a.test?a=1&a=10&a=2"),
                ("https://a.test/?&&b=1&&a=2&", "a.test?a=2&b=1"),
                ("https://a.test/?&", "a.test"),
                ("https://a.test/?x=&x=2", "a.test?x=&x=2"),
                ("https://a.test/?b&a=", "a.test?a=&b"),
                ("https://a.test/?utm_source=1&b=2&gclid=3&a=1", "a.test?a=1&b=2"),
                ("https://a.test/?%62=1&a=2", "a.test?%62=1&a=2"),
            ],
        );
    }

    /// "6. Credentials and the fragment are not part of the key."
    #[test]
    fn rule_6_credentials_and_fragment() {
        table(
            "Credentials and the fragment are not part of the key.",
            "webkey@1",
            &[
                ("https://u:p@a.test/x#f", "a.test/x"),
                ("https://u@a.test/x", "a.test/x"),
                ("https://:p@a.test/x", "a.test/x"),
                ("https://a.test/x#", "a.test/x"),
                ("https://a.test/x?q=1#f?g=2", "a.test/x?q=1"),
                ("ftp://user:pw@ftp.example.com/f#x", "ftp://example.com/f"),
            ],
        );
    }

    /// "7. An address with an opaque path (`mailto:`, `tel:`) has no host to reduce: the
    /// key is the scheme, `:`, and the opaque path lowercased." The query of such an
    /// address is not part of the key, except when the opaque path is empty (a `magnet:`
    /// link is nothing but its query): the product's reading, documented in
    /// docs/policies.md.
    #[test]
    fn rule_7_opaque_paths() {
        table(
            "An address with an opaque path (mailto:, tel:) has no host to reduce: the key is the scheme, :, and the opaque path lowercased.",
            "webkey@1",
            &[
                ("mailto:John@Example.COM", "mailto:john@example.com"),
                ("MAILTO:John@Example.COM", "mailto:john@example.com"),
                ("tel:+1-555-ABC", "tel:+1-555-abc"),
                ("mailto:A@B.example?subject=Hi", "mailto:a@b.example"),
                ("mailto:a@b.example#x", "mailto:a@b.example"),
                ("mailto:%4A@B.example", "mailto:%4a@b.example"),
                ("urn:ISBN:0451450523", "urn:isbn:0451450523"),
                ("javascript:ALERT(1)", "javascript:alert(1)"),
                ("data:text/plain,HELLO", "data:text/plain,hello"),
                ("magnet:?xt=urn:btih:ABC", "magnet:?xt=urn:btih:ABC"),
            ],
        );
    }
}

// =======================================================================================
/// Seed 001, "Facts": "`WebFacts` reports what was found; it never changes the value".
mod seed_001_facts {
    use super::*;

    fn has(input: &str, fact: &str) -> bool {
        facts("webkey@1", input).contains(&fact)
    }

    /// "`IpHost`": an IPv4 or IPv6 host, however written; an opaque host is not one.
    #[test]
    fn ip_host() {
        for input in [
            "https://192.168.0.1/",
            "https://0x7f.1/",
            "https://3232235521/",
            "https://[::1]/",
            "https://[2001:DB8::1]:8080/",
            "10.0.0.1/x",
        ] {
            assert!(has(input, "ip-host"), "{input}");
        }
        for input in [
            "https://example.com/",
            "foo://1.2.3.4/",
            "https://1.2.3.4.example/",
        ] {
            assert!(!has(input, "ip-host"), "{input}");
        }
    }

    /// "`InternationalizedDomain` (some label is `xn--`)": a label that starts with
    /// `xn--`, written so or produced by UTS #46. Reading: the host is a domain (an
    /// opaque host of another scheme is not a domain).
    #[test]
    fn internationalized_domain() {
        for input in [
            "https://bücher.de/",
            "https://xn--bcher-kva.de/",
            "https://XN--BCHER-KVA.de/",
            "https://a.xn--p1ai/",
            "https://пример.рф/",
            "https://www.bücher.de./",
        ] {
            assert!(has(input, "internationalized-domain"), "{input}");
        }
        for input in [
            "https://axn--b.com/",
            "https://pr--x.com/",
            "https://example.com/xn--x",
            "https://192.168.0.1/",
        ] {
            assert!(!has(input, "internationalized-domain"), "{input}");
        }
    }

    /// "`NonWebScheme` (not http or https; `IsWebsite` is false for those values: parsing
    /// accepts any WHATWG URL, including `javascript:` and `data:`, so check `IsWebsite`
    /// before using a value as a link)"
    #[test]
    fn non_web_scheme_and_is_website() {
        for input in [
            "javascript:alert(1)",
            "data:text/html,x",
            "ftp://a.test/",
            "ws://a.test/",
            "mailto:a@b.example",
            "file:///x",
        ] {
            assert!(has(input, "non-web-scheme"), "{input}");
            let i = inspect(input);
            assert!(i.valid && !i.is_website, "{input}");
        }
        for input in ["https://a.test/", "HTTP://a.test/", "a.test"] {
            assert!(!has(input, "non-web-scheme"), "{input}");
            assert!(inspect(input).is_website, "{input}");
        }
    }

    /// "`HasCredentials`": a username or a password. Empty credentials are no credentials
    /// (the Standard serializes `https://@a.test/` as `https://a.test/`).
    #[test]
    fn has_credentials() {
        for input in [
            "https://u@a.test/",
            "https://u:p@a.test/",
            "https://:p@a.test/",
            "ftp://anonymous@a.test/",
        ] {
            assert!(has(input, "has-credentials"), "{input}");
        }
        for input in ["https://@a.test/", "https://:@a.test/", "https://a.test/@x"] {
            assert!(!has(input, "has-credentials"), "{input}");
        }
    }

    /// "`SchemeAssumed`", "`TrackingParametersRemoved`", "`FragmentRemoved`", and "it
    /// never changes the value": the facts of a value and of its canonical form describe
    /// one key.
    #[test]
    fn facts_never_change_the_value() {
        for input in [
            "example.com/x?utm_source=1#f",
            "https://u@bücher.de/?gclid=1",
            "https://[::1]:8080/#",
        ] {
            let o = outcome("webkey@1", input);
            let again = outcome("webkey@1", o.canonical.as_deref().unwrap());
            assert_eq!(o.key, again.key, "{input}");
        }
        assert_eq!(
            facts("webkey@1", "example.com/x?utm_source=1#f"),
            [
                "scheme-assumed",
                "tracking-parameters-removed",
                "fragment-removed"
            ]
        );
    }
}

// =======================================================================================
/// Seed 001, "Social-profile shapes", through `inspect` (the parsed address). The shape
/// functions' own boundaries are unit tests in `src/profile.rs`.
mod seed_001_profiles {
    use super::*;

    fn shape(input: &str) -> Option<(Network, String)> {
        inspect(input).profile.map(|p| (p.network, p.handle))
    }

    fn yes(input: &str, network: Network, handle: &str) {
        assert_eq!(shape(input), Some((network, handle.to_string())), "{input}");
    }

    fn no(input: &str) {
        assert_eq!(shape(input), None, "{input}");
    }

    /// "Hosts match the domain and its subdomains, for `http` and `https` only."
    #[test]
    fn hosts_and_schemes() {
        yes("https://x.com/jack", Network::X, "jack");
        yes("http://mobile.twitter.com/jack", Network::X, "jack");
        yes("HTTPS://WWW.X.COM/jack", Network::X, "jack");
        yes("x.com/jack", Network::X, "jack"); // https assumed
        yes("https://x.com./jack", Network::X, "jack");
        no("ws://x.com/jack");
        no("ftp://github.com/octocat");
        no("https://x.com.evil.example/jack");
        no("https://notx.com/jack");
    }

    /// "X (`x.com`, `twitter.com`): a single segment of up to 15 letters, digits and
    /// underscores that is not a site page (`home`, `explore`, `search`, `settings`, `i`,
    /// `intent`, ...)."
    #[test]
    fn x() {
        yes(
            &format!("https://x.com/{}", "a".repeat(15)),
            Network::X,
            &"a".repeat(15),
        );
        no(&format!("https://x.com/{}", "a".repeat(16)));
        yes("https://x.com/A_1", Network::X, "A_1");
        yes("https://x.com/_", Network::X, "_");
        no("https://x.com/a-b");
        no("https://x.com/a.b");
        no("https://x.com/%6Aack"); // as written, an escape is not a letter
        no("https://x.com/jack/status/1");
        for page in [
            "home", "explore", "search", "settings", "i", "intent", "HOME", "Explore",
        ] {
            no(&format!("https://x.com/{page}"));
            no(&format!("https://twitter.com/{page}"));
        }
    }

    /// "GitHub (`github.com`): a first segment of up to 39 letters, digits and hyphens
    /// that is not a site page, or `/orgs/<name>/...`."
    #[test]
    fn github() {
        let n39 = "a".repeat(39);
        yes(&format!("https://github.com/{n39}"), Network::Github, &n39);
        no(&format!("https://github.com/{}", "a".repeat(40)));
        yes(
            "https://github.com/rust-lang/rust/issues",
            Network::Github,
            "rust-lang",
        );
        yes(
            "https://github.com/orgs/rust-lang/people",
            Network::Github,
            "rust-lang",
        );
        no("https://github.com/orgs");
        no("https://github.com/under_score");
        no("https://github.com/pricing");
        no("https://github.com/settings/profile");
    }

    /// "Facebook (`facebook.com`, `fb.com`): a first segment that is not a site page
    /// (`sharer`, `login`, `events`, `watch`, ...), or `profile.php`, `people`, `groups`."
    #[test]
    fn facebook() {
        yes("https://www.facebook.com/zuck", Network::Facebook, "zuck");
        yes(
            "https://fb.com/john.smith.1/",
            Network::Facebook,
            "john.smith.1",
        );
        yes(
            "https://facebook.com/profile.php?id=4",
            Network::Facebook,
            "4",
        );
        yes(
            "https://facebook.com/people/Jo-Do/1",
            Network::Facebook,
            "people/Jo-Do/1",
        );
        yes(
            "https://facebook.com/groups/rust",
            Network::Facebook,
            "groups/rust",
        );
        for page in ["sharer", "login", "events", "watch", "Watch", "sharer.php"] {
            no(&format!("https://facebook.com/{page}"));
        }
    }

    /// "Instagram (`instagram.com`): a single segment of up to 30 letters, digits, periods
    /// and underscores that is not a site page (`p`, `reel`, `explore`, ...)."
    #[test]
    fn instagram() {
        let n30 = "b".repeat(30);
        yes(
            &format!("https://instagram.com/{n30}"),
            Network::Instagram,
            &n30,
        );
        no(&format!("https://instagram.com/{}", "b".repeat(31)));
        yes(
            "https://www.instagram.com/a.b_9/",
            Network::Instagram,
            "a.b_9",
        );
        no("https://instagram.com/a-b");
        no("https://instagram.com/nasa/reels");
        for page in ["p", "reel", "explore", "P", "Reel"] {
            no(&format!("https://instagram.com/{page}"));
        }
    }

    /// "YouTube (`youtube.com`): `/@handle`, `/channel/`, `/c/`, `/user/`." and "TikTok
    /// (`tiktok.com`): `/@handle` alone."
    #[test]
    fn youtube_and_tiktok() {
        yes("https://www.youtube.com/@mkbhd", Network::Youtube, "@mkbhd");
        yes(
            "https://youtube.com/channel/UC1",
            Network::Youtube,
            "channel/UC1",
        );
        yes("https://youtube.com/c/Name", Network::Youtube, "c/Name");
        yes(
            "https://m.youtube.com/user/name/videos",
            Network::Youtube,
            "user/name",
        );
        no("https://youtube.com/watch?v=x");
        no("https://youtube.com/name");
        yes(
            "https://www.tiktok.com/@someone",
            Network::Tiktok,
            "@someone",
        );
        no("https://www.tiktok.com/@someone/video/1");
        no("https://www.tiktok.com/someone");
    }

    /// "LinkedIn (`linkedin.com`): `/in/`, `/company/`, `/school/`, `/showcase/`, `/pub/`."
    #[test]
    fn linkedin() {
        for kind in ["in", "company", "school", "showcase", "pub"] {
            yes(
                &format!("https://www.linkedin.com/{kind}/acme/"),
                Network::Linkedin,
                &format!("{kind}/acme"),
            );
        }
        no("https://www.linkedin.com/feed/");
        no("https://www.linkedin.com/in/");
    }

    /// "Mastodon-style: a single `@name` segment on any other host, except hosts where
    /// `/@name` means something else (`medium.com`, `substack.com`, `threads.net`,
    /// `threads.com`)." The exceptions hold for their subdomains too, as every host match.
    #[test]
    fn mastodon_and_its_exceptions() {
        yes(
            "https://mastodon.social/@Gargron",
            Network::Mastodon,
            "@Gargron@mastodon.social",
        );
        yes(
            "https://MASTODON.SOCIAL/@a/",
            Network::Mastodon,
            "@a@mastodon.social",
        );
        yes("http://localhost/@a", Network::Mastodon, "@a@localhost");
        no("https://mastodon.social/@Gargron/123");
        no("https://mastodon.social/Gargron");
        for host in [
            "medium.com",
            "substack.com",
            "threads.net",
            "threads.com",
            "www.threads.net",
            "blog.medium.com",
            "MEDIUM.COM",
        ] {
            no(&format!("https://{host}/@name"));
        }
        // Not an exception: a host that only ends with the same letters.
        yes(
            "https://notmedium.com/@a",
            Network::Mastodon,
            "@a@notmedium.com",
        );
    }
}

// =======================================================================================
/// Seed 001, "Public Suffix List": "`ContactKindDetector` treats text as a web address
/// when it has `://`, starts with `www.`, or is a bare domain (optionally with port, path,
/// query, fragment) whose last label is a top-level domain with a rule in the list's ICANN
/// section, so `notes.txt`, `1.5` and `John.Smith` are not taken."
mod seed_001_detector {
    use super::*;

    fn is(text: &str) -> bool {
        looks_like_web_address(text, &PublicSuffixList::embedded())
    }

    #[test]
    fn the_three_ways_in_and_the_three_examples_out() {
        for text in [
            "ftp://x",
            "a://b",
            "https://example.com",
            "www.x",
            "WWW.nowhere",
        ] {
            assert!(is(text), "{text}");
        }
        for text in [
            "example.com",
            "example.com:8080",
            "example.com/x",
            "example.com?q=1",
            "example.com#f",
            "example.com:8080/x?q#f",
        ] {
            assert!(is(text), "{text}");
        }
        for text in [
            "notes.txt",
            "1.5",
            "John.Smith",
            "localhost:3000",
            "example.notatld",
        ] {
            assert!(!is(text), "{text}");
        }
    }

    /// "a top-level domain with a rule in the list's ICANN section": the last label of an
    /// ICANN rule. Some registries list only rules below the top level (`co.za`, `*.ck`,
    /// `com.np`, `com.jm`): those top-level domains have rules in the section all the same.
    #[test]
    fn top_level_domains_whose_rules_are_all_below_them() {
        for text in [
            "example.co.za",
            "example.za",
            "google.com.jm",
            "example.com.np",
            "example.co.ck",
            "example.er",
            "example.fk",
            "example.com.mm",
            "example.com.pg",
            "EXAMPLE.CO.ZA/x",
            "example.co.za:8080",
        ] {
            assert!(is(text), "{text}");
        }
        // A private-section-only name is not an ICANN top-level domain, and the label
        // before the last is not looked at.
        for text in ["co.notatld", "example.za.notatld"] {
            assert!(!is(text), "{text}");
        }
    }
}

// =======================================================================================
/// Seed 002: `document@1`.
mod seed_002_document {
    use super::*;

    /// "https://example.test/guide#install and https://example.test/guide#usage share our
    /// document key."
    #[test]
    fn fragments_share_the_document_key() {
        let want = "https://example.test/guide";
        for input in [
            "https://example.test/guide#install",
            "https://example.test/guide#usage",
            "https://example.test/guide#",
            "https://example.test/guide",
            "https://example.test/guide#a#b",
            "HTTPS://EXAMPLE.TEST:443/guide#x",
        ] {
            assert_eq!(key("document@1", input), want, "{input}");
        }
        // The reference itself is kept: the outcome records the removed fragment.
        let o = outcome("document@1", "https://example.test/guide#install");
        assert!(o.facts.iter().any(|f| f.as_str() == "fragment-removed"));
        assert!(o.rule_names().contains(&"remove-fragment"));
    }

    /// "Accept an absolute HTTP(S) URL"
    #[test]
    fn only_absolute_http_and_https() {
        for input in [
            "ftp://a.test/",
            "mailto:a@b.test",
            "javascript:alert(1)",
            "/relative",
            "//a.test/x",
            "a.test/x",
            "https:a.test/x",
            "http:/a.test/x",
            "wss://a.test/",
        ] {
            assert_eq!(
                key("document@1", input),
                "!document.unsupported-scheme",
                "{input}"
            );
        }
        assert_eq!(key("document@1", "HTTP://a.test/"), "http://a.test/");
    }

    /// "with a nonempty ASCII hostname"
    #[test]
    fn a_nonempty_ascii_hostname() {
        for input in [
            "https:///x",
            "https://:80/",
            "https://bücher.de/",
            "https://ｅｘａｍｐｌｅ.test/",
            "https://?q",
            "https://#f",
        ] {
            assert_eq!(
                key("document@1", input),
                "!document.invalid-host",
                "{input}"
            );
        }
        assert_eq!(
            key("document@1", "https://xn--bcher-kva.de/"),
            "https://xn--bcher-kva.de/"
        );
    }

    /// "no credentials"
    #[test]
    fn no_credentials() {
        for input in [
            "https://u@a.test/",
            "https://u:p@a.test/",
            "https://:p@a.test/",
            "https://:@a.test/",
            "https://@a.test/",
            "http://u@[::1]/",
        ] {
            assert_eq!(key("document@1", input), "!document.credentials", "{input}");
        }
        // An @ after the authority is not a credential.
        assert_eq!(
            key("document@1", "https://a.test/@x?y=@"),
            "https://a.test/@x?y=@"
        );
    }

    /// "no whitespace/control characters or backslash" (a backslash in any component).
    #[test]
    fn no_backslash_anywhere() {
        for input in [
            "https://a.test\\x/",
            "https://a.test/a\\b",
            "https://a.test/?q=\\",
            "https://a.test/#\\",
            "https:\\\\a.test/",
        ] {
            assert_eq!(
                key("document@1", input),
                "!document.forbidden-character",
                "{input}"
            );
        }
    }

    /// "a port that Python can parse in range": ASCII digits, 0 to 65535, any number of
    /// them; `urlsplit(...).port` refuses the rest.
    #[test]
    fn ports_python_parses() {
        table(
            "a port that Python can parse in range",
            "document@1",
            &[
                ("https://a.test:0/", "https://a.test:0/"),
                ("http://a.test:0/", "http://a.test:0/"),
                ("https://a.test:65535/", "https://a.test:65535/"),
                ("https://a.test:8080", "https://a.test:8080/"),
                ("https://a.test:08443/", "https://a.test:8443/"),
                ("https://a.test:65536/", "!document.invalid-port"),
                ("https://a.test:-1/", "!document.invalid-port"),
                ("https://a.test:1e3/", "!document.invalid-port"),
                ("https://a.test:٣/", "!document.invalid-port"),
                ("https://a.test:80a/", "!document.invalid-port"),
                ("https://a.test:443:443/", "!document.invalid-port"),
                ("http://[::1]:65536/", "!document.invalid-port"),
            ],
        );
    }

    /// "Reject an explicit empty port."
    #[test]
    fn an_explicit_empty_port_is_refused() {
        for input in [
            "https://a.test:/",
            "https://a.test:",
            "https://a.test:?q=1",
            "https://a.test:#f",
            "http://[::1]:/",
            "HTTP://A.TEST:/x",
        ] {
            assert_eq!(key("document@1", input), "!document.empty-port", "{input}");
        }
    }

    /// "Normalize the scheme and hostname to lowercase, remove the scheme's default port,
    /// supply / for an empty path and remove the fragment."
    #[test]
    fn scheme_host_port_path_fragment() {
        table(
            "Normalize the scheme and hostname to lowercase, remove the scheme's default port, supply / for an empty path and remove the fragment.",
            "document@1",
            &[
                ("HTTPS://Example.TEST:443/Guide?q=one+two#install", "https://example.test/Guide?q=one+two"),
                ("HtTp://EXAMPLE.test/", "http://example.test/"),
                ("http://a.test:80/", "http://a.test/"),
                ("http://a.test:0080/", "http://a.test/"),
                ("https://a.test:443", "https://a.test/"),
                ("http://a.test:443/", "http://a.test:443/"),
                ("https://a.test:80/", "https://a.test:80/"),
                ("http://a.test", "http://a.test/"),
                ("http://a.test?q=1", "http://a.test/?q=1"),
                ("http://a.test#f", "http://a.test/"),
                ("https://a.test/x#", "https://a.test/x"),
            ],
        );
    }

    /// "Preserve the path and query exactly otherwise." with "Do not lowercase the whole
    /// URL", "Do not decode %2F into /", "Do not remove a final slash, sort query pairs,
    /// delete 'tracking-looking' fields or collapse repeated slashes", "Our policy also
    /// does not erase dot segments from already absolute inputs".
    #[test]
    fn path_and_query_byte_for_byte() {
        for input in [
            "https://a.test/Guide",
            "https://a.test/guide",
            "https://a.test/a%2Fb",
            "https://a.test/a%2fb%7e",
            "https://a.test/x/",
            "https://a.test/x?b=2&a=1",
            "https://a.test/x?utm_source=1&fbclid=2",
            "https://a.test//a//b",
            "https://a.test/a/./b/../c",
            "https://a.test/x?q=one+two&Q=%41",
            "https://a.test/x?a=&a=&&",
        ] {
            assert_eq!(key("document@1", input), input, "{input}");
        }
        assert_ne!(
            key("document@1", "https://a.test/Guide"),
            key("document@1", "https://a.test/guide")
        );
    }

    /// "Bracket an IPv6 hostname when rebuilding its authority." (lowercased, not
    /// otherwise rewritten: no IPv6 compression).
    #[test]
    fn ipv6_hosts_keep_their_brackets() {
        table(
            "Bracket an IPv6 hostname when rebuilding its authority.",
            "document@1",
            &[
                ("http://[::1]/", "http://[::1]/"),
                ("http://[::1]:8080/x", "http://[::1]:8080/x"),
                ("http://[::1]:80/x", "http://[::1]/x"),
                ("https://[2001:DB8::1]:443/", "https://[2001:db8::1]/"),
                ("http://[2001:db8:0:0::1]/", "http://[2001:db8:0:0::1]/"),
                ("http://[::ffff:1.2.3.4]/", "http://[::ffff:1.2.3.4]/"),
            ],
        );
    }

    /// "We do not perform IDNA conversion or full hostname validation."
    #[test]
    fn no_idna_no_host_validation() {
        table(
            "We do not perform IDNA conversion or full hostname validation.",
            "document@1",
            &[
                ("http://1.2.3.4.5/", "http://1.2.3.4.5/"),
                ("http://0x7f.1/", "http://0x7f.1/"),
                ("http://a_b.test/", "http://a_b.test/"),
                ("http://xn--zz.test/", "http://xn--zz.test/"),
                ("https://a.test./x", "https://a.test./x"),
                ("https://a<b.example/", "https://a<b.example/"),
            ],
        );
    }

    /// "Empty query/fragment delimiters may disappear when components are serialized, a
    /// deliberate limit of this key representation."
    #[test]
    fn empty_delimiters_disappear() {
        table(
            "Empty query/fragment delimiters may disappear",
            "document@1",
            &[
                ("https://a.test/x?", "https://a.test/x"),
                ("https://a.test/x#", "https://a.test/x"),
                ("https://a.test/x?#", "https://a.test/x"),
                ("https://a.test?", "https://a.test/"),
            ],
        );
    }
}

// =======================================================================================
/// Seed 002: `query_pairs`.
mod seed_002_query_pairs {
    use super::*;

    fn pairs(url: &str) -> Vec<(String, String)> {
        urlkey::query_pairs(url).unwrap_or_else(|e| panic!("{url}: {e:?}"))
    }

    fn p(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    /// "parse_qsl returns ordered (name, value) pairs. With keep_blank_values=True, x=&x=2
    /// retains both values." and "A dictionary conversion loses duplicate-key history, and
    /// a default parse drops blank values."
    #[test]
    fn ordered_pairs_with_blanks_and_repeats() {
        assert_eq!(pairs("https://a.test/?x=&x=2"), p(&[("x", ""), ("x", "2")]));
        assert_eq!(
            pairs("https://a.test/?b=1&a=2&b=3"),
            p(&[("b", "1"), ("a", "2"), ("b", "3")])
        );
        assert_eq!(pairs("https://a.test/?x&y="), p(&[("x", ""), ("y", "")]));
        assert_eq!(
            pairs("https://a.test/?x=1&&x=1&"),
            p(&[("x", "1"), ("x", "1")])
        );
        assert_eq!(pairs("https://a.test/?=v"), p(&[("", "v")]));
        assert_eq!(pairs("https://a.test/?a=b=c"), p(&[("a", "b=c")]));
        assert_eq!(pairs("https://a.test/"), p(&[]));
        assert_eq!(pairs("https://a.test/?"), p(&[]));
        // The fragment is not the query.
        assert_eq!(pairs("https://a.test/?a=1#b=2"), p(&[("a", "1")]));
        // Tracking parameters are inspected too: the pairs are the URL's, not the key's.
        assert_eq!(
            pairs("https://a.test/?utm_source=x&id=7"),
            p(&[("utm_source", "x"), ("id", "7")])
        );
    }

    /// "A plus sign decodes as a space in form queries; %2B decodes as a literal plus."
    #[test]
    fn plus_is_space_and_escaped_plus_is_plus() {
        assert_eq!(
            pairs("https://a.test/?tag=one&tag=two&empty=&q=a+b&plus=%2B"),
            p(&[
                ("tag", "one"),
                ("tag", "two"),
                ("empty", ""),
                ("q", "a b"),
                ("plus", "+"),
            ])
        );
        assert_eq!(pairs("https://a.test/?a+b=c+d"), p(&[("a b", "c d")]));
        assert_eq!(pairs("https://a.test/?q=%2b%2B+"), p(&[("q", "++ ")]));
        assert_eq!(pairs("https://a.test/?q=%20%41"), p(&[("q", " A")]));
        assert_eq!(pairs("https://a.test/?q=%C3%A9"), p(&[("q", "é")]));
        assert_eq!(pairs("https://a.test/?q=%zz%"), p(&[("q", "%zz%")]));
        assert_eq!(pairs("https://a.test/?q=%FF"), p(&[("q", "\u{fffd}")]));
    }

    /// "Those rules do not describe arbitrary URL paths." and "The second function
    /// inspects a well-formed URL and never rewrites its key."
    #[test]
    fn pairs_never_rewrite_a_key() {
        for (input, want) in [
            (
                "https://a.test/a+b?q=a+b&p=%2B",
                "https://a.test/a+b?q=a+b&p=%2B",
            ),
            ("https://a.test/%2B?x=&x=2", "https://a.test/%2B?x=&x=2"),
        ] {
            assert_eq!(key("document@1", input), want, "{input}");
            let _ = pairs(input);
            assert_eq!(key("document@1", input), want, "{input}");
        }
        // Not a well-formed URL: an error, no pairs.
        for input in [
            "/x?a=1",
            "https://a.test:99999/?a=1",
            "https://exa mple.com/?a=1",
            "?a=1",
        ] {
            assert!(urlkey::query_pairs(input).is_err(), "{input}");
        }
    }
}
