//! The hostile-input catalogue (`tests/hostile/catalogue.txt`): nasty inputs, each with its documented outcome
//! under every builtin policy, checked with no panic, with the properties of
//! `tests/properties.rs`, and within a time bound.
//!
//! The catalogue is `tests/hostile/catalogue.txt`, one case per block:
//!
//! ```text
//! == name: what the case is about
//! input: <the input, escaped>
//! via: lines | jsonl            (optional: read the bytes through that reader first)
//! limit: <bytes>                (optional: PolicySet::with_max_input_bytes)
//! large                         (optional: not held to the 10 ms bound; see below)
//! reader: <observed text> | !<code>   (for `via` cases: what the reader gave)
//! ```
//!
//! and each builtin variant (every id of `builtin_variants()`) has its outcomes in
//! `tests/hostile/outcomes/<id>.txt`, a line a case in the catalogue's order:
//! `name: <key> | !<error code>`. One file a policy, so adding a builtin adds its own
//! file; a builtin without one, a file for no builtin, or a file that misses or adds a
//! case fails the test.
//!
//! Escapes in inputs and keys: `\\`, `\t`, `\n`, `\r`, `\u{HEX}` (any character), `\xNN`
//! (one raw byte, for invalid UTF-8 through a reader), and in inputs `\rep{N}{text}` (the
//! text N times; the text may hold the other escapes). A key longer than 160 bytes is
//! written `~len=N fnv=HEX head=<first 40 characters>`. `URLKEY_BLESS=1` rewrites every
//! expectation from the current implementation (names, comments, inputs and order kept);
//! review the diff: a blessed catalogue cannot fail.
//!
//! Time. Each input must key within a bound checked by the harness (10 ms per input), and the
//! project standard says tests never assert on flaky wall time. Both hold like this:
//! - each policy call is timed several times and only the **minimum** counts: noise
//!   (another build on the machine, a context switch, page faults) only ever adds time,
//!   so the minimum of several runs is a stable estimate of the real cost;
//! - the 10 ms bound is asserted only for normal-size inputs (under the 64 KiB default
//!   limit), where the real cost is microseconds (the slowest case, about 0.3 ms here),
//!   so the bound has a thirty-fold margin;
//! - large cases (`large`: megabytes of input) are not held to a wall-clock bound. Their
//!   cost is checked by [`large_inputs_scale_linearly`], which measures the same shape at
//!   size n and 4n and bounds the **ratio** (at most 10: linear gives about 4, quadratic
//!   16), which does not depend on how fast or busy the machine is;
//! - the package is built with `opt-level = 2` in the test profile (root `Cargo.toml`),
//!   so the times are those of optimized code, not of debug builds.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;

use common::expand;
use urlkey::internals::policy::{builtin_variants, PLACEHOLDER_BASE};
use urlkey::internals::PolicyInternals;
use urlkey::{Outcome, Policy, PolicySet};
use urlkey_batch::input::{records_from, InputFormat, ReadOptions};

/// The bound on one policy call for a normal-size input (the minimum of [`RUNS`] runs).
const BOUND: Duration = Duration::from_millis(10);
/// Runs per policy and case; the minimum is kept.
const RUNS: usize = 5;
/// The fewest cases the catalogue may hold.
const MIN_CASES: usize = 200;

fn policy_ids() -> Vec<String> {
    builtin_variants()
}

fn catalogue_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/catalogue.txt")
}

fn outcomes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/outcomes")
}

const OUTCOMES_HEADER: &str = "# {id} on every case of ../catalogue.txt, in its order: `case: key` or `case: !code`.\n# Written by URLKEY_BLESS=1 (tests/hostile.rs); review the diff.\n";

/// The outcomes file of every policy id found in `outcomes/`: id -> (case, outcome) lines.
fn read_outcomes() -> BTreeMap<String, Vec<(String, String)>> {
    let mut all = BTreeMap::new();
    for entry in std::fs::read_dir(outcomes_dir()).expect("tests/hostile/outcomes") {
        let path = entry.expect("an outcomes entry").path();
        let Some(id) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".txt"))
        else {
            continue;
        };
        let text = std::fs::read_to_string(&path).expect("an outcomes file");
        let rows = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let (name, v) = l
                    .split_once(':')
                    .unwrap_or_else(|| panic!("{id}.txt: not `case: outcome`: {l:?}"));
                (
                    name.to_string(),
                    v.strip_prefix(' ').unwrap_or(v).to_string(),
                )
            })
            .collect();
        all.insert(id.to_string(), rows);
    }
    all
}

