//! `urlkey-bench`: the macro benchmark, the input generator and a profiling driver.
//!
//! ```text
//! urlkey-bench macro [--rounds N] [--set all|web|file] [--data DIR] [--no-outcome] [--proto]
//! urlkey-bench gen --lines N --distinct M [--seed S] [--review-share PCT] [--review-size K] [--no-noise]
//! urlkey-bench run --subject ID [--limit N] [--repeat R] [--set all|web|file] [--data DIR] [--allocs]
//! urlkey-bench ladder --policy ID [--rounds N] [--set all|web|file] [--data DIR]
//! urlkey-bench proto-key --policy citation@1|document@1 FILE
//! urlkey-bench ada-href FILE
//! ```
//!
//! See docs/benchmarks.md.

#![forbid(unsafe_code)]

use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use urlkey::internals::PolicyInternals;
use urlkey_bench::alloc::{self, CountingAlloc};
use urlkey_bench::corpus::{self, Corpus, Kind};
use urlkey_bench::gen::{self, GenOptions};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

const USAGE: &str = "usage:
  urlkey-bench macro [--rounds N] [--set all|web|file] [--data DIR] [--no-outcome] [--proto] [--ada-path]
  urlkey-bench gen --lines N --distinct M [--seed S] [--review-share PCT] [--review-size K] [--no-noise]
  urlkey-bench run --subject ID [--limit N] [--repeat R] [--set all|web|file] [--data DIR] [--allocs]
  urlkey-bench ladder --policy citation@1|mapper@1|webkey@1|document@1 [--rounds N] [--set all|web|file] [--data DIR]
  urlkey-bench proto-key --policy citation@1|document@1 FILE
  urlkey-bench ada-href FILE   (the whole-process floor: each line parsed by ada, its href written)

subjects: ada (parse + href), hash (xxh3 of each line), a policy id (citation@1, ...),\nkey_into:<policy> (the lean key path), proto-citation or proto-document (the lean-path prototypes), ladder:<policy>:<step>;\na policy subject with ~ada (key_into:citation@1~ada) runs with the fast parse off";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("macro") => macro_bench(&args[1..]),
        Some("gen") => gen_cmd(&args[1..]),
        Some("run") => run_cmd(&args[1..]),
        Some("ladder") => ladder_cmd(&args[1..]),
        Some("proto-key") => proto_key_cmd(&args[1..]),
        Some("ada-href") => ada_href_cmd(&args[1..]),
        Some("-h" | "--help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("urlkey-bench: {e}");
            ExitCode::from(2)
        }
    }
}

/// `--name value` flags.
struct Flags<'a> {
    args: &'a [String],
}

impl<'a> Flags<'a> {
    fn new(args: &'a [String], known: &[&str], switches: &[&str]) -> Result<Self, String> {
        let mut i = 0;
        while i < args.len() {
            let a = args[i].as_str();
            if switches.contains(&a) {
                i += 1;
            } else if known.contains(&a) {
                if i + 1 >= args.len() {
                    return Err(format!("{a} needs a value"));
                }
                i += 2;
            } else {
                return Err(format!("unknown argument {a:?}\n{USAGE}"));
            }
        }
        Ok(Flags { args })
    }
    fn value(&self, name: &str) -> Option<&'a str> {
        self.args
            .iter()
            .position(|a| a == name)
            .and_then(|i| self.args.get(i + 1))
            .map(String::as_str)
    }
    fn has(&self, name: &str) -> bool {
        self.args.iter().any(|a| a == name)
    }
    fn num(&self, name: &str, default: u64) -> Result<u64, String> {
        match self.value(name) {
            None => Ok(default),
            Some(v) => v
                .replace('_', "")
                .parse()
                .map_err(|_| format!("{name} {v:?}: not a number")),
        }
    }
}

