//! Map runs end to end: spilled and keyed-again rows, several inputs, Parquet rows.

use super::*;
use crate::input::Skipped;
use crate::rows::{OutputFormat, RecordWriter, Tail};
use std::sync::Mutex;
use urlkey::{ErrorCode, KeyError};

/// What [`Given`] says it reads a line.
const BYTES_PER_LINE: u64 = 1000;

/// Records given in memory, as a reader would hand them over.
struct Given {
    records: std::collections::VecDeque<InputRecord>,
    lines: u64,
}

impl RecordSource for Given {
    fn next_batch(&mut self, out: &mut Vec<InputRecord>, max: usize) -> Result<bool, InputError> {
        for r in self.records.drain(..max.min(self.records.len())) {
            self.lines = r.line;
            out.push(r);
        }
        Ok(!self.records.is_empty())
    }
    fn skipped(&self) -> Skipped {
        Skipped::default()
    }
    fn lines_read(&self) -> u64 {
        self.lines
    }
    fn bytes_read(&self) -> u64 {
        self.lines * BYTES_PER_LINE
    }
}

/// A file of the shared corpus's `others` folder (`../shared/datasets`, beside the
/// repository).
pub(crate) fn corpus(file: &str) -> String {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/datasets/ada-url-various-datasets/others"
    );
    std::fs::read_to_string(format!("{dir}/{file}")).expect("the corpus")
}

