//! One reader for every command (issue 48, parts 2 and 5): a stray quote never folds rows
//! into one cell, whatever the shape of the file (CSV, TSV, semicolon CSV, UTF-16 tab
//! text, gzip, standard input) and whichever command reads it (`key`, `map`, `diff`,
//! `ledger ingest`): every line comes out as a record, or the run refuses naming the line
//! where the quote opened (exit 3, `input.stray-quote`) and `--quote none`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_urlkey"))
}

/// Runs `urlkey args` in `dir`, with `stdin` as standard input.
fn run(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut input = child.stdin.take().expect("stdin");
    // A command that refuses early may close its input first: that is not a failure here.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("the binary ends")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The shapes of delimited text people have.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    Csv,
    Tsv,
    Semicolon,
    /// Excel's "Unicode text": UTF-16LE with a byte-order mark, tab-separated, `.txt`.
    Utf16Txt,
    /// CSV, gzipped.
    Gz,
    /// CSV on standard input.
    Stdin,
}

const SHAPES: [Shape; 6] = [
    Shape::Csv,
    Shape::Tsv,
    Shape::Semicolon,
    Shape::Utf16Txt,
    Shape::Gz,
    Shape::Stdin,
];

impl Shape {
    fn delimiter(self) -> &'static str {
        match self {
            Shape::Tsv | Shape::Utf16Txt => "\t",
            Shape::Semicolon => ";",
            _ => ",",
        }
    }
    /// The rows as this shape's bytes (CRLF line ends).
    fn bytes(self, rows: &[&[&str]]) -> Vec<u8> {
        let text: String = rows
            .iter()
            .map(|r| r.join(self.delimiter()) + "\r\n")
            .collect();
        match self {
            Shape::Utf16Txt => {
                let mut b = vec![0xFF, 0xFE];
                b.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
                b
            }
            Shape::Gz => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(text.as_bytes()).unwrap();
                e.finish().unwrap()
            }
            _ => text.into_bytes(),
        }
    }
    /// Writes the input into `dir`: its argument and what standard input gets.
    fn input(self, dir: &Path, rows: &[&[&str]]) -> (String, Vec<u8>) {
        let name = match self {
            Shape::Csv | Shape::Semicolon => "in.csv",
            Shape::Tsv => "in.tsv",
            Shape::Utf16Txt => "in.txt",
            Shape::Gz => "in.csv.gz",
            Shape::Stdin => return ("-".into(), self.bytes(rows)),
        };
        std::fs::write(dir.join(name), self.bytes(rows)).unwrap();
        (name.into(), Vec::new())
    }
}

const HEADER: &[&str] = &["observation_id", "title", "observed_url"];

/// A quote that opens a cell on line 3 and is closed inside a cell on line 5.
const MID_FILE: &[&[&str]] = &[
    HEADER,
    &["1", "ok", "https://a.example/1"],
    &["2", "\"stray", "https://a.example/2"],
    &["3", "x", "https://a.example/3"],
    &["4", "\"quoted\"", "https://a.example/4"],
    &["5", "y", "https://a.example/5"],
];

/// A quote that opens a cell on line 3 and is never closed.
const AT_EOF: &[&[&str]] = &[
    HEADER,
    &["1", "ok", "https://a.example/1"],
    &["2", "\"stray", "https://a.example/2"],
    &["3", "x", "https://a.example/3"],
    &["4", "y", "https://a.example/4"],
    &["5", "z", "https://a.example/5"],
];