/// One case of the catalogue.
#[derive(Debug, Default)]
struct Case {
    name: String,
    /// The header line and everything up to the expectations, kept for blessing.
    head: Vec<String>,
    input: String,
    via: Option<InputFormat>,
    limit: Option<usize>,
    large: bool,
    reader: Option<String>,
}

fn parse_catalogue(text: &str) -> (Vec<String>, Vec<Case>) {
    let mut preamble = Vec::new();
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("== ") {
            let name = h.split_once(':').map_or(h, |(n, _)| n).trim().to_string();
            cases.push(Case {
                name,
                head: vec![line.to_string()],
                ..Case::default()
            });
            continue;
        }
        let Some(c) = cases.last_mut() else {
            preamble.push(line.to_string());
            continue;
        };
        if line.trim().is_empty() || line.starts_with('#') {
            if c.reader.is_none() {
                c.head.push(line.to_string());
            }
            continue;
        }
        let (k, v) = line.split_once(':').map_or((line, ""), |(k, v)| (k, v));
        let v = v.strip_prefix(' ').unwrap_or(v);
        match k {
            "input" => {
                c.input = v.to_string();
                c.head.push(line.to_string());
            }
            "via" => {
                c.via = Some(match v {
                    "lines" => InputFormat::Lines,
                    "jsonl" => InputFormat::Jsonl,
                    other => panic!("{}: unknown via {other:?}", c.name),
                });
                c.head.push(line.to_string());
            }
            "limit" => {
                c.limit = Some(v.parse().expect("limit"));
                c.head.push(line.to_string());
            }
            "large" => {
                c.large = true;
                c.head.push(line.to_string());
            }
            "reader" => c.reader = Some(v.to_string()),
            _ => panic!("{}: unknown line {line:?}", c.name),
        }
    }
    (preamble, cases)
}

/// Escapes a key or observed text for the catalogue (short values only).
fn escape(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '!' | '~' if i == 0 => write!(out, "\\u{{{:x}}}", c as u32).unwrap(),
            // Everything but printable ASCII is written as an escape: the catalogue
            // shows invisible and look-alike characters for what they are.
            c if !(' '..='~').contains(&c) => write!(out, "\\u{{{:x}}}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    if out.ends_with(' ') {
        out.pop();
        out.push_str("\\u{20}");
    }
    out
}

/// FNV-1a, 64 bits: a stable digest of long keys.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

/// How an expectation is written: the escaped value, or a digest of a long one.
fn show(s: &str) -> String {
    if s.len() <= 160 {
        return escape(s);
    }
    let head: String = s.chars().take(40).collect();
    format!(
        "~len={} fnv={:016x} head={}",
        s.len(),
        fnv(s),
        escape(&head)
    )
}

fn outcome_text(o: &Outcome) -> String {
    match (&o.key, &o.error) {
        (Some(k), _) => show(k),
        (None, Some(e)) => format!("!{}", e.code.as_str()),
        (None, None) => "!<none>".into(),
    }
}

/// The minimum time of `RUNS` calls, and the outcome.
fn timed(p: &Policy, x: &str, runs: usize) -> (Outcome, Duration) {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        let o = p.key(x);
        best = best.min(t.elapsed());
        out = Some(o);
    }
    (out.unwrap(), best)
}