/// Two inputs' records, with kept cells: the corpus's web lines, repeated so that
/// keys repeat, and the cells that a row quotes or marks as text, reading problems,
/// and records that a policy refuses.
fn records(corpus_lines: usize) -> Vec<InputRecord> {
    let text = corpus("userbait.txt");
    let mut lines: Vec<String> = [
        "https://Example.com/a/?utm_source=x&b=2&a=1&gclid=1#f",
        "https://example.com/a/?b=3&a=1",
        "https://example.com/a/?a=1&b=2",
        "https://example.com/a,b?c=\"d\"",
        "=HYPERLINK(\"https://evil.example\")",
        "+https://example.com/plus",
        "-https://example.com/minus",
        "@https://example.com/at",
        "https://example.com/tab\tinside",
        "/path/only?x=1&fbclid=2",
        "mailto:a@b.example",
        "not a url",
        "",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    lines.extend(text.lines().take(corpus_lines).map(str::to_string));
    let n = lines.len();
    // Every line again, later: duplicates whose first record is far away.
    lines.extend_from_within(..n);
    lines
        .into_iter()
        .enumerate()
        .map(|(i, s)| InputRecord {
            line: i as u64 + 1,
            problem: (i % 997 == 5)
                .then(|| KeyError::new(ErrorCode::InputInvalidUtf8, "invalid UTF-8 at byte 3")),
            observed: s,
            source: (i % 3 == 0) as u32,
            kept: vec![format!("k,{i}"), format!("=cell {i}")],
            ..InputRecord::default()
        })
        .collect()
}

struct Ran {
    bytes: Vec<u8>,
    summary: String,
    notices: Vec<String>,
}

fn run(
    policy: &str,
    recs: &[InputRecord],
    format: OutputFormat,
    threads: usize,
    spill: Option<&dyn Fn() -> std::io::Result<spill::Spill>>,
) -> Ran {
    let open = || -> Result<Box<dyn RecordSource>, InputError> {
        Ok(Box::new(Given {
            records: recs.iter().cloned().collect(),
            lines: 0,
        }))
    };
    run_with(policy, &open, format, threads, spill)
}

/// [`run`] with an input that `open` gives, spilling or not.
fn run_open(
    policy: &str,
    open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
    format: OutputFormat,
    threads: usize,
    spill: bool,
) -> Ran {
    let make = &spill::Spill::create as &dyn Fn() -> std::io::Result<spill::Spill>;
    run_with(policy, open, format, threads, spill.then_some(make))
}

fn run_with(
    policy: &str,
    open: &dyn Fn() -> Result<Box<dyn RecordSource>, InputError>,
    format: OutputFormat,
    threads: usize,
    spill: Option<&dyn Fn() -> std::io::Result<spill::Spill>>,
) -> Ran {
    let policy = urlkey::PolicySet::builtin().get(policy).unwrap();
    let pipeline = Pipeline::new(threads).unwrap();
    let sources = ["one.txt".to_string(), "two, \"2\".txt".to_string()];
    let notices = Mutex::new(Vec::new());
    let notice = |m: &str| notices.lock().unwrap().push(m.to_string());
    let run = MapRun {
        policy: &policy,
        pipeline: &pipeline,
        verify_fingerprints: true,
        groups: false,
        progress: None,
        notice: Some(&notice),
        sources: &sources,
        spill: spill.is_some(),
    };
    let tail = Tail {
        sources: true,
        kept: vec!["a".into(), "b".into()],
    };
    let mut writer = RecordWriter::new(format, Vec::new()).with_tail(tail);
    let summary = match spill {
        Some(make) => run.run_with_spill(open, &mut writer, make),
        None => run.run(open, &mut writer),
    }
    .unwrap();
    ran(summary, writer, notices)
}

fn ran(summary: MapSummary, writer: RecordWriter<Vec<u8>>, notices: Mutex<Vec<String>>) -> Ran {
    let mut summary = serde_json::to_value(&summary).unwrap();
    summary["elapsed_seconds"] = 0.into();
    summary["lines_per_second"] = 0.into();
    summary["threads"] = 0.into();
    Ran {
        bytes: writer.finish().unwrap(),
        summary: summary.to_string(),
        notices: notices.into_inner().unwrap(),
    }
}

fn assert_same(a: &Ran, b: &Ran, what: &str) {
    assert_eq!(a.summary, b.summary, "{what}");
    if a.bytes != b.bytes {
        let (a, b) = (
            String::from_utf8_lossy(&a.bytes),
            String::from_utf8_lossy(&b.bytes),
        );
        let at = a.lines().zip(b.lines()).position(|(x, y)| x != y);
        let line = |t: &str| at.and_then(|i| t.lines().nth(i)).unwrap_or("").to_string();
        panic!(
            "{what}: rows differ at row {at:?}:\n{}\n{}",
            line(&a),
            line(&b)
        );
    }
}

/// `map` closes its grouping on the run's threads from a block of keys on (docs/cli.md).
#[test]
fn the_step_between_the_passes_takes_the_runs_threads_from_2_20_keys() {
    assert_eq!(close_threads(0, 2), 1);
    assert_eq!(close_threads((1 << 20) - 1, 2), 1);
    assert_eq!(close_threads(1 << 20, 2), 2);
    assert_eq!(close_threads(5_000_000, 3), 3);
    assert_eq!(close_threads(5_000_000, 1), 1);
}

/// The rows pass one keeps in the temporary file are the rows pass two writes when
/// it keys every record again: byte for byte, CSV and TSV, one thread and two, with
/// every kind of cell and both tail parts (the inputs' names and kept cells).
#[test]
fn spilled_rows_equal_rows_keyed_again() {
    let recs = records(6000);
    assert!(recs.len() > 2 * crate::pipeline::PARALLEL_BATCH);
    for format in [OutputFormat::Csv, OutputFormat::Tsv] {
        let again = run("mapper@1", &recs, format, 1, None);
        assert!(again.bytes.len() > 100_000);
        for threads in [1, 2] {
            let spilled = run(
                "mapper@1",
                &recs,
                format,
                threads,
                Some(&spill::Spill::create),
            );
            assert_same(&spilled, &again, &format!("{format:?}, {threads} threads"));
            assert!(spilled.notices.is_empty(), "{:?}", spilled.notices);
        }
    }
    let few = records(300);
    for id in urlkey::internals::policy::builtin_variants() {
        let again = run(&id, &few, OutputFormat::Csv, 1, None);
        let spilled = run(&id, &few, OutputFormat::Csv, 2, Some(&spill::Spill::create));
        assert_same(&spilled, &again, &id);
    }
}

/// A temporary file that cannot be made, or that fills up: the run says so and keys
/// every record again; its rows are the same.
#[test]
fn a_spill_that_fails_gives_the_same_rows() {
    let recs = records(6000);
    let again = run("mapper@1", &recs, OutputFormat::Csv, 1, None);
    let cannot_make = || -> std::io::Result<spill::Spill> {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no such directory",
        ))
    };
    let full = || -> std::io::Result<spill::Spill> {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/full")
            .map(spill::Spill::in_file)
    };
    for threads in [1, 2] {
        for (make, says) in [
            (
                &cannot_make as &dyn Fn() -> std::io::Result<spill::Spill>,
                "cannot make",
            ),
            (&full, "cannot write"),
        ] {
            let ran = run("mapper@1", &recs, OutputFormat::Csv, threads, Some(make));
            assert_same(&ran, &again, says);
            assert_eq!(ran.notices.len(), 1, "{:?}", ran.notices);
            assert!(ran.notices[0].starts_with(says), "{:?}", ran.notices);
            assert!(ran.notices[0].contains("TMPDIR"), "{:?}", ran.notices);
        }
    }
}

