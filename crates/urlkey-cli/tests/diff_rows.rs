//! `urlkey diff`'s rows with `--keep-columns`, and `--format parquet`, run as a user runs
//! them (the Parquet file's content is read back in urlkey-batch's `diff::row_tests`).

use std::path::Path;
use std::process::Output;

mod common;
use common::{ok, run};

/// A diff that completed: 0 or 1 (the sides differ).
fn done(args: &[&str]) -> Output {
    let o = run(args, b"");
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "urlkey {args:?}: {:?} {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8(o.stdout.clone())
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect()
}

fn json_rows(o: &Output) -> Vec<serde_json::Value> {
    lines(o)
        .iter()
        .map(|l| serde_json::from_str(l).expect("a JSON row"))
        .collect()
}

/// `diff --policy citation@1 --column url --keep-columns KEEP --format FORMAT OLD NEW`.
fn policy_rows<'a>(keep: &'a str, format: &'a str, old: &'a str, new: &'a str) -> Vec<&'a str> {
    let mut a = vec!["diff", "--policy", "citation@1", "--column", "url"];
    a.extend(["--keep-columns", keep, "--format", format, old, new]);
    a
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_str().expect("utf-8 path").to_string()
}

/// `diff --from whatwg@1 --to document@1 --column url`.
const FROM_TO: [&str; 7] = [
    "diff",
    "--from",
    "whatwg@1",
    "--to",
    "document@1",
    "--column",
    "url",
];

const CRAWL: &str = "url,Status,class\nhttps://s.example/a/b,200,x\nhttps://s.example/a/./b,301,\nnot a url,404,y\n";

#[test]
fn diff_rows_keep_columns_from_to() {
    let dir = tempfile::tempdir().expect("dir");
    let f = write(dir.path(), "crawl.csv", CRAWL);
    let with = |extra: &[&str]| {
        let mut a = FROM_TO.to_vec();
        a.push(&f);
        a.extend_from_slice(extra);
        done(&a)
    };
    // CSV: the kept columns after diff's own; one named as diff's own is renamed.
    let csv = lines(&with(&["--keep-columns", "all", "--format", "csv"]));
    assert!(
        csv[0].ends_with(",error_to,review,Status,input:class"),
        "{}",
        csv[0]
    );
    assert_eq!(csv.len(), 4);
    assert!(
        csv[2].ends_with("MANUAL REVIEW REQUIRED,301,"),
        "{}",
        csv[2]
    );
    assert!(csv[3].ends_with(",404,y"), "{}", csv[3]);
    // JSONL: the same cells as fields; a named list keeps only those.
    let rows = json_rows(&with(&["--keep-columns", "status", "--format", "jsonl"]));
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[2]["Status"], "404");
    assert_eq!(rows[2]["class"], "invalid_both");
    assert!(rows[0].get("input:class").is_none());
    // JSON Lines keeps fields by name, as map does (`all` needs a header: refused there).
    let j = write(
        dir.path(),
        "crawl.jsonl",
        "{\"url\":\"https://s.example/a/b\",\"Status\":200,\"n\":\"x\"}\n{\"url\":\"https://s.example/a/./b\"}\n",
    );
    let jsonl = [
        "diff",
        "--from",
        "whatwg@1",
        "--to",
        "document@1",
        "--field",
        "url",
    ];
    let mut a = jsonl.to_vec();
    a.extend(["--keep-columns", "Status,n", "--format", "jsonl", &j]);
    let rows = json_rows(&done(&a));
    assert_eq!(
        (rows[0]["Status"].clone(), rows[0]["n"].clone()),
        ("200".into(), "x".into())
    );
    let mut a = jsonl.to_vec();
    a.extend(["--keep-columns", "all", "--format", "jsonl", &j]);
    let o = run(&a, b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("JSONL has no header"));
    // Without the flag, the rows are as before.
    let plain = lines(&with(&["--format", "csv"]));
    assert!(plain[0].ends_with(",error_to,review"), "{}", plain[0]);
}

