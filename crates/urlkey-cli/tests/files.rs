//! Real files in, nothing destroyed out: the inputs people have (crawler CSVs,
//! Windows line ends, UTF-16 and legacy encodings, semicolon CSVs, spreadsheets, binary
//! junk, empty files) and outputs that are never lost, run through the binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_urlkey"))
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

fn ok_in(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, args);
    assert!(
        out.status.success(),
        "urlkey {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The rows of CSV output as maps from column to cell.
fn rows(csv_text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut r = csv::ReaderBuilder::new().from_reader(csv_text.as_bytes());
    let headers = r.headers().expect("header").clone();
    r.records()
        .map(|rec| {
            let rec = rec.expect("row");
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn col(rows: &[std::collections::BTreeMap<String, String>], name: &str) -> Vec<String> {
    rows.iter()
        .map(|r| r.get(name).cloned().unwrap_or_default())
        .collect()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write fixture");
    p
}

const CRAWL_LF: &str = "Address,Status Code,Indexability\nhttps://a.example/1,200,Indexable\nhttps://a.example/1?utm_source=x,301,Non-Indexable\nhttps://a.example/2,200,Indexable\n";

#[test]
fn output_naming_an_input_is_refused_and_the_input_kept() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    write(d, "crawl.csv", CRAWL_LF.as_bytes());
    std::fs::hard_link(d.join("crawl.csv"), d.join("hard.csv")).expect("link");
    std::os::unix::fs::symlink(d.join("crawl.csv"), d.join("sym.csv")).expect("symlink");
    for out in ["crawl.csv", "./crawl.csv", "hard.csv", "sym.csv"] {
        for args in [
            vec!["map", "--column", "Address", "crawl.csv", "-o", out],
            vec!["key", "--column", "Address", "crawl.csv", "-o", out],
            vec![
                "map",
                "--column",
                "Address",
                "crawl.csv",
                "--summary",
                out,
                "-o",
                "x.csv",
            ],
        ] {
            let o = run_in(d, &args);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert!(
                stderr(&o).contains("is the input crawl.csv"),
                "{}",
                stderr(&o)
            );
            assert_eq!(
                std::fs::read_to_string(d.join("crawl.csv")).expect("read"),
                CRAWL_LF
            );
        }
    }
    assert!(!d.join("x.csv").exists());
}

#[test]
fn special_files_are_written_directly() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    write(d, "u.txt", b"https://a.example/\n");
    ok_in(d, &["map", "u.txt", "-o", "/dev/null"]);
    ok_in(d, &["key", "u.txt", "-o", "/dev/null"]);
    let meta = std::fs::metadata("/dev/null").expect("/dev/null");
    use std::os::unix::fs::FileTypeExt;
    assert!(meta.file_type().is_char_device());
    // A FIFO is written, not replaced.
    let fifo = d.join("pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo")
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).expect("read fifo"))
    };
    ok_in(d, &["key", "--format", "key", "u.txt", "-o", "pipe"]);
    assert_eq!(reader.join().expect("reader"), "https://a.example/\n");
    assert!(std::fs::metadata(&fifo)
        .expect("fifo")
        .file_type()
        .is_fifo());
}

#[test]
fn a_failed_run_leaves_the_existing_output_as_it_was() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    write(d, "out.csv", b"good old output\n");
    write(d, "u.csv", b"url\nhttps://a.example/\n");
    // The column does not exist: the run fails before writing.
    let o = run_in(d, &["map", "--column", "Address", "u.csv", "-o", "out.csv"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(d.join("out.csv")).expect("out"),
        b"good old output\n"
    );
    let leftovers: Vec<_> = std::fs::read_dir(d)
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("urlkey-partial"))
        .collect();
    assert!(leftovers.is_empty());
}

fn big_input(d: &Path, lines: u32) -> PathBuf {
    let mut text = String::with_capacity(lines as usize * 60);
    for i in 0..lines {
        text.push_str(&format!(
            "https://host{}.example/path/{i}?utm_source=x&b={}\n",
            i % 977,
            i % 13
        ));
    }
    write(d, "big.txt", text.as_bytes())
}

fn partial_files(d: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(d)
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".urlkey-partial"))
        .collect()
}

/// Starts a long run, waits until it writes its temporary file, signals it.
fn interrupt(d: &Path, args: &[&str], signal: &str) -> (Option<i32>, String) {
    let mut child = bin()
        .args(args)
        .current_dir(d)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    let start = Instant::now();
    while partial_files(d).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no temporary file appeared"
        );
        assert!(
            child.try_wait().expect("wait").is_none(),
            "the run ended too soon to interrupt"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args([signal, &pid])
        .status()
        .expect("kill")
        .success());
    let out = child.wait_with_output().expect("wait");
    (out.status.code(), stderr(&out))
}