/// CSV rows with `tail`, from one input.
fn csv_shape(tail: &Tail) -> RowShape<'_> {
    RowShape {
        delimiter: b',',
        tail,
        sources: &[],
    }
}

/// The counting thread's part of an entry takes a byte a record where the ordinals
/// are small or the key is new, and pass two's rows from it are the rows of the run
/// that keys every record again: a chunk of new and repeated keys, then the same
/// records again, all known.
#[test]
fn a_spill_head_codes_a_new_key_in_a_byte() {
    let recs = records(60);
    let policy = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
    let tail = Tail::default();
    let shape = csv_shape(&tail);
    let s = spill::Spill::in_file(tempfile::tempfile().unwrap());
    let mut grouping = Grouping::new("mapper@1", false, false);
    let mut places = Vec::new();
    for _ in 0..2 {
        let mut piece = spill::piece(&policy, &recs, false, &shape);
        s.put_piece(&mut piece);
        let mut ordinals = Vec::new();
        let base = grouping.key_states_len();
        grouping
            .insert_chunk_placed(piece.counted.clone(), &mut |o| ordinals.push(o))
            .unwrap();
        assert!(grouping.key_states_len() < 126, "ordinals in one byte");
        let place = s
            .put_head(&mut piece, &ordinals, base, &mut Vec::new())
            .unwrap();
        assert_eq!(place.head_bytes(), 12 + recs.len());
        places.push(place);
    }
    grouping.close();
    let (mut scratch, mut entry) = (RowScratch::default(), Vec::new());
    let mut lean = LeanRow::default();
    for place in &places {
        s.read_entry(place, &mut entry).unwrap();
        let mut out = Vec::new();
        let again = kept_rows(
            &entry,
            &recs,
            &policy,
            &grouping,
            &shape,
            &mut scratch,
            &mut out,
        )
        .unwrap();
        assert_eq!(again, 0);
        let mut want = Vec::new();
        for r in &recs {
            keyed_row(&grouping, &policy, r, &[], &mut lean, |row| {
                crate::rows::csv::push_map_row(&mut want, b',', row, &tail)
            });
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            String::from_utf8(want).unwrap()
        );
    }
}