/// Every command that reads a table, as arguments around the input (`diff` compares it
/// with a list in `list.txt`).
fn commands(input: &str) -> Vec<(&'static str, Vec<String>)> {
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    vec![
        (
            "key",
            s(&["key", "--column", "observed_url", "--format", "csv", input]),
        ),
        ("map", s(&["map", "--column", "observed_url", "-q", input])),
        (
            "diff",
            s(&[
                "diff",
                "--policy",
                "citation@1",
                "--column",
                "observed_url",
                "--format",
                "csv",
                input,
                "list.txt",
            ]),
        ),
        (
            "ledger",
            s(&[
                "ledger",
                "--db",
                "l.sqlite",
                "ingest",
                "--prompt-version",
                "v",
                "--answer-system",
                "a",
                "--market",
                "m",
                "--run-timestamp",
                "2026-01-01",
                "--collection",
                "c",
                input,
            ]),
        ),
    ]
}

fn dir_with_list() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("list.txt"), "https://a.example/1\n").unwrap();
    d
}

/// How many records the command says it read: `key` and `map` rows (CSV lines after the
/// header), `diff`'s old records (its rows for the old side), the ledger's rows read.
fn records(cmd: &str, out: &Output) -> usize {
    let text = String::from_utf8_lossy(&out.stdout);
    match cmd {
        "key" | "map" => text.lines().count() - 1,
        "diff" => text
            .lines()
            .skip(1)
            .filter(|l| l.starts_with("old,"))
            .count(),
        _ => {
            let n = text.split(" rows read").next().unwrap_or_default();
            n.rsplit(' ').next().unwrap_or_default().parse().unwrap()
        }
    }
}

fn refuses_at_line_3(rows: &[&[&str]], what: &str) {
    for shape in SHAPES {
        for (cmd, args) in commands("IN") {
            let d = dir_with_list();
            let (input, stdin) = shape.input(d.path(), rows);
            let mut args: Vec<String> = args
                .into_iter()
                .map(|a| if a == "IN" { input.clone() } else { a })
                .collect();
            let out = run(
                d.path(),
                &args.iter().map(String::as_str).collect::<Vec<_>>(),
                &stdin,
            );
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(3), "{cmd} {shape:?}: {err}");
            for want in ["line 3:", what, "[input.stray-quote]", "--quote none"] {
                assert!(err.contains(want), "{cmd} {shape:?}: {want:?} in {err}");
            }
            assert_eq!(
                err.matches("input.stray-quote").count(),
                1,
                "{cmd} {shape:?}: said once: {err}"
            );
            // Nothing was stored or written to a file.
            if cmd == "ledger" {
                let listed = run(d.path(), &["ledger", "--db", "l.sqlite", "export"], b"");
                let csv = String::from_utf8_lossy(&listed.stdout);
                assert!(csv.lines().count() <= 1, "{cmd} {shape:?}: {csv}");
            }
            // --quote none: every line is a record.
            let at = args.iter().position(|a| *a == input).unwrap();
            args.insert(at, "none".into());
            args.insert(at, "--quote".into());
            let (_, stdin) = shape.input(d.path(), rows);
            let out = run(
                d.path(),
                &args.iter().map(String::as_str).collect::<Vec<_>>(),
                &stdin,
            );
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{cmd} {shape:?} --quote none: {}",
                stderr(&out)
            );
            assert_eq!(records(cmd, &out), 5, "{cmd} {shape:?} --quote none");
        }
    }
}

#[test]
fn a_quote_closed_inside_a_later_cell_is_refused_by_every_command() {
    refuses_at_line_3(MID_FILE, "closed only on line 5, inside a cell");
}

#[test]
fn a_quote_never_closed_is_refused_by_every_command() {
    refuses_at_line_3(AT_EOF, "is never closed");
}

