//! The verified fast parse (`urlkey::internals::fast`) against ada.
//!
//! Two levels, on the same inputs:
//! - the parse: whenever [`FastUrl::parse`] accepts a text, ada parses it and
//!   [`WebUrl::pieces`] equals [`FastUrl::pieces`] field for field (href included);
//! - the policies that use it: whenever a policy takes the fast path, [`Policy::key`]
//!   gives the same [`urlkey::Outcome`] (key, canonical form, signature, error, every
//!   transformation, removed parameters, facts) as the same policy with the fast path
//!   off, and `key_into` / `key_signature_into` the same key, code and signature.
//!
//! Inputs: the 109,062-line corpus (`../shared/datasets/ada-url-various-datasets`, read at
//! test time: missing means failure), every `input` of the WPT `urltestdata.json`
//! (`../shared/wpt`), every golden fixture input, every hostile catalogue input, and
//! near-misses: accepted URLs with one tricky character inserted or substituted at every
//! position (exhaustive) and several at random places (proptest).

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
mod common;

use urlkey::internals::fast::FastUrl;
use urlkey::internals::PolicyInternals;
use urlkey::{Policy, PolicySet, WebUrl};

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared");

/// The builtins (with their options) whose front end may take the fast path, read from
/// the policies (`Policy::has_fast_path`), so that a new builtin is tested here without a
/// line of its own.
fn ids() -> Vec<String> {
    let set = PolicySet::builtin();
    urlkey::internals::policy::builtin_variants()
        .into_iter()
        .filter(|id| set.get(id).is_ok_and(|p| p.has_fast_path()))
        .collect()
}

/// Corpus lines the fast path must take for `citation@1` and `mapper@1`: measured 58,966
/// and 58,967 of 109,062 (of 59,440 http(s) lines) when this test was written, less a
/// small margin, so a fast path that stops accepting fails.
const MIN_CORPUS_ACCEPTED: usize = 58_000;

fn corpus() -> &'static [String] {
    static LINES: OnceLock<Vec<String>> = OnceLock::new();
    LINES.get_or_init(|| {
        let out: Vec<String> = common::corpus_lines()
            .into_iter()
            .map(|(_, line)| line)
            .collect();
        assert_eq!(out.len(), 109_062, "the corpus changed");
        out
    })
}

fn wpt_inputs() -> Vec<String> {
    let path = Path::new(SHARED).join("wpt/urltestdata.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (the WPT data is required)", path.display()));
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let inputs: Vec<String> = cases
        .iter()
        .filter_map(|c| c.get("input").and_then(|i| i.as_str()).map(str::to_string))
        .collect();
    assert!(inputs.len() > 800, "{} WPT inputs", inputs.len());
    inputs
}

fn policies() -> Vec<(Policy, Policy)> {
    let set = PolicySet::builtin();
    ids()
        .iter()
        .map(|id| {
            let p = set.get(id).unwrap();
            let slow = p.without_fast_path();
            (p, slow)
        })
        .collect()
}

/// `None` when the fast parse refuses `x` or agrees with ada; else what differs.
fn parse_disagrees(x: &str) -> Option<String> {
    let fast = FastUrl::parse(x)?;
    match WebUrl::parse(x, None) {
        Ok(u) if u.pieces() == fast.pieces() => None,
        Ok(u) => Some(format!(
            "{x:?}: fast {:?}\n    ada  {:?}",
            fast.pieces(),
            u.pieces()
        )),
        Err(e) => Some(format!("{x:?}: fast accepts, ada fails with {}", e.code)),
    }
}

/// `None` when `p` neither takes the fast path on `x` nor refuses it before parsing, or
/// gives what `slow` gives.
fn policy_disagrees(p: &Policy, slow: &Policy, x: &str) -> Option<String> {
    if !p.takes_fast_path(x) && !p.refuses_early(x) {
        return None;
    }
    let (a, b) = (p.key(x), slow.key(x));
    if a != b {
        return Some(format!("{} {x:?}:\n  fast {a:?}\n  ada  {b:?}", p.id()));
    }
    let (mut ka, mut kb, mut sa, mut sb) =
        (String::new(), String::new(), String::new(), String::new());
    let (ra, rb) = (p.key_into(x, &mut ka), slow.key_into(x, &mut kb));
    if (ra, &ka) != (rb, &kb) {
        return Some(format!(
            "{} {x:?}: key_into {ra:?} {ka:?} / {rb:?} {kb:?}",
            p.id()
        ));
    }
    let ra = p.key_signature_into(x, &mut ka, &mut sa);
    let rb = slow.key_signature_into(x, &mut kb, &mut sb);
    if (ra, &ka, &sa) != (rb, &kb, &sb) {
        return Some(format!(
            "{} {x:?}: key_signature_into {ra:?} {ka:?} {sa:?} / {rb:?} {kb:?} {sb:?}",
            p.id()
        ));
    }
    None
}