/// A damaged entry is an error, never a panic or a wrong row.
#[test]
fn a_damaged_spill_entry_is_an_error() {
    let recs = records(50);
    let policy = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
    let tail = Tail::default();
    let shape = csv_shape(&tail);
    let mut piece = spill::piece(&policy, &recs, false, &shape);
    let mut grouping = Grouping::new("mapper@1", false, false);
    let mut ordinals = Vec::new();
    let base = grouping.key_states_len();
    grouping
        .insert_chunk_placed(piece.counted.clone(), &mut |o| ordinals.push(o))
        .unwrap();
    grouping.close();
    let file = tempfile::tempfile().unwrap();
    let s = spill::Spill::in_file(file.try_clone().unwrap());
    s.put_piece(&mut piece);
    let place = s
        .put_head(&mut piece, &ordinals, base, &mut Vec::new())
        .unwrap();
    let mut entry = Vec::new();
    s.read_entry(&place, &mut entry).unwrap();
    let mut scratch = RowScratch::default();
    let mut rows = |entry: &[u8], out: &mut Vec<u8>| {
        kept_rows(entry, &recs, &policy, &grouping, &shape, &mut scratch, out)
    };
    let mut out = Vec::new();
    assert_eq!(rows(&entry, &mut out).unwrap(), 0);
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), recs.len());
    for cut in [0, 3, 4, 20, entry.len() / 2, entry.len() - 1] {
        let mut out = Vec::new();
        let e = rows(&entry[..cut], &mut out).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "cut at {cut}");
    }
    // Any byte changed: an error or rows, never a panic.
    for i in 0..entry.len() {
        for flip in [0xff, 0x80, 0x01] {
            let mut bad = entry.clone();
            bad[i] ^= flip;
            let mut out = Vec::new();
            let _ = rows(&bad, &mut out);
        }
    }
    // Ordinals this grouping does not have (the first new key's, from the base).
    let mut bad = entry.clone();
    bad[4..8].copy_from_slice(&(1u32 << 30).to_le_bytes());
    let mut out = Vec::new();
    assert!(rows(&bad, &mut out).is_err());
    // A file shorter than the index says.
    file.set_len(10).unwrap();
    let e = s.read_entry(&place, &mut entry).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
    // A piece whose ordinals are not its records'.
    let mut piece = spill::piece(&policy, &recs, false, &shape);
    s.put_piece(&mut piece);
    assert!(s
        .put_head(&mut piece, &ordinals[1..], base, &mut Vec::new())
        .is_err());
}

/// An input that changes between the passes (records edited, moved, dropped and
/// added): the spilling run writes the rows that the run keying every record again
/// writes, and says how many records it keyed again.
#[test]
fn an_input_changed_between_the_passes_gets_rows_keyed_again() {
    let first = records(3000);
    let mut second = first.clone();
    // Same place, another text (a host that keys elsewhere, a refused one).
    second[7].observed = "https://changed.example/x?utm_source=1".into();
    second[40].observed = "not a url any more".into();
    // Same text, another place.
    second[100].line += 1_000_000;
    // Kept cells only: not keyed again (they are read in pass two anyway).
    second[200].kept[0] = "edited".into();
    // Dropped in the middle, and records added at the end, past every entry.
    second.remove(5000);
    let extra: Vec<InputRecord> = first[..700]
        .iter()
        .map(|r| InputRecord {
            line: r.line + 5_000_000,
            ..r.clone()
        })
        .collect();
    second.extend(extra);
    let (first, second) = (&first, &second);
    for threads in [1, 2] {
        let open_twice = |spill: bool| {
            let calls = std::sync::atomic::AtomicUsize::new(0);
            let open = move || -> Result<Box<dyn RecordSource>, InputError> {
                let n = calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let recs = if n == 0 { first } else { second };
                Ok(Box::new(Given {
                    records: recs.iter().cloned().collect(),
                    lines: 0,
                }))
            };
            run_open("mapper@1", &open, OutputFormat::Csv, threads, spill)
        };
        let spilled = open_twice(true);
        let again = open_twice(false);
        assert_same(&spilled, &again, &format!("{threads} threads"));
        assert!(again.notices.is_empty(), "{:?}", again.notices);
        assert_eq!(spilled.notices.len(), 1, "{:?}", spilled.notices);
        // Records 7, 40 and 100, the records after the dropped one (each is read
        // beside the entry of the record before it), and the 700 added (the first of
        // them beside the last entry).
        let n: usize = spilled.notices[0]
            .strip_prefix("the input changed while map ran: ")
            .and_then(|m| m.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{:?}", spilled.notices));
        assert_eq!(
            n,
            3 + (first.len() - 1 - 5000) + 700,
            "{:?}",
            spilled.notices
        );
    }
    // An input cut short: the rows of the records still there, and nothing else.
    let cut = &first[..first.len() - 300];
    let open = || -> Result<Box<dyn RecordSource>, InputError> {
        Ok(Box::new(Given {
            records: first.iter().cloned().collect(),
            lines: 0,
        }))
    };
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let open_cut = || -> Result<Box<dyn RecordSource>, InputError> {
        if calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) == 0 {
            return open();
        }
        Ok(Box::new(Given {
            records: cut.iter().cloned().collect(),
            lines: 0,
        }))
    };
    let spilled = run_open("mapper@1", &open_cut, OutputFormat::Csv, 2, true);
    let whole = run_open("mapper@1", &open, OutputFormat::Csv, 2, true);
    assert!(whole.notices.is_empty(), "{:?}", whole.notices);
    let rows = |r: &Ran| String::from_utf8(r.bytes.clone()).unwrap();
    let (spilled_rows, whole_rows) = (rows(&spilled), rows(&whole));
    let kept_rows: Vec<&str> = whole_rows.split_inclusive("\r\n").collect();
    assert_eq!(spilled_rows, kept_rows[..kept_rows.len() - 300].concat());
    assert!(
        spilled.notices[0].starts_with("the input changed while map ran: 300 records"),
        "{:?}",
        spilled.notices
    );
}

