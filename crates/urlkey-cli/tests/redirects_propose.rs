//! `urlkey redirects propose` and `urlkey redirects evidence`, run as a user runs them:
//! the golden migration (crates/urlkey-redirects/tests/propose/), standard input on either
//! side, every format, the refusals and their exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;
use common::{ok, run};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../urlkey-redirects/tests/propose")
        .join(name)
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

fn expected() -> String {
    std::fs::read_to_string(fixture("expected.csv")).expect("expected.csv")
}

const TITLES: [&str; 6] = [
    "--policy",
    "mapper@1",
    "--column",
    "Address",
    "--title-column",
    "Title 1",
];

fn args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut a = vec!["redirects", "propose"];
    a.extend(TITLES);
    a.extend(extra);
    a
}

fn code(a: &[&str], stdin: &[u8]) -> (Option<i32>, String) {
    let o = run(a, stdin);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_command_line_gives_the_golden_rows_and_a_summary_that_adds_up() {
    let (old, new) = (s(&fixture("old.csv")), s(&fixture("new.csv")));
    let o = run(&args(&[&old, &new]), b"");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(String::from_utf8(o.stdout).expect("UTF-8"), expected());
    let err = String::from_utf8(o.stderr).expect("UTF-8");
    assert!(
        err.contains(
            "18 records = 1 served + 1 same-key + 12 candidate + 3 none + 1 invalid (2 ambiguous)"
        ),
        "{err}"
    );
    assert!(err.contains("15 records indexed"), "{err}");
    // --quiet: nothing on standard error.
    let o = run(&args(&["--quiet", &old, &new]), b"");
    assert!(o.stderr.is_empty());
}

#[test]
fn standard_input_can_be_either_side_but_not_both() {
    let (old, new) = (s(&fixture("old.csv")), s(&fixture("new.csv")));
    let old_bytes = std::fs::read(fixture("old.csv")).expect("old");
    let new_bytes = std::fs::read(fixture("new.csv")).expect("new");
    assert_eq!(ok(&args(&["-", &new]), &old_bytes), expected());
    assert_eq!(ok(&args(&[&old, "-"]), &new_bytes), expected());
    let (c, err) = code(&args(&["-", "-"]), b"");
    assert_eq!(c, Some(2), "{err}");
    assert!(err.contains("not both"), "{err}");
    let (c, err) = code(&args(&[&old]), b"");
    assert_eq!(c, Some(2), "{err}");
    assert!(err.contains("OLD and NEW"), "{err}");
}

#[test]
fn an_output_file_never_replaces_an_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = dir.path().join("old.csv");
    let new = dir.path().join("new.csv");
    std::fs::copy(fixture("old.csv"), &old).expect("copy");
    std::fs::copy(fixture("new.csv"), &new).expect("copy");
    let before = std::fs::read(&new).expect("read");
    let (c, err) = code(&args(&[&s(&old), &s(&new), "-o", &s(&new)]), b"");
    assert_eq!(c, Some(2), "{err}");
    assert_eq!(std::fs::read(&new).expect("read"), before);
    let out = dir.path().join("proposals.csv");
    ok(&args(&[&s(&old), &s(&new), "-o", &s(&out)]), b"");
    assert_eq!(std::fs::read_to_string(&out).expect("out"), expected());
    // Only the output: no temporary file left beside it.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["new.csv", "old.csv", "proposals.csv"]);
    // The reviewed rows are a MAP.
    let map = urlkey_redirects::RedirectMap::read(&urlkey_batch::input::Source::File(out))
        .expect("a MAP");
    assert_eq!(map.rows(), 18);
}

#[test]
fn jsonl_rows_are_the_csv_rows_with_types() {
    let (old, new) = (s(&fixture("old.csv")), s(&fixture("new.csv")));
    let text = ok(&args(&["--format", "jsonl", &old, &new]), b"");
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(rows.len(), 18);
    let golden = expected();
    let mut csv = csv::Reader::from_reader(golden.as_bytes());
    let header = csv.headers().expect("header").clone();
    for (row, rec) in rows.iter().zip(csv.records()) {
        let rec = rec.expect("row");
        for (name, cell) in header.iter().zip(rec.iter()) {
            let v = &row[name];
            let as_text = match v {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(t) => t.clone(),
                // 82.0 in JSON is 82 in CSV: the same number.
                serde_json::Value::Number(n) if cell.parse::<f64>().ok() == n.as_f64() => {
                    cell.to_string()
                }
                other => other.to_string(),
            };
            // CSV makes titles safe for spreadsheets; the fixture has none to change.
            assert_eq!(as_text, cell, "{name} in {row}");
        }
        assert!(row["ambiguous"].is_boolean());
        assert!(row["line"].is_u64());
    }
}

