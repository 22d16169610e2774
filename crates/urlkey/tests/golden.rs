//! Golden fixtures: a released policy's output never changes (CONTRIBUTING.md).
//!
//! Every builtin policy has a file `tests/golden/<policy-id>.tsv` (plus one for the option
//! `citation@1+keep-trailing-slash`). Each data line is `input<TAB>expected`: `expected` is
//! the key, or `!` followed by the error code when the input is invalid
//! (`!mapper.whitespace`). Lines starting with `#` are comments (the file's header and
//! section titles). The test runs every input through the policy and compares the result
//! with `expected` byte for byte, listing every mismatch; each file must hold at least
//! [`MIN_LINES`] data lines, and no input may appear twice in one file.
//!
//! Escapes, in both columns (see [`escape`]): `\\` is a backslash, `\t` a tab, `\n` a line
//! feed, `\r` a carriage return, `\u{HEX}` any character. Writers use `\u{..}` for the other
//! control characters (C0, DEL, C1), invisible and non-ASCII white-space characters, a space
//! at the start or end of a column, a `#` that starts an input (it would read as a comment)
//! and a `!` that starts a key (it would read as an error).
//!
//! Re-blessing: `URLKEY_BLESS=1 cargo test -p urlkey --test golden` rewrites the expected
//! column of every file from the current implementation (comments and input order kept).
//! Use it only to add inputs (write `input<TAB>` and bless) or for a new policy version,
//! and review every changed line with `git diff` before committing. Never set
//! `URLKEY_BLESS` in CI: a blessed fixture cannot fail.

use std::fmt::Write as _;
use std::path::Path;

mod common;

use common::{golden_dir, unescape};
use urlkey::internals::policy::builtin_variants;
use urlkey::{Outcome, PolicySet};

/// The smallest number of data lines a fixture may have.
const MIN_LINES: usize = 150;

/// Every fixture: each builtin id, and each with one of its options.
fn fixture_ids() -> Vec<String> {
    builtin_variants()
}

/// The expected column: a key, or an error code (written `!code`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Expected {
    Key(String),
    Error(String),
}

impl Expected {
    /// What the policy gives for one input.
    fn of(o: &Outcome) -> Expected {
        match (&o.key, &o.error) {
            (Some(k), _) => Expected::Key(k.clone()),
            (None, Some(e)) => Expected::Error(e.code.as_str().to_string()),
            (None, None) => Expected::Error("<no key and no error>".into()),
        }
    }

    /// Reads a column: `!code`, or an escaped key (a key that starts with `!` is written
    /// `\u{21}...`).
    fn parse(col: &str) -> Result<Expected, String> {
        match col.strip_prefix('!') {
            Some(code) => Ok(Expected::Error(code.to_string())),
            None => unescape(col).map(Expected::Key),
        }
    }

    /// The column's text.
    fn column(&self) -> String {
        match self {
            Expected::Key(k) => escape(k, '!'),
            Expected::Error(c) => format!("!{c}"),
        }
    }
}

/// True for characters written as `\u{..}` wherever they appear.
fn needs_unicode_escape(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        || (c.is_whitespace() && c != ' ' && !matches!(c, '\t' | '\n' | '\r'))
        || matches!(
            c,
            '\u{AD}'
                | '\u{34F}'
                | '\u{61C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{FFFE}'
                | '\u{FFFF}'
        )
}