/// The properties of `tests/properties.rs` on one outcome; problems are pushed to `bad`.
fn properties(set: &PolicySet, p: &Policy, x: &str, o: &Outcome, bad: &mut Vec<String>) {
    let id = p.id();
    for t in &o.transformations {
        if t.before == t.after {
            bad.push(format!("{id}: {} changed nothing", t.rule));
        }
    }
    let Some(key) = &o.key else { return };
    let canonical = o.canonical.as_deref().unwrap_or_default();
    let again = p.key(canonical).key;
    if again.as_deref() != Some(key.as_str()) {
        bad.push(format!(
            "{id}: key(canonical) {} != key {}",
            again.as_deref().map_or("none".into(), show),
            show(key)
        ));
    }
    let whatwg = set.get("whatwg@1").unwrap();
    if p.definition().key_is_whatwg_url() {
        let (back, expected) = if key.starts_with('/') {
            (
                whatwg.key_with_base(key, Some(PLACEHOLDER_BASE)).key,
                format!("https://path-only.urlkey.invalid{key}"),
            )
        } else {
            (whatwg.key(key).key, key.clone())
        };
        if back.as_deref() != Some(expected.as_str()) {
            bad.push(format!("{id}: whatwg@1 does not give back the key"));
        }
    }
    if id == "document@1" && p.key(key).key.as_deref() != Some(key.as_str()) {
        bad.push("document@1: the key is not a fixed point".into());
    }
    let _ = x;
}

/// Reads `bytes` through the reader and returns the one record: its observed text, or
/// its problem code.
fn through_reader(bytes: &[u8], format: InputFormat) -> Result<String, String> {
    let opts = ReadOptions {
        format,
        column: None,
        field: Some("u".into()),
        ..ReadOptions::default()
    };
    let rd = Box::new(BufReader::new(std::io::Cursor::new(bytes.to_vec())));
    let mut src = records_from(rd, "catalogue".into(), &opts).unwrap();
    let mut out = Vec::new();
    while src.next_batch(&mut out, 16).unwrap() {}
    assert_eq!(out.len(), 1, "a reader case must be one record: {out:?}");
    let r = out.pop().unwrap();
    match r.problem {
        Some(p) => Err(p.code.as_str().to_string()),
        None => Ok(r.observed),
    }
}