/// Both checks on every input; the failures, at most 20 of them.
fn disagreements(inputs: &[String], policies: &[(Policy, Policy)]) -> Vec<String> {
    let mut bad = Vec::new();
    for x in inputs {
        bad.extend(parse_disagrees(x));
        for (p, slow) in policies {
            bad.extend(policy_disagrees(p, slow, x));
        }
        if bad.len() >= 20 {
            break;
        }
    }
    bad
}

#[test]
fn fast_path_equals_ada_on_corpus_wpt_golden_and_hostile_inputs() {
    let mut inputs: Vec<String> = corpus().to_vec();
    inputs.extend(wpt_inputs());
    inputs.extend(common::golden_inputs());
    let hostile = common::hostile_inputs();
    assert!(hostile.len() >= 200, "{} hostile inputs", hostile.len());
    inputs.extend(
        hostile
            .iter()
            .map(|b| String::from_utf8_lossy(b).into_owned()),
    );
    let policies = policies();
    // Two threads, as the CI machine has two cores.
    let (a, b) = inputs.split_at(inputs.len() / 2);
    let mut bad = std::thread::scope(|s| {
        let h = s.spawn(|| disagreements(a, &policies));
        let mut bad = disagreements(b, &policies);
        bad.extend(h.join().unwrap());
        bad
    });
    bad.truncate(20);
    assert!(
        bad.is_empty(),
        "fast path disagreements:\n{}",
        bad.join("\n")
    );
}

#[test]
fn fast_path_takes_most_web_urls_of_the_corpus() {
    let set = PolicySet::builtin();
    let mut counts = Vec::new();
    for id in ["citation@1", "mapper@1"] {
        let p = set.get(id).unwrap();
        let taken = corpus().iter().filter(|x| p.takes_fast_path(x)).count();
        counts.push((id, taken));
    }
    let parsed = corpus()
        .iter()
        .filter(|x| FastUrl::parse(x).is_some())
        .count();
    println!("fast path on the corpus: {counts:?}, FastUrl::parse {parsed} of 109062");
    assert!(
        counts.iter().all(|&(_, n)| n >= MIN_CORPUS_ACCEPTED),
        "the fast path takes fewer corpus lines than measured ({MIN_CORPUS_ACCEPTED}): {counts:?}"
    );
}

/// The early refusal of other schemes (`urlkey::internals::fast::non_web_scheme_that_parses`) takes
/// most of the corpus's `file:` and `node:` lines for `citation@1` (measured 49,486 of
/// 109,062 when this test was written, less a margin), and none for the policies that
/// accept every scheme or refuse before parsing (`mapper@1`).
const MIN_CORPUS_REFUSED_EARLY: usize = 49_000;

#[test]
fn citation_refuses_most_other_schemes_of_the_corpus_before_parsing() {
    let set = PolicySet::builtin();
    let mut counts = Vec::new();
    for id in ids() {
        let p = set.get(&id).unwrap();
        let n = corpus().iter().filter(|x| p.refuses_early(x)).count();
        counts.push((id, n));
    }
    println!("refused before parsing on the corpus: {counts:?}");
    for (id, n) in counts {
        if id.starts_with("citation@1") {
            assert!(n >= MIN_CORPUS_REFUSED_EARLY, "{id}: {n}");
        } else if matches!(
            set.get(&id).unwrap().definition().front,
            urlkey::internals::policy::FrontEnd::Whatwg {
                schemes: urlkey::internals::policy::Schemes::Any,
                ..
            }
        ) {
            // A policy that takes every scheme has nothing to refuse early.
            assert_eq!(n, 0, "{id}");
        }
    }
}