#[test]
fn signals_during_a_long_run_leave_the_target_untouched() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    big_input(d, 1_500_000);
    let good = b"line,observed\n1,a good earlier result\n";
    for (cmd, signal, code) in [
        ("map", "-INT", Some(130)),
        ("map", "-TERM", Some(143)),
        ("key", "-INT", Some(130)),
        ("key", "-TERM", Some(143)),
        ("map", "-KILL", None),
        ("key", "-KILL", None),
    ] {
        write(d, "out.csv", good);
        let args = [cmd, "--threads", "1", "--quiet", "big.txt", "-o", "out.csv"];
        let (got, err) = interrupt(d, &args, signal);
        assert_eq!(got, code, "{cmd} {signal}: {err}");
        assert_eq!(
            std::fs::read(d.join("out.csv")).expect("out"),
            good,
            "{cmd} {signal}"
        );
        let left = partial_files(d);
        if code.is_some() {
            assert!(left.is_empty(), "{cmd} {signal} left {left:?}");
        } else {
            // SIGKILL cannot be caught: the leftover says what it is.
            assert_eq!(left.len(), 1, "{cmd} {signal}");
            assert!(left[0]
                .file_name()
                .expect("name")
                .to_string_lossy()
                .starts_with(".out.csv."));
            std::fs::remove_file(&left[0]).expect("remove leftover");
        }
    }
}

#[test]
fn csv_line_numbers_are_physical_whatever_the_line_ends() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    let lf = CRAWL_LF.to_string();
    let crlf = lf.replace('\n', "\r\n");
    let cr = lf.replace('\n', "\r");
    let mixed = lf.replacen('\n', "\r\n", 2);
    let want = ["2", "3", "4"];
    for (name, text) in [
        ("lf.csv", &lf),
        ("crlf.csv", &crlf),
        ("cr.csv", &cr),
        ("mixed.csv", &mixed),
    ] {
        write(d, name, text.as_bytes());
        let out = ok_in(d, &["map", "--column", "Address", name]);
        let r = rows(&out);
        assert_eq!(col(&r, "line"), want, "{name}");
        assert_eq!(col(&r, "group"), ["2", "2", "4"], "{name}");
        assert_eq!(col(&r, "duplicate_of"), ["", "2", ""], "{name}");
        let keyed = ok_in(d, &["key", "--format", "csv", "--column", "Address", name]);
        assert_eq!(col(&rows(&keyed), "line"), want, "{name}");
    }
    // A quoted cell spanning lines (a note: a URL's cell never does), and a blank line.
    write(
        d,
        "q.csv",
        b"note,Address\r\n\"x\r\ny\",https://a.example/x\r\n\r\n2,https://b.example/\r\n",
    );
    let r = rows(&ok_in(d, &["map", "--column", "Address", "q.csv"]));
    assert_eq!(col(&r, "line"), ["2", "5"]);
    // The URL's own cell spanning lines is refused, naming the line (docs/cli.md, "Quotes").
    write(
        d,
        "u.csv",
        b"id,Address\r\n1,\"https://a.example/x\r\ny\"\r\n\r\n2,https://b.example/\r\n",
    );
    let out = run_in(d, &["map", "--column", "Address", "u.csv"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("u.csv: line 2: a quote opens cell 2"),
        "{}",
        stderr(&out)
    );
    // Plain lines with CR-only and mixed ends.
    write(
        d,
        "l.txt",
        b"https://a.example/\rhttps://b.example/\r\nhttps://c.example/\n",
    );
    let r = rows(&ok_in(d, &["map", "l.txt"]));
    assert_eq!(col(&r, "line"), ["1", "2", "3"]);
}

#[test]
fn several_inputs_count_their_own_lines_and_name_their_source() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    write(
        d,
        "a.csv",
        b"Address\r\nhttps://a.example/1\r\nhttps://a.example/2\r\n",
    );
    write(
        d,
        "b.csv",
        b"Address\nhttps://a.example/1?utm_source=x\nhttps://b.example/\n",
    );
    let r = rows(&ok_in(d, &["map", "--column", "Address", "a.csv", "b.csv"]));
    assert_eq!(col(&r, "line"), ["2", "3", "2", "3"]);
    assert_eq!(col(&r, "source"), ["a.csv", "a.csv", "b.csv", "b.csv"]);
    // a.csv has 3 lines: b.csv's lines 2 and 3 are run lines 5 and 6.
    assert_eq!(col(&r, "run_line"), ["2", "3", "5", "6"]);
    // b.csv line 2 duplicates a.csv line 2, which is run line 2.
    assert_eq!(col(&r, "duplicate_of"), ["", "", "2", ""]);
    assert_eq!(col(&r, "group"), ["2", "3", "2", "6"]);
    assert_eq!(col(&r, "duplicate_of_source"), ["", "", "a.csv", ""]);
    assert_eq!(
        col(&r, "group_source"),
        ["a.csv", "a.csv", "a.csv", "b.csv"]
    );
    let k = rows(&ok_in(
        d,
        &[
            "key", "--format", "csv", "--column", "Address", "a.csv", "b.csv",
        ],
    ));
    assert_eq!(col(&k, "source"), ["a.csv", "a.csv", "b.csv", "b.csv"]);
    // One input: no source columns (the output is as before).
    let one = ok_in(d, &["map", "--column", "Address", "a.csv"]);
    assert!(!one.lines().next().expect("header").contains("source"));
    assert!(!one.lines().next().expect("header").contains("run_line"));
}