#[test]
fn legitimate_quoted_cells_are_read_by_every_command() {
    for shape in SHAPES {
        let d = shape.delimiter();
        let with_delim = format!("\"a{d} b \"\"c\"\"\"");
        let rows: &[&[&str]] = &[
            HEADER,
            &["1", &with_delim, "https://a.example/1"],
            &["2", "\"two\r\nlines\"", "\"https://a.example/2\""],
            &["3", "x", "https://a.example/3"],
        ];
        for (cmd, args) in commands("IN") {
            let dir = dir_with_list();
            let (input, stdin) = shape.input(dir.path(), rows);
            let args: Vec<&str> = args
                .iter()
                .map(|a| {
                    if a == "IN" {
                        input.as_str()
                    } else {
                        a.as_str()
                    }
                })
                .collect();
            let out = run(dir.path(), &args, &stdin);
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{cmd} {shape:?}: {}",
                stderr(&out)
            );
            assert_eq!(records(cmd, &out), 3, "{cmd} {shape:?}");
            if cmd == "key" {
                let text = String::from_utf8_lossy(&out.stdout);
                let lines: Vec<&str> = text
                    .lines()
                    .skip(1)
                    .map(|l| l.split(',').next().unwrap())
                    .collect();
                assert_eq!(lines, ["2", "3", "5"], "{shape:?}: physical lines");
            }
        }
    }
}

fn write_utf16(path: &PathBuf, text: &str) {
    let mut b = vec![0xFF, 0xFE];
    b.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    std::fs::write(path, b).unwrap();
}