fn load(flags: &Flags<'_>) -> Result<Vec<String>, String> {
    let dir = flags
        .value("--data")
        .map_or_else(corpus::default_dir, PathBuf::from);
    let c = Corpus::load(&dir)?;
    match flags.value("--set").unwrap_or("all") {
        "all" => Ok(c.lines),
        "web" => Ok(c.of_kind(Kind::Web)),
        "file" => Ok(c.of_kind(Kind::File)),
        s => Err(format!("--set {s:?}: use all, web or file")),
    }
}

/// One thing measured over the whole line list.
enum Subject {
    /// xxh3-64 of each line: reading the input once and hashing each line.
    Hash,
    /// `ada_url::Url::parse(s, None)` then `.href()`: the floor.
    Ada,
    /// A urlkey policy's `key` (the full `Outcome`).
    Policy(urlkey::Policy),
    /// A urlkey policy's lean key path, `key_into` a reused buffer.
    KeyInto(urlkey::Policy),
    /// The lean-path prototype of `citation@1` (`urlkey_bench::proto`).
    ProtoCitation(std::cell::RefCell<urlkey_bench::proto::LeanCitation>),
    /// The lean-path prototype of `document@1`.
    ProtoDocument(urlkey_bench::proto::LeanDocument),
}

impl Subject {
    fn from_id(id: &str) -> Result<Subject, String> {
        // `<subject>~ada`: the same policy with the verified fast parse off (every input
        // through ada): the cost without the fast path, measured in the same run.
        if let Some(id) = id.strip_suffix("~ada") {
            return match Subject::from_id(id)? {
                Subject::Policy(p) => Ok(Subject::Policy(p.without_fast_path())),
                Subject::KeyInto(p) => Ok(Subject::KeyInto(p.without_fast_path())),
                _ => Err(format!("{id}~ada: only a policy subject has a fast path")),
            };
        }
        match id {
            "hash" => Ok(Subject::Hash),
            "ada" => Ok(Subject::Ada),
            "proto-citation" => Ok(Subject::ProtoCitation(Default::default())),
            "proto-document" => Ok(Subject::ProtoDocument(Default::default())),
            _ if id.starts_with("key_into:") => urlkey::PolicySet::builtin()
                .get(&id["key_into:".len()..])
                .map(Subject::KeyInto)
                .map_err(|e| e.to_string()),
            _ if id.starts_with("ladder:") => {
                // ladder:<builtin>:<k>: step k of that builtin's ladder.
                let mut it = id.splitn(3, ':').skip(1);
                let (b, k) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
                let spec = urlkey_bench::ladder::ladder(b).ok_or(format!("no ladder for {b:?}"))?;
                let k: usize = k.parse().map_err(|_| format!("{id}: bad step"))?;
                let mut set = urlkey::PolicySet::builtin();
                set.load_policy_file(&spec.policy_file(), "ladder")
                    .map_err(|e| e.to_string())?;
                set.get(&urlkey_bench::ladder::LadderSpec::step_id(k))
                    .map(Subject::Policy)
                    .map_err(|e| e.to_string())
            }
            _ => urlkey::PolicySet::builtin()
                .get(id)
                .map(Subject::Policy)
                .map_err(|e| e.to_string()),
        }
    }

    fn name(&self) -> String {
        match self {
            Subject::Hash => "read+xxh3 (floor of I/O)".into(),
            Subject::Ada => "ada parse+href (baseline)".into(),
            Subject::Policy(p) => format!("{} key (Outcome){}", p.id(), ada_only(p)),
            Subject::KeyInto(p) => format!("{} key_into (lean){}", p.id(), ada_only(p)),
            Subject::ProtoCitation(_) => "prototype: citation@1 lean key path".into(),
            Subject::ProtoDocument(_) => "prototype: document@1 lean key path".into(),
        }
    }

    /// One-time set-up outside the measured passes (the Public Suffix List is parsed on
    /// first use), so that profiles of `pass` count only the per-URL work.
    fn warm(&self) {
        if let Subject::Policy(p) | Subject::KeyInto(p) = self {
            black_box(p.key("https://www.example.co.uk/"));
        }
    }