#[test]
fn diff_rows_keep_columns_policy_old_new() {
    let dir = tempfile::tempdir().expect("dir");
    let old = write(
        dir.path(),
        "old.csv",
        "url,Status\nhttps://a.example/x,200\nhttps://a.example/gone,404\n",
    );
    // A BOM, semicolons and CRLF, with the columns in another order and one more.
    let new = write(
        dir.path(),
        "new.csv",
        "\u{feff}Owner;url;Status\r\nann;HTTPS://a.example/x;301\r\nbob;https://a.example/new;200",
    );
    // `all`: both sides' kept columns by name; a side without one has an empty cell.
    let rows = json_rows(&done(&policy_rows("all", "jsonl", &old, &new)));
    assert_eq!(rows.len(), 4);
    let cells =
        |r: &serde_json::Value| (r["side"].clone(), r["Status"].clone(), r["Owner"].clone());
    assert_eq!(
        cells(&rows[1]),
        ("old".into(), "404".into(), serde_json::Value::Null)
    );
    assert_eq!(cells(&rows[2]), ("new".into(), "301".into(), "ann".into()));
    assert_eq!(cells(&rows[3]), ("new".into(), "200".into(), "bob".into()));
    let csv = lines(&done(&policy_rows("all", "csv", &old, &new)));
    assert!(csv[0].ends_with(",review,Status,Owner"), "{}", csv[0]);
    assert!(csv[2].ends_with(",404,"), "{}", csv[2]);
    // The same inventory on both sides does not differ (exit 0), kept columns or not.
    let same = ok(&policy_rows("all", "csv", &old, &old), b"");
    assert_eq!(
        same.lines().next(),
        Some(csv[0].replace(",Owner", "").as_str())
    );
    assert_eq!(same.lines().count(), 5);
    // A named column both sides have.
    let rows = json_rows(&done(&policy_rows("Status", "jsonl", &old, &new)));
    assert_eq!(rows[3]["Status"], "200");
    assert!(rows[3].get("Owner").is_none());
    // A named column one side lacks is refused, as map refuses it for that input.
    let o = run(&policy_rows("Owner", "csv", &old, &new), b"");
    let m = run(
        &["map", "--column", "url", "--keep-columns", "Owner", &old],
        b"",
    );
    assert_ne!(m.status.code(), Some(0));
    assert_eq!(o.status.code(), m.status.code());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cannot keep a column"), "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn diff_rows_keep_columns_refusals() {
    let dir = tempfile::tempdir().expect("dir");
    let crawl = write(dir.path(), "crawl.csv", CRAWL);
    let list = write(dir.path(), "list.txt", "https://a.example/\n");
    let from_to = ["diff", "--from", "whatwg@1", "--to", "document@1"];
    let refused = |args: &[&str], says: &str| {
        let o = run(args, b"");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
        o.status.code()
    };
    // A column the input does not have: the same code and words as map.
    let mut a = from_to.to_vec();
    a.extend([
        "--column",
        "url",
        "--keep-columns",
        "Nope",
        "--format",
        "csv",
        &crawl,
    ]);
    let code = refused(&a, "cannot keep a column");
    let m = run(
        &["map", "--column", "url", "--keep-columns", "Nope", &crawl],
        b"",
    );
    assert_eq!(code, m.status.code());
    // A list of lines has no columns to keep, in both forms (the usage code, 2).
    let mut a = from_to.to_vec();
    a.extend(["--keep-columns", "all", "--format", "csv", &list]);
    assert_eq!(refused(&a, "plain lines have no other columns"), Some(2));
    let a = policy_rows("all", "csv", &crawl, &list);
    assert_eq!(refused(&a, "plain lines have no other columns"), Some(2));
    // A report has no rows to carry them.
    let mut a = from_to.to_vec();
    a.extend(["--column", "url", "--keep-columns", "all", &crawl]);
    assert_eq!(refused(&a, "--format csv, jsonl or parquet"), Some(2));
}

#[test]
fn diff_rows_parquet_needs_a_file_and_writes_it_whole() {
    let dir = tempfile::tempdir().expect("dir");
    let crawl = write(dir.path(), "crawl.csv", CRAWL);
    let old = write(dir.path(), "old.txt", "https://a.example/x\n");
    let new = write(dir.path(), "new.txt", "https://a.example/y\n");
    let out = dir.path().join("rows.parquet");
    let out_s = out.to_str().expect("utf-8");
    let mut from_to = FROM_TO.to_vec();
    from_to.extend(["--keep-columns", "all", "--format", "parquet", &crawl]);
    // Standard output is refused: a Parquet file is not a stream.
    let o = run(&from_to, b"");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("give -o FILE"));
    let policy = [
        "diff",
        "--policy",
        "citation@1",
        "--format",
        "parquet",
        &old,
        &new,
    ];
    assert_eq!(run(&policy, b"").status.code(), Some(2));
    for args in [&from_to[..], &policy[..]] {
        let mut a = args.to_vec();
        a.extend(["-o", out_s]);
        let o = done(&a);
        assert!(o.stdout.is_empty());
        let bytes = std::fs::read(&out).expect("the file");
        assert_eq!(&bytes[..4], b"PAR1", "{args:?}");
        assert_eq!(&bytes[bytes.len() - 4..], b"PAR1", "{args:?}");
        // Written through a temporary file renamed on success: nothing else is left.
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["crawl.csv", "new.txt", "old.txt", "rows.parquet"]);
        std::fs::remove_file(&out).expect("remove");
    }
}