/// `diff --column Address OLD.txt NEW.txt` with Excel's "Unicode text" reads the column,
/// as `map` does: the keys only on one side are the URLs only on one side.
#[test]
fn diff_reads_a_column_of_unicode_text_files_as_map_does() {
    let d = tempfile::tempdir().unwrap();
    let table = |range: std::ops::Range<u32>| -> String {
        let mut t = String::from("Address\tStatus Code\r\n");
        for i in range {
            t.push_str(&format!("https://a.example/p{i}\t200\r\n"));
        }
        t
    };
    write_utf16(&d.path().join("OLD.txt"), &table(0..50));
    write_utf16(&d.path().join("NEW.txt"), &table(3..50));
    std::fs::write(
        d.path().join("list.txt"),
        (3..50)
            .map(|i| format!("https://a.example/p{i}\n"))
            .collect::<String>(),
    )
    .unwrap();
    let json = |new: &str| -> serde_json::Value {
        let out = run(
            d.path(),
            &[
                "diff",
                "--policy",
                "citation@1",
                "--column",
                "Address",
                "--format",
                "json",
                "OLD.txt",
                new,
            ],
            b"",
        );
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    for new in ["NEW.txt", "list.txt"] {
        let r = json(new);
        assert_eq!(r["only_old"]["keys"], 3, "{new}: {r}");
        assert_eq!(r["only_new"]["keys"], 0, "{new}: {r}");
        assert_eq!(r["both"]["keys"], 47, "{new}: {r}");
        assert_eq!(r["old"]["records"], 50, "{new}");
    }
    // The list side is said to be a list, once.
    let out = run(
        d.path(),
        &[
            "diff",
            "--policy",
            "citation@1",
            "--column",
            "Address",
            "OLD.txt",
            "list.txt",
        ],
        b"",
    );
    let err = stderr(&out);
    assert_eq!(
        err.matches("names no column \"Address\"").count(),
        1,
        "{err}"
    );
    // map reads the same file the same way.
    let out = run(
        d.path(),
        &["map", "--column", "Address", "-q", "OLD.txt"],
        b"",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 51);
}

#[test]
fn hints_name_a_flag_the_command_has_and_are_given_once() {
    let d = tempfile::tempdir().unwrap();
    // A crawler's title line above the header.
    let mut crawl = String::from("\"Internal - All\"\r\nAddress,Status Code\r\n");
    for i in 0..100 {
        crawl.push_str(&format!("https://a.example/{i},200\r\n"));
    }
    std::fs::write(d.path().join("crawl.csv"), &crawl).unwrap();
    for cmd in [
        &["key", "--column", "Address", "crawl.csv"][..],
        &["map", "--column", "Address", "crawl.csv"],
    ] {
        let out = run(d.path(), cmd, b"");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(3), "{cmd:?}: {err}");
        assert_eq!(err.matches("--skip-rows 1").count(), 1, "{cmd:?}: {err}");
        let mut fixed = cmd.to_vec();
        fixed.splice(1..1, ["--skip-rows", "1", "-q"]);
        let out = run(d.path(), &fixed, b"");
        assert!(out.status.success(), "{fixed:?}: {}", stderr(&out));
    }
    // A tab-separated table read as a list, without --column.
    let mut tsv = String::from("Address\tStatus Code\n");
    for i in 0..100 {
        tsv.push_str(&format!("https://a.example/{i}\t200\n"));
    }
    std::fs::write(d.path().join("export.txt"), &tsv).unwrap();
    for cmd in [&["key", "export.txt"][..], &["map", "export.txt"]] {
        let err = stderr(&run(d.path(), cmd, b""));
        assert_eq!(
            err.matches("name the URL's column with --column NAME")
                .count(),
            1,
            "{cmd:?}: {err}"
        );
    }
    // ledger ingest: a detected delimiter names --delimiter, which it now has.
    let semi = "observation_id;observed_url;prompt_version;answer_system;market;run_timestamp;collection\n\
                1;https://a.example/1;v;a;m;2026-01-01;c\n";
    std::fs::write(d.path().join("semi.csv"), semi).unwrap();
    let out = run(
        d.path(),
        &["ledger", "--db", "h.sqlite", "ingest", "semi.csv"],
        b"",
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches("--delimiter C").count(), 1, "{err}");
    let out = run(
        d.path(),
        &[
            "ledger",
            "--db",
            "h2.sqlite",
            "ingest",
            "--delimiter",
            ";",
            "semi.csv",
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // ledger ingest: a field without a column is listed once, with the rows that lack it.
    let mut no_market = String::from("observation_id,observed_url\n");
    for i in 0..150 {
        no_market.push_str(&format!("o{i},https://a.example/{i}\n"));
    }
    std::fs::write(d.path().join("nomarket.csv"), no_market).unwrap();
    let out = run(
        d.path(),
        &[
            "ledger",
            "--db",
            "h3.sqlite",
            "ingest",
            "--prompt-version",
            "v",
            "--answer-system",
            "a",
            "--run-timestamp",
            "2026-01-01",
            "--collection",
            "c",
            "nomarket.csv",
        ],
        b"",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(err.matches("column market").count(), 1, "{err}");
    assert!(
        err.contains("the header has no market column: 150 rows lack it (lines 2 to 151)"),
        "{err}"
    );
    assert!(err.contains("--market"), "{err}");
}

/// Every flag the reader's advice names (`--quote none`, `--skip-rows N`, `--column NAME`,
/// `--delimiter C`) is a flag of each command that can give that advice.
#[test]
fn the_flags_advice_names_are_flags_of_the_command() {
    let d = tempfile::tempdir().unwrap();
    let help = |args: &[&str]| -> String {
        let out = run(d.path(), args, b"");
        assert!(out.status.success(), "{args:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for cmd in ["key", "map", "diff"] {
        let h = help(&[cmd, "--help"]);
        for flag in ["--quote", "--skip-rows", "--column", "--delimiter"] {
            assert!(h.contains(flag), "urlkey {cmd} has {flag}");
        }
    }
    let h = help(&["ledger", "ingest", "--help"]);
    for flag in ["--quote", "--delimiter"] {
        assert!(h.contains(flag), "urlkey ledger ingest has {flag}");
    }
    // The ledger has no --skip-rows or --column: its messages never name them.
    let d2 = d.path();
    std::fs::write(
        d2.join("t.csv"),
        "\"Internal - All\"\nobservation_id,observed_url\n1,https://a/\n",
    )
    .unwrap();
    let err = stderr(&run(
        d2,
        &["ledger", "--db", "x.sqlite", "ingest", "t.csv"],
        b"",
    ));
    assert!(
        !err.contains("--skip-rows") && !err.contains("--column "),
        "{err}"
    );
}