/// Escapes one column. `first_special` is the character that must not start the column
/// (`#` for inputs, `!` for keys).
fn escape(s: &str, first_special: char) -> String {
    let mut out = String::with_capacity(s.len());
    let last = s.chars().count().saturating_sub(1);
    for (i, c) in s.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            ' ' if i == 0 || i == last => out.push_str("\\u{20}"),
            c if i == 0 && c == first_special => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c if needs_unicode_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// One data line of a fixture.
struct Case {
    line: usize,
    input: String,
    expected: Expected,
}

/// A parsed fixture: data lines and the raw text (comments kept for blessing).
fn read_fixture(path: &Path) -> (String, Vec<Case>, Vec<String>) {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read the fixture {}: {e}", path.display()));
    let mut cases = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.starts_with('#') || raw.is_empty() {
            continue;
        }
        let Some((inp, exp)) = raw.split_once('\t') else {
            errors.push(format!("line {line}: no TAB between input and expected"));
            continue;
        };
        if exp.contains('\t') {
            errors.push(format!("line {line}: more than one TAB"));
            continue;
        }
        match (unescape(inp), Expected::parse(exp)) {
            (Ok(input), Ok(expected)) => cases.push(Case {
                line,
                input,
                expected,
            }),
            (Err(e), _) | (_, Err(e)) => errors.push(format!("line {line}: {e}")),
        }
    }
    (text, cases, errors)
}

