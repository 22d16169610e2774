//! `PublicSuffixList::registrable_domain` (the rule table of `psl.rs`) against the
//! `publicsuffix` crate's `List::domain` behind the old guard, which is what the function
//! returned before the table: the same answer on every input tried.
//!
//! - The official PSL test vectors (`tests.txt`, publicsuffix/list's `tests/test_psl.txt`
//!   in the crate's format), read from the `publicsuffix` package's own `tests/` folder
//!   (found through `cargo metadata`; `../shared` holds no copy). Missing file: failure.
//! - Every host of the corpus `../shared/datasets/ada-url-various-datasets` (read at test
//!   time; the test fails, naming the folder, when it is missing), and variants of each.
//! - Every rule of the embedded list, bare and under `a.` and `a.b.`, with `!` and `*.`
//!   stripped, uppercased and in its ASCII form.
//! - Hosts generated from the list's own labels, and every host of up to three or four
//!   labels over the words of small lists built to hit the corners of the tree walk
//!   (wildcards below wildcards, exceptions, rules repeated across sections, a `*` rule at
//!   the top) and of the file format (CRLF, odd whitespace, markers in odd places), also
//!   behind a 64-byte label (names over 64 bytes take another path).
//! - Edge cases, with their expected answers written out.
//!
//! `measure_registrable_domain_old_vs_new` (ignored) prints the cost of both; see its doc.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use publicsuffix::{List, Psl};
use urlkey::PublicSuffixList;

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");
const EMBEDDED: &str = include_str!("../data/public_suffix_list.dat");

/// `registrable_domain` as it was before the rule table: the reference.
#[inline(never)]
fn old_rd<'h>(list: &List, host: &'h str) -> Option<&'h str> {
    if host.is_empty() || host.split('.').any(str::is_empty) {
        return None;
    }
    let d = list.domain(host.as_bytes())?;
    let len = d.as_bytes().len();
    Some(&host[host.len() - len..])
}

#[inline(never)]
fn new_rd<'h>(psl: &PublicSuffixList, host: &'h str) -> Option<&'h str> {
    psl.registrable_domain(host)
}

fn crate_list() -> &'static List {
    static LIST: OnceLock<List> = OnceLock::new();
    LIST.get_or_init(|| EMBEDDED.parse().expect("the embedded list parses"))
}

fn psl() -> &'static PublicSuffixList {
    PublicSuffixList::embedded_static()
}

/// Compares old and new on every host; panics listing the first differences.
fn assert_same<'a>(
    what: &str,
    psl: &PublicSuffixList,
    list: &List,
    hosts: impl IntoIterator<Item = &'a str>,
) -> usize {
    let mut n = 0;
    let mut diffs = Vec::new();
    for h in hosts {
        n += 1;
        let (old, new) = (old_rd(list, h), new_rd(psl, h));
        if old != new && diffs.len() < 20 {
            diffs.push(format!("{h:?}: publicsuffix {old:?}, table {new:?}"));
        }
    }
    assert!(
        diffs.is_empty(),
        "{what}: registrable_domain differs from publicsuffix's List::domain:\n{}",
        diffs.join("\n")
    );
    n
}

// ---------------------------------------------------------------------------------------
// The official test vectors

/// `<publicsuffix package dir>/tests/tests.txt`, from `cargo metadata`.
fn official_vectors_path() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run cargo metadata: {e}"));
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "publicsuffix")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("cargo metadata lists the publicsuffix package");
    Path::new(manifest)
        .with_file_name("tests")
        .join("tests.txt")
}

/// The lowercase ASCII form of a name (what callers pass, after IDNA).
fn to_ascii(name: &str) -> String {
    idna::domain_to_ascii(name).unwrap_or_else(|e| panic!("{name:?} has no ASCII form: {e:?}"))
}