/// Texts the early refusal takes, or just misses, to mutate.
const REFUSAL_SEEDS: [&str; 14] = [
    "file:///home/a/b.js",
    "file://node.gypi/x",
    "FILE://Test.Host./x?y#z",
    "file://localhost/x",
    "file:x",
    "file:/x",
    "file:\\\\h\\x",
    "node:fs",
    "Node+x.y-z:/a",
    "mailto:someone@example.net",
    "tapmock://h/x",
    "ws://h/",
    "blob:https://a.example/x",
    "file://d/",
];

/// Every refusal seed with every tricky run inserted at, or substituted for the byte at,
/// every position: `citation@1` gives the same outcome, code and signature with the early
/// refusal and the fast parse off, and both outcomes of the refusal occur.
#[test]
fn one_tricky_character_anywhere_near_the_early_refusal() {
    let mut inputs = Vec::new();
    for seed in REFUSAL_SEEDS {
        for i in 0..=seed.len() {
            for t in TRICKY {
                inputs.push(format!("{}{t}{}", &seed[..i], &seed[i..]));
                if i < seed.len() {
                    inputs.push(format!("{}{t}{}", &seed[..i], &seed[i + 1..]));
                }
            }
        }
    }
    let policies: Vec<(Policy, Policy)> = policies()
        .into_iter()
        .filter(|(p, _)| p.id().starts_with("citation@1"))
        .collect();
    let refused = inputs
        .iter()
        .filter(|x| policies[0].0.refuses_early(x))
        .count();
    assert!(
        refused > inputs.len() / 10 && refused < inputs.len() * 9 / 10,
        "{refused} of {} mutants refused early",
        inputs.len()
    );
    let bad = disagreements(&inputs, &policies);
    assert!(bad.is_empty(), "disagreements:\n{}", bad.join("\n"));
}

/// Accepted URLs to mutate: plain ones, and ones that sit on the boundary already (the
/// proptest mutates these and [`REFUSAL_SEEDS`]).
const SEEDS: [&str; 10] = [
    "https://example.com/a/b?c=d#e",
    "http://www.example.org:8080/path/to/file.html?x=1&y=2",
    "HTTPS://Sub.Example.CO.UK",
    "http://a.example:80/?",
    "https://a_b-c.example./x//y/?utm_source=s&b=&a=1#top",
    "https://a1.b2c/%41%2f.x?q=%2e#f?g",
    "http://h.example:/p.",
    "https://h.example:443#",
    "https://w.example/a..b/...?#",
    "http://0a.example/x",
];

/// One character or a short run that sits near the acceptance boundary.
const TRICKY: [&str; 48] = [
    "%", ".", "..", "\\", "\t", "\n", "\r", " ", "\u{0}", "\u{7f}", ":", "@", "[", "]", "/", "?",
    "#", "A", "Z", "x", "0", "9", "0x", "%2e", "%2E", "%2", "xn--", "é", "\u{ff21}", "\u{ad}",
    "\"", "'", "<", ">", "`", "{", "}", "^", "|", "_", "-", "~", "!", "$", "&", "%00", "%41", ":0",
];

/// Every seed with every tricky run inserted at, or substituted for the byte at, every
/// position: the parse and both policies agree, and both outcomes of the fast parse
/// (accept and refuse) occur, so the test is not vacuous.
#[test]
fn one_tricky_character_anywhere_near_the_boundary() {
    let mut inputs = Vec::new();
    for seed in SEEDS {
        assert!(FastUrl::parse(seed).is_some(), "seed refused: {seed}");
        for i in 0..=seed.len() {
            for t in TRICKY {
                inputs.push(format!("{}{t}{}", &seed[..i], &seed[i..]));
                if i < seed.len() {
                    inputs.push(format!("{}{t}{}", &seed[..i], &seed[i + 1..]));
                }
            }
        }
    }
    let accepted = inputs
        .iter()
        .filter(|x| FastUrl::parse(x).is_some())
        .count();
    assert!(
        accepted > inputs.len() / 10 && accepted < inputs.len() * 9 / 10,
        "{accepted} of {} mutants accepted",
        inputs.len()
    );
    let policies: Vec<(Policy, Policy)> = policies()
        .into_iter()
        .filter(|(p, _)| matches!(p.id(), "citation@1" | "mapper@1"))
        .collect();
    let bad = disagreements(&inputs, &policies);
    assert!(bad.is_empty(), "disagreements:\n{}", bad.join("\n"));
}