#[test]
fn hostile_catalogue() {
    let path = catalogue_path();
    let text = std::fs::read_to_string(&path).unwrap();
    let (preamble, cases) = parse_catalogue(&text);
    let bless = std::env::var_os("URLKEY_BLESS").is_some();
    let ids = policy_ids();
    let mut failures = Vec::new();
    let mut slowest = (Duration::ZERO, String::new());
    let mut blessed = preamble.join("\n");
    blessed.push('\n');
    let mut names = std::collections::BTreeSet::new();
    let on_file = read_outcomes();
    // The cases each policy ran on (a `via` case the reader refuses runs on none).
    let mut ran: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if !bless {
        for id in &ids {
            if !on_file.contains_key(id) {
                failures.push(format!(
                    "{id}: no tests/hostile/outcomes/{id}.txt (write it with URLKEY_BLESS=1)"
                ));
            }
        }
        for id in on_file.keys() {
            if !ids.contains(id) {
                failures.push(format!("outcomes/{id}.txt is for no builtin policy"));
            }
        }
    }
    let mut blessed_outcomes: BTreeMap<String, String> = BTreeMap::new();
    for case in &cases {
        assert!(names.insert(&case.name), "case {} twice", case.name);
        let bytes = expand(&case.input);
        let mut set = PolicySet::builtin();
        if let Some(l) = case.limit {
            set = set.with_max_input_bytes(l);
        }
        let mut got: Vec<(String, String)> = Vec::new();
        let mut reader_line = None;
        let text: Option<String> = match case.via {
            Some(f) => match through_reader(&bytes, f) {
                Ok(t) => {
                    reader_line = Some(show(&t));
                    Some(t)
                }
                Err(code) => {
                    reader_line = Some(format!("!{code}"));
                    None
                }
            },
            None => Some(
                String::from_utf8(bytes)
                    .unwrap_or_else(|_| panic!("{}: input is not UTF-8 (use via)", case.name)),
            ),
        };
        if let Some(x) = &text {
            let runs = if case.large { 2 } else { RUNS };
            for id in &ids {
                let p = set.get(id).unwrap();
                let (o, t) = timed(&p, x, runs);
                let mut bad = Vec::new();
                properties(&set, &p, x, &o, &mut bad);
                for b in bad {
                    failures.push(format!("{}: {b}", case.name));
                }
                if !case.large {
                    if t > slowest.0 {
                        slowest = (t, format!("{} {id}", case.name));
                    }
                    if t > BOUND && x.len() <= 64 * 1024 {
                        failures.push(format!("{}: {id} took {t:?} (bound {BOUND:?})", case.name));
                    }
                }
                got.push((id.clone(), outcome_text(&o)));
            }
            // inspect never panics and its offsets are spans of the input.
            let webkey = set.get("webkey@1").unwrap();
            let i = urlkey::inspect(x, &set, &webkey);
            for c in [
                i.offsets.scheme,
                i.offsets.userinfo,
                i.offsets.host,
                i.offsets.port,
                i.offsets.path,
                i.offsets.query,
                i.offsets.fragment,
            ]
            .into_iter()
            .flatten()
            {
                let b = c.bytes;
                if !(b.start <= b.end
                    && b.end <= x.len()
                    && x.is_char_boundary(b.start)
                    && x.is_char_boundary(b.end))
                {
                    failures.push(format!(
                        "{}: inspect span {b:?} out of the input",
                        case.name
                    ));
                }
            }
        }
        if bless {
            for l in &case.head {
                blessed.push_str(l);
                blessed.push('\n');
            }
            if let Some(r) = &reader_line {
                writeln!(blessed, "reader: {r}").unwrap();
            }
            for (id, v) in &got {
                let file = blessed_outcomes
                    .entry(id.clone())
                    .or_insert_with(|| OUTCOMES_HEADER.replace("{id}", id));
                writeln!(file, "{}: {v}", case.name).unwrap();
            }
            blessed.push('\n');
            continue;
        }
        if case.reader != reader_line {
            failures.push(format!(
                "{}: reader: expected {:?}, got {:?}",
                case.name, case.reader, reader_line
            ));
        }
        for (id, v) in &got {
            ran.entry(id.clone()).or_default().push(case.name.clone());
            let want = on_file
                .get(id)
                .and_then(|rows| rows.iter().find(|(n, _)| *n == case.name))
                .map(|(_, v)| v);
            if want.is_some_and(|w| w != v) {
                failures.push(format!("{}: {id}: expected {want:?}, got {v:?}", case.name));
            }
        }
    }
    if bless {
        // A case without a reader line ends with its head's blank line: one blank between
        // cases, as written by hand.
        while blessed.contains("\n\n\n") {
            blessed = blessed.replace("\n\n\n", "\n\n");
        }
        std::fs::write(&path, blessed.trim_end().to_string() + "\n").unwrap();
        for id in on_file.keys() {
            if !blessed_outcomes.contains_key(id) {
                std::fs::remove_file(outcomes_dir().join(format!("{id}.txt"))).unwrap();
            }
        }
        for (id, text) in &blessed_outcomes {
            std::fs::write(outcomes_dir().join(format!("{id}.txt")), text).unwrap();
        }
        return;
    }
    for (id, rows) in &on_file {
        let listed: Vec<&String> = rows.iter().map(|(n, _)| n).collect();
        let expected: Vec<&String> = ran.get(id).map(|r| r.iter().collect()).unwrap_or_default();
        if ids.contains(id) && listed != expected {
            failures.push(format!(
                "{id}.txt does not list the cases {id} runs on, in the catalogue's order \
                 (write it with URLKEY_BLESS=1)"
            ));
        }
    }
    println!(
        "{} cases; slowest normal-size call (minimum of {RUNS} runs): {:?} ({})",
        cases.len(),
        slowest.0,
        slowest.1
    );
    assert!(
        cases.len() >= MIN_CASES,
        "the catalogue has {} cases; it must keep at least {MIN_CASES}",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The shapes of the large cases, as functions of a size n.
/// A large shape: its name and the input at size n.
type Shape = (&'static str, fn(usize) -> String);

fn scalable() -> Vec<Shape> {
    vec![
        ("query parameters", |n| {
            let mut s = String::from("https://a.example/p?");
            for i in 0..n {
                write!(s, "p{}={}&", i % 977, n - i).unwrap();
            }
            s
        }),
        ("tracking parameters", |n| {
            let mut s = String::from("https://a.example/p?");
            for i in 0..n {
                write!(s, "utm_source={i}&x{i}=1&").unwrap();
            }
            s
        }),
        ("path segments", |n| {
            format!("https://a.example/{}", "seg/".repeat(n))
        }),
        ("empty path segments", |n| {
            format!("https://a.example/{}x", "/".repeat(n))
        }),
        ("dot segments", |n| {
            format!("https://a.example/{}x", "a/../".repeat(n))
        }),
        ("nested percent", |n| {
            format!("https://a.example/%{}41", "25".repeat(n))
        }),
        ("percent escapes", |n| {
            format!("https://a.example/{}", "%7e%41%2f".repeat(n))
        }),
        ("host labels", |n| {
            format!("https://{}example.com/", "a.".repeat(n))
        }),
        ("unicode path", |n| {
            format!("https://a.example/{}", "é\u{202e}".repeat(n))
        }),
        ("fragment", |n| {
            format!("https://a.example/#{}", "f".repeat(n))
        }),
        ("no scheme, long", |n| {
            format!("a.example/{}", "x".repeat(n))
        }),
    ]
}

/// The per-call time of `p` on `x`: calls are timed in batches of at least 2 ms, and the
/// cheapest batch of five counts.
fn per_call(p: &Policy, x: &str, reps: usize) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..reps {
            std::hint::black_box(p.key(std::hint::black_box(x)));
        }
        best = best.min(t.elapsed() / reps as u32);
    }
    best
}

/// How many calls make a batch of about 2 ms.
fn reps_for(p: &Policy, x: &str) -> usize {
    let t = Instant::now();
    p.key(x);
    let one = t.elapsed().max(Duration::from_micros(1));
    (Duration::from_millis(2).as_nanos() / one.as_nanos()).clamp(1, 10_000) as usize
}

/// Quadratic behaviour is a bug: for each large shape (the shapes of the catalogue's
/// `large` cases), the per-call time at size n and at 4n, over every builtin policy.
/// Linear code gives a ratio near 4 and quadratic near 16; the bound is 10.
///
/// The sizes: n is the smallest that makes the input at least 16 KiB, so 4n is about
/// 64 KiB, the default input limit. Both then stay in the per-core cache and below the
/// allocator's 128 KiB threshold for fresh pages; measured here, larger sizes (800 KB to
/// 16 MB) mix in cache misses and page faults that grow faster than the work and gave
/// ratios of 6 to 17 for code that is linear. Quadratic work shows at these sizes too (a
/// 64 KiB input with thousands of parameters or segments). Each time is the cheapest of
/// five batches of at least 2 ms, and the batches at n and 4n alternate, so a change in
/// the machine's load touches both. A ratio over the bound is measured again, up to three
/// times, and the lowest counts (once seen here: 10.3 for linear code, three builds running).
#[test]
fn large_inputs_scale_linearly() {
    let set = PolicySet::builtin().with_max_input_bytes(64 << 20);
    let ids = policy_ids();
    let mut report = Vec::new();
    let mut bad = Vec::new();
    for (name, make) in scalable() {
        let mut n = 16;
        while make(n).len() < 16 * 1024 {
            n *= 2;
        }
        let small = make(n);
        let big = make(4 * n);
        for id in &ids {
            let p = set.get(id).unwrap();
            let (r1, r4) = (reps_for(&p, &small), reps_for(&p, &big));
            let (mut t1, mut t4) = (Duration::MAX, Duration::MAX);
            let mut ratio = f64::MAX;
            // A burst of load during one measurement can double one side; quadratic code
            // is over the bound on every try, so a shape fails only if three tries agree.
            for _try in 0..3 {
                let (mut a1, mut a4) = (Duration::MAX, Duration::MAX);
                for _ in 0..3 {
                    a1 = a1.min(per_call(&p, &small, r1));
                    a4 = a4.min(per_call(&p, &big, r4));
                }
                let r = a4.as_secs_f64() / a1.as_secs_f64().max(1e-7);
                if r < ratio {
                    (ratio, t1, t4) = (r, a1, a4);
                }
                if ratio <= 10.0 {
                    break;
                }
            }
            report.push(format!(
                "{name:22} {id:32} n={:>6}B {t1:>10.2?}  4n {t4:>10.2?}  ratio {ratio:.1}",
                small.len()
            ));
            if ratio > 10.0 {
                bad.push(format!(
                    "{name} {id}: {t1:?} at n, {t4:?} at 4n (ratio {ratio:.1})"
                ));
            }
        }
    }
    println!("{}", report.join("\n"));
    assert!(bad.is_empty(), "super-linear:\n{}", bad.join("\n"));
}