/// A small generator of random inputs (xorshift64*), so that the test needs no crate.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// A random URL from a few hosts, paths and parameters, so that keys and signatures
/// repeat across inputs; now and then one a policy refuses.
fn random_url(rng: &mut Rng) -> String {
    const HOSTS: [&str; 3] = ["a.example", "B.example", "z.example:8080"];
    const PATHS: [&str; 3] = ["/1", "/p/q", "/9"];
    const PARAMS: [&str; 5] = ["id=1", "id=2", "x=1", "utm_source=z", "b=3"];
    if rng.below(12) == 0 {
        return "javascript:alert(1)".into();
    }
    let mut u = format!(
        "https://{}{}",
        HOSTS[rng.below(HOSTS.len())],
        PATHS[rng.below(PATHS.len())]
    );
    for i in 0..rng.below(3) {
        u.push(if i == 0 { '?' } else { '&' });
        u.push_str(PARAMS[rng.below(PARAMS.len())]);
    }
    u
}

/// A random input file: plain lines (with blank and comment lines) or CSV (with a
/// header, blank lines and quoted cells across lines, which number lines apart from
/// records), with or without a last line end.
fn random_input(rng: &mut Rng, csv: bool) -> String {
    let mut t = String::new();
    if csv {
        t.push_str("Address,Note\r\n");
    }
    for _ in 0..rng.below(40) {
        match rng.below(10) {
            0 => t.push('\n'),
            1 if !csv => t.push_str("# a comment\n"),
            2 if csv => t.push_str(&format!("{},\"two\nlines\"\r\n", random_url(rng))),
            _ if csv => t.push_str(&format!("{},n\r\n", random_url(rng))),
            _ => t.push_str(&format!("{}\n", random_url(rng))),
        }
    }
    if rng.below(3) == 0 {
        t.pop();
    }
    t
}