    /// One pass; returns the number of valid results (so nothing is optimized away).
    #[inline(never)]
    fn pass(&self, lines: &[String]) -> u64 {
        let mut ok = 0u64;
        match self {
            Subject::Hash => {
                for l in lines {
                    let h = xxhash_rust::xxh3::xxh3_64(black_box(l.as_bytes()));
                    ok += u64::from(black_box(h) != 0);
                }
            }
            Subject::Ada => {
                for l in lines {
                    if let Ok(u) = ada_url::Url::parse(black_box(l.as_str()), None) {
                        ok += u64::from(!black_box(u.href()).is_empty());
                    }
                }
            }
            Subject::Policy(p) => {
                for l in lines {
                    let o = p.key(black_box(l.as_str()));
                    ok += u64::from(black_box(&o).key.is_some());
                }
            }
            Subject::KeyInto(p) => {
                // Sized once for the longest line, as a caller that reuses it would be.
                let mut out = String::with_capacity(2 * urlkey::policy::DEFAULT_MAX_INPUT_BYTES);
                for l in lines {
                    let r = p.key_into(black_box(l.as_str()), &mut out);
                    ok += u64::from(black_box(r).is_ok());
                }
            }
            Subject::ProtoCitation(p) => {
                let mut p = p.borrow_mut();
                let mut out = String::with_capacity(2 * urlkey::policy::DEFAULT_MAX_INPUT_BYTES);
                for l in lines {
                    let r = p.key_into(black_box(l.as_str()), &mut out);
                    ok += u64::from(black_box(r).is_ok());
                }
            }
            Subject::ProtoDocument(p) => {
                let mut out = String::with_capacity(2 * urlkey::policy::DEFAULT_MAX_INPUT_BYTES);
                for l in lines {
                    let r = p.key_into(black_box(l.as_str()), &mut out);
                    ok += u64::from(black_box(r).is_ok());
                }
            }
        }
        ok
    }
}

/// How a subject's name marks a builtin whose fast parse was turned off (`~ada`).
fn ada_only(p: &urlkey::Policy) -> &'static str {
    let normally = urlkey::PolicySet::builtin()
        .get(p.id())
        .is_ok_and(|b| b.has_fast_path());
    if normally && !p.has_fast_path() {
        " [fast path off]"
    } else {
        ""
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Timed rounds, interleaved: every round runs every subject once over all lines, in an
/// order rotated by one each round. Returns seconds per pass, per subject.
fn interleaved(subjects: &[Subject], lines: &[String], rounds: usize) -> Vec<Vec<f64>> {
    let mut secs: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); subjects.len()];
    for r in 0..rounds {
        for j in 0..subjects.len() {
            let i = (j + r) % subjects.len();
            let t = Instant::now();
            black_box(subjects[i].pass(lines));
            secs[i].push(t.elapsed().as_secs_f64());
        }
        eprint!(".");
    }
    eprintln!();
    secs
}

/// Median ns/URL and median per-round ratio to subject `base`.
fn summarize(secs: &[Vec<f64>], i: usize, base: usize, n: usize) -> (f64, f64, f64, f64, f64) {
    let mut ns: Vec<f64> = secs[i].iter().map(|t| t * 1e9 / n as f64).collect();
    let min = ns.iter().copied().fold(f64::INFINITY, f64::min);
    let med = median(&mut ns);
    let mut ratios: Vec<f64> = secs[i]
        .iter()
        .zip(&secs[base])
        .map(|(a, b)| a / b)
        .collect();
    let rmed = median(&mut ratios);
    (
        med,
        min,
        rmed,
        ratios.first().copied().unwrap_or(0.0),
        ratios.last().copied().unwrap_or(0.0),
    )
}