fn bless(path: &Path, text: &str, policy: &urlkey::Policy) {
    let mut out = String::with_capacity(text.len());
    for raw in text.lines() {
        if raw.starts_with('#') || raw.is_empty() {
            out.push_str(raw);
            out.push('\n');
            continue;
        }
        let inp = raw.split_once('\t').map_or(raw, |(i, _)| i);
        let input = unescape(inp).unwrap_or_else(|e| panic!("{}: {e} in {raw:?}", path.display()));
        let got = Expected::of(&policy.key(&input));
        let _ = writeln!(out, "{}\t{}", escape(&input, '#'), got.column());
    }
    std::fs::write(path, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

#[test]
fn golden_fixtures_match_byte_for_byte() {
    let blessing = std::env::var_os("URLKEY_BLESS").is_some_and(|v| v == "1");
    let set = PolicySet::builtin();
    let mut failures = Vec::new();
    for id in fixture_ids() {
        let policy = set.get(&id).unwrap();
        let path = golden_dir().join(format!("{id}.tsv"));
        let (text, cases, errors) = read_fixture(&path);
        if blessing {
            bless(&path, &text, &policy);
            continue;
        }
        let name = format!("tests/golden/{id}.tsv");
        for e in errors {
            failures.push(format!("{name}: {e}"));
        }
        if cases.len() < MIN_LINES {
            failures.push(format!(
                "{name}: {} data lines; at least {MIN_LINES} are required",
                cases.len()
            ));
        }
        let mut seen = std::collections::HashMap::new();
        for c in &cases {
            if let Some(first) = seen.insert(c.input.as_str(), c.line) {
                failures.push(format!(
                    "{name}:{}: input {:?} repeats line {first}",
                    c.line, c.input
                ));
            }
            let got = Expected::of(&policy.key(&c.input));
            if got != c.expected {
                failures.push(format!(
                    "{name}:{}: input {}\n    expected {}\n    got      {}",
                    c.line,
                    escape(&c.input, '#'),
                    c.expected.column(),
                    got.column()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden mismatch(es):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A builtin without a fixture, or a fixture without a builtin, fails here by name (rather
/// than as a missing file in the byte-for-byte test).
#[test]
fn every_builtin_has_a_fixture_and_every_fixture_a_builtin() {
    let mut on_disk: Vec<String> = std::fs::read_dir(golden_dir())
        .expect("tests/golden")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".tsv").map(str::to_string)
        })
        .collect();
    on_disk.sort();
    let mut want = fixture_ids();
    want.sort();
    assert_eq!(
        on_disk, want,
        "tests/golden/*.tsv must be exactly the builtin ids and their options \
         (write a new fixture with URLKEY_BLESS=1, then review it)"
    );
}

#[test]
fn every_fixture_starts_with_the_escape_header() {
    for id in fixture_ids() {
        let path = golden_dir().join(format!("{id}.tsv"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.lines()
                .take(12)
                .any(|l| l.starts_with('#') && l.contains("\\u{HEX}")),
            "{}: the header must document the escapes",
            path.display()
        );
    }
}

#[test]
fn escapes_round_trip() {
    for s in [
        "",
        " a ",
        "#x",
        "!k",
        "a\\b\tc\nd\re",
        "\u{0}\u{7f}\u{85}\u{a0}\u{feff}\u{200b}",
        "https://é.example/ü",
    ] {
        for first in ['#', '!'] {
            let e = escape(s, first);
            assert!(!e.contains(['\t', '\n', '\r']), "{e:?}");
            assert_eq!(unescape(&e).unwrap(), s, "{e:?}");
        }
    }
    assert_eq!(escape("#a", '#'), "\\u{23}a");
    assert_eq!(escape("!a", '!'), "\\u{21}a");
    assert!(unescape("\\q").is_err());
    assert!(unescape("\\u{110000}").is_err());
}

/// Focused tests for the bugs found while reviewing the fixtures line by line against
/// the seed documents and docs/policies.md, and by `tests/properties.rs`. Each failed before its fix in `src/policy/`.
mod review_fixes {
    use urlkey::PolicySet;

    fn key(policy: &str, input: &str) -> String {
        let o = PolicySet::builtin().get(policy).unwrap().key(input);
        match (o.key, o.error) {
            (Some(k), _) => k,
            (None, Some(e)) => format!("!{}", e.code.as_str()),
            (None, None) => unreachable!(),
        }
    }

    /// An empty username with a password (`https://:pw@host/`) panicked (pointer
    /// arithmetic on a username slice that is not part of the href).
    #[test]
    fn empty_username_with_password_does_not_panic() {
        assert_eq!(
            key("whatwg@1", "https://:pw@example.com/"),
            "https://:pw@example.com/"
        );
        assert_eq!(
            key("mapper@1", "https://:pw@example.com/a"),
            "https://example.com/a"
        );
        assert_eq!(
            key("citation@1", "https://:pw@example.com/a/"),
            "https://example.com/a"
        );
        assert_eq!(
            key("webkey@1", "https://:pw@www.example.com/"),
            "example.com"
        );
        let o = PolicySet::builtin()
            .get("webkey@1")
            .unwrap()
            .key("https://:pw@example.com/");
        assert_eq!(o.canonical.as_deref(), Some("https://:pw@example.com/"));
        assert_eq!(o.transformations[0].before, ":pw");
    }

    /// document@1, rule 3: text after a bracketed IPv6 literal was dropped silently
    /// (`[::1]x` keyed as `[::1]`), and anything made of hex digits, `:` and `.` passed
    /// as "IPv6" (`[abc]`, `[1.2.3.4]`).
    #[test]
    fn document_brackets_hold_exactly_an_ipv6_address() {
        assert_eq!(
            key("document@1", "https://[::1]x/p"),
            "!document.invalid-host"
        );
        assert_eq!(
            key("document@1", "https://[::1]]/"),
            "!document.invalid-host"
        );
        assert_eq!(
            key("document@1", "https://[abc]/"),
            "!document.invalid-host"
        );
        assert_eq!(
            key("document@1", "https://[1.2.3.4]/"),
            "!document.invalid-host"
        );
        assert_eq!(
            key("document@1", "https://[::1]:8443/x"),
            "https://[::1]:8443/x"
        );
        assert_eq!(
            key("document@1", "https://[::FFFF:1.2.3.4]/"),
            "https://[::ffff:1.2.3.4]/"
        );
        assert_eq!(key("document@1", "https://[::1]:/"), "!document.empty-port");
    }

    /// document@1, rule 3: the port was taken after the last `:`, so `a.com:443:443` had
    /// the host `a.com:443` and the https default port, and keyed as `https://a.com:443/`.
    #[test]
    fn document_port_starts_at_the_first_colon() {
        assert_eq!(
            key("document@1", "https://a.com:443:443/"),
            "!document.invalid-port"
        );
        assert_eq!(
            key("document@1", "https://a.b:1:2/"),
            "!document.invalid-port"
        );
        assert_eq!(
            key("document@1", "https://a.com::80/"),
            "!document.invalid-port"
        );
        assert_eq!(
            key("document@1", "https://a.com:8080/"),
            "https://a.com:8080/"
        );
    }

    /// document@1, rule 1: the control characters refused are every `Cc`: U+0000-U+001F,
    /// U+007F and the C1 controls U+0080-U+009F, in any component. An earlier review read
    /// "control characters" as C0 and DEL only and accepted C1; "no whitespace/control
    /// characters" (docs/policies.md, the `document` front end) covers them.
    #[test]
    fn document_control_characters_are_c0_del_and_c1() {
        for input in [
            "https://a.test/x\u{80}y",
            "https://a.test/x\u{9f}",
            "https://a.test/x\u{85}",
            "https://a.test/x#\u{8d}",
            "https://a.test/x\u{7f}",
            "https://a.test/x\u{1f}y",
        ] {
            assert_eq!(
                key("document@1", input),
                "!document.forbidden-character",
                "{input:?}"
            );
        }
        // Other non-ASCII text in the path is no control character: kept byte for byte.
        assert_eq!(
            key("document@1", "https://a.test/x\u{a1}\u{feff}"),
            "https://a.test/x\u{a1}\u{feff}"
        );
    }

    /// webkey@1, rule 7: an opaque path is only lowercased. `decode-unreserved` decoded
    /// its escapes and uppercased their hex digits (`mailto:%4A%2f@b` -> `mailto:j%2F@b`).
    #[test]
    fn webkey_opaque_path_is_only_lowercased() {
        assert_eq!(
            key("webkey@1", "mailto:%4A%2f@B.example"),
            "mailto:%4a%2f@b.example"
        );
        assert_eq!(
            key("webkey@1", "data:text/plain,%7E%41"),
            "data:text/plain,%7e%41"
        );
        // Hierarchical paths keep rule 4.
        assert_eq!(
            key("webkey@1", "https://a.example/%7E%41%2f"),
            "a.example/~a%2F"
        );
    }

    /// webkey@1, rule 1: `//` follows `scheme:` when the URL has a host, and the empty
    /// host (`file:///x`) is a host in the URL Standard (only a null host is not).
    #[test]
    fn webkey_writes_slashes_for_the_empty_host() {
        assert_eq!(key("webkey@1", "file:///etc/passwd"), "file:///etc/passwd");
        assert_eq!(key("webkey@1", "file://localhost/X/"), "file:///x");
        assert_eq!(key("webkey@1", "foo:///x"), "foo:///x");
        assert_eq!(key("webkey@1", "sms:/x"), "sms:/x");
        assert_eq!(
            key("webkey@1", "file://server/share"),
            "file://server/share"
        );
    }

    /// mapper@1, rule 2: a path-only input whose path becomes `//...` (`/p/..//x`) had
    /// the canonical form `//x`, which is scheme-relative, so the key of the canonical
    /// form was an error (idempotence, found by the proptest). The canonical form now
    /// writes `/.//x`, as the URL Standard's serializer does for hostless paths.
    #[test]
    fn mapper_path_only_canonical_form_stays_path_only() {
        let p = PolicySet::builtin().get("mapper@1").unwrap();
        let o = p.key("/p/..//x?b=1&a=2");
        assert_eq!(o.canonical.as_deref(), Some("/.//x?b=1&a=2"));
        assert_eq!(o.key.as_deref(), Some("/x?a=2&b=1"));
        let again = p.key(o.canonical.as_deref().unwrap());
        assert_eq!(again.key, o.key);
        assert_eq!(key("mapper@1", "/p/..//"), "/");
        assert_eq!(key("mapper@1", "/.//"), "/");
    }
}

/// The examples `docs/policies.md` gives outside the fixtures: canonical form and key,
/// front-end records, signature, facts, the PSL field, options.
mod documented {
    use urlkey::internals::policy::registry;
    use urlkey::internals::PolicyInternals;
    use urlkey::policy::BUILTIN_IDS;
    use urlkey::{Fact, Outcome, PolicyError, PolicySet};

    fn run(policy: &str, input: &str) -> Outcome {
        PolicySet::builtin().get(policy).unwrap().key(input)
    }

    #[test]
    fn canonical_form_versus_key() {
        let o = run(
            "webkey@1",
            "HTTPS://u:p@WWW.Example.COM:443/A//B/index.html?utm_source=x&b=&a=1#f",
        );
        // Canonical: the Standard's serialization less tracking parameters and fragment;
        // credentials and path case stay.
        assert_eq!(
            o.canonical.as_deref(),
            Some("https://u:p@www.example.com/A//B/index.html?b=&a=1")
        );
        assert_eq!(o.key.as_deref(), Some("example.com/a/b?a=1&b="));
        assert_eq!(
            o.rule_names(),
            [
                "whatwg-parse",
                "remove-tracking-parameters",
                "remove-fragment",
                "drop-credentials",
                "registrable-domain",
                "lowercase-path",
                "collapse-slashes",
                "drop-default-document",
                "remove-trailing-slash",
                "sort-query"
            ]
        );
        // whatwg@1: key = canonical = href.
        let o = run("whatwg@1", "HTTP://Example.com:80/a/../b?utm_source=x#f");
        assert_eq!(
            o.key.as_deref(),
            Some("http://example.com/b?utm_source=x#f")
        );
        assert_eq!(o.canonical, o.key);
        // An empty query that lost nothing stays in the canonical form; a query that
        // becomes empty goes with its `?`.
        assert_eq!(
            run("mapper@1", "https://a.example/x?").canonical.as_deref(),
            Some("https://a.example/x?")
        );
        assert_eq!(
            run("mapper@1", "https://a.example/x?utm_source=1")
                .canonical
                .as_deref(),
            Some("https://a.example/x")
        );
        // document@1: the text as split, less the fragment.
        let o = run(
            "document@1",
            "HTTPS://Example.TEST:443/Guide?q=one+two#install",
        );
        assert_eq!(
            o.canonical.as_deref(),
            Some("HTTPS://Example.TEST:443/Guide?q=one+two")
        );
        assert_eq!(
            o.key.as_deref(),
            Some("https://example.test/Guide?q=one+two")
        );
    }

    #[test]
    fn front_end_records() {
        let o = run("webkey@1", "Example.com/A");
        assert_eq!(o.transformations[0].rule, "assume-https");
        assert_eq!(
            (
                o.transformations[0].before.as_str(),
                o.transformations[0].after.as_str()
            ),
            ("", "https")
        );
        assert_eq!(o.canonical.as_deref(), Some("https://example.com/A"));
        let o = run("citation@1", "HTTP://Example.com:80/a/./b");
        let parse: Vec<(&str, &str, &str)> = o
            .transformations
            .iter()
            .filter(|t| t.rule == "whatwg-parse")
            .map(|t| (t.component.as_str(), t.before.as_str(), t.after.as_str()))
            .collect();
        assert_eq!(
            parse,
            [
                ("scheme", "HTTP", "http"),
                ("host", "Example.com", "example.com"),
                ("port", "80", ""),
                ("path", "/a/./b", "/a/b")
            ]
        );
        // Backslashes become slashes (recorded); tabs and newlines inside a component, which
        // the Standard removes before parsing, are recorded as that component's change.
        let o = run("citation@1", "http:\\\\example.com\\a\\b");
        assert_eq!(o.key.as_deref(), Some("http://example.com/a/b"));
        assert!(o
            .transformations
            .iter()
            .any(|t| t.rule == "whatwg-parse" && t.before == "\\a\\b" && t.after == "/a/b"));
        let o = run("citation@1", "https://exa\tmple.com/a\nb");
        assert_eq!(o.key.as_deref(), Some("https://example.com/ab"));
        let parse: Vec<_> = o
            .transformations
            .iter()
            .map(|t| {
                (
                    t.rule,
                    t.component.as_str(),
                    t.before.as_str(),
                    t.after.as_str(),
                )
            })
            .collect();
        assert_eq!(
            parse,
            [
                ("whatwg-parse", "host", "exa\tmple.com", "example.com"),
                ("whatwg-parse", "path", "/a\nb", "/ab")
            ]
        );
        // Trimming is not a transformation; the observation is never rewritten.
        assert!(run("citation@1", "  https://a.example/x \n")
            .transformations
            .is_empty());
    }

    #[test]
    fn signature_is_host_path_and_sorted_distinct_names() {
        let sig = |p: &str, i: &str| run(p, i).signature.unwrap();
        // Seed 000's manual-review pair: one signature, two keys.
        assert_eq!(
            sig("mapper@1", "/main/scripts.html?script=One"),
            "/main/scripts.html?script"
        );
        assert_eq!(
            sig("mapper@1", "/main/scripts.html?script=Two"),
            "/main/scripts.html?script"
        );
        assert_eq!(
            sig(
                "mapper@1",
                "HTTP://Example.com:80/a//b?utm_source=x&id=7&b=&id=8&&"
            ),
            "example.com/a/b?b&id"
        );
        assert_eq!(
            sig("mapper@1", "https://a.example:8080/x"),
            "a.example:8080/x"
        );
        assert_eq!(
            sig("webkey@1", "mailto:A@b.example?subject=x"),
            "mailto:a@b.example"
        );
        assert_eq!(sig("webkey@1", "https://www.example.com/"), "example.com");
    }

    #[test]
    fn facts() {
        let f = |p: &str, i: &str| run(p, i).facts;
        assert_eq!(
            f("webkey@1", "https://u:p@www.bücher.de/a?utm_source=1#x"),
            [
                Fact::InternationalizedDomain,
                Fact::HasCredentials,
                Fact::TrackingParametersRemoved,
                Fact::FragmentRemoved
            ]
        );
        assert_eq!(f("webkey@1", "example.com"), [Fact::SchemeAssumed]);
        assert_eq!(f("citation@1", "http://192.168.0.1/"), [Fact::IpHost]);
        assert_eq!(f("webkey@1", "mailto:x@y.example"), [Fact::NonWebScheme]);
        // document@1 does not classify hosts: only a bracketed IPv6 host is an IP host.
        assert_eq!(f("document@1", "http://192.168.0.1/"), []);
        assert_eq!(f("document@1", "http://[::1]/"), [Fact::IpHost]);
        assert!(f("mapper@1", "/x#f").contains(&Fact::FragmentRemoved));
        assert!(run("mapper@1", "javascript:x").facts.is_empty());
    }

    #[test]
    fn psl_version_only_in_records_that_used_the_list() {
        let set = PolicySet::builtin();
        let version = set.psl().version().to_string();
        assert_eq!(version, "2026-10-22_08-36-41_UTC");
        assert_eq!(
            run("webkey@1", "https://news.example.co.uk/")
                .psl
                .as_deref(),
            Some(version.as_str())
        );
        assert_eq!(run("webkey@1", "http://10.0.0.1/").psl, None);
        assert_eq!(run("webkey@1", "mailto:x@y.example").psl, None);
        for id in BUILTIN_IDS.iter().filter(|id| **id != "webkey@1") {
            assert_eq!(run(id, "https://news.example.co.uk/").psl, None, "{id}");
        }
        let uses: Vec<(String, bool)> =
            set.list().into_iter().map(|i| (i.id, i.uses_psl)).collect();
        assert_eq!(
            uses,
            BUILTIN_IDS
                .iter()
                .map(|id| (id.to_string(), *id == "webkey@1"))
                .collect::<Vec<_>>()
        );
    }

    fn doc(name: &str) -> String {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/");
        std::fs::read_to_string(format!("{path}{name}"))
            .unwrap_or_else(|e| panic!("docs/{name}: {e}"))
    }

    /// Every builtin has a section `` ### `id` `` in docs/policies.md whose numbered list
    /// names its rules, in order, as its definition does; every option is described there;
    /// every code a builtin owns is in docs/cli.md's table.
    #[test]
    fn every_builtin_has_a_docs_section_that_lists_its_rules() {
        let policies = doc("policies.md");
        let cli = doc("cli.md");
        let set = PolicySet::builtin();
        let mut failures = Vec::new();
        for b in registry() {
            let heading = format!("### `{}`", b.id);
            let Some(at) = policies.find(&heading) else {
                failures.push(format!("docs/policies.md has no section {heading}"));
                continue;
            };
            let body = &policies[at + heading.len()..];
            let body = &body[..body.find("\n#").unwrap_or(body.len())];
            let documented: Vec<&str> = body
                .lines()
                .filter_map(|l| {
                    let (n, rest) = l.split_once(". `")?;
                    n.bytes().all(|c| c.is_ascii_digit()).then_some(())?;
                    rest.split_once('`').map(|(name, _)| name)
                })
                .collect();
            let policy = set.get(b.id).unwrap();
            let defined: Vec<&str> = policy.definition().rules.iter().map(|r| r.name()).collect();
            if documented != defined {
                failures.push(format!(
                    "docs/policies.md, {heading}: rules {documented:?}, the definition has {defined:?}"
                ));
            }
            for option in b.options {
                let id = format!("{}+{}", b.id, option.name);
                if !body.contains(&format!("`{id}`")) {
                    failures.push(format!("docs/policies.md, {heading}: no word on `{id}`"));
                }
            }
            for code in b.codes {
                if !cli.contains(&format!("| `{code}` |")) {
                    failures.push(format!("docs/cli.md: no line for {}'s code `{code}`", b.id));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn ids_and_options() {
        let set = PolicySet::builtin();
        // The released builtins keep their place in `urlkey policies`; a new one comes after.
        assert_eq!(
            BUILTIN_IDS[..5],
            [
                "whatwg@1",
                "mapper@1",
                "document@1",
                "citation@1",
                "webkey@1"
            ]
        );
        assert!(set.get("citation@1+keep-trailing-slash").is_ok());
        assert!(set.get("citation@2+keep-trailing-slash").is_ok());
        assert!(matches!(
            set.get("citation@3"),
            Err(PolicyError::Unknown { .. })
        ));
        assert!(matches!(
            set.get("mapper@1+keep-trailing-slash"),
            Err(PolicyError::UnknownOption { .. })
        ));
        let e = set.get("citation@1+nope").unwrap_err().to_string();
        assert!(e.contains("keep-trailing-slash"), "{e}");
        assert_eq!(
            set.get("citation@1+keep-trailing-slash").unwrap().id(),
            "citation@1+keep-trailing-slash"
        );
    }

    #[test]
    fn only_whatwg_honours_a_base() {
        let set = PolicySet::builtin();
        let w = set.get("whatwg@1").unwrap();
        assert!(w.accepts_base());
        let o = w.key_with_base("../c?x#y", Some("https://a.example/b/d"));
        assert_eq!(o.key.as_deref(), Some("https://a.example/c?x#y"));
        assert!(o.transformations.is_empty());
        let c = set.get("citation@1").unwrap();
        assert!(!c.accepts_base());
        let o = c.key_with_base("../c", Some("https://a.example/b/d"));
        assert_eq!(o.error.unwrap().code.as_str(), "web.invalid-url");
    }

    #[test]
    fn input_limit() {
        let set = PolicySet::builtin().with_max_input_bytes(20);
        let o = set
            .get("whatwg@1")
            .unwrap()
            .key("https://example.com/long/path");
        assert_eq!(o.error.unwrap().code.as_str(), "input.too-long");
        let big = format!("https://a.example/{}", "x".repeat(64 * 1024));
        let o = PolicySet::builtin().get("citation@1").unwrap().key(&big);
        assert_eq!(o.error.unwrap().code.as_str(), "input.too-long");
    }
}
