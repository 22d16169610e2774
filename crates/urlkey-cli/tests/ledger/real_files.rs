//! Files as exported from spreadsheets and tools: standard input, UTF-16,
//! semicolons, other encodings, headers named otherwise (`--columns`, and matching that
//! ignores case and separators), read through the batch crate's shared reader.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::{ledger, open, run_parsed};
use clap::Parser;

#[derive(Parser, Debug)]
#[command(name = "urlkey-ledger-child")]
struct ChildCli {
    #[command(flatten)]
    args: urlkey_cli::flags::ledger::LedgerArgs,
}

/// In the child process only: `ledger --db $DB ingest - ...$ARGS`, stdout to stdout.
#[test]
fn child_ingest_stdin() {
    let Some(db) = std::env::var_os("LEDGER_STDIN_DB") else {
        return; // not started as a child
    };
    let extra = std::env::var("LEDGER_STDIN_ARGS").unwrap_or_default();
    let mut argv = vec![
        "urlkey-ledger-child".to_string(),
        "--db".to_string(),
        db.to_string_lossy().into_owned(),
        "ingest".to_string(),
        "-".to_string(),
    ];
    argv.extend(extra.split_whitespace().map(str::to_string));
    let cli = ChildCli::parse_from(argv);
    let mut out = Vec::new();
    let mut err = Vec::new();
    let r = run_parsed(cli.args, &mut out, &mut err);
    println!("CHILD-OUT {}", String::from_utf8_lossy(&out).trim());
    if let Err(e) = r {
        panic!("child ingest failed (exit {}): {e}", e.exit_code());
    }
}

fn ingest_stdin(db: &std::path::Path, input: &[u8], args: &str) -> (bool, String) {
    let mut child = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            "real_files::child_ingest_stdin",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("LEDGER_STDIN_DB", db)
        .env("LEDGER_STDIN_ARGS", args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the child");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write stdin");
    let o = child.wait_with_output().expect("wait");
    let out = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    (o.status.success(), out)
}

fn ids_and_urls(db: &std::path::Path) -> Vec<(String, String, String)> {
    open(db)
        .prepare("SELECT observation_id, observed_url, answer_system FROM observations ORDER BY 1")
        .expect("prepare")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

const SPREADSHEET_CSV: &str =
    "Observation ID;Answer System;Prompt Version;Market;Run Timestamp;Observed URL;Position\r\n\
s1;assistant-a;ps-1;fr;2026-11-08 09:00:00+01:00;https://docs.example.org/a?utm_source=x;1\r\n\
s2;assistant-b;ps-1;fr;2026-11-08 09:05:00+01:00;https://docs.example.org/b;2\r\n";

#[test]
fn stdin_is_read_with_dash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let (ok, out) = ingest_stdin(&db, SPREADSHEET_CSV.as_bytes(), "");
    assert!(ok, "{out}");
    assert!(out.contains("<stdin>: 2 rows read (csv"), "{out}");
    assert_eq!(ids_and_urls(&db).len(), 2);
    let path: String = open(&db)
        .query_row("SELECT source_path FROM ingests", [], |r| r.get(0))
        .expect("ingest");
    assert_eq!(path, "<stdin>");
    // Standard input with rejects, and bad input through stdin: an error, exit non-zero.
    let (ok, out) = ingest_stdin(
        &db,
        b"observation_id,observed_url\nx,https://a.example/\n",
        "",
    );
    assert!(!ok, "{out}");
    assert!(out.contains("line 2, column prompt_version"), "{out}");
}

#[test]
fn utf16_with_semicolons_and_spaced_headers_goes_in_as_it_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("export.csv");
    let mut bytes = vec![0xFF, 0xFE];
    for u in SPREADSHEET_CSV.encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    std::fs::write(&f, bytes).expect("write");
    let r = ledger(&db, &["ingest", f.to_str().expect("p")]).ok();
    assert!(r.stdout.contains("2 rows read (csv"), "{}", r.stdout);
    assert!(
        r.stderr.contains("Position"),
        "unread columns named: {}",
        r.stderr
    );
    assert_eq!(
        ids_and_urls(&db),
        [
            (
                "s1".into(),
                "https://docs.example.org/a?utm_source=x".into(),
                "assistant-a".into()
            ),
            (
                "s2".into(),
                "https://docs.example.org/b".into(),
                "assistant-b".into()
            ),
        ]
    );
    let run_at: String = open(&db)
        .query_row(
            "SELECT run_timestamp FROM observations WHERE observation_id = 's1'",
            [],
            |r| r.get(0),
        )
        .expect("run_at");
    assert_eq!(run_at, "2026-11-08T08:00:00Z");
}