fn macro_bench(args: &[String]) -> Result<(), String> {
    let flags = Flags::new(
        args,
        &["--rounds", "--set", "--data"],
        &["--proto", "--no-outcome", "--ada-path"],
    )?;
    let rounds = flags.num("--rounds", 7)?.max(1) as usize;
    let lines = load(&flags)?;
    let n = lines.len();
    let mut subjects = vec![Subject::Hash, Subject::Ada];
    for id in urlkey::policy::BUILTIN_IDS.iter() {
        subjects.push(Subject::from_id(&format!("key_into:{id}"))?);
        if !flags.has("--no-outcome") {
            subjects.push(Subject::from_id(id)?);
        }
        // --ada-path: beside each policy that has the fast parse, the same without it.
        let fast = urlkey::PolicySet::builtin()
            .get(id)
            .is_ok_and(|p| p.has_fast_path());
        if flags.has("--ada-path") && fast {
            subjects.push(Subject::from_id(&format!("key_into:{id}~ada"))?);
            if !flags.has("--no-outcome") {
                subjects.push(Subject::from_id(&format!("{id}~ada"))?);
            }
        }
    }
    if flags.has("--proto") {
        subjects.push(Subject::from_id("proto-citation")?);
        subjects.push(Subject::from_id("proto-document")?);
    }
    const BASE: usize = 1;
    eprintln!(
        "macro: {n} lines ({} bytes), {rounds} rounds, {} subjects, single thread",
        lines.iter().map(String::len).sum::<usize>(),
        subjects.len()
    );
    // Warm-up: one untimed pass of each (page faults, PSL init, caches).
    let valid: Vec<u64> = subjects.iter().map(|s| s.pass(&lines)).collect();
    // Allocation pass (untimed): Rust allocations only; ada's C++ allocations go to
    // malloc directly and are not seen here (docs/benchmarks.md counts them with valgrind).
    let allocs: Vec<alloc::Counts> = subjects
        .iter()
        .map(|s| alloc::measure(|| s.pass(&lines)).1)
        .collect();
    let secs = interleaved(&subjects, &lines, rounds);
    println!(
        "| subject | valid | ns/URL (median) | ns/URL (min) | URLs/s (median) | ratio to ada (median of per-round ratios) | ratio range | Rust allocs/URL | Rust bytes/URL |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (i, s) in subjects.iter().enumerate() {
        let (med, min, rmed, rlo, rhi) = summarize(&secs, i, BASE, n);
        println!(
            "| {} | {} | {:.1} | {:.1} | {:.2} M | {:.3}x | {:.3}-{:.3} | {:.2} | {:.1} |",
            s.name(),
            valid[i],
            med,
            min,
            1e3 / med,
            rmed,
            rlo,
            rhi,
            allocs[i].calls as f64 / n as f64,
            allocs[i].bytes as f64 / n as f64,
        );
    }
    Ok(())
}

fn gen_cmd(args: &[String]) -> Result<(), String> {
    let flags = Flags::new(
        args,
        &[
            "--lines",
            "--distinct",
            "--seed",
            "--review-share",
            "--review-size",
            "--data",
        ],
        &["--no-noise"],
    )?;
    let d = GenOptions::default();
    let o = GenOptions {
        lines: flags.num("--lines", d.lines)?,
        distinct: flags.num("--distinct", d.distinct)?,
        seed: flags.num("--seed", d.seed)?,
        review_share: flags.num("--review-share", d.review_share)?,
        review_size: flags.num("--review-size", d.review_size)?,
        noise: !flags.has("--no-noise"),
    };
    if o.distinct == 0 || o.distinct > o.lines {
        return Err("need 1 <= --distinct <= --lines".into());
    }
    if o.review_size < 2 || o.review_share > 100 {
        return Err("need --review-size >= 2 and --review-share <= 100".into());
    }
    let dir = flags
        .value("--data")
        .map_or_else(corpus::default_dir, PathBuf::from);
    let corpus = Corpus::load(&dir)?;
    let bases = gen::base_pool(&corpus);
    let start = Instant::now();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let exp = match gen::generate(&o, &bases, &mut out) {
        Ok(e) => e,
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
        Err(e) => return Err(format!("cannot write: {e}")),
    };
    let _ = out.flush();
    eprintln!(
        "gen: {} lines, {} distinct mapper@1 keys, {} signature groups, {} review groups (size {}), {} duplicate groups, from {} bases, seed {}, {:.1} s",
        exp.lines,
        exp.distinct_keys,
        exp.signature_groups,
        exp.review_groups,
        o.review_size,
        exp.duplicate_groups,
        exp.bases,
        o.seed,
        start.elapsed().as_secs_f64()
    );
    eprintln!(
        "gen: expected `urlkey map --summary` (mapper@1): {{\"records\":{},\"valid\":{},\"distinct_keys\":{},\"signature_groups\":{},\"review_groups\":{},\"duplicate_groups\":{}}}",
        exp.lines, exp.lines, exp.distinct_keys, exp.signature_groups, exp.review_groups, exp.duplicate_groups
    );
    Ok(())
}