/// [`run_in`] with `stdin` as standard input.
fn run_with_stdin(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    child.wait_with_output().expect("the binary ends")
}

/// The value of `name` in each JSON line of `text` (numbers as text, `null` empty).
fn json_col(text: &str, name: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
            match &v[name] {
                serde_json::Value::Null => String::new(),
                serde_json::Value::Number(n) => n.to_string(),
                serde_json::Value::String(s) => format!("{s:?}"),
                other => other.to_string(),
            }
        })
        .collect()
}

/// With several inputs `group` and `duplicate_of` are run lines, which name one record
/// each: `z.example/9` (b.csv line 2) and `a.example/1` (a.csv line 2), both line 2 of
/// their file, have groups 5 and 2, in CSV, TSV, JSONL (as numbers) and `--groups` (CSV
/// and JSONL), for two inputs, three, and three with standard input among them. Parquet
/// reads back the same ids (`urlkey-batch`'s
/// `parquet_rows_of_several_inputs_carry_run_lines`).
#[test]
fn several_inputs_give_group_ids_that_do_not_collide() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    write(
        d,
        "a.csv",
        b"Address\r\nhttps://a.example/1\r\nhttps://a.example/1?id=3\r\n",
    );
    write(
        d,
        "b.csv",
        b"Address\nhttps://z.example/9\nhttps://a.example/1\n\nhttps://z.example/9?id=1\n",
    );
    // No last line end, and a cell across two lines: its record is one, its lines two.
    write(
        d,
        "c.csv",
        b"Address,Note\nhttps://z.example/9?id=2,\"two\nlines\"\nhttps://c.example/",
    );
    let map = |args: &[&str]| {
        let mut all = vec!["map", "--column", "Address"];
        all.extend_from_slice(args);
        ok_in(d, &all)
    };
    // Lines gave group 2, 3, 2, 2, 5: z.example/9 shared id 2 with a.example/1. Run lines
    // count a.csv's 3 lines first.
    let two = rows(&map(&["a.csv", "b.csv"]));
    assert_eq!(col(&two, "line"), ["2", "3", "2", "3", "5"]);
    assert_eq!(col(&two, "run_line"), ["2", "3", "5", "6", "8"]);
    assert_eq!(col(&two, "group"), ["2", "3", "5", "2", "8"]);
    assert_eq!(col(&two, "duplicate_of"), ["", "", "", "2", ""]);
    assert_eq!(
        col(&two, "group_source"),
        ["a.csv", "a.csv", "b.csv", "a.csv", "b.csv"]
    );
    // Three inputs: b.csv has 5 lines (one blank), so c.csv's start at run line 9.
    let three = map(&["a.csv", "b.csv", "c.csv"]);
    let three_rows = rows(&three);
    assert_eq!(
        col(&three_rows, "run_line"),
        ["2", "3", "5", "6", "8", "10", "12"]
    );
    assert_eq!(
        col(&three_rows, "group"),
        ["2", "3", "5", "2", "8", "8", "12"]
    );
    assert_eq!(col(&three_rows, "classification")[5], "review");
    // Every id names one record: the run lines never repeat.
    let ids = col(&three_rows, "run_line");
    let distinct: std::collections::BTreeSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len());
    // TSV: the same cells.
    let tsv = map(&["--format", "tsv", "a.csv", "b.csv", "c.csv"]);
    let mut r = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .from_reader(tsv.as_bytes());
    let header = r.headers().expect("header").clone();
    let at = |n: &str| header.iter().position(|h| h == n).expect(n);
    let (g, rl) = (at("group"), at("run_line"));
    let tsv_cells: Vec<(String, String)> = r
        .records()
        .map(|rec| {
            let rec = rec.expect("row");
            (rec[rl].to_string(), rec[g].to_string())
        })
        .collect();
    let csv_cells: Vec<(String, String)> = col(&three_rows, "run_line")
        .into_iter()
        .zip(col(&three_rows, "group"))
        .collect();
    assert_eq!(tsv_cells, csv_cells);
    // JSONL: numbers, the same ids.
    let jsonl = map(&["--format", "jsonl", "a.csv", "b.csv", "c.csv"]);
    assert_eq!(json_col(&jsonl, "run_line"), col(&three_rows, "run_line"));
    assert_eq!(json_col(&jsonl, "group"), col(&three_rows, "group"));
    assert_eq!(
        json_col(&jsonl, "duplicate_of"),
        col(&three_rows, "duplicate_of")
    );
    // --groups: one row per group, each id once, samples that are run lines.
    let groups = rows(&map(&["--groups", "a.csv", "b.csv", "c.csv"]));
    assert_eq!(col(&groups, "group"), ["2", "3", "5", "8", "12"]);
    assert_eq!(
        col(&groups, "sample_lines"),
        ["2;6", "3", "5", "8;10", "12"]
    );
    assert_eq!(
        col(&groups, "group_source"),
        ["a.csv", "a.csv", "b.csv", "b.csv", "c.csv"]
    );
    let gj = map(&["--groups", "--format", "jsonl", "a.csv", "b.csv", "c.csv"]);
    assert_eq!(json_col(&gj, "group"), ["2", "3", "5", "8", "12"]);
    assert_eq!(json_col(&gj, "sample_lines")[3], "[8,10]");
    // Standard input among the files: named `-`, its lines counted in its place.
    let b = std::fs::read(d.join("b.csv")).expect("b.csv");
    let out = run_with_stdin(
        d,
        &["map", "--column", "Address", "a.csv", "-", "c.csv"],
        &b,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let piped = rows(&String::from_utf8(out.stdout).expect("UTF-8"));
    assert_eq!(col(&piped, "run_line"), col(&three_rows, "run_line"));
    assert_eq!(col(&piped, "group"), col(&three_rows, "group"));
    // `-` is written `'-` in CSV, as any cell a spreadsheet would read as a formula.
    assert_eq!(col(&piped, "source")[2], "'-");
    assert_eq!(col(&piped, "group_source")[5], "'-");
    // Twice is refused: standard input reads once.
    let twice = run_with_stdin(d, &["map", "--column", "Address", "-", "a.csv", "-"], &b);
    assert_eq!(twice.status.code(), Some(2), "{}", stderr(&twice));
    // One input: line numbers, no run_line column, as before.
    let one = rows(&map(&["b.csv"]));
    assert_eq!(col(&one, "group"), ["2", "3", "5"]);
    assert!(!one[0].contains_key("run_line"));
}