#[test]
fn columns_maps_other_header_names() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("tool.csv");
    std::fs::write(
        &f,
        "ID,Engine,URL,When\nq1,assistant-c,https://news.example.com/x,2026-11-08T09:00:00Z\n",
    )
    .expect("write");
    let fp = f.to_str().expect("p");
    let err = ledger(&db, &["ingest", fp]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(
        err.to_string().contains("--columns"),
        "says what to do: {err}"
    );
    let map = "observation_id=ID,answer_system=engine,observed_url=URL,run_timestamp=When";
    ledger(
        &db,
        &[
            "ingest",
            fp,
            "--columns",
            map,
            "--prompt-version",
            "v",
            "--market",
            "us",
        ],
    )
    .ok();
    assert_eq!(
        ids_and_urls(&db),
        [(
            "q1".into(),
            "https://news.example.com/x".into(),
            "assistant-c".into()
        )]
    );
    // A mapped header that is not there, and a field that does not exist.
    let err = ledger(&db, &["ingest", fp, "--columns", "observed_url=Link"]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().contains("observed_url=Link"), "{err}");
    let err = ledger(&db, &["ingest", fp, "--columns", "url=URL"]).err();
    assert_eq!(err.exit_code(), 2);
    assert!(
        err.to_string().contains("observed_url"),
        "lists the fields: {err}"
    );
}

#[test]
fn header_matching_ignores_case_and_separators_but_not_ambiguity() {
    let m = urlkey_ledger::ingest::ColumnMap::default();
    assert_eq!(m.field_for("Observation ID"), Some("observation_id"));
    assert_eq!(m.field_for("observed-url"), Some("observed_url"));
    assert_eq!(m.field_for("RUN_TIMESTAMP"), Some("run_timestamp"));
    assert_eq!(m.field_for("url"), None);
    let m = urlkey_ledger::ingest::ColumnMap::parse("observed_url=Link").expect("map");
    assert_eq!(m.field_for("link"), Some("observed_url"));
    // observed_url is mapped elsewhere: a column called observed_url is not it.
    assert_eq!(m.field_for("observed_url"), None);

    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("two.csv");
    std::fs::write(
        &f,
        "observation_id,Observation ID,observed_url\na,b,https://x.example/\n",
    )
    .expect("write");
    let err = ledger(&db, &["ingest", f.to_str().expect("p")]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(
        err.to_string().contains("both stand for observation_id"),
        "{err}"
    );
}

#[test]
fn a_legacy_encoding_is_read_with_encoding_and_a_spreadsheet_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("latin1.csv");
    let mut bytes =
        b"observation_id,answer_system,prompt_version,market,run_timestamp,observed_url\n".to_vec();
    bytes.extend_from_slice(b"e1,s,v,fr,2026-11-08,https://wiki.example.org/Caf\xE9\n");
    std::fs::write(&f, &bytes).expect("write");
    let fp = f.to_str().expect("p");
    let err = ledger(&db, &["ingest", fp]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().contains("--encoding"), "{err}");
    ledger(&db, &["ingest", fp, "--encoding", "windows-1252"]).ok();
    assert_eq!(ids_and_urls(&db)[0].1, "https://wiki.example.org/Café");
    let err = ledger(&db, &["ingest", fp, "--encoding", "klingon"]).err();
    assert_eq!(err.exit_code(), 2);

    // A spreadsheet is read as one now (tests/it/sheets.rs); a broken one is named.
    let x = dir.path().join("book.xlsx");
    std::fs::write(&x, b"PK\x03\x04rest").expect("write");
    let err = ledger(&db, &["ingest", x.to_str().expect("p")]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(
        err.to_string().contains("cannot read it as a spreadsheet"),
        "{err}"
    );
}

/// The header and rows every test below uses (the fields the ledger needs, no defaults).
const HEAD: &str = "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url";

#[test]
fn crlf_lines_and_a_utf8_bom_are_read_with_physical_line_numbers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("excel.csv");
    // A BOM before the first header name, CRLF line ends, a quoted cell spanning two
    // lines (line 3-4), then a bad row on line 5.
    let text = format!(
        "\u{feff}{HEAD}\r\nc1,v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/a\r\n\
         c2,\"v\r\nsecond line\",s,us,2026-11-08T09:00:00Z,https://docs.example.org/b\r\n\
         c3,v,s,us,never,https://docs.example.org/c\r\n"
    );
    std::fs::write(&f, text).expect("write");
    let err = ledger(&db, &["ingest", f.to_str().expect("p")]).err();
    assert_eq!(err.exit_code(), 3);
    let msg = err.to_string();
    assert!(msg.contains("1 of 3 rows cannot be stored"), "{msg}");
    assert!(msg.contains("\n  line 5, column run_timestamp"), "{msg}");
    let rejects = dir.path().join("r.csv");
    let r = ledger(
        &db,
        &[
            "ingest",
            f.to_str().expect("p"),
            "--rejects",
            rejects.to_str().expect("p"),
        ],
    )
    .ok();
    assert!(
        r.stdout
            .contains("3 rows read (csv, keyed with citation@1) = 2 stored"),
        "{}",
        r.stdout
    );
    // The BOM is not part of the first column's name: observation_id was found, and the
    // ids are exact; the lines are physical.
    let lines: Vec<(String, i64)> = open(&db)
        .prepare("SELECT observation_id, source_line FROM observations ORDER BY 1")
        .expect("prepare")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(lines, [("c1".to_string(), 2), ("c2".to_string(), 3)]);
    let pv: String = open(&db)
        .query_row(
            "SELECT prompt_version FROM observations WHERE observation_id = 'c2'",
            [],
            |r| r.get(0),
        )
        .expect("c2");
    assert_eq!(pv, "v\r\nsecond line");
}