/// Runs one subject over the lines, for profilers (callgrind, perf).
fn run_cmd(args: &[String]) -> Result<(), String> {
    let flags = Flags::new(
        args,
        &["--subject", "--limit", "--repeat", "--set", "--data"],
        &["--allocs"],
    )?;
    let subject = Subject::from_id(flags.value("--subject").ok_or("--subject is needed")?)?;
    let mut lines = load(&flags)?;
    let limit = flags.num("--limit", lines.len() as u64)? as usize;
    if limit < lines.len() {
        // An even spread over the corpus, not its first lines.
        let step = lines.len() / limit.max(1);
        lines = lines.into_iter().step_by(step.max(1)).take(limit).collect();
    }
    let repeat = flags.num("--repeat", 1)?.max(1);
    // Let malloc consolidate the chunks freed above now, not inside the profiled pass.
    drop(black_box(String::with_capacity(4096)));
    subject.warm();
    let t = Instant::now();
    let mut ok = 0;
    for _ in 0..repeat {
        ok = subject.pass(&lines);
    }
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "run: {} over {} lines x {repeat}: {ok} valid, {:.1} ns/URL",
        subject.name(),
        lines.len(),
        secs * 1e9 / (lines.len() as f64 * repeat as f64),
    );
    if flags.has("--allocs") {
        let (_, c) = alloc::measure(|| subject.pass(&lines));
        eprintln!(
            "run: {:.2} Rust allocs/URL, {:.1} Rust bytes/URL (allocation calls in the pass: {})",
            c.calls as f64 / lines.len() as f64,
            c.bytes as f64 / lines.len() as f64,
            c.calls
        );
    }
    Ok(())
}