#[test]
fn parquet_needs_a_file_and_writes_one() {
    let (old, new) = (s(&fixture("old.csv")), s(&fixture("new.csv")));
    let (c, err) = code(&args(&["--format", "parquet", &old, &new]), b"");
    assert_eq!(c, Some(2), "{err}");
    assert!(err.contains("-o FILE"), "{err}");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("p.parquet");
    ok(
        &args(&["--format", "parquet", &old, &new, "-o", &s(&out)]),
        b"",
    );
    let bytes = std::fs::read(&out).expect("parquet");
    assert!(
        bytes.starts_with(b"PAR1") && bytes.ends_with(b"PAR1"),
        "not Parquet"
    );
}

#[test]
fn refusals_say_what_to_do_with_their_exit_codes() {
    let (old, new) = (s(&fixture("old.csv")), s(&fixture("new.csv")));
    let dir = tempfile::tempdir().expect("tempdir");
    let list = dir.path().join("new.txt");
    std::fs::write(&list, "https://acme-shop.com/\n").expect("write");
    // A title column on a list of URLs (no --column: read as lines).
    let (c, err) = code(
        &[
            "redirects",
            "propose",
            "--policy",
            "mapper@1",
            "--title-column",
            "Title 1",
            &s(&list),
            &s(&list),
        ],
        b"",
    );
    assert_eq!(c, Some(2), "{err}");
    assert!(
        err.contains("--title-column") && err.contains("no columns"),
        "{err}"
    );
    // A title column the header lacks: the input's fault.
    let (c, err) = code(
        &[
            "redirects",
            "propose",
            "--policy",
            "mapper@1",
            "--column",
            "Address",
            "--title-column",
            "Titel",
            &old,
            &new,
        ],
        b"",
    );
    assert_eq!(c, Some(3), "{err}");
    assert!(err.contains("Titel"), "{err}");
    // A missing input.
    let (c, err) = code(&args(&[&old, "no-such-file.csv"]), b"");
    assert_eq!(c, Some(3), "{err}");
    // An unknown policy.
    let (c, err) = code(
        &["redirects", "propose", "--policy", "nope@1", &old, &new],
        b"",
    );
    assert_eq!(c, Some(5), "{err}");
    // Flags that would do nothing.
    for extra in [["--keep-columns", "all"], ["--excel", "--quiet"]] {
        let mut a = args(&extra);
        a.extend([old.as_str(), new.as_str()]);
        let (c, err) = code(&a, b"");
        assert_eq!(c, Some(2), "{extra:?}: {err}");
    }
}

#[test]
fn lists_of_urls_work_without_columns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let new = dir.path().join("new.txt");
    std::fs::write(
        &new,
        "https://acme-shop.com/products/blue-widget\nhttps://acme-shop.com/contact\nhttps://acme-shop.com/blog/spring-sale",
    )
    .expect("write");
    let o = ok(
        &["redirects", "propose", "--policy", "mapper@1", "--quiet", "-", &s(&new)],
        b"http://www.acme-shop.com/Products/Blue-Widget.html\r\n\r\nhttps://acme-shop.com/contact\n/news/spring-sale.html",
    );
    let rows: Vec<&str> = o.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{o}");
    assert!(
        rows[0].starts_with("1,http://www.acme-shop.com/Products/Blue-Widget.html,candidate,https://acme-shop.com/products/blue-widget,same-path;"),
        "{}",
        rows[0]
    );
    assert!(
        rows[1].starts_with(
            "3,https://acme-shop.com/contact,served,https://acme-shop.com/contact,served,"
        ),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].starts_with(
            "4,/news/spring-sale.html,candidate,https://acme-shop.com/blog/spring-sale,same-stem;"
        ),
        "{}",
        rows[2]
    );
}

#[test]
fn a_closed_standard_output_is_no_panic() {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let status = Command::new(env!("CARGO_BIN_EXE_urlkey"))
        .args(args(&[&s(&fixture("old.csv")), &s(&fixture("new.csv"))]))
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::null())
        .status()
        .expect("runs");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn evidence_lists_the_table() {
    let names: Vec<&str> = urlkey_redirects::propose::EVIDENCE
        .iter()
        .map(|e| e.name)
        .collect();
    let text = ok(&["redirects", "evidence"], b"");
    let listed: Vec<&str> = text
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(listed, names);
    let json: serde_json::Value =
        serde_json::from_str(&ok(&["redirects", "evidence", "--format", "json"], b""))
            .expect("JSON");
    let listed: Vec<&str> = json
        .as_array()
        .expect("array")
        .iter()
        .map(|e| e["name"].as_str().expect("name"))
        .collect();
    assert_eq!(listed, names);
    assert_eq!(json[0]["points"], 100);
}