#[test]
fn stdin_without_a_final_newline_keeps_its_last_row() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let input = format!(
        "{HEAD}\nn1,v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/a\n\
         n2,v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/last"
    );
    let (ok, out) = ingest_stdin(&db, input.as_bytes(), "");
    assert!(ok, "{out}");
    assert!(
        out.contains("<stdin>: 2 rows read (csv, keyed with citation@1): 2 observations added"),
        "{out}"
    );
    let rows = ids_and_urls(&db);
    assert_eq!(rows[1].0, "n2");
    assert_eq!(rows[1].1, "https://docs.example.org/last");
    // Again through stdin, gzip-compressed: the same rows, already present.
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(input.as_bytes()).expect("gzip");
    let (ok, out) = ingest_stdin(&db, &e.finish().expect("gzip"), "");
    assert!(ok, "{out}");
    assert!(
        out.contains("<stdin>: 2 rows read (csv, gzip), all 2 already in the ledger"),
        "{out}"
    );
}

#[test]
fn an_empty_file_and_a_header_alone_store_nothing_and_say_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, b"").expect("write");
    let rejects = dir.path().join("r.csv");
    let r = ledger(
        &db,
        &[
            "ingest",
            empty.to_str().expect("p"),
            "--rejects",
            rejects.to_str().expect("p"),
        ],
    )
    .ok();
    // With --rejects the counts are written out: 0 = 0 + 0 + 0, and the rejects file has
    // its header only.
    assert!(
        r.stdout
            .contains("empty.csv: 0 rows read (csv, keyed with citation@1) = 0 stored")
            && r.stdout
                .contains("+ 0 already in the ledger + 0 rejected (written to"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("the input is empty"), "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(&rejects).expect("rejects"),
        "line,reason\n"
    );
    let r = ledger(&db, &["ingest", empty.to_str().expect("p")]).ok();
    assert!(
        r.stdout
            .contains("empty.csv: 0 rows read (csv): the file has no data rows, nothing written"),
        "{}",
        r.stdout
    );
    let header = dir.path().join("header.csv");
    std::fs::write(&header, format!("{HEAD}\r\n")).expect("write");
    let r = ledger(&db, &["ingest", header.to_str().expect("p")]).ok();
    assert!(
        r.stdout
            .contains("header.csv: 0 rows read (csv): the file has no data rows"),
        "{}",
        r.stdout
    );
    let n: i64 = open(&db)
        .query_row("SELECT count(*) FROM ingests", [], |r| r.get(0))
        .expect("count");
    assert_eq!(n, 0, "no ingest record for files that add nothing");
}

#[test]
fn binary_junk_is_refused_before_anything_is_read_into_the_ledger() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    ledger(&db, &["init"]).ok();
    let before = crate::common::dump(&db);
    // A PNG named .csv, and ASCII-looking text with NUL bytes (UTF-16 without a BOM).
    let png = dir.path().join("picture.csv");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").expect("write");
    let err = ledger(&db, &["ingest", png.to_str().expect("p")]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(
        err.to_string()
            .contains("does not look like text: a PNG image"),
        "{err}"
    );
    let nul = dir.path().join("utf16-no-bom.csv");
    let mut b = Vec::new();
    for u in format!("{HEAD}\n").encode_utf16() {
        b.extend_from_slice(&u.to_le_bytes());
    }
    std::fs::write(&nul, b).expect("write");
    let err = ledger(&db, &["ingest", nul.to_str().expect("p")]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().contains("NUL bytes"), "{err}");
    // Random bytes that are not UTF-8: the encoding error, with its line.
    let junk = dir.path().join("junk.csv");
    std::fs::write(&junk, b"observation_id,observed_url\nx,\xC3\x28\xFF\n").expect("write");
    let err = ledger(&db, &["ingest", junk.to_str().expect("p")]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(
        err.to_string()
            .contains("junk.csv line 2: not valid UTF-8 (byte 30)"),
        "{err}"
    );
    assert_eq!(crate::common::dump(&db), before);
}