#[test]
fn official_psl_test_vectors() {
    let path = official_vectors_path();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "the official PSL test vectors {} cannot be read ({e}); they come with the \
             publicsuffix package",
            path.display()
        )
    });
    let psl = psl();
    let mut cases = 0;
    let mut failures = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let mut f = line.split_whitespace();
        let (Some(input), Some(expected), None) = (f.next(), f.next(), f.next()) else {
            panic!("{}: not `input expected`: {line:?}", path.display());
        };
        let input = if input == "null" { "" } else { input };
        let expected = (expected != "null").then_some(expected);
        cases += 1;
        // The caller's contract: lowercase (the vectors mix case on purpose) ...
        let host = input.to_lowercase();
        let got = psl.registrable_domain(&host);
        if got != expected {
            failures.push(format!("{input:?}: expected {expected:?}, got {got:?}"));
        }
        assert_eq!(got, old_rd(crate_list(), &host), "{input:?}");
        // ... and ASCII (IDNA applied, as ada gives it), for the names that have one.
        if !host.is_ascii() {
            let host = to_ascii(&host);
            let expected = expected.map(to_ascii);
            let got = psl.registrable_domain(&host);
            if got != expected.as_deref() {
                failures.push(format!("{host:?}: expected {expected:?}, got {got:?}"));
            }
            assert_eq!(got, old_rd(crate_list(), &host), "{host:?}");
        }
    }
    assert!(cases >= 70, "{}: only {cases} test vectors", path.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---------------------------------------------------------------------------------------
// The corpus

/// The hostnames of the corpus lines that parse, in file order (empty ones included).
fn corpus_hosts() -> &'static [String] {
    static HOSTS: OnceLock<Vec<String>> = OnceLock::new();
    HOSTS.get_or_init(|| {
        let dir = Path::new(SHARED).join("datasets/ada-url-various-datasets");
        assert!(
            dir.is_dir(),
            "the corpus folder {} is missing: these tests read its four files \
             (it is always present in CI at <repository>/../shared)",
            dir.display()
        );
        let mut hosts = Vec::new();
        for rel in [
            "others/kasztp.txt",
            "others/userbait.txt",
            "files/node_files.txt",
            "files/isaacs_files.txt",
        ] {
            let path = dir.join(rel);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            for line in text.split('\n') {
                let line = line.strip_suffix('\r').unwrap_or(line);
                if let Ok(u) = ada_url::Url::parse(line, None) {
                    hosts.push(u.hostname().to_string());
                }
            }
        }
        // SOURCE.md: 109,036 of the 109,062 lines parse.
        assert!(
            hosts.len() >= 109_000,
            "only {} corpus lines parse",
            hosts.len()
        );
        hosts
    })
}

#[test]
fn same_as_publicsuffix_on_corpus_hosts() {
    let hosts = corpus_hosts();
    let n = assert_same(
        "corpus hosts",
        psl(),
        crate_list(),
        hosts.iter().map(String::as_str),
    );
    assert!(n >= 109_000);
    // Variants of each distinct host: each tail at a label boundary, uppercase, a dot
    // before, after and inside, and an IP-looking tail.
    let distinct: BTreeSet<&str> = hosts.iter().map(String::as_str).collect();
    assert!(distinct.len() > 10_000, "{} distinct hosts", distinct.len());
    let mut variants = Vec::new();
    for h in &distinct {
        let mut rest = *h;
        while let Some(i) = rest.find('.') {
            rest = &rest[i + 1..];
            variants.push(rest.to_string());
        }
        variants.push(h.to_ascii_uppercase());
        variants.push(format!(".{h}"));
        variants.push(format!("{h}."));
        variants.push(format!("www.{h}"));
        if let Some(i) = h.find('.') {
            variants.push(format!("{}..{}", &h[..i], &h[i + 1..]));
        }
    }
    assert_same(
        "variants of corpus hosts",
        psl(),
        crate_list(),
        variants.iter().map(String::as_str),
    );
}

// ---------------------------------------------------------------------------------------
// The list's own rules

/// The rules of a list file, read as `publicsuffix::List::from_str` reads them.
fn rules(text: &str) -> Vec<&str> {
    let mut in_sections = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.contains("BEGIN ICANN DOMAINS") || line.contains("BEGIN PRIVATE DOMAINS") {
            in_sections = true;
        } else if in_sections && !line.starts_with("//") {
            if let Some(r) = line.split_whitespace().next() {
                out.push(r);
            }
        }
    }
    out
}