/// The JSON rows of a run's output, one per line.
fn json_rows(bytes: &[u8]) -> Vec<serde_json::Value> {
    std::str::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Over random runs of two to four inputs (plain lines and CSV), each record's
/// `run_line` names it alone; records share a `group` exactly when they share a
/// signature, the group being the least `run_line` of its records; `duplicate_of` is
/// the least `run_line` of the records with the row's key, empty on that record; CSV
/// and TSV rows (spilled or keyed again) and `--groups` rows give the same ids as
/// JSONL. With one input the ids are the lines and no `run_line` is written.
#[test]
fn several_inputs_give_ids_that_name_one_record_each() {
    use crate::input::{ChainSource, InputFormat, ReadOptions, Source};
    use std::collections::{BTreeSet, HashMap};
    let policy = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut checked = 0;
    for round in 0..40 {
        let dir = tempfile::tempdir().unwrap();
        let csv = round % 2 == 1;
        let n = if round % 10 == 0 { 1 } else { 2 + rng.below(3) };
        let paths: Vec<std::path::PathBuf> = (0..n)
            .map(|i| {
                let p = dir.path().join(format!("in{i}"));
                std::fs::write(&p, random_input(&mut rng, csv)).unwrap();
                p
            })
            .collect();
        let opts = ReadOptions {
            format: if csv {
                InputFormat::Csv
            } else {
                InputFormat::Lines
            },
            column: csv.then(|| "Address".to_string()),
            headers: csv,
            ..ReadOptions::default()
        };
        let open = || -> Result<Box<dyn RecordSource>, InputError> {
            let sources = paths.iter().cloned().map(Source::File).collect();
            Ok(Box::new(ChainSource::new(sources, opts.clone())?))
        };
        let names: Vec<String> = if n > 1 {
            (0..n).map(|i| format!("in{i}")).collect()
        } else {
            Vec::new()
        };
        let pipeline = Pipeline::new(1 + round % 2).unwrap();
        let map = |format: OutputFormat, groups: bool, spill: bool| {
            let run = MapRun {
                policy: &policy,
                pipeline: &pipeline,
                verify_fingerprints: false,
                groups,
                progress: None,
                notice: None,
                sources: &names,
                spill,
            };
            let tail = Tail {
                sources: n > 1,
                kept: Vec::new(),
            };
            let mut w = RecordWriter::new(format, Vec::new()).with_tail(tail);
            run.run(&open, &mut w).unwrap();
            w.finish().unwrap()
        };
        let rows = json_rows(&map(OutputFormat::Jsonl, false, false));
        let id = |r: &serde_json::Value| {
            if n > 1 {
                r["run_line"].as_u64().expect("a numeric run_line")
            } else {
                assert!(r.get("run_line").is_none());
                r["line"].as_u64().unwrap()
            }
        };
        let ids: Vec<u64> = rows.iter().map(id).collect();
        assert_eq!(
            ids.iter().collect::<BTreeSet<_>>().len(),
            ids.len(),
            "ids repeat"
        );
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids in input order");
        let (mut first_of_sig, mut first_of_key) = (HashMap::new(), HashMap::new());
        for (r, &i) in rows.iter().zip(&ids) {
            if let (Some(s), Some(k)) = (r["signature"].as_str(), r["key"].as_str()) {
                first_of_sig.entry(s.to_string()).or_insert(i);
                first_of_key.entry(k.to_string()).or_insert(i);
            }
        }
        let mut sig_of_group: HashMap<u64, String> = HashMap::new();
        for (r, &i) in rows.iter().zip(&ids) {
            let Some(sig) = r["signature"].as_str() else {
                assert!(r["group"].is_null() && r["duplicate_of"].is_null());
                continue;
            };
            let group = r["group"].as_u64().unwrap();
            assert_eq!(group, first_of_sig[sig], "{r}");
            let known = sig_of_group.entry(group).or_insert_with(|| sig.to_string());
            assert_eq!(known, sig, "one group, two signatures: {r}");
            let first = first_of_key[r["key"].as_str().unwrap()];
            assert_eq!(r["duplicate_of"].as_u64(), (first != i).then_some(first));
            checked += 1;
        }
        // The other formats and paths give the same ids.
        for (format, spill) in [
            (OutputFormat::Csv, true),
            (OutputFormat::Csv, false),
            (OutputFormat::Tsv, true),
        ] {
            let bytes = map(format, false, spill);
            let d = if format == OutputFormat::Tsv {
                b'\t'
            } else {
                b','
            };
            let mut r = csv::ReaderBuilder::new()
                .delimiter(d)
                .from_reader(&bytes[..]);
            let header = r.headers().unwrap().clone();
            let at = |name: &str| header.iter().position(|h| h == name);
            assert_eq!(at("run_line").is_some(), n > 1);
            let (g, dup) = (at("group").unwrap(), at("duplicate_of").unwrap());
            let own = at("run_line").unwrap_or(0);
            let got: Vec<[String; 3]> = r
                .records()
                .map(|rec| {
                    let rec = rec.unwrap();
                    [own, g, dup].map(|c| rec[c].to_string())
                })
                .collect();
            let want: Vec<[String; 3]> = rows
                .iter()
                .zip(&ids)
                .map(|(r, i)| {
                    let cell =
                        |v: &serde_json::Value| v.as_u64().map_or(String::new(), |n| n.to_string());
                    [i.to_string(), cell(&r["group"]), cell(&r["duplicate_of"])]
                })
                .collect();
            assert_eq!(got, want, "{format:?} spill {spill}");
        }
        let groups = json_rows(&map(OutputFormat::Jsonl, true, false));
        assert_eq!(groups.len(), first_of_sig.len());
        for g in &groups {
            let sig = g["signature"].as_str().unwrap();
            assert_eq!(g["group"].as_u64(), Some(first_of_sig[sig]), "{g}");
            let want: Vec<u64> = rows
                .iter()
                .zip(&ids)
                .filter(|(r, _)| r["signature"].as_str() == Some(sig))
                .map(|(_, &i)| i)
                .take(5)
                .collect();
            let samples: Vec<u64> = g["sample_lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(samples, want, "{g}");
        }
    }
    assert!(checked > 1000, "{checked} valid rows checked");
}

/// Parquet rows of a run of several inputs: `run_line` is an `int64` column beside
/// `group` and `duplicate_of`, whose ids are run lines there too; ids that were the
/// same line of two inputs are distinct.
#[cfg(feature = "parquet")]
#[test]
fn parquet_rows_of_several_inputs_carry_run_lines() {
    use crate::input::{ChainSource, InputFormat, ReadOptions, Source};
    use arrow_array::{Array, Int64Array, StringArray};
    let policy = urlkey::PolicySet::builtin().get("mapper@1").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.csv");
    let b = dir.path().join("b.csv");
    std::fs::write(
        &a,
        "Address\nhttps://a.example/1\nhttps://a.example/1?x=1\n",
    )
    .unwrap();
    std::fs::write(&b, "Address\nhttps://z.example/9\nhttps://a.example/1\n").unwrap();
    let opts = ReadOptions {
        format: InputFormat::Csv,
        column: Some("Address".into()),
        ..ReadOptions::default()
    };
    let open = || -> Result<Box<dyn RecordSource>, InputError> {
        let sources = vec![Source::File(a.clone()), Source::File(b.clone())];
        Ok(Box::new(ChainSource::new(sources, opts.clone())?))
    };
    let names = ["a.csv".to_string(), "b.csv".to_string()];
    let pipeline = Pipeline::new(1).unwrap();
    let run = MapRun {
        policy: &policy,
        pipeline: &pipeline,
        verify_fingerprints: false,
        groups: false,
        progress: None,
        notice: None,
        sources: &names,
        spill: true,
    };
    let tail = Tail {
        sources: true,
        kept: Vec::new(),
    };
    let mut w = RecordWriter::new(OutputFormat::Parquet, Vec::new()).with_tail(tail);
    run.run(&open, &mut w).unwrap();
    let mut f = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut f, &w.finish().unwrap()).unwrap();
    std::io::Seek::rewind(&mut f).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f).unwrap();
    let batch = reader.build().unwrap().next().unwrap().unwrap();
    let ints = |name: &str| -> Vec<Option<i64>> {
        let c = batch.column_by_name(name).expect(name);
        let c = c.as_any().downcast_ref::<Int64Array>().expect("int64");
        (0..c.len())
            .map(|i| c.is_valid(i).then(|| c.value(i)))
            .collect()
    };
    let texts = |name: &str| -> Vec<Option<String>> {
        let c = batch.column_by_name(name).expect(name);
        let c = c.as_any().downcast_ref::<StringArray>().expect("string");
        (0..c.len())
            .map(|i| c.is_valid(i).then(|| c.value(i).to_string()))
            .collect()
    };
    // a.csv has 3 lines: b.csv's lines 2 and 3 are run lines 5 and 6.
    assert_eq!(ints("line"), [Some(2), Some(3), Some(2), Some(3)]);
    assert_eq!(ints("run_line"), [Some(2), Some(3), Some(5), Some(6)]);
    // z.example/9 (b.csv line 2) and a.example/1 (a.csv line 2) had group 2 both.
    assert_eq!(ints("group"), [Some(2), Some(3), Some(5), Some(2)]);
    assert_eq!(ints("duplicate_of"), [None, None, None, Some(2)]);
    assert_eq!(
        texts("group_source"),
        ["a.csv", "a.csv", "b.csv", "a.csv"].map(|s| Some(s.to_string()))
    );
}