#[test]
fn encodings_delimiters_and_column_names() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    let text = "Address\tTitle\r\nhttps://a.example/p\u{e4}ge\tT\u{fc}r\r\n";
    for (name, le) in [("le.txt", true), ("be.txt", false)] {
        let mut bytes = if le {
            vec![0xFF, 0xFE]
        } else {
            vec![0xFE, 0xFF]
        };
        for u in text.encode_utf16() {
            bytes.extend(if le { u.to_le_bytes() } else { u.to_be_bytes() });
        }
        write(d, name, &bytes);
        let r = rows(&ok_in(
            d,
            &["map", "--input-format", "csv", "--column", "address", name],
        ));
        assert_eq!(
            col(&r, "observed"),
            ["https://a.example/p\u{e4}ge"],
            "{name}"
        );
        assert_eq!(col(&r, "line"), ["2"], "{name}");
    }
    write(d, "w.txt", b"https://a.example/p\xE4ge\n");
    let r = rows(&ok_in(d, &["map", "--encoding", "windows-1252", "w.txt"]));
    assert_eq!(col(&r, "observed"), ["https://a.example/p\u{e4}ge"]);
    assert_eq!(col(&r, "status"), ["ok"]);
    let o = run_in(d, &["map", "--encoding", "klingon", "w.txt"]);
    assert_eq!(o.status.code(), Some(2));
    // A semicolon CSV (European Excel) is detected, and the detection is said.
    write(
        d,
        "semi.csv",
        b"Address;Status Code\r\nhttps://a.example/;200\r\n",
    );
    let o = run_in(d, &["map", "--column", "Address", "semi.csv"]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("';'-separated"), "{}", stderr(&o));
    assert_eq!(
        col(&rows(&String::from_utf8_lossy(&o.stdout)), "status"),
        ["ok"]
    );
    let r = rows(&ok_in(
        d,
        &["map", "--delimiter", ";", "--column", "2", "semi.csv"],
    ));
    assert_eq!(col(&r, "observed"), ["200"]);
    // Ambiguous case-insensitive names are refused with the candidates.
    write(d, "two.csv", b"url,URL\nhttps://a/,https://b/\n");
    let o = run_in(d, &["map", "--column", "Url", "two.csv"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("matches 2 columns"), "{}", stderr(&o));
    // --skip-rows: a crawler's title line before the header.
    write(
        d,
        "title.csv",
        b"Internal - All\r\nAddress\r\nhttps://a.example/\r\n",
    );
    let r = rows(&ok_in(
        d,
        &[
            "map",
            "--skip-rows",
            "1",
            "--column",
            "Address",
            "title.csv",
        ],
    ));
    assert_eq!(col(&r, "line"), ["3"]);
    // --no-headers.
    write(
        d,
        "nh.csv",
        b"https://a.example/,x\r\nhttps://b.example/,y\r\n",
    );
    let r = rows(&ok_in(
        d,
        &[
            "map",
            "--no-headers",
            "--column",
            "1",
            "--keep-columns",
            "2",
            "nh.csv",
        ],
    ));
    assert_eq!(col(&r, "line"), ["1", "2"]);
    assert_eq!(col(&r, "column2"), ["x", "y"]);
}