#[test]
fn same_as_publicsuffix_on_every_rule() {
    let rules = rules(EMBEDDED);
    assert!(rules.len() > 9_000, "{} rules", rules.len());
    assert!(rules.iter().any(|r| r.starts_with('!')));
    assert!(rules.iter().any(|r| r.starts_with("*.")));
    assert!(rules.iter().any(|r| !r.is_ascii()));
    let mut hosts = Vec::new();
    for r in &rules {
        let ascii = idna::domain_to_ascii(r).unwrap_or_else(|_| r.to_string());
        for form in [r.to_string(), ascii] {
            let bare = form.trim_start_matches('!');
            let bare = bare.strip_prefix("*.").unwrap_or(bare).to_string();
            let starred = form.trim_start_matches('!').replace('*', "x");
            for base in [form.clone(), bare, starred, form.to_ascii_uppercase()] {
                hosts.push(format!("a.b.{base}"));
                hosts.push(format!("a.{base}"));
                hosts.push(base);
            }
        }
    }
    let n = assert_same(
        "rules of the embedded list",
        psl(),
        crate_list(),
        hosts.iter().map(String::as_str),
    );
    assert!(n > 200_000, "{n} hosts");
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn same_as_publicsuffix_on_generated_hosts() {
    let rules = rules(EMBEDDED);
    let mut pool: BTreeSet<&str> = rules
        .iter()
        .flat_map(|r| r.trim_start_matches('!').split('.'))
        .collect();
    pool.extend([
        "", "*", "!", "a", "www", "example", "xn--", "COM", "Uk", "0", "-", "é",
    ]);
    let pool: Vec<&str> = pool.into_iter().collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut hosts = Vec::with_capacity(400_000);
    for _ in 0..400_000 {
        // A rule's labels (mostly), with some replaced, then 0 to 3 labels in front.
        let mut labels: Vec<&str> = if rng.below(8) == 0 {
            Vec::new()
        } else {
            rules[rng.below(rules.len())]
                .trim_start_matches('!')
                .split('.')
                .collect()
        };
        for l in labels.iter_mut() {
            match rng.below(10) {
                0 => *l = pool[rng.below(pool.len())],
                1 if *l == "*" => *l = "w",
                _ => {}
            }
        }
        for _ in 0..rng.below(4) {
            labels.insert(0, pool[rng.below(pool.len())]);
        }
        let mut h = labels.join(".");
        match rng.below(40) {
            0 => h.insert(0, '.'),
            1 => h.push('.'),
            // Names of over 64 bytes take the byte-scan path.
            2..=5 => h.insert_str(0, &"x.y".repeat(rng.below(30))),
            _ => {}
        }
        hosts.push(h);
    }
    assert_same(
        "generated hosts",
        psl(),
        crate_list(),
        hosts.iter().map(String::as_str),
    );
}

// ---------------------------------------------------------------------------------------
// Small lists for the corners of the tree walk

/// Wildcards under wildcards, rules under wildcards, exceptions at several depths, a node
/// reached by its label that has no rule while its `*` sibling has one, rules repeated
/// (within and across sections, as exception and not), uppercase and Unicode rules,
/// whitespace and trailing text on a line, lines before the first section.
const CORNERS: &str = "\
ignored.before.sections
// ===BEGIN ICANN DOMAINS===
c
*.c
a.b.c
!x.c
*.w
!e.w
y.*.w
*.*.v
v
!q.*.v
u
!z.u
z.u
r.u
t.s
Foo.Bar
食狮.cn
  lead.ws   trailing words
// ===END ICANN DOMAINS===
// ===BEGIN PRIVATE DOMAINS===
b.c
c
!p.w
!r.u
// ===END PRIVATE DOMAINS===
";

/// A `*` rule at the top, and exceptions under a top-level wildcard.
const TOP_WILDCARD: &str = "\
// ===BEGIN ICANN DOMAINS===
*
*.k
!m.k
n.k
o
// ===END ICANN DOMAINS===
";

/// The file format's corners, with two-label rules (a one-label rule answers as the default
/// rule does): CRLF and a bare CR, a last line with no newline, tabs, a vertical tab,
/// no-break and ideographic spaces, a marker that is not a comment and one inside a rule's
/// line, a `//` that is not at the start, blank and whitespace-only lines, a rule before
/// the first marker.
const FORMAT: &str = "a.before\r\n// ===BEGIN ICANN DOMAINS===\r\nc1.t\r\n\tc2.t trailing\r\n\
\x0bc3.t\x0bx.t\nc4.t\u{a0}c5.t\nc6.t\u{3000}y.t\n \u{a0}c7.t\n\n   \n\t\n  // c8.t\n\
c9.t// c10.t\nc11.t\rc12.t\nx.c13.t BEGIN PRIVATE DOMAINS\n===BEGIN PRIVATE DOMAINS===\n\
*.c14.t\n!e.c14.t\nC15.t\nc16.t\r";

/// Every host of 1 to 3 labels (4 for small lists) over the labels of every word of the
/// list's text (rules or not) and a few others.
fn all_hosts(list_text: &str) -> Vec<String> {
    let mut pool: BTreeSet<String> = list_text
        .split_whitespace()
        .flat_map(|w| w.trim_start_matches('!').split('.'))
        .map(str::to_string)
        .collect();
    for extra in ["", "*", "zz", "FOO", "xn--85x722f"] {
        pool.insert(extra.to_string());
    }
    let pool: Vec<String> = pool.into_iter().collect();
    let depth = if pool.len() <= 30 { 4 } else { 3 };
    assert!(pool.len() <= 60, "{} labels", pool.len());
    let mut hosts: Vec<String> = pool.clone();
    let mut last = pool.clone();
    for _ in 1..depth {
        let mut next = Vec::new();
        for h in &last {
            for l in &pool {
                next.push(format!("{l}.{h}"));
            }
        }
        hosts.extend(next.iter().cloned());
        last = next;
    }
    hosts
}

#[test]
fn same_as_publicsuffix_on_corner_lists() {
    for (name, text) in [
        ("corners", CORNERS),
        ("top wildcard", TOP_WILDCARD),
        ("format", FORMAT),
    ] {
        let psl = PublicSuffixList::parse(text).unwrap();
        let list: List = text.parse().unwrap();
        let hosts = all_hosts(text);
        let n = assert_same(name, &psl, &list, hosts.iter().map(String::as_str));
        assert!(n > 5_000, "{name}: {n} hosts");
        // The same names over 64 bytes (the byte-scan path), with one more label in front.
        let long: Vec<String> = hosts
            .iter()
            .map(|h| format!("{}.{h}", "l".repeat(64)))
            .collect();
        assert_same(name, &psl, &list, long.iter().map(String::as_str));
    }
    // A few answers written out (the walk never backtracks from a label to `*`).
    let psl = PublicSuffixList::parse(CORNERS).unwrap();
    let rd = |h| psl.registrable_domain(h);
    assert_eq!(rd("d.b.c"), Some("d.b.c")); // b.c: a rule from the private section
    assert_eq!(rd("b.c"), None);
    assert_eq!(rd("a.b.c"), None);
    assert_eq!(rd("q.a.b.c"), Some("q.a.b.c"));
    assert_eq!(rd("k.x.c"), Some("x.c")); // !x.c
    assert_eq!(rd("k.y.c"), Some("k.y.c")); // *.c
    assert_eq!(rd("y.g.w"), None); // y.*.w
    assert_eq!(rd("j.k.y.g.w"), Some("k.y.g.w"));
    assert_eq!(rd("h.e.w"), Some("e.w")); // !e.w
    assert_eq!(rd("h.p.w"), Some("p.w")); // !p.w
    assert_eq!(rd("h.z.u"), Some("h.z.u")); // z.u comes after !z.u
    assert_eq!(rd("h.r.u"), Some("r.u")); // !r.u comes after r.u
    assert_eq!(rd("f.g.h.v"), Some("f.g.h.v")); // *.*.v
    assert_eq!(rd("f.q.h.v"), Some("q.h.v")); // !q.*.v
    assert_eq!(rd("x.foo.bar"), Some("x.foo.bar")); // Foo.Bar in ASCII form
    assert_eq!(rd("x.xn--85x722f.cn"), Some("x.xn--85x722f.cn"));
    assert_eq!(rd("x.食狮.cn"), Some("x.食狮.cn"));
    assert_eq!(rd("x.lead.ws"), Some("x.lead.ws"));
    assert_eq!(rd("x.ignored.before.sections"), Some("before.sections"));
    let top = PublicSuffixList::parse(TOP_WILDCARD).unwrap();
    assert_eq!(top.registrable_domain("a.b.zz"), Some("b.zz")); // `*` is not used at the top
    assert_eq!(top.registrable_domain("a.b.k"), Some("a.b.k"));
    assert_eq!(top.registrable_domain("a.m.k"), Some("m.k"));
    let format = PublicSuffixList::parse(FORMAT).unwrap();
    let rd = |h| format.registrable_domain(h);
    for rule in [
        "c1.t", "c2.t", "c3.t", "c4.t", "c6.t", "c7.t", "c11.t", "c16.t",
    ] {
        let host = format!("a.{rule}");
        assert_eq!(
            format.registrable_domain(&host),
            Some(host.as_str()),
            "{rule}"
        );
    }
    for not_rule in ["x.t", "c5.t", "y.t", "c8.t", "c9.t", "c10.t", "c12.t"] {
        let host = format!("a.{not_rule}");
        assert_eq!(
            format.registrable_domain(&host),
            Some(not_rule),
            "{not_rule}"
        );
    }
    assert_eq!(rd("a.c9.t//"), Some("a.c9.t//")); // the word is `c9.t//`
    assert_eq!(rd("a.C15.t"), Some("a.C15.t"));
    assert_eq!(rd("a.c15.t"), Some("a.c15.t")); // C15.t's ASCII form
    assert_eq!(rd("b.a.x.c13.t"), Some("c13.t")); // a marker line is no rule
    assert_eq!(rd("b.a.before"), Some("a.before")); // nor a line before the first marker
    assert_eq!(rd("b.a.c14.t"), Some("b.a.c14.t"));
    assert_eq!(rd("b.e.c14.t"), Some("e.c14.t"));
}

// ---------------------------------------------------------------------------------------
// Edge cases

#[test]
fn edge_cases_of_the_embedded_list() {
    let cases: &[(&str, Option<&str>)] = &[
        ("", None),
        (".", None),
        ("..", None),
        ("a..b", None),
        ("a..example.com", None),
        ("x.a..example.com", None),
        (".com", None),
        (".example.com", None),
        ("com.", None),
        ("example.com.", None),
        ("com", None),
        ("localhost", None),
        ("example.com", Some("example.com")),
        ("www.example.com", Some("example.com")),
        ("a.b.example.co.uk", Some("example.co.uk")),
        ("co.uk", None),
        // Lookups are case-sensitive: an uppercase TLD is under the default rule.
        ("EXAMPLE.COM", Some("EXAMPLE.COM")),
        ("WWW.EXAMPLE.COM", Some("EXAMPLE.COM")),
        ("www.Example.co.UK", Some("co.UK")),
        ("x.unknowntld", Some("x.unknowntld")),
        ("y.x.unknowntld", Some("x.unknowntld")),
        // Wildcard and exception rules (*.ck, !www.ck; *.kawasaki.jp, !city.kawasaki.jp).
        ("ck", None),
        ("test.ck", None),
        ("b.test.ck", Some("b.test.ck")),
        ("www.ck", Some("www.ck")),
        ("www.www.ck", Some("www.ck")),
        ("a.b.c.bd", Some("c.bd")),
        ("a.b.kawasaki.jp", Some("a.b.kawasaki.jp")),
        ("a.city.kawasaki.jp", Some("city.kawasaki.jp")),
        // The private section.
        ("github.io", None),
        ("alice.github.io", Some("alice.github.io")),
        ("www.alice.github.io", Some("alice.github.io")),
        // Punycode.
        (
            "xn--85x722f.xn--55qx5d.cn",
            Some("xn--85x722f.xn--55qx5d.cn"),
        ),
        ("www.xn--85x722f.xn--fiqs8s", Some("xn--85x722f.xn--fiqs8s")),
        ("xn--fiqs8s", None),
        // What callers should not pass but may: the list is applied to the labels as text.
        ("192.168.0.1", Some("0.1")),
        ("[::1]", None),
        ("a.*.ck", Some("a.*.ck")),
        ("*.ck", None),
    ];
    let psl = psl();
    for (host, expected) in cases {
        assert_eq!(psl.registrable_domain(host), *expected, "{host:?}");
        assert_eq!(
            old_rd(crate_list(), host),
            *expected,
            "publicsuffix: {host:?}"
        );
    }
    // Long labels (the table hashes labels over 8 bytes).
    let long = format!("{}.{}.com", "a".repeat(300), "b".repeat(63));
    assert_eq!(psl.registrable_domain(&long), Some(&long[301..]));
    assert_same(
        "long labels",
        psl,
        crate_list(),
        [
            long.as_str(),
            "abcdefghi.abcdefgh.co.uk",
            "x.blogspot.com",
            "x.a.blogspot.com",
        ],
    );
}