/// Times a builtin policy rebuilt rule by rule (see `urlkey_bench::ladder`).
fn ladder_cmd(args: &[String]) -> Result<(), String> {
    let flags = Flags::new(args, &["--policy", "--rounds", "--set", "--data"], &[])?;
    let id = flags.value("--policy").ok_or("--policy is needed")?;
    let spec = urlkey_bench::ladder::ladder(id).ok_or_else(|| {
        format!("no ladder for {id:?}: citation@1, mapper@1, webkey@1, document@1")
    })?;
    let rounds = flags.num("--rounds", 7)?.max(1) as usize;
    let lines = load(&flags)?;
    let n = lines.len();
    let mut set = urlkey::PolicySet::builtin();
    set.load_policy_file(&spec.policy_file(), "ladder")
        .map_err(|e| e.to_string())?;
    let mut subjects = vec![Subject::Ada];
    let mut names = vec!["ada parse+href (baseline)".to_string()];
    for k in 0..=spec.rules.len() {
        let p = set
            .get(&urlkey_bench::ladder::LadderSpec::step_id(k))
            .map_err(|e| e.to_string())?;
        subjects.push(Subject::Policy(p));
        names.push(if k == 0 {
            "step 0: front end + key form, no rule".to_string()
        } else {
            format!("step {k}: + {}", spec.rules[k - 1].0)
        });
    }
    subjects.push(Subject::from_id(id)?);
    names.push(format!("{id} (builtin)"));
    eprintln!(
        "ladder {id}: {n} lines, {rounds} rounds, {} subjects",
        subjects.len()
    );
    for s in &subjects {
        black_box(s.pass(&lines));
    }
    let allocs: Vec<alloc::Counts> = subjects
        .iter()
        .map(|s| alloc::measure(|| s.pass(&lines)).1)
        .collect();
    let secs = interleaved(&subjects, &lines, rounds);
    println!("| step | ns/URL (median) | added ns/URL | ratio to ada (median) | Rust allocs/URL |");
    println!("|---|---:|---:|---:|---:|");
    let mut prev: Option<f64> = None;
    for (i, name) in names.iter().enumerate() {
        let (med, _, rmed, _, _) = summarize(&secs, i, 0, n);
        let added = match (i, prev) {
            (0, _) | (_, None) => String::new(),
            _ if i + 1 == names.len() => String::new(),
            (_, Some(p)) => format!("{:+.1}", med - p),
        };
        println!(
            "| {name} | {med:.1} | {added} | {rmed:.3}x | {:.2} |",
            allocs[i].calls as f64 / n as f64
        );
        if i > 0 {
            prev = Some(med);
        }
    }
    Ok(())
}

/// `urlkey key --format key` as the lean path would run it, whole process: the file read
/// once, lines borrowed (no String per line), blank and `#` lines skipped, one key (or an
/// empty line) per record, no Public Suffix List parse. Measures what the whole-process
/// key path could cost at best; not a replacement for the CLI.
fn proto_key_cmd(args: &[String]) -> Result<(), String> {
    let (flag_args, file) = match args.split_last() {
        Some((f, rest)) if !f.starts_with("--") => (rest, f),
        _ => return Err("proto-key needs a FILE".into()),
    };
    let flags = Flags::new(flag_args, &["--policy"], &[])?;
    let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let mut citation = urlkey_bench::proto::LeanCitation::new();
    let document = urlkey_bench::proto::LeanDocument::new();
    let use_doc = match flags.value("--policy").unwrap_or("citation@1") {
        "citation@1" => false,
        "document@1" => true,
        p => return Err(format!("proto-key: no prototype for {p}")),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut key = String::with_capacity(256);
    for line in bytes.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let t = line.trim_ascii();
        if t.is_empty() || t[0] == b'#' {
            continue;
        }
        let ok = match std::str::from_utf8(line) {
            Ok(s) if use_doc => document.key_into(s, &mut key).is_ok(),
            Ok(s) => citation.key_into(s, &mut key).is_ok(),
            Err(_) => false,
        };
        if ok {
            out.write_all(key.as_bytes()).map_err(|e| e.to_string())?;
        }
        out.write_all(b"\n").map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}

/// The whole-process floor of `urlkey key` (docs/benchmarks.md, "The floor target as a
/// whole process"): what a program that only parses costs.
/// Reads FILE at once, and for each line (a line end and a leading BOM removed, blank and
/// `#` lines skipped, as `urlkey key` does) writes ada's `href`, or an empty line where ada
/// refuses. One thread, one buffered write.
fn ada_href_cmd(args: &[String]) -> Result<(), String> {
    let [file] = args else {
        return Err("ada-href needs a FILE".into());
    };
    let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    for line in bytes.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let t = line.trim_ascii();
        if t.is_empty() || t[0] == b'#' {
            continue;
        }
        if let Ok(Ok(u)) = std::str::from_utf8(line).map(|s| ada_url::Url::parse(s, None)) {
            out.write_all(u.href().as_bytes())
                .map_err(|e| e.to_string())?;
        }
        out.write_all(b"\n").map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}