fn mutant() -> impl Strategy<Value = String> {
    let edit = (any::<prop::sample::Index>(), 0..TRICKY.len(), any::<bool>());
    (
        0..SEEDS.len() + REFUSAL_SEEDS.len(),
        prop::collection::vec(edit, 1..4),
        prop::collection::vec(any::<prop::sample::Index>(), 0..2),
    )
        .prop_map(|(s, edits, cuts)| {
            let mut x = SEEDS
                .get(s)
                .unwrap_or_else(|| &REFUSAL_SEEDS[s - SEEDS.len()])
                .to_string();
            for (at, t, replace) in edits {
                let i = at.index(x.len() + 1);
                let i = (0..=i).rev().find(|&j| x.is_char_boundary(j)).unwrap_or(0);
                let end = if replace && i < x.len() {
                    (i + 1..=x.len())
                        .find(|&j| x.is_char_boundary(j))
                        .unwrap_or(x.len())
                } else {
                    i
                };
                x.replace_range(i..end, TRICKY[t]);
            }
            for cut in cuts {
                // Truncate somewhere: ends of components are boundaries too.
                let i = cut.index(x.len() + 1);
                let i = (0..=i).rev().find(|&j| x.is_char_boundary(j)).unwrap_or(0);
                x.truncate(i);
            }
            x
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Several tricky edits and a truncation at random places.
    #[test]
    fn tricky_mutants_agree(x in mutant()) {
        let policies: Vec<(Policy, Policy)> = policies()
            .into_iter()
            .filter(|(p, _)| matches!(p.id(), "citation@1" | "mapper@1"))
            .collect();
        let bad = disagreements(std::slice::from_ref(&x), &policies);
        prop_assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}

/// The fast parse stays on for the builtins it was built for, and for the others that
/// share their front ends, so the differential tests above cover them.
#[test]
fn the_differential_tests_cover_the_builtins_with_the_fast_parse() {
    let ids = ids();
    for id in [
        "citation@1",
        "citation@1+keep-trailing-slash",
        "mapper@1",
        "whatwg@1",
        "clean@1",
        "webkey@1",
    ] {
        assert!(
            ids.iter().any(|i| i == id),
            "{id} lost the fast parse: {ids:?}"
        );
    }
}

/// What the fuzz target's oracle (`check_fast_path` in `fuzz/src/lib.rs`) finds wrong with
/// `data`: the same comparisons, on the lossily decoded text and on it as the path of a
/// plain URL, for every builtin and option (the parse, the early refusal of other
/// schemes, and each policy with the fast path on and off).
fn oracle_disagreements(data: &[u8], policies: &[(Policy, Policy)]) -> Vec<String> {
    let text = String::from_utf8_lossy(data);
    let prefixed = format!("https://a.example/{text}");
    let mut bad = Vec::new();
    for x in [&*text, prefixed.as_str()] {
        bad.extend(parse_disagrees(x));
        if let Some(s) = urlkey::internals::fast::non_web_scheme_that_parses(x) {
            match WebUrl::parse(x, None) {
                Ok(u) if (u.is_web(), u.scheme()) == (false, &*s.to_ascii_lowercase()) => {}
                Ok(u) => bad.push(format!("{x:?}: refused early as {s:?}, ada gives {u:?}")),
                Err(e) => bad.push(format!(
                    "{x:?}: refused early as {s:?}, ada fails with {}",
                    e.code
                )),
            }
        }
        for (p, slow) in policies {
            bad.extend(policy_disagrees(p, slow, x));
        }
    }
    bad
}

/// The fuzz target's minimized corpus (`fuzz/replay/fast_path/`, made with
/// `cargo +nightly fuzz cmin fast_path`; see fuzz/RUNS.md), replayed with the target's own
/// comparisons ([`oracle_disagreements`]): the fuzzing runs in CI as this test.
/// A missing or empty folder fails.
#[test]
fn fuzz_corpus_replays_clean() {
    let set = PolicySet::builtin();
    let policies: Vec<(Policy, Policy)> = urlkey::internals::policy::builtin_variants()
        .iter()
        .map(|id| {
            let p = set.get(id).unwrap();
            let slow = p.without_fast_path();
            (p, slow)
        })
        .collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/replay/fast_path");
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (the committed fuzz corpus)", dir.display()));
    let mut n = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let bad = oracle_disagreements(&data, &policies);
        assert!(bad.is_empty(), "{}:\n{}", path.display(), bad.join("\n"));
        n += 1;
    }
    assert!(n >= 100, "{}: {n} files", dir.display());
}