#[test]
fn kept_columns_follow_in_every_format() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    write(
        d,
        "crawl.csv",
        CRAWL_LF.replace("Indexability", "status").as_bytes(),
    );
    let r = rows(&ok_in(
        d,
        &[
            "map",
            "--column",
            "Address",
            "--keep-columns",
            "all",
            "crawl.csv",
        ],
    ));
    assert_eq!(col(&r, "Status Code"), ["200", "301", "200"]);
    // A kept column named like one of urlkey's gets a prefix.
    assert_eq!(
        col(&r, "input:status"),
        ["Indexable", "Non-Indexable", "Indexable"]
    );
    assert_eq!(col(&r, "status"), ["ok", "ok", "ok"]);
    let j = ok_in(
        d,
        &[
            "key",
            "--column",
            "Address",
            "--keep-columns",
            "Status Code",
            "crawl.csv",
        ],
    );
    let first: serde_json::Value =
        serde_json::from_str(j.lines().next().expect("line")).expect("json");
    assert_eq!(first["Status Code"], "200");
    assert_eq!(first["line"], 2);
    let j = ok_in(
        d,
        &[
            "map",
            "--format",
            "jsonl",
            "--column",
            "Address",
            "--keep-columns",
            "status code",
            "crawl.csv",
        ],
    );
    let last: serde_json::Value =
        serde_json::from_str(j.lines().last().expect("line")).expect("json");
    assert_eq!(last["Status Code"], "200");
    let o = run_in(
        d,
        &[
            "map",
            "--column",
            "Address",
            "--keep-columns",
            "Nope",
            "crawl.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(3));
    let o = run_in(
        d,
        &[
            "map",
            "--keep-columns",
            "all",
            "crawl.csv",
            "--input-format",
            "lines",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn binary_and_empty_files_say_what_they_are() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    write(
        d,
        "junk.bin",
        b"\x7fELF\x02\x01\x01\0\0\0\nhttps://a.example/\n",
    );
    let o = run_in(d, &["map", "junk.bin"]);
    assert!(o.status.success());
    assert!(
        stderr(&o).contains("does not look like text"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        rows(&String::from_utf8_lossy(&o.stdout)).len(),
        2,
        "nothing dropped"
    );
    // UTF-16LE without a byte-order mark: the note says how to name the encoding here,
    // and with it the lines read as text.
    let utf16: Vec<u8> = "https://a.example/x\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    write(d, "u16.txt", &utf16);
    let o = run_in(d, &["key", "--format", "key", "u16.txt"]);
    assert!(
        stderr(&o).contains("name its encoding with --encoding: utf-16le or utf-16be)"),
        "{}",
        stderr(&o)
    );
    let o = run_in(
        d,
        &[
            "key",
            "--format",
            "key",
            "--encoding",
            "utf-16le",
            "u16.txt",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "https://a.example/x\n");
    assert!(!stderr(&o).contains("NUL"), "{}", stderr(&o));
    write(d, "empty.csv", b"");
    let o = run_in(d, &["map", "--column", "Address", "empty.csv"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("empty"), "{}", stderr(&o));
    assert_eq!(rows(&String::from_utf8_lossy(&o.stdout)).len(), 0);
}

#[test]
fn excel_output_has_a_bom_and_crlf() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    write(d, "u.txt", "https://a.example/p\u{e4}ge\n".as_bytes());
    for cmd in ["map", "key"] {
        ok_in(d, &[cmd, "--excel", "u.txt", "-o", "x.csv"]);
        let bytes = std::fs::read(d.join("x.csv")).expect("x.csv");
        assert!(bytes.starts_with(b"\xEF\xBB\xBFline,"), "{cmd}");
        assert!(bytes.ends_with(b"\r\n"));
        assert!(!String::from_utf8_lossy(&bytes)
            .replace("\r\n", "")
            .contains('\n'));
    }
    let o = run_in(d, &["key", "--excel", "--format", "jsonl", "u.txt"]);
    assert_eq!(o.status.code(), Some(2));
}

fn zip_of(files: &[(&str, &str)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, body) in files {
        w.start_file(*name, opts).expect("zip entry");
        w.write_all(body.as_bytes()).expect("zip write");
    }
    w.finish().expect("zip").into_inner()
}

fn xlsx(rows: &[&[&str]]) -> Vec<u8> {
    let mut sheet = String::from(
        r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>"#,
    );
    for (i, r) in rows.iter().enumerate() {
        sheet.push_str(&format!(r#"<row r="{}">"#, i + 1));
        for (j, c) in r.iter().enumerate() {
            let cell = format!("{}{}", (b'A' + j as u8) as char, i + 1);
            if let Ok(n) = c.parse::<f64>() {
                sheet.push_str(&format!(r#"<c r="{cell}"><v>{n}</v></c>"#));
            } else if !c.is_empty() {
                sheet.push_str(&format!(
                    r#"<c r="{cell}" t="inlineStr"><is><t>{c}</t></is></c>"#
                ));
            }
        }
        sheet.push_str("</row>");
    }
    sheet.push_str("</sheetData></worksheet>");
    zip_of(&[
        (
            "[Content_Types].xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#,
        ),
        (
            "_rels/.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#,
        ),
        (
            "xl/workbook.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Crawl" sheetId="1" r:id="rId1"/></sheets></workbook>"#,
        ),
        (
            "xl/_rels/workbook.xml.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#,
        ),
        ("xl/worksheets/sheet1.xml", &sheet),
    ])
}

fn ods(rows: &[&[&str]]) -> Vec<u8> {
    let mut table = String::new();
    for r in rows {
        table.push_str("<table:table-row>");
        for c in r.iter() {
            if let Ok(n) = c.parse::<f64>() {
                table.push_str(&format!(r#"<table:table-cell office:value-type="float" office:value="{n}"><text:p>{c}</text:p></table:table-cell>"#));
            } else {
                table.push_str(&format!(r#"<table:table-cell office:value-type="string"><text:p>{c}</text:p></table:table-cell>"#));
            }
        }
        table.push_str("</table:table-row>");
    }
    let content = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:spreadsheet><table:table table:name="Crawl">{table}</table:table></office:spreadsheet></office:body></office:document-content>"#
    );
    zip_of(&[
        ("mimetype", "application/vnd.oasis.opendocument.spreadsheet"),
        (
            "META-INF/manifest.xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>"#,
        ),
        ("content.xml", &content),
    ])
}

#[test]
fn spreadsheets_are_read_as_cell_text_with_row_numbers() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    let sheet: &[&[&str]] = &[
        &["Address", "Status Code"],
        &["https://a.example/1", "301"],
        &["https://a.example/1?utm_source=x", "200"],
        &["", ""],
        &["https://b.example/", "404"],
    ];
    write(d, "crawl.xlsx", &xlsx(sheet));
    write(d, "crawl.ods", &ods(sheet));
    for name in ["crawl.xlsx", "crawl.ods"] {
        let r = rows(&ok_in(
            d,
            &["map", "--column", "address", "--keep-columns", "all", name],
        ));
        assert_eq!(col(&r, "line"), ["2", "3", "5"], "{name}");
        assert_eq!(
            col(&r, "Status Code"),
            ["301", "200", "404"],
            "{name}: numbers as written"
        );
        assert_eq!(
            col(&r, "classification"),
            ["duplicate", "duplicate", "unique"],
            "{name}"
        );
        let r = rows(&ok_in(
            d,
            &["map", "--sheet", "Crawl", "--column", "1", name],
        ));
        assert_eq!(r.len(), 3);
        let o = run_in(d, &["map", "--sheet", "Nope", "--column", "1", name]);
        assert_eq!(o.status.code(), Some(3), "{name}");
        assert!(stderr(&o).contains("\"Crawl\""), "{}", stderr(&o));
    }
    // A spreadsheet named as text is flagged, not silently read as lines.
    std::fs::copy(d.join("crawl.xlsx"), d.join("crawl.txt")).expect("copy");
    let o = run_in(d, &["map", "crawl.txt"]);
    assert!(stderr(&o).contains("ZIP archive"), "{}", stderr(&o));
}

#[test]
fn the_map_bar_names_its_phase_and_moves_in_pass_two() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    big_input(d, 400_000);
    // script(1) gives the run a pseudo-terminal, so the bar is drawn as a user sees it.
    let cmd = format!(
        "{} map --threads 1 big.txt -o out.csv",
        env!("CARGO_BIN_EXE_urlkey")
    );
    let out = Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .current_dir(d)
        .stdin(Stdio::null())
        .output()
        .expect("script(1) runs (package bsdutils)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(screen.contains("pass 1/2: counting"), "{screen}");
    let writing: Vec<&str> = screen
        .split(['\r', '\n'])
        .filter(|l| l.contains("pass 2/2: writing"))
        .collect();
    // Pass two's bar moved: distinct positions ("12.50 MiB/20.16 MiB") were drawn, or
    // (pass two reads back what pass one wrote, and can be over within a redraw or two)
    // one past the start, where the bar stood when pass two began.
    let drawn: Vec<String> = writing
        .iter()
        .filter_map(|l| {
            let rest = &l[l.find("writing ")? + 8..];
            let slash = rest.find('/')?;
            let done = rest[..slash]
                .rsplit(' ')
                .take(2)
                .collect::<Vec<_>>()
                .join(" ");
            Some(done)
        })
        .collect();
    let mut positions: Vec<&String> = drawn.iter().collect();
    positions.dedup();
    let past_start = drawn.iter().any(|d| !["0 B", "B 0"].contains(&d.as_str()));
    assert!(
        positions.len() >= 2 || past_start,
        "pass 2 did not move: {} drawings, {drawn:?}",
        writing.len()
    );
}

#[test]
fn every_command_help_has_examples_and_a_doc_page() {
    for cmd in [
        "key", "map", "inspect", "policies", "rules", "codes", "ledger",
    ] {
        let out = bin().args([cmd, "--help"]).output().expect("help");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{cmd}");
        assert!(text.contains("Examples:"), "{cmd}: {text}");
        assert!(text.contains("docs/"), "{cmd}: no doc page");
    }
    let map =
        String::from_utf8_lossy(&bin().args(["map", "--help"]).output().expect("help").stdout)
            .into_owned();
    for word in [
        "group",
        "duplicate_of",
        "duplicates",
        "variants",
        "classification",
        "review",
    ] {
        assert!(map.contains(word), "map --help does not explain {word}");
    }
}

#[test]
fn standard_input_without_a_final_newline_and_with_crlf() {
    let mut child = bin()
        .args(["key", "--format", "csv", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"https://a.example/\r\n\r\nhttps://b.example/")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let r = rows(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(col(&r, "line"), ["1", "3"]);
    assert_eq!(
        col(&r, "observed"),
        ["https://a.example/", "https://b.example/"]
    );
}

#[test]
fn ledger_export_goes_through_a_temporary_file_and_shares_the_exit_codes() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    write(
        d,
        "c.csv",
        b"observation_id,prompt_id,prompt_version,answer_system,market,collection,run_timestamp,observed_url\n1,p,v,a,us,c,2026-11-01T09:01:00Z,https://a.example/\n",
    );
    ok_in(d, &["ledger", "--db", "l.sqlite", "ingest", "c.csv"]);
    ok_in(
        d,
        &["ledger", "--db", "l.sqlite", "export", "-o", "out.csv"],
    );
    assert!(std::fs::read_to_string(d.join("out.csv"))
        .expect("export")
        .contains("https://a.example/"));
    // The ledger itself is never an output.
    let o = run_in(
        d,
        &["ledger", "--db", "l.sqlite", "export", "-o", "l.sqlite"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A write that fails is exit 4, as in key and map.
    let o = run_in(
        d,
        &[
            "ledger",
            "--db",
            "l.sqlite",
            "export",
            "-o",
            "no/such/dir/out.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let o = run_in(
        d,
        &[
            "map",
            "c.csv",
            "--column",
            "observed_url",
            "-o",
            "no/such/dir/out.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    // Serve's settings that cannot work are usage errors, as everywhere.
    let o = run_in(
        d,
        &["serve", "--addr", "127.0.0.1:0", "--max-connections", "0"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A missing ledger is a database error: 6.
    let o = run_in(d, &["ledger", "--db", "none.sqlite", "report"]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
}

#[test]
fn ledger_ingest_shows_a_bar_on_a_terminal() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    let mut csv_text = String::from(
        "observation_id,prompt_id,prompt_version,answer_system,market,collection,run_timestamp,observed_url\n",
    );
    for i in 0..5000 {
        csv_text.push_str(&format!(
            "{i},p,v,a,us,c,2026-11-01T09:01:00Z,https://a.example/{i}\n"
        ));
    }
    write(d, "c.csv", csv_text.as_bytes());
    let cmd = format!(
        "{} ledger --db l.sqlite ingest c.csv",
        env!("CARGO_BIN_EXE_urlkey")
    );
    let out = Command::new("script")
        .args(["-qfec", &cmd, "/dev/null"])
        .current_dir(d)
        .stdin(Stdio::null())
        .output()
        .expect("script(1) runs");
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    // The bar counts bytes of the file over both passes (the ledger streams its rows, so
    // their number is known only at the end): "checking" then "storing".
    assert!(
        screen.contains("ingest c.csv: ")
            && (screen.contains("checking") || screen.contains("storing"))
            && screen.contains("KiB"),
        "{screen}"
    );
}

/// POSTs JSON to a running `urlkey serve` and returns the body (de-chunked).
fn post_json(addr: &str, path: &str, body: &serde_json::Value) -> (u16, Vec<u8>) {
    use std::io::Read;
    let body = body.to_string();
    let mut s = std::net::TcpStream::connect(addr).expect("connect to serve");
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut resp = Vec::new();
    s.read_to_end(&mut resp).expect("read");
    let split = resp
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("headers");
    let head = String::from_utf8_lossy(&resp[..split]).to_ascii_lowercase();
    let status = head[9..12].parse().expect("status");
    let mut rest = &resp[split + 4..];
    if !head.contains("transfer-encoding: chunked") {
        return (status, rest.to_vec());
    }
    let mut out = Vec::new();
    loop {
        let nl = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size");
        let size = usize::from_str_radix(std::str::from_utf8(&rest[..nl]).expect("hex").trim(), 16)
            .expect("chunk size");
        rest = &rest[nl + 2..];
        if size == 0 {
            return (status, out);
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

#[test]
fn the_web_page_gives_the_same_lines_and_kept_columns_for_the_same_bytes() {
    let dir = tempfile::tempdir().expect("dir");
    let d = dir.path();
    let mut child = bin()
        .args(["serve", "--addr", "127.0.0.1:0", "--threads", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().expect("stdout")),
        &mut line,
    )
    .expect("the address line");
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .expect("an address")
        .to_string();
    let text = "Title line\r\nAddress,Status Code\r\nhttps://a.example/1,200\r\nhttps://a.example/1?utm_source=x,301\r\n\"https://b.example/\",\"404\r\nq\"\r\nhttps://c.example/\n";
    write(d, "crawl.csv", text.as_bytes());
    let cli = bin()
        .args([
            "map",
            "--quiet",
            "--input-format",
            "csv",
            "--column",
            "Address",
        ])
        .args(["--keep-columns", "all"])
        .arg("crawl.csv")
        .current_dir(d)
        .output()
        .expect("map");
    // serve has no --skip-rows: the same bytes without the title line, on both sides.
    let body = &text["Title line\r\n".len()..];
    write(d, "body.csv", body.as_bytes());
    let cli_body = bin()
        .args([
            "map",
            "--quiet",
            "--input-format",
            "csv",
            "--column",
            "Address",
        ])
        .args(["--keep-columns", "all", "body.csv"])
        .current_dir(d)
        .output()
        .expect("map");
    let (status, served) = post_json(
        &addr,
        "/api/map.csv",
        &serde_json::json!({
            "text": body, "input_format": "csv", "column": "Address", "keep_columns": "all"
        }),
    );
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&served));
    assert_eq!(
        served, cli_body.stdout,
        "serve's export is `urlkey map --format csv`, byte for byte"
    );
    let r = rows(&String::from_utf8_lossy(&served));
    assert_eq!(col(&r, "line"), ["2", "3", "4", "6"]);
    assert_eq!(col(&r, "Status Code"), ["200", "301", "404\r\nq", ""]);
    assert!(
        cli.status.code() == Some(3),
        "no Address column before --skip-rows"
    );
}

/// `map` keeps pass one's rows in an unlinked temporary file in TMPDIR: nothing is left
/// there, with one thread or two. Where TMPDIR cannot hold it, `map` says so (unless
/// `--quiet`), keys every record again, and writes the same rows and summary.
#[test]
fn map_rows_are_the_same_without_a_usable_temporary_directory() {
    let d = tempfile::tempdir().expect("tmp");
    let text: String = (0..30_000)
        .map(|i| match i % 2 {
            0 => format!(
                "https://h{}.example/p/{}?utm_source=x&b={}\n",
                i % 7,
                i % 301,
                i % 3
            ),
            _ => format!("https://d{}.example/q/{}\n", i % 5, i % 101),
        })
        .collect();
    let input = write(d.path(), "dup.txt", text.as_bytes());
    let tmp = d.path().join("tmp");
    std::fs::create_dir(&tmp).expect("tmp dir");
    let mut outputs = Vec::new();
    for (tmpdir, threads, format) in [
        (tmp.clone(), "1", "csv"),
        (tmp.clone(), "2", "csv"),
        (d.path().join("no-such-dir"), "2", "csv"),
        (tmp.clone(), "2", "tsv"),
        (d.path().join("no-such-dir"), "1", "tsv"),
    ] {
        let out = bin()
            .args(["map", "--threads", threads, "--format", format])
            .arg(&input)
            .env("TMPDIR", &tmpdir)
            .current_dir(d.path())
            .stdin(Stdio::null())
            .output()
            .expect("the binary runs");
        assert!(out.status.success(), "{}", stderr(&out));
        let err = stderr(&out);
        if tmpdir.exists() {
            assert!(!err.contains("temporary file"), "{err}");
        } else {
            assert!(
                err.contains("cannot make a temporary file for map's rows")
                    && err.contains("Set TMPDIR"),
                "{err}"
            );
        }
        assert_eq!(
            std::fs::read_dir(&tmp).expect("tmp dir").count(),
            0,
            "map left a file in TMPDIR"
        );
        outputs.push((format, String::from_utf8(out.stdout).expect("UTF-8")));
    }
    for (format, text) in &outputs[1..] {
        let same = outputs.iter().find(|(f, _)| f == format).expect("first");
        assert_eq!(text, &same.1, "{format}");
    }
    let rows = rows(&outputs[0].1);
    assert_eq!(rows.len(), 30_000);
    let classes = col(&rows, "classification");
    assert!(
        classes.iter().any(|c| c == "duplicate"),
        "{:?}",
        &classes[..5]
    );
    assert!(classes.iter().any(|c| c == "review"), "{:?}", &classes[..5]);
}
