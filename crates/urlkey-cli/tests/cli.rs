//! The binary's contract, run as a user runs it.

use std::io::Write;
use std::path::{Path, PathBuf};

/// `\r\n` as `\n`, so that a split on `\n` and `\r` counts each line end once.
trait ReplaceCrlf {
    fn replace_crlf(&self) -> Vec<u8>;
}
impl ReplaceCrlf for Vec<u8> {
    fn replace_crlf(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        let mut i = 0;
        while i < self.len() {
            if self[i] == b'\r' && self.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            out.push(self[i]);
            i += 1;
        }
        out
    }
}

mod common;
use common::{ok, run};

fn corpus_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/datasets/ada-url-various-datasets");
    assert!(
        dir.is_dir(),
        "the corpus is missing: expected {} (the shared/ folder beside the repository)",
        dir.display()
    );
    dir
}

fn corpus_files() -> Vec<PathBuf> {
    let d = corpus_dir();
    [
        "others/kasztp.txt",
        "others/userbait.txt",
        "files/node_files.txt",
        "files/isaacs_files.txt",
    ]
    .iter()
    .map(|f| d.join(f))
    .collect()
}

const SEED_000: &str = "HTTP://Example.com:80/a//b?utm_source=x&id=7\n/main/scripts.html?script=One\n/main/scripts.html?script=Two\n/x?a=1&b=2\n/x?b=2&a=1\njavascript:alert(1)\n";

#[test]
fn seed_000_examples_through_map() {
    let out = ok(&["map", "--quiet"], SEED_000.as_bytes());
    let mut rdr = csv::ReaderBuilder::new().from_reader(out.as_bytes());
    let headers = rdr.headers().expect("header").clone();
    assert_eq!(
        headers.iter().collect::<Vec<_>>(),
        [
            "line",
            "observed",
            "status",
            "key",
            "signature",
            "group",
            "duplicate_of",
            "duplicates",
            "variants",
            "classification",
            "removed_tracking",
            "error_code",
            "error",
            "review"
        ]
    );
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.expect("row")).collect();
    let col = |r: &csv::StringRecord, name: &str| {
        r[headers.iter().position(|h| h == name).expect("column")].to_string()
    };
    let classes: Vec<String> = rows.iter().map(|r| col(r, "classification")).collect();
    assert_eq!(
        classes,
        [
            "unique",
            "review",
            "review",
            "duplicate",
            "duplicate",
            "invalid"
        ]
    );
    assert_eq!(col(&rows[0], "key"), "http://example.com/a/b?id=7");
    assert_eq!(col(&rows[0], "removed_tracking"), "utm_source");
    assert_eq!(col(&rows[4], "duplicate_of"), "4");
    assert_eq!(col(&rows[2], "group"), "2");
    assert_eq!(col(&rows[5], "error_code"), "mapper.unsupported-scheme");
    assert!(rows
        .iter()
        .all(|r| col(r, "review") == "MANUAL REVIEW REQUIRED"));
}

#[test]
fn map_jsonl_has_the_csv_fields_and_the_details() {
    let out = ok(
        &["map", "--quiet", "--format", "jsonl"],
        SEED_000.as_bytes(),
    );
    let first: serde_json::Value =
        serde_json::from_str(out.lines().next().expect("a line")).expect("JSON");
    for f in [
        "line",
        "observed",
        "status",
        "key",
        "signature",
        "group",
        "duplicate_of",
        "duplicates",
        "variants",
        "classification",
        "removed_tracking",
        "error_code",
        "error",
        "review",
        "transformations",
        "removed_params",
        "facts",
    ] {
        assert!(first.get(f).is_some(), "missing {f}");
    }
    assert_eq!(first["removed_params"], serde_json::json!(["utm_source"]));
}

#[test]
fn map_groups_and_summary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let summary = dir.path().join("s.json");
    let out = ok(
        &[
            "map",
            "--quiet",
            "--groups",
            "--summary",
            summary.to_str().expect("path"),
        ],
        SEED_000.as_bytes(),
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "group,signature,members,distinct_keys,classification,sample_lines,review"
    );
    assert!(
        lines.contains(&"2,/main/scripts.html?script,2,2,review,2;3,MANUAL REVIEW REQUIRED"),
        "{out}"
    );
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summary).expect("summary")).expect("JSON");
    assert_eq!(s["records"], 6);
    assert_eq!(s["valid"], 5);
    assert_eq!(s["invalid_by_code"]["mapper.unsupported-scheme"], 1);
    assert_eq!(s["distinct_keys"], 4);
    assert_eq!(s["duplicate_groups"], 1);
    assert_eq!(s["review_groups"], 1);
}

#[test]
fn key_record_contract() {
    let out = ok(
        &["key", "--quiet", "--policy", "citation@1"],
        b"# comment\n\nhttps://research.example.net/report/?gclid=example\nftp://x/\n",
    );
    let recs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(recs.len(), 2);
    let first_line = out.lines().next().expect("a record");
    // The record's fields are the key table's columns, in order (the table itself is
    // pinned in urlkey-batch's rows/columns.rs).
    let fields = urlkey_batch::rows::KEY_TABLE;
    let positions: Vec<usize> = fields
        .iter()
        .map(|c| c.name)
        .map(|f| {
            first_line
                .find(&format!("\"{f}\":"))
                .unwrap_or_else(|| panic!("missing {f}"))
        })
        .collect();
    assert!(
        positions.windows(2).all(|w| w[0] < w[1]),
        "fields in contract order: {first_line}"
    );
    assert_eq!(recs[0].as_object().expect("object").len(), fields.len());
    assert_eq!(recs[0]["line"], 3);
    assert_eq!(recs[0]["key"], "https://research.example.net/report");
    assert_eq!(
        recs[0]["transformations"][0]["rule"],
        "remove-tracking-parameters"
    );
    assert_eq!(recs[1]["line"], 4);
    assert_eq!(recs[1]["status"], "invalid");
    assert_eq!(recs[1]["key"], serde_json::Value::Null);
    assert_eq!(recs[1]["error"]["code"], "citation.unsupported-scheme");
    let keys = ok(
        &[
            "key",
            "--quiet",
            "--policy",
            "citation@1",
            "--format",
            "key",
        ],
        b"https://a.example/x/\nnot a url\n",
    );
    assert_eq!(keys, "https://a.example/x\n\n");
}

#[test]
fn summary_on_stderr_counts_skipped_lines() {
    let out = run(&["key", "--policy", "whatwg@1"], b"# c\n\nhttps://a/\n");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("1 records") && err.contains("2 lines skipped (1 blank, 1 comment)"),
        "{err}"
    );
}

#[test]
fn every_corpus_line_comes_out_exactly_once() {
    let mut files: Vec<String> = corpus_files()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let hostile = dir.path().join("hostile.txt");
    let mut h: Vec<u8> = Vec::new();
    h.extend_from_slice(b"\xEF\xBB\xBFhttps://bom.example/\n"); // BOM at the start
    h.extend_from_slice(b"https://a.example/\xFF\xFE\n"); // invalid UTF-8
    h.extend_from_slice(b"https://nul.example/\x00x\n"); // NUL
    h.extend_from_slice(b"https://"); // a 1 MB line
    h.extend(std::iter::repeat_n(b'a', 1 << 20));
    h.extend_from_slice(b"\r\n");
    h.extend_from_slice(b"https://crlf.example/\r\nhttps://lf.example/\n\r\n");
    h.extend_from_slice(b"   \t  \n"); // whitespace only: skipped as blank
    h.extend_from_slice(b"\"https://quoted.example/\",x\n");
    h.extend_from_slice(b"https://last.example/no-newline");
    std::fs::write(&hostile, &h).expect("write");
    files.push(hostile.display().to_string());
    let mut args = vec![
        "key", "--quiet", "--policy", "mapper@1", "--format", "jsonl",
    ];
    args.extend(files.iter().map(String::as_str));
    let out = ok(&args, b"");
    // Each record names its input (`source`) and its physical line in that input.
    let lines: Vec<(String, u64)> = out
        .lines()
        .map(|l| {
            let v = serde_json::from_str::<serde_json::Value>(l).expect("JSON");
            (
                v["source"].as_str().expect("source").to_string(),
                v["line"].as_u64().expect("line"),
            )
        })
        .collect();
    // Count the lines of each input the way the reader does: `\n`, `\r\n` and a lone `\r`
    // end a line; a final line without an end still counts; blank and comment lines do
    // not produce records.
    let mut expected = 0u64;
    let mut total_lines = 0u64;
    for f in &files {
        let bytes = std::fs::read(f).expect("read");
        let text = bytes.replace_crlf();
        for line in text.split(|&b| b == b'\n' || b == b'\r') {
            total_lines += 1;
            let t = line.trim_ascii();
            let t = t.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(t);
            if !t.is_empty() && t[0] != b'#' {
                expected += 1;
            }
        }
        if text.ends_with(b"\n") || text.ends_with(b"\r") {
            total_lines -= 1; // split yields an empty piece after the final line end
        }
    }
    assert_eq!(
        lines.len() as u64,
        expected,
        "one record per non-blank, non-comment line"
    );
    let order: Vec<(usize, u64)> = lines
        .iter()
        .map(|(s, l)| {
            (
                files.iter().position(|f| f == s).expect("a known source"),
                *l,
            )
        })
        .collect();
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "records in input order, each line once"
    );
    assert!(lines.iter().all(|(_, l)| *l <= total_lines));
    assert!(expected > 109_000, "the whole corpus was read ({expected})");
    let tail: Vec<serde_json::Value> = out
        .lines()
        .rev()
        .take(9)
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    let codes: Vec<String> = tail
        .iter()
        .rev()
        .map(|r| r["error"]["code"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        codes.contains(&"input.invalid-utf8".to_string()),
        "{codes:?}"
    );
    assert!(codes.contains(&"input.too-long".to_string()), "{codes:?}");
}

#[test]
fn output_is_identical_with_one_and_two_threads() {
    let files: Vec<String> = corpus_files()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    for cmd in [
        ["key", "--policy", "webkey@1"],
        ["map", "--policy", "mapper@1"],
    ] {
        let mut a1: Vec<&str> = cmd.to_vec();
        a1.extend(["--quiet", "--threads", "1"]);
        a1.extend(files.iter().map(String::as_str));
        let mut a2 = a1.clone();
        a2[a1.iter().position(|a| *a == "1").expect("threads")] = "2";
        let one = ok(&a1, b"");
        let two = ok(&a2, b"");
        assert!(one.len() > 1_000_000);
        assert!(
            one == two,
            "{cmd:?}: output differs between 1 and 2 threads"
        );
    }
}

/// `--format key` takes the lean key path (`Policy::key_into`); its lines must be the
/// JSONL records' keys (empty for invalid records), for every builtin policy, on one and
/// two threads.
#[test]
fn key_format_lines_are_the_jsonl_keys() {
    let files: Vec<String> = corpus_files()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    for policy in urlkey::policy::BUILTIN_IDS.iter().copied() {
        let mut jsonl = vec!["key", "--quiet", "--policy", policy, "--format", "jsonl"];
        jsonl.extend(files.iter().map(String::as_str));
        let want: String = ok(&jsonl, b"")
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
                format!("{}\n", v["key"].as_str().unwrap_or(""))
            })
            .collect();
        assert!(want.lines().count() > 109_000);
        for threads in ["1", "2"] {
            let mut args = vec![
                "key",
                "--quiet",
                "--policy",
                policy,
                "--format",
                "key",
                "--threads",
                threads,
            ];
            args.extend(files.iter().map(String::as_str));
            assert!(
                ok(&args, b"") == want,
                "{policy}, {threads} thread(s): --format key differs from the JSONL keys"
            );
        }
    }
}

#[test]
fn gzip_and_zstd_input_give_the_same_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plain = std::fs::read(&corpus_files()[1]).expect("read");
    let p = dir.path().join("u.txt");
    std::fs::write(&p, &plain).expect("write");
    let gz = dir.path().join("u.txt.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&plain).expect("gzip");
    std::fs::write(&gz, enc.finish().expect("gzip")).expect("write");
    let zst = dir.path().join("u.zst");
    std::fs::write(&zst, zstd::encode_all(&plain[..], 3).expect("zstd")).expect("write");
    let noext = dir.path().join("u-compressed");
    std::fs::copy(&gz, &noext).expect("copy");
    let base = ok(&["map", "--quiet", p.to_str().expect("path")], b"");
    for f in [&gz, &zst, &noext] {
        assert_eq!(
            ok(&["map", "--quiet", f.to_str().expect("path")], b""),
            base,
            "{}",
            f.display()
        );
    }
}

#[test]
fn csv_and_jsonl_input() {
    let csv_in = b"id,url\n1,https://a.example/x?utm_source=1\n2,\n3,\"https://b.example/\"\n";
    let out = ok(
        &[
            "key",
            "--quiet",
            "--input-format",
            "csv",
            "--column",
            "url",
            "--format",
            "csv",
        ],
        csv_in,
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[1]
        .starts_with("2,https://a.example/x?utm_source=1,citation@1,ok,https://a.example/x,"));
    assert!(lines[2].starts_with("3,,citation@1,invalid,,,input.missing-field,"));
    let jl = b"{\"url\":\"https://a.example/\"}\n{\"nourl\":1}\n";
    let out = ok(
        &[
            "key",
            "--quiet",
            "--input-format",
            "jsonl",
            "--field",
            "url",
            "--format",
            "key",
        ],
        jl,
    );
    assert_eq!(out, "https://a.example/\n\n");
}

#[test]
fn formulas_are_not_run_by_spreadsheets() {
    let out = ok(
        &["map", "--quiet"],
        b"=HYPERLINK(\"http://evil.example\")\n",
    );
    assert!(out.contains("'=HYPERLINK"), "{out}");
}

#[test]
fn exit_codes() {
    let code = |args: &[&str]| run(args, b"").status.code();
    assert_eq!(code(&["key", "--policy", "nope@1"]), Some(5));
    assert_eq!(code(&["key", "--policy", "citation@1+nope"]), Some(5));
    assert_eq!(code(&["key", "/nonexistent/file.txt"]), Some(3));
    assert_eq!(code(&["key", "--format", "xml"]), Some(2));
    assert_eq!(
        code(&["key", "--policy", "citation@1", "--base", "https://a/"]),
        Some(2)
    );
    // An empty input is no failure: no records, and a note that says it was empty.
    let empty = run(&["map", "--input-format", "csv", "--column", "url"], b"");
    assert_eq!(empty.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("empty"));
    assert_eq!(
        run(
            &["map", "--input-format", "csv", "--column", "url"],
            b"link\nx\n"
        )
        .status
        .code(),
        Some(3)
    );
    assert_eq!(code(&["frobnicate"]), Some(2));
    let out = run(
        &["key", "--policy", "citation@1", "/nonexistent/file.txt"],
        b"",
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/file.txt: cannot open"));
}

/// The rows (code, meaning) of the table under `## Exit codes` in a doc.
fn exit_table(doc: &str) -> Vec<(i32, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(doc);
    let text = std::fs::read_to_string(&path).expect("the doc");
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("Exit codes\n"))
        .unwrap_or_else(|| panic!("{doc} has no Exit codes section"));
    section
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim().trim_matches('|').split(" | ").collect();
            let code = cells.first()?.trim().parse().ok()?;
            Some((code, cells.get(1)?.trim().to_string()))
        })
        .collect()
}

/// docs/cli.md's table is the code's table: the same codes in the same order, each row
/// starting with what the code says it means.
#[test]
fn exit_code_table_in_the_docs_is_the_codes() {
    use urlkey_batch::exit::Exit;
    let rows = exit_table("docs/cli.md");
    let codes: Vec<i32> = rows.iter().map(|r| r.0).collect();
    let want: Vec<i32> = Exit::ALL.iter().map(|e| e.code()).collect();
    assert_eq!(codes, want, "docs/cli.md's Exit codes against Exit::ALL");
    for (e, (code, meaning)) in Exit::ALL.iter().zip(&rows) {
        assert!(
            meaning.starts_with(e.summary()),
            "{code}: {meaning:?} should start with {:?}",
            e.summary()
        );
    }
}

/// docs/ledger.md's table gives the codes the ledger's errors map to, each one of the
/// shared table's, and never 1 (the ledger compares nothing).
#[test]
fn exit_code_table_of_the_ledger_is_part_of_the_shared_one() {
    use urlkey_batch::exit::Exit;
    use urlkey_ledger::error::ErrorKind;
    let m = String::new;
    let mut want: Vec<i32> = [
        ErrorKind::OutputClosed,
        ErrorKind::Usage(m()),
        ErrorKind::Input(m()),
        ErrorKind::Output(m()),
        ErrorKind::Policy(m()),
        ErrorKind::Database(m()),
        ErrorKind::Other(m()),
    ]
    .iter()
    .map(|k| k.exit().code())
    .chain([Exit::Interrupted.code(), Exit::Terminated.code()])
    .collect();
    want.sort_unstable();
    let codes: Vec<i32> = exit_table("docs/ledger.md").iter().map(|r| r.0).collect();
    assert_eq!(codes, want, "docs/ledger.md's Exit codes");
    assert!(!codes.contains(&Exit::Differ.code()));
    let shared: Vec<i32> = Exit::ALL.iter().map(|e| e.code()).collect();
    assert!(codes.iter().all(|c| shared.contains(c)), "{codes:?}");
}

/// An internal error (here: `serve` on an address another socket holds) exits 70, not 1,
/// which only says that compared inputs differ.
#[test]
fn exit_code_table_internal_error_is_70() {
    let held = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = held.local_addr().expect("addr").to_string();
    let out = run(&["serve", "--addr", &addr], b"");
    assert_eq!(
        out.status.code(),
        Some(urlkey_batch::exit::Exit::Internal.code()),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(70));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot listen"));
}

#[test]
fn base_is_honoured_by_whatwg() {
    let out = ok(
        &[
            "key",
            "--quiet",
            "--policy",
            "whatwg@1",
            "--base",
            "https://a.example/dir/",
            "--format",
            "key",
        ],
        b"../x?y#z\n",
    );
    assert_eq!(out, "https://a.example/x?y#z\n");
}

#[test]
fn policy_file_and_psl_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pf = dir.path().join("p.toml");
    std::fs::write(
        &pf,
        "[[policy]]\nid = \"shop@1\"\nparser = \"whatwg\"\nschemes = \"web\"\nkey = \"url\"\nrules = [\n  { rule = \"strip-www\" },\n  { rule = \"remove-fragment\", keep_routes = true },\n]\n",
    )
    .expect("write");
    let pfs = pf.to_str().expect("path");
    let out = ok(
        &[
            "key",
            "--quiet",
            "--policy-file",
            pfs,
            "--policy",
            "shop@1",
            "--format",
            "key",
        ],
        b"https://www.example.com/#/route\n",
    );
    assert_eq!(
        out, "https://example.com/#/route\n",
        "keep_routes keeps the route in the key"
    );
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "[[policy]]\nid = \"x@1\"\nparser = \"whatwg\"\nkey = \"url\"\nrules = [{ rule = \"frobnicate\" }]\n").expect("write");
    let out = run(
        &[
            "key",
            "--policy-file",
            bad.to_str().expect("path"),
            "--policy",
            "x@1",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(5));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.toml") && err.contains("line 5"), "{err}");
    let psl = dir.path().join("psl.dat");
    std::fs::write(
        &psl,
        "// VERSION: test-1\n// ===BEGIN ICANN DOMAINS===\nexample\n// ===END ICANN DOMAINS===\n",
    )
    .expect("write");
    let out = ok(
        &[
            "key",
            "--quiet",
            "--psl",
            psl.to_str().expect("path"),
            "--policy",
            "webkey@1",
        ],
        b"https://a.b.c.example/\n",
    );
    let rec: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON");
    assert_eq!(rec["key"], "c.example");
    assert_eq!(rec["psl"], "test-1");
}

#[test]
fn inspect_json_fields() {
    let out = ok(
        &[
            "inspect",
            "--format",
            "json",
            "https://www.linkedin.com/in/alice?utm_source=x#top",
        ],
        b"",
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    for f in [
        "canonical",
        "facts",
        "is_website",
        "profile",
        "offsets",
        "query_pairs",
        "registrable_domain",
        "key",
        "keys",
    ] {
        assert!(v.get(f).is_some(), "missing {f}");
    }
    assert_eq!(v["canonical"], "https://www.linkedin.com/in/alice");
    assert_eq!(v["profile"]["network"], "linkedin");
    assert_eq!(v["key"], "linkedin.com/in/alice");
    assert_eq!(v["registrable_domain"], "linkedin.com");
    assert_eq!(v["offsets"]["host"]["bytes"]["start"], 8);
    let text = ok(&["inspect", "example.com:8080/x"], b"");
    assert!(text.contains("scheme-assumed"), "{text}");
}

/// A policy that refuses the input says so at the top level, and query pairs are null
/// (text: "-") when the text is not a well-formed URL (docs/cli.md, `urlkey inspect`).
#[test]
fn inspect_reports_the_policys_refusal_and_no_pairs_without_a_url() {
    let out = ok(
        &[
            "inspect",
            "--format",
            "json",
            "--policy",
            "citation@1",
            "example.com/A/",
        ],
        b"",
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["valid"], true);
    assert!(v["key"].is_null());
    assert_eq!(v["key_error"]["code"], "web.invalid-url");
    let text = ok(
        &["inspect", "--policy", "citation@1", "example.com/A/"],
        b"",
    );
    assert!(
        text.contains("key (citation@1)  invalid: web.invalid-url"),
        "{text}"
    );
    let out = ok(
        &["inspect", "--format", "json", "http://1.2.3.4.5/?a=1&b"],
        b"",
    );
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert!(v["query_pairs"].is_null(), "{}", v["query_pairs"]);
    assert!(v["key_error"].is_object());
    let text = ok(&["inspect", "http://1.2.3.4.5/?a=1&b"], b"");
    assert!(
        text.contains("query pairs        - (not a well-formed URL)"),
        "{text}"
    );
}

#[test]
fn policies_rules_codes() {
    let p = ok(&["policies"], b"");
    for id in urlkey::policy::BUILTIN_IDS.iter() {
        assert!(p.contains(id), "{p}");
    }
    assert!(p.contains("Public Suffix List: 2026-10-22_08-36-41_UTC"));
    let r = ok(&["rules"], b"");
    assert!(r.contains("gclid") && r.contains("support.google.com/google-ads/answer/3095550"));
    let c = ok(&["codes", "--format", "json"], b"");
    let v: serde_json::Value = serde_json::from_str(&c).expect("JSON");
    assert!(v.as_array().expect("array").len() >= 19);
}

#[test]
fn map_from_stdin_equals_map_from_file_and_writes_to_o() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in.txt");
    std::fs::write(&input, SEED_000).expect("write");
    let out_file = dir.path().join("out.csv");
    let from_stdin = ok(
        &["map", "--quiet", "--verify-fingerprints"],
        SEED_000.as_bytes(),
    );
    let printed = ok(
        &[
            "map",
            "--quiet",
            "-o",
            out_file.to_str().expect("path"),
            input.to_str().expect("path"),
        ],
        b"",
    );
    assert_eq!(printed, "", "with -o nothing goes to standard output");
    assert_eq!(
        std::fs::read_to_string(&out_file).expect("output file"),
        from_stdin
    );
}

#[test]
fn verify_fingerprints_gives_the_same_rows() {
    let files: Vec<String> = corpus_files()
        .iter()
        .take(2)
        .map(|p| p.display().to_string())
        .collect();
    let mut plain = vec!["map", "--quiet"];
    plain.extend(files.iter().map(String::as_str));
    let mut verified = plain.clone();
    verified.push("--verify-fingerprints");
    assert_eq!(ok(&plain, b""), ok(&verified, b""));
}

// ---- urlkey explain ----

/// `urlkey explain ARGS --format json`: the exit code and the parsed report.
fn explain_json(args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut all = vec!["explain", "--format", "json"];
    all.extend_from_slice(args);
    let out = run(&all, b"");
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), v)
}

#[test]
fn explain_meets_through_every_rule_of_the_catalogue() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pf = dir.path().join("rules.toml");
    let mut toml = String::new();
    // web-key writes no http(s) scheme: the document front end keeps it (`url`), so that
    // lowercase-scheme has something to show.
    let form = |parser: &str| {
        if parser == "document" {
            "url"
        } else {
            "web-key"
        }
    };
    for parser in ["whatwg", "document"] {
        let key = form(parser);
        toml.push_str(&format!(
            "[[policy]]\nid = \"bare-{parser}@1\"\nparser = \"{parser}\"\nkey = \"{key}\"\nrules = []\n\n"
        ));
    }
    // Each rule's example pair (`Step::EXAMPLE`, in the rule's own file): the first input
    // is changed by that rule into the second's key; the parser is one whose own parse
    // leaves the difference for the rule to make.
    let examples: Vec<(&str, &str, &str, &str)> = urlkey::internals::policy::Rule::examples()
        .into_iter()
        .map(|(name, e)| (name, e.parser, e.before, e.after))
        .collect();
    for name in urlkey::internals::policy::Rule::names() {
        let Some((_, parser, _, _)) = examples.iter().find(|p| p.0 == *name) else {
            panic!("rule {name} has no example");
        };
        let key = form(parser);
        toml.push_str(&format!(
            "[[policy]]\nid = \"only-{name}@1\"\nparser = \"{parser}\"\nkey = \"{key}\"\nrules = [{{ rule = \"{name}\" }}]\n\n"
        ));
    }
    std::fs::write(&pf, toml).expect("write");
    let pfs = pf.to_str().expect("path");
    for (name, parser, a, b) in &examples {
        assert!(
            urlkey::internals::policy::Rule::names().contains(name),
            "{name} is not a rule"
        );
        let id = format!("only-{name}@1");
        let (code, v) = explain_json(&["--policy-file", pfs, "--policy", &id, a, b]);
        assert_eq!(code, Some(0), "{name}: {v}");
        assert_eq!(v["same_key"], true, "{name}: {v}");
        assert_eq!(v["rules"], serde_json::json!([name]), "{name}: {v}");
        let mine = v["transformations"][0].as_array().expect("array");
        assert!(mine.iter().any(|t| t["rule"] == *name), "{name}: {v}");
        assert!(
            v["transformations"][1]
                .as_array()
                .expect("array")
                .iter()
                .all(|t| t["rule"] != *name),
            "{name}: the second input is already in the form: {v}"
        );
        // Without the rule the same front end keeps them apart: the rule made them meet.
        let bare = format!("bare-{parser}@1");
        let (code, v) = explain_json(&["--policy-file", pfs, "--policy", &bare, a, b]);
        assert_eq!(code, Some(1), "{name} without the rule: {v}");
        assert_eq!(v["same_key"], false);
    }
}

#[test]
fn explain_exit_codes_and_json_shape() {
    let (code, v) = explain_json(&[
        "https://Example.com/a/?utm_source=x",
        "https://example.com/a",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(v["policy"], "citation@1", "the default is key's");
    for field in [
        "policy",
        "same_key",
        "inputs",
        "keys",
        "errors",
        "rules",
        "transformations",
        "differs_in",
        "differing_values",
        "same_key_under",
    ] {
        assert!(v.get(field).is_some(), "{field} missing: {v}");
    }
    assert_eq!(
        v["rules"],
        serde_json::json!([
            "whatwg-parse",
            "remove-tracking-parameters",
            "remove-trailing-slash"
        ])
    );
    assert_eq!(
        v["keys"],
        serde_json::json!(["https://example.com/a", "https://example.com/a"])
    );
    assert_eq!(v["transformations"][1], serde_json::json!([]));
    assert!(v["differs_in"].is_null());
    assert!(v["differing_values"].is_null());

    // Three inputs, one apart: 1, with the hint.
    let (code, v) = explain_json(&[
        "https://www.example.com/A",
        "https://example.com/a",
        "http://example.com/a/",
    ]);
    assert_eq!(code, Some(1));
    // The first component in URL order where any two differ.
    assert_eq!(v["differs_in"], "scheme");
    assert_eq!(
        v["differing_values"],
        serde_json::json!(["https", "https", "http"])
    );
    assert_eq!(v["same_key_under"], serde_json::json!(["webkey@1"]));

    // An invalid input never shares a key, not even with itself.
    let (code, v) = explain_json(&["mailto:a@b.example", "mailto:a@b.example"]);
    assert_eq!(code, Some(1));
    assert_eq!(v["same_key"], false);
    assert_eq!(v["errors"][0]["code"], "citation.unsupported-scheme");
    assert!(v["differs_in"].is_null());
    assert!(v["differing_values"].is_null());

    // Usage errors 2 (one input, an unknown format), an unknown policy 5 as everywhere.
    assert_eq!(
        run(&["explain", "https://a.example/"], b"").status.code(),
        Some(2)
    );
    assert_eq!(
        run(&["explain", "--format", "xml", "a", "b"], b"")
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run(&["explain", "--policy", "nope@1", "a", "b"], b"")
            .status
            .code(),
        Some(5)
    );
    // --quiet: the status alone.
    let out = run(
        &["explain", "-q", "https://a.example/", "https://b.example/"],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    // The text form says it.
    let out = run(
        &[
            "explain",
            "https://a.example/?gclid=1",
            "https://a.example/",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("same key: yes"), "{text}");
    assert!(
        text.contains("rules that made them meet") && text.contains("remove-tracking-parameters"),
        "{text}"
    );
}

#[test]
fn explain_differs_in_each_component() {
    let cases = [
        (
            "scheme",
            "http://a.example/",
            "https://a.example/",
            "http",
            "https",
        ),
        (
            "userinfo",
            "https://u@a.example/",
            "https://v@a.example/",
            "u",
            "v",
        ),
        (
            "host",
            "https://a.example/",
            "https://b.example/",
            "a.example",
            "b.example",
        ),
        (
            "port",
            "https://a.example:1/",
            "https://a.example:2/",
            "1",
            "2",
        ),
        (
            "path",
            "https://a.example/x",
            "https://a.example/y",
            "/x",
            "/y",
        ),
        (
            "query",
            "https://a.example/?a",
            "https://a.example/?b",
            "a",
            "b",
        ),
        (
            "fragment",
            "https://a.example/#a",
            "https://a.example/#b",
            "a",
            "b",
        ),
    ];
    for (component, a, b, va, vb) in cases {
        let (code, v) = explain_json(&["--policy", "whatwg@1", a, b]);
        assert_eq!(code, Some(1), "{component}: {v}");
        assert_eq!(v["differs_in"], component, "{v}");
        assert_eq!(v["differing_values"], serde_json::json!([va, vb]), "{v}");
    }
    // A web key (no scheme for http and https) against one with a scheme; a missing query.
    let (_, v) = explain_json(&[
        "--policy",
        "webkey@1",
        "https://a.example/x",
        "ftp://a.example/x",
    ]);
    assert_eq!(v["differs_in"], "scheme", "{v}");
    assert_eq!(v["differing_values"], serde_json::json!([null, "ftp"]));
    let (_, v) = explain_json(&[
        "--policy",
        "webkey@1",
        "https://a.example/x?q=1",
        "a.example/x",
    ]);
    assert_eq!(v["differs_in"], "query", "{v}");
    assert_eq!(v["differing_values"], serde_json::json!(["q=1", null]));
}

// ---- urlkey diff --from P --to Q ----

/// `urlkey diff --format json ARGS`, which must complete.
fn diff_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["diff", "--format", "json", "--quiet"];
    all.extend_from_slice(args);
    diff_json_raw(&all)
}

/// Whether a diff report (either form's JSON) says that the sides differ, from its counts:
/// the exit status must say the same.
fn report_differs(v: &serde_json::Value) -> bool {
    let n = |p: &str| {
        v.pointer(p)
            .and_then(serde_json::Value::as_u64)
            .unwrap_or_else(|| panic!("{p} in {v}"))
    };
    if v.get("from").is_some() {
        n("/records") > n("/by_class/unchanged") + n("/by_class/invalid_both")
    } else {
        n("/only_old/keys") + n("/only_new/keys") > 0
    }
}

#[test]
fn diff_citation_to_webkey_merges_www_and_path_case_and_the_reverse_splits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let inv = dir.path().join("inv.txt");
    std::fs::write(
        &inv,
        "https://www.example.com/a\nhttps://example.com/a\nhttps://example.com/Docs\nhttps://example.com/docs\nhttps://example.com/same?x=1\nhttps://Example.org/only\nmailto:a@b.example\n",
    )
    .expect("write");
    let invs = inv.to_str().expect("path");
    let v = diff_json(&["--from", "citation@1", "--to", "webkey@1", invs]);
    assert_eq!(v["records"], 7);
    assert_eq!(v["keys_from"], 6);
    assert_eq!(v["keys_to"], 5, "mailto: is valid under webkey@1 alone");
    let merges = v["merges"].as_array().expect("merges");
    assert_eq!(merges.len(), 2, "{v}");
    assert_eq!(merges[0]["key"], "example.com/a");
    assert_eq!(
        merges[0]["keys"],
        serde_json::json!(["https://www.example.com/a", "https://example.com/a"])
    );
    assert_eq!(merges[0]["records"], 2);
    assert!(
        merges[0]["rules"]
            .as_array()
            .expect("rules")
            .contains(&serde_json::json!("registrable-domain")),
        "{v}"
    );
    assert_eq!(merges[0]["examples"][0]["line"], 1);
    assert_eq!(merges[0]["examples"][0]["source"], invs);
    assert_eq!(merges[1]["key"], "example.com/docs");
    assert_eq!(merges[1]["rules"], serde_json::json!(["lowercase-path"]));
    assert_eq!(v["splits"], serde_json::json!([]));
    // The key text changed (no scheme), the group did not.
    assert_eq!(v["changed"]["records"], 2, "{v}");
    assert_eq!(v["invalid_from_only"]["records"], 1);
    assert_eq!(
        v["invalid_from_only"]["by_code"]["citation.unsupported-scheme"],
        1
    );
    assert_eq!(v["invalid_to_only"]["records"], 0);

    // The reverse: the same groups split, with the same rules responsible.
    let v = diff_json(&["--from", "webkey@1", "--to", "citation@1", invs]);
    let splits = v["splits"].as_array().expect("splits");
    assert_eq!(splits.len(), 2, "{v}");
    assert_eq!(splits[0]["key"], "example.com/a");
    assert_eq!(splits[0]["keys"].as_array().map(Vec::len), Some(2));
    assert_eq!(splits[1]["rules"], serde_json::json!(["lowercase-path"]));
    assert_eq!(v["merges"], serde_json::json!([]));
    assert_eq!(v["invalid_to_only"]["records"], 1);

    // The same policy twice: nothing moves.
    let v = diff_json(&["--from", "webkey@1", "--to", "webkey@1", invs]);
    assert_eq!(v["merges"], serde_json::json!([]));
    assert_eq!(v["splits"], serde_json::json!([]));
    assert_eq!(v["changed"]["records"], 0);
}

#[test]
fn diff_invalid_under_one_policy_sources_and_output_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = dir.path().join("a.txt");
    let b = dir.path().join("b.txt");
    std::fs::write(&a, "/main/page?x=1\n/main/Page?x=1\n").expect("write");
    std::fs::write(&b, "javascript:alert(1)\nhttps://a.example/x\n").expect("write");
    let (sa, sb) = (a.to_str().expect("path"), b.to_str().expect("path"));
    let v = diff_json(&["--from", "mapper@1", "--to", "webkey@1", sa, sb]);
    // Path-only lines are valid under mapper@1 alone; javascript: under webkey@1 alone.
    assert_eq!(v["invalid_to_only"]["records"], 2, "{v}");
    assert_eq!(v["invalid_to_only"]["by_code"]["web.invalid-url"], 2);
    assert_eq!(v["invalid_to_only"]["examples"][0]["source"], sa);
    assert_eq!(v["invalid_from_only"]["records"], 1);
    assert_eq!(v["invalid_from_only"]["examples"][0]["source"], sb);
    assert_eq!(v["invalid_from_only"]["examples"][0]["line"], 1);
    assert_eq!(
        v["invalid_from_only"]["examples"][0]["key_to"],
        "javascript:alert(1)"
    );

    // -o: the same bytes as standard output, written through a temporary file.
    let out = dir.path().join("diff.json");
    let o = out.to_str().expect("path");
    let printed = run(
        &[
            "diff", "--quiet", "--format", "json", "--from", "mapper@1", "--to", "webkey@1", sa, sb,
        ],
        b"",
    );
    let written = run(
        &[
            "diff", "--quiet", "--format", "json", "--from", "mapper@1", "--to", "webkey@1", sa,
            sb, "-o", o,
        ],
        b"",
    );
    // The sides differ: 1, as diff(1), with the report written all the same.
    assert_eq!(written.status.code(), Some(1));
    assert!(written.stdout.is_empty());
    assert_eq!(std::fs::read(&out).expect("read"), printed.stdout);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names.len(), 3, "no temporary file left: {names:?}");
    // -o naming an input is a usage error; an unknown policy 5; a missing file 3.
    let o = run(
        &[
            "diff", "--from", "mapper@1", "--to", "webkey@1", sa, "-o", sa,
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(2));
    // --threads runs the same two passes on more workers: the same report.
    let threaded = diff_json(&[
        "--from",
        "mapper@1",
        "--to",
        "webkey@1",
        "--threads",
        "2",
        sa,
        sb,
    ]);
    assert_eq!(threaded, v);
    // Flags diff would otherwise ignore are refused (--keep-columns in a report: its
    // rows take it, tests/diff_rows.rs).
    for (extra, says) in [
        (&["--excel"][..], "does not take --excel"),
        (
            &["--keep-columns", "all"][..],
            "--format csv, jsonl or parquet",
        ),
    ] {
        let mut args = vec!["diff", "--from", "mapper@1", "--to", "webkey@1", sa];
        args.extend_from_slice(extra);
        let o = run(&args, b"");
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(says),
            "{extra:?}"
        );
    }
    let o = run(&["diff", "--from", "mapper@9", "--to", "webkey@1", sa], b"");
    assert_eq!(o.status.code(), Some(5));
    let missing = dir.path().join("missing.txt");
    let o = run(
        &[
            "diff",
            "--from",
            "mapper@1",
            "--to",
            "webkey@1",
            missing.to_str().expect("path"),
        ],
        b"",
    );
    assert_eq!(o.status.code(), Some(3));
    // The text summary.
    let t = run(
        &["diff", "--from", "citation@1", "--to", "webkey@1", sa, sb],
        b"",
    );
    let text = String::from_utf8_lossy(&t.stdout);
    assert!(
        text.contains("keys under citation@1") && text.contains("merges"),
        "{text}"
    );
}

// ---- urlkey diff: every pair of builtins, rows, two inventories ----

/// Pairs of URLs on hosts of their own, each told apart by some builtins and not others.
/// Which builtins give a pair one key is read from the policies themselves (their golden
/// fixtures test that), so a new builtin needs no line here.
const DIFF_PROBES: [(&str, &str, &str); 12] = [
    ("www", "https://www.p1.example/a", "https://p1.example/a"),
    (
        "path case",
        "https://p2.example/Docs",
        "https://p2.example/docs",
    ),
    (
        "tracking",
        "https://p3.example/a?utm_source=x",
        "https://p3.example/a",
    ),
    (
        "fragment",
        "https://p4.example/a#top",
        "https://p4.example/a",
    ),
    (
        "trailing slash",
        "https://p5.example/a/",
        "https://p5.example/a",
    ),
    (
        "parameter order",
        "https://p6.example/a?b=2&a=1",
        "https://p6.example/a?a=1&b=2",
    ),
    (
        "double slash",
        "https://p7.example/a//b",
        "https://p7.example/a/b",
    ),
    ("scheme", "http://p8.example/a", "https://p8.example/a"),
    (
        "escape",
        "https://p9.example/%7euser",
        "https://p9.example/~user",
    ),
    (
        "dot segment",
        "https://p10.example/a/./b",
        "https://p10.example/a/b",
    ),
    (
        "redirect wrapper",
        "https://www.google.com/url?q=https://p11.example/a",
        "https://p11.example/a",
    ),
    (
        "click id",
        "https://p12.example/a?srsltid=AfmBO1",
        "https://p12.example/a",
    ),
];

#[test]
fn diff_each_pair_of_builtins_merges_and_splits_the_probes_that_meet_under_one_only() {
    let set = urlkey::PolicySet::builtin();
    let key = |id: &str, url: &str| {
        set.get(id)
            .expect("builtin")
            .key(url)
            .key
            .unwrap_or_else(|| panic!("{url} is valid under {id}"))
    };
    // Under which builtins each probe's two URLs share a key.
    let meets: Vec<Vec<&str>> = DIFF_PROBES
        .iter()
        .map(|(_, a, b)| {
            urlkey::policy::BUILTIN_IDS
                .iter()
                .copied()
                .filter(|id| key(id, a) == key(id, b))
                .collect()
        })
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let inv = dir.path().join("probes.txt");
    let text: String = DIFF_PROBES
        .iter()
        .map(|(_, a, b)| format!("{a}\n{b}\n"))
        .collect();
    std::fs::write(&inv, text).expect("write");
    let invs = inv.to_str().expect("path");
    let mut pairs = 0;
    for &from in urlkey::policy::BUILTIN_IDS.iter() {
        for &to in urlkey::policy::BUILTIN_IDS.iter() {
            if from == to {
                continue;
            }
            let moved = |x: &str, y: &str| -> Vec<&str> {
                DIFF_PROBES
                    .iter()
                    .zip(&meets)
                    .filter(|(_, m)| m.contains(&x) && !m.contains(&y))
                    .map(|(p, _)| p.0)
                    .collect()
            };
            let (merging, splitting) = (moved(to, from), moved(from, to));
            // The probes tell every two builtins apart: each ordered pair is tested.
            assert!(
                !merging.is_empty() || !splitting.is_empty(),
                "no probe tells {from} from {to}: add one"
            );
            pairs += 1;
            let v = diff_json(&["--from", from, "--to", to, invs]);
            let ctx = format!("{from} -> {to}: {v}");
            let expect = |groups: &serde_json::Value, names: &[&str], single: &str, many: &str| {
                let groups = groups.as_array().expect("groups");
                assert_eq!(groups.len(), names.len(), "{ctx}");
                for (g, name) in groups.iter().zip(names) {
                    let (_, a, b) = DIFF_PROBES.iter().find(|p| p.0 == *name).expect("probe");
                    assert_eq!(g["key"], key(single, a), "{name}: {ctx}");
                    assert_eq!(
                        g["keys"],
                        serde_json::json!([key(many, a), key(many, b)]),
                        "{name}: {ctx}"
                    );
                    assert_eq!(g["records"], 2, "{name}: {ctx}");
                    // A rule is named, except where the key form alone decides (webkey@1
                    // writes no scheme: no rule removed it).
                    assert_eq!(
                        g["rules"].as_array().expect("rules").is_empty(),
                        *name == "scheme",
                        "{name}: {ctx}"
                    );
                }
            };
            expect(&v["merges"], &merging, to, from);
            expect(&v["splits"], &splitting, from, to);
            // Every record is in one class; the probes in no group keep their group.
            assert_eq!(v["records"], 2 * DIFF_PROBES.len(), "{ctx}");
            assert_eq!(v["by_class"]["merge"], 2 * merging.len(), "{ctx}");
            assert_eq!(v["by_class"]["split"], 2 * splitting.len(), "{ctx}");
            let sum: u64 = v["by_class"]
                .as_object()
                .expect("by_class")
                .values()
                .map(|n| n.as_u64().expect("count"))
                .sum();
            assert_eq!(sum, 2 * DIFF_PROBES.len() as u64, "{ctx}");
        }
    }
    let n = urlkey::policy::BUILTIN_IDS.len();
    assert_eq!(pairs, n * (n - 1));
}

/// Parses CSV rows into maps of column name to cell.
fn csv_rows(bytes: &[u8]) -> (Vec<String>, Vec<std::collections::HashMap<String, String>>) {
    let mut r = csv::Reader::from_reader(bytes);
    let header: Vec<String> = r
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.expect("row");
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(str::to_string))
                .collect()
        })
        .collect();
    (header, rows)
}

/// The column names docs/cli.md lists for a diff form: the backticked first cells of the
/// table under `heading`.
fn documented_columns(heading: &str) -> Vec<String> {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md"))
            .expect("docs/cli.md");
    let at = doc
        .find(heading)
        .unwrap_or_else(|| panic!("{heading} in docs/cli.md"));
    doc[at..]
        .lines()
        .skip_while(|l| !l.starts_with("| column"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('`').nth(1).expect("a `column` cell").to_string())
        .collect()
}

#[test]
fn diff_rows_csv_and_jsonl_give_every_record_its_class_and_group() {
    let dir = tempfile::tempdir().expect("tempdir");
    let inv = dir.path().join("inv.txt");
    // whatwg@1 keeps fragments and removes dot segments; document@1 the reverse. Line 1
    // is in a merge (with line 3) and a split (with line 2) at once.
    std::fs::write(
        &inv,
        "https://s.example/a/b\nhttps://s.example/a/./b\nhttps://s.example/a/b#f\n\n# note\nhttps://u.example/x\nhttps://c.example/x#top\nnot a url\n",
    )
    .expect("write");
    let invs = inv.to_str().expect("path");
    let base = ["diff", "--from", "whatwg@1", "--to", "document@1"];
    let csv_out = run(&[&base[..], &["--format", "csv", invs]].concat(), b"");
    assert_eq!(csv_out.status.code(), Some(1), "the rows differ: 1");
    let (header, rows) = csv_rows(&csv_out.stdout);
    assert_eq!(header, documented_columns("### diff rows: --from P --to Q"));
    let cell = |i: usize, c: &str| rows[i][c].as_str();
    let classes: Vec<&str> = (0..rows.len()).map(|i| cell(i, "class")).collect();
    assert_eq!(
        classes,
        [
            "merge_split",
            "split",
            "merge",
            "unchanged",
            "changed",
            "invalid_both"
        ]
    );
    assert_eq!(cell(0, "group"), "https://s.example/a/b");
    assert_eq!(
        cell(1, "group"),
        "https://s.example/a/b",
        "a split's from key"
    );
    assert_eq!(cell(1, "key_to"), "https://s.example/a/./b");
    assert_eq!(cell(3, "group"), "");
    assert_eq!(cell(4, "line"), "7");
    assert_eq!(cell(4, "key_from"), "https://c.example/x#top");
    assert_eq!(cell(4, "key_to"), "https://c.example/x");
    assert_eq!(cell(5, "error_from"), "web.invalid-url");
    assert_eq!(cell(5, "key_to"), "");
    assert!(rows.iter().all(|r| r["source"] == invs));
    // The summary on standard error adds the classes up.
    let err = String::from_utf8_lossy(&csv_out.stderr);
    assert!(
        err.contains("6 records = merge 1 + split 1 + merge_split 1 + changed 1 + unchanged 1"),
        "{err}"
    );
    assert!(err.contains("2 skipped"), "{err}");

    // JSONL: the same rows, absent values null.
    let jsonl = run(
        &[&base[..], &["--format", "jsonl", "-q", invs]].concat(),
        b"",
    );
    assert_eq!(jsonl.status.code(), Some(1), "the rows differ: 1");
    assert!(jsonl.stderr.is_empty());
    let lines: Vec<serde_json::Value> = String::from_utf8(jsonl.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect();
    assert_eq!(lines.len(), rows.len());
    for (j, c) in lines.iter().zip(&rows) {
        let keys: Vec<&String> = j.as_object().expect("object").keys().collect();
        assert_eq!(keys.len(), header.len());
        for h in &header {
            match &j[h] {
                serde_json::Value::Null => assert_eq!(c[h], "", "{h}"),
                serde_json::Value::String(s) => assert_eq!(&c[h], s, "{h}"),
                n => assert_eq!(c[h], n.to_string(), "{h}"),
            }
        }
    }

    // -o: the same bytes, atomically; a run that fails leaves the old file as it was.
    let out = dir.path().join("rows.csv");
    let o = out.to_str().expect("path");
    let written = run(
        &[&base[..], &["--format", "csv", "-q", invs, "-o", o]].concat(),
        b"",
    );
    // The sides differ: 1, as diff(1), with the report written all the same.
    assert_eq!(written.status.code(), Some(1));
    assert!(written.stdout.is_empty());
    assert_eq!(std::fs::read(&out).expect("read"), csv_out.stdout);
    let bad = dir.path().join("bad.txt.gz");
    std::fs::write(&bad, b"this is not gzip").expect("write");
    let failed = run(
        &[
            &base[..],
            &[
                "--format",
                "csv",
                invs,
                bad.to_str().expect("path"),
                "-o",
                o,
            ],
        ]
        .concat(),
        b"",
    );
    assert_eq!(
        failed.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&failed.stderr)
    );
    assert_eq!(std::fs::read(&out).expect("read"), csv_out.stdout);
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["bad.txt.gz", "inv.txt", "rows.csv"],
        "no temporary file left"
    );
    // -o naming the input is refused, and the input is untouched.
    let before = std::fs::read(&inv).expect("read");
    let same = run(
        &[&base[..], &["--format", "csv", invs, "-o", invs]].concat(),
        b"",
    );
    assert_eq!(same.status.code(), Some(2));
    assert_eq!(std::fs::read(&inv).expect("read"), before);
    // Standard input is read twice through a spill file: the same rows.
    let stdin = run(
        &[&base[..], &["--format", "csv", "-q", "-"]].concat(),
        &before,
    );
    let (_, from_stdin) = csv_rows(&stdin.stdout);
    assert_eq!(from_stdin.len(), rows.len());
    assert!(from_stdin.iter().all(|r| r["source"] == "-"));
    // Neither form: a usage error.
    let neither = run(&["diff", invs], b"");
    assert_eq!(neither.status.code(), Some(2));
    let both = run(
        &[
            "diff", "--from", "whatwg@1", "--to", "webkey@1", "--policy", "webkey@1", invs, invs,
        ],
        b"",
    );
    assert_eq!(both.status.code(), Some(2));
}

/// `urlkey diff --policy P OLD NEW --format json`, which must succeed.
fn inventories_json(policy: &str, old: &str, new: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "diff", "--format", "json", "-q", "--policy", policy, old, new,
    ];
    args.extend_from_slice(extra);
    diff_json_raw(&args)
}

/// `urlkey ARGS` (a diff with `--format json`): the report, its exit status checked
/// against it (0: the sides do not differ, 1: they do).
fn diff_json_raw(args: &[&str]) -> serde_json::Value {
    let out = run(args, b"");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let want = i32::from(report_differs(&v));
    assert_eq!(
        out.status.code(),
        Some(want),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    v
}

#[test]
fn diff_two_inventories_only_old_only_new_both_spellings_and_invalid_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = dir.path().join("before.txt");
    let new = dir.path().join("after.csv");
    std::fs::write(
        &old,
        "https://www.site.example/about\nhttps://site.example/gone\nhttps://site.example/Same\nnot a url\nhttps://site.example/two\nhttps://site.example/two?utm_source=x\n\n",
    )
    .expect("write");
    std::fs::write(
        &new,
        "Address,Status\nhttps://site.example/about,200\nhttps://site.example/Same,200\nhttps://site.example/new,200\nhttps://site.example/new,301\nhttps://site.example/two,200\nmailto:x@site.example,200\n",
    )
    .expect("write");
    let (o, n) = (old.to_str().expect("path"), new.to_str().expect("path"));
    // webkey@1 folds www.: /about is in both, spelled differently; /Same spelled the
    // same; /two spelled two ways in OLD.
    let v = inventories_json("webkey@1", o, n, &["--column", "Address"]);
    assert_eq!(v["old"]["records"], 6, "{v}");
    assert_eq!(v["old"]["invalid"], 1);
    assert_eq!(v["old"]["invalid_by_code"]["web.invalid-host"], 1);
    assert_eq!(v["old"]["skipped"]["blank"], 1);
    assert_eq!(v["new"]["records"], 6);
    assert_eq!(v["new"]["invalid"], 0, "mailto: is a web key");
    assert_eq!(v["only_old"]["keys"], 1);
    assert_eq!(v["only_old"]["listed"][0]["key"], "site.example/gone");
    assert_eq!(v["only_old"]["listed"][0]["old"]["line"], 2);
    assert_eq!(v["only_new"]["keys"], 2, "{v}");
    assert_eq!(v["only_new"]["records"], 3);
    assert_eq!(v["only_new"]["listed"][0]["new_records"], 2);
    assert_eq!(v["both"]["keys"], 3);
    assert_eq!(v["both"]["old_records"], 4);
    assert_eq!(v["both"]["new_records"], 3);
    assert_eq!(
        v["both"]["spellings"],
        serde_json::json!({"same": 1, "differ": 1, "several": 1})
    );
    let ex = &v["both"]["listed"][0];
    assert_eq!(ex["key"], "site.example/about");
    assert_eq!(ex["spellings"], "differ");
    assert_eq!(ex["old"]["observed"], "https://www.site.example/about");
    assert_eq!(ex["new"]["line"], 2);
    // The counts add up on each side.
    for (side, only) in [("old", "only_old"), ("new", "only_new")] {
        assert_eq!(
            v[side]["records"].as_u64(),
            Some(
                v[side]["invalid"].as_u64().expect("n")
                    + v[only]["records"].as_u64().expect("n")
                    + v["both"][format!("{side}_records")].as_u64().expect("n")
            ),
            "{side}: {v}"
        );
    }
    // Under citation@1 www. is a key of its own: /about moves to only_old and only_new.
    let c = inventories_json("citation@1", o, n, &["--column", "Address"]);
    assert_eq!(c["both"]["keys"], 2, "{c}");
    assert_eq!(c["only_old"]["keys"], 2);
    assert_eq!(
        c["new"]["invalid_by_code"]["citation.unsupported-scheme"],
        1
    );

    // Rows: one per record of each side, OLD first, with the documented columns.
    let rows_out = run(
        &[
            "diff", "--policy", "webkey@1", "--format", "csv", "--column", "Address", o, n,
        ],
        b"",
    );
    assert_eq!(rows_out.status.code(), Some(1), "a key only on one side: 1");
    let (header, rows) = csv_rows(&rows_out.stdout);
    assert_eq!(
        header,
        documented_columns("### diff rows: --policy P OLD NEW")
    );
    assert_eq!(rows.len(), 12);
    let pick = |side: &str, line: &str| {
        rows.iter()
            .find(|r| r["side"] == side && r["line"] == line)
            .unwrap_or_else(|| panic!("{side} line {line}"))
    };
    let about = pick("old", "1");
    assert_eq!(
        (
            about["class"].as_str(),
            about["new_line"].as_str(),
            about["spellings"].as_str()
        ),
        ("both", "2", "differ")
    );
    assert_eq!(pick("old", "4")["class"], "invalid");
    assert_eq!(pick("old", "4")["error"], "web.invalid-host");
    assert_eq!(pick("new", "5")["old_records"], "0");
    assert_eq!(pick("new", "5")["class"], "only_new");
    assert_eq!(pick("old", "6")["spellings"], "several");
    assert_eq!(pick("new", "2")["source"], n);
    let err = String::from_utf8_lossy(&rows_out.stderr);
    assert!(
        err.contains("old 6 records = 1 only in old + 4 in both + 1 invalid")
            && err.contains("new 6 records = 3 only in new + 3 in both + 0 invalid"),
        "{err}"
    );

    // An empty side: everything is on the other one.
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "").expect("write");
    let e = empty.to_str().expect("path");
    let v = inventories_json("webkey@1", o, e, &[]);
    assert_eq!(v["new"]["records"], 0);
    assert_eq!(v["both"]["keys"], 0);
    assert_eq!(v["only_old"]["records"], 5);
    let v = inventories_json("webkey@1", e, o, &[]);
    assert_eq!(v["only_new"]["records"], 5);

    // Standard input as one side (read twice through a spill file).
    let text = std::fs::read(&old).expect("read");
    let out = run(
        &[
            "diff", "-q", "--format", "json", "--policy", "webkey@1", "-", o,
        ],
        &text,
    );
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["old"]["input"], "-");
    assert_eq!(v["both"]["keys"], 4);
    assert_eq!(v["both"]["spellings"]["same"], 3, "{v}");

    // Exit codes: 2 for one input, three inputs, both sides `-`, -o naming a side;
    // 3 for a missing file; 5 for an unknown policy.
    let target = dir.path().join("out.json");
    let t = target.to_str().expect("path");
    for (args, code) in [
        (vec!["--policy", "webkey@1", o], 2),
        (vec!["--policy", "webkey@1", o, e, e], 2),
        (vec!["--policy", "webkey@1", "-", "-"], 2),
        (vec!["--policy", "webkey@1", o, e, "-o", o], 2),
        (vec!["--policy", "webkey@1", e, o, "-o", o], 2),
        (vec!["--policy", "webkey@1", o, "missing.txt", "-o", t], 3),
        (vec!["--policy", "webkey@9", o, e, "-o", t], 5),
    ] {
        let all = [&["diff"][..], &args[..]].concat();
        let out = run(&all, b"");
        assert_eq!(out.status.code(), Some(code), "{args:?}");
    }
    assert!(!target.exists(), "a failed run writes nothing");
    assert_eq!(
        std::fs::read(&old).expect("read"),
        text,
        "the input is untouched"
    );
    // -o: the report, the same bytes as standard output.
    let printed = run(&["diff", "-q", "--policy", "webkey@1", o, e], b"");
    let written = run(&["diff", "-q", "--policy", "webkey@1", o, e, "-o", t], b"");
    assert_eq!(written.status.code(), Some(1), "every key only in OLD: 1");
    assert_eq!(std::fs::read(&target).expect("read"), printed.stdout);
    let text = String::from_utf8_lossy(&printed.stdout);
    assert!(text.contains("only in old  4 keys (5 records)"), "{text}");
}

/// `urlkey diff ARGS --format FORMAT` for each format: the exit status of each.
fn diff_status_in_every_format(args: &[&str]) -> Vec<(&'static str, Option<i32>)> {
    ["text", "json", "csv", "jsonl"]
        .into_iter()
        .map(|f| {
            let all = [&["diff", "-q", "--format", f][..], args].concat();
            let out = run(&all, b"");
            (f, out.status.code())
        })
        .collect()
}

#[test]
fn diff_exit_status_is_0_for_sides_that_do_not_differ_and_1_for_sides_that_do() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        p.to_str().expect("path").to_string()
    };
    let every = |code: i32| -> Vec<(&'static str, Option<i32>)> {
        ["text", "json", "csv", "jsonl"]
            .into_iter()
            .map(|f| (f, Some(code)))
            .collect()
    };
    // --from P --to Q: 0 when every record is unchanged or invalid under both.
    let agree = file(
        "agree.txt",
        "https://example.com/a\nhttps://example.com/b?id=1\nnot a url\n",
    );
    for (from, to) in [("citation@1", "citation@1"), ("mapper@1", "citation@1")] {
        assert_eq!(
            diff_status_in_every_format(&["--from", from, "--to", to, &agree]),
            every(0),
            "{from} -> {to}"
        );
    }
    // 1 for each way the policies can differ on a record: a merge (www.), a key changed
    // in its group (the scheme webkey@1 does not write), a record valid under one only.
    for (text, from, to) in [
        (
            "https://www.example.com/a\nhttps://example.com/a\n",
            "citation@1",
            "webkey@1",
        ),
        ("https://example.com/a\n", "citation@1", "webkey@1"),
        ("mailto:a@example.com\n", "citation@1", "webkey@1"),
        ("/local/path\n", "mapper@1", "citation@1"),
    ] {
        let f = file("differ.txt", text);
        assert_eq!(
            diff_status_in_every_format(&["--from", from, "--to", to, &f]),
            every(1),
            "{text:?} {from} -> {to}"
        );
    }
    // --policy P OLD NEW: 0 when both sides have the same keys, however they are spelled,
    // how many records have each and whatever is invalid.
    let old = file(
        "old.txt",
        "http://www.example.org/a\nhttps://example.org/b\nnot a url\n",
    );
    let same_keys = file(
        "same.txt",
        "https://example.org/a/\nhttps://example.org/b\nhttps://example.org/b?utm_source=x\n",
    );
    assert_eq!(
        diff_status_in_every_format(&["--policy", "webkey@1", &old, &same_keys]),
        every(0)
    );
    assert_eq!(
        diff_status_in_every_format(&["--policy", "webkey@1", &old, &old]),
        every(0)
    );
    // 1 for a key only in NEW, only in OLD, and an empty side against a full one.
    let gained = file(
        "gained.txt",
        "https://example.org/a\nhttps://example.org/b\nhttps://example.org/c\n",
    );
    let lost = file("lost.txt", "https://example.org/a\n");
    let empty = file("empty.txt", "");
    for (o, n) in [
        (&old, &gained),
        (&old, &lost),
        (&empty, &old),
        (&old, &empty),
    ] {
        assert_eq!(
            diff_status_in_every_format(&["--policy", "webkey@1", o, n]),
            every(1),
            "{o} {n}"
        );
    }
    // Two empty sides do not differ.
    assert_eq!(
        diff_status_in_every_format(&["--policy", "webkey@1", &empty, &empty]),
        every(0)
    );
    // The answer survives a reader that closes the pipe after the first line of a
    // large report.
    let many: String = (0..20_000)
        .map(|i| format!("https://example.org/p/{i}\n"))
        .collect();
    let big = file("big.txt", &many);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_urlkey"))
        .args([
            "diff", "-q", "--format", "json", "--policy", "webkey@1", &big, &empty,
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = [0u8; 1];
    std::io::Read::read_exact(child.stdout.as_mut().expect("stdout"), &mut first).expect("read");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(first, *b"{");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn diff_lists_every_key_beyond_the_text_forms_ten_and_limit_says_how_many() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = |name: &str, text: String| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).expect("write");
        p.to_str().expect("path").to_string()
    };
    // 25 keys of each kind: OLD has gone/0..24 and both/0..24, NEW new/0..24 and both/0..24.
    let lines = |kinds: &[&str], scheme: &str| -> String {
        kinds
            .iter()
            .flat_map(|k| (0..25).map(move |i| format!("{scheme}://example.org/{k}/{i}\n")))
            .collect()
    };
    let old = file("old.txt", lines(&["gone", "both"], "http"));
    let new = file("new.txt", lines(&["new", "both"], "https"));
    let v = inventories_json("webkey@1", &old, &new, &[]);
    assert_eq!(v["limit"], serde_json::Value::Null);
    for (kind, first) in [
        ("only_old", "example.org/gone/0"),
        ("only_new", "example.org/new/0"),
        ("both", "example.org/both/0"),
    ] {
        let listed = v[kind]["listed"].as_array().expect("listed");
        assert_eq!(v[kind]["keys"], 25, "{kind}");
        assert_eq!(listed.len(), 25, "{kind}: every key");
        assert_eq!(listed[0]["key"], first, "{kind}: in input order");
        let keys: std::collections::HashSet<&str> =
            listed.iter().filter_map(|k| k["key"].as_str()).collect();
        assert_eq!(keys.len(), 25, "{kind}: each key once");
    }
    assert_eq!(
        v["both"]["listed"][24]["new"]["observed"],
        "https://example.org/both/24"
    );
    // --limit N: the first N of each kind, the counts whole, and the report says N.
    let l = inventories_json("webkey@1", &old, &new, &["--limit", "3"]);
    assert_eq!(l["limit"], 3);
    for kind in ["only_old", "only_new", "both"] {
        assert_eq!(l[kind]["keys"], 25, "{kind}");
        assert_eq!(
            l[kind]["listed"],
            serde_json::Value::from(v[kind]["listed"].as_array().expect("listed")[..3].to_vec())
        );
    }
    assert_eq!(
        (l["old"].clone(), l["new"].clone()),
        (v["old"].clone(), v["new"].clone())
    );
    // The text form: the first ten of each kind, and it says so.
    let t = run(&["diff", "--policy", "webkey@1", &old, &new], b"");
    let text = String::from_utf8_lossy(&t.stdout);
    assert_eq!(t.status.code(), Some(1));
    assert!(
        text.contains("only in old (first 10 of 25 keys; --format json for all; --format csv for every record)"),
        "{text}"
    );
    assert_eq!(text.matches("\n  example.org/").count(), 30, "{text}");
    let t = run(
        &["diff", "--limit", "2", "--policy", "webkey@1", &old, &new],
        b"",
    );
    let text = String::from_utf8_lossy(&t.stdout);
    assert!(text.contains("in both (first 2 of 25 keys;"), "{text}");

    // --from P --to Q: 12 merges (www. and not), each of two keys under citation@1.
    let merging: String = (0..12)
        .map(|i| format!("https://www.example.org/m/{i}\nhttps://example.org/m/{i}\n"))
        .collect();
    let inv = file("merging.txt", merging);
    let v = diff_json(&["--from", "citation@1", "--to", "webkey@1", &inv]);
    assert_eq!(v["limit"], serde_json::Value::Null);
    assert_eq!(
        (v["merge_groups"].as_u64(), v["split_groups"].as_u64()),
        (Some(12), Some(0))
    );
    assert_eq!(v["merges"].as_array().expect("merges").len(), 12);
    let l = diff_json(&[
        "--from",
        "citation@1",
        "--to",
        "webkey@1",
        "--limit",
        "2",
        &inv,
    ]);
    assert_eq!(l["limit"], 2);
    assert_eq!(l["merge_groups"], 12);
    assert_eq!(
        l["merges"],
        serde_json::Value::from(v["merges"].as_array().expect("merges")[..2].to_vec())
    );
    assert_eq!(l["by_class"], v["by_class"], "the counts stay whole");
    let t = run(
        &["diff", "--from", "citation@1", "--to", "webkey@1", &inv],
        b"",
    );
    let text = String::from_utf8_lossy(&t.stdout);
    assert!(
        text.contains("merges              12 (24 records)"),
        "{text}"
    );
    assert!(
        text.contains("merges (first 10 of 12; --format json for all)"),
        "{text}"
    );
    assert_eq!(text.matches("\n  webkey@1 ").count(), 10, "{text}");
}

/// Splits a documented command line as a shell would: words apart on spaces, `'...'`
/// quoting one word.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    for c in line.chars() {
        match c {
            '\'' => (quoted, any) = (!quoted, true),
            ' ' if !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => (word.push(c), any = true).1,
        }
    }
    if any {
        words.push(word);
    }
    words
}

/// `expected` against `actual`, line by line; a line `...` in `expected` stands for any
/// lines up to the next one it gives.
fn lines_match(expected: &[&str], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((&"...", rest)) => (0..=actual.len()).any(|i| lines_match(rest, &actual[i..])),
        Some((e, rest)) => actual.first() == Some(e) && lines_match(rest, &actual[1..]),
    }
}

/// Every `$ urlkey explain ...` and `$ urlkey diff ...` example of docs/cli.md, run from
/// the repository's root: its standard output (the first N lines for `| head -N`) is the
/// text shown, `$ echo $?` its exit status, `$ # and on standard error:` its standard
/// error.
#[test]
fn docs_examples_of_explain_and_diff_are_what_they_print() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = std::fs::read_to_string(root.join("docs/cli.md")).expect("docs/cli.md");
    let mut ran = 0;
    for section in doc
        .split("\n## ")
        .filter(|s| s.starts_with("`urlkey explain`") || s.starts_with("`urlkey diff`"))
    {
        let blocks = section.split("\n```").skip(1).step_by(2);
        for block in blocks {
            let lines: Vec<&str> = block.lines().skip(1).collect();
            let mut i = 0;
            let mut last: Option<(String, std::process::Output)> = None;
            while i < lines.len() {
                let Some(cmd) = lines[i].strip_prefix("$ ") else {
                    i += 1;
                    continue;
                };
                let end = (i + 1..lines.len())
                    .find(|&j| lines[j].starts_with("$ "))
                    .unwrap_or(lines.len());
                let expected = &lines[i + 1..end];
                i = end;
                if cmd == "echo $?" {
                    let (what, out) = last.as_ref().expect("a command before echo $?");
                    assert_eq!(
                        expected,
                        [out.status.code().expect("status").to_string().as_str()],
                        "{what}"
                    );
                    continue;
                }
                if cmd == "# and on standard error:" {
                    let (what, out) = last.as_ref().expect("a command before");
                    let err = String::from_utf8_lossy(&out.stderr);
                    let got: Vec<&str> = err.lines().collect();
                    assert!(lines_match(expected, &got), "{what}: stderr\n{err}");
                    continue;
                }
                let (cmd, head) = match cmd.split_once(" | head -") {
                    Some((c, n)) => (c, Some(n.parse::<usize>().expect("head -N"))),
                    None => (cmd, None),
                };
                let words = shell_words(cmd);
                assert_eq!(words[0], "urlkey", "{cmd}");
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_urlkey"))
                    .args(&words[1..])
                    .current_dir(&root)
                    .output()
                    .expect("run");
                let text = String::from_utf8_lossy(&out.stdout).into_owned();
                let mut got: Vec<&str> = text.lines().collect();
                if let Some(n) = head {
                    got.truncate(n);
                }
                assert!(
                    lines_match(expected, &got),
                    "docs/cli.md shows for `{cmd}`:\n{}\nit prints:\n{text}",
                    expected.join("\n")
                );
                ran += 1;
                last = Some((cmd.to_string(), out));
            }
        }
    }
    // Two text and two JSON examples of explain; two reports and three row examples of
    // diff (one with kept columns).
    assert_eq!(ran, 9, "the examples found");
}

// ---- default policies: defined once (urlkey::policy::defaults) ----

/// The `[default: ...]` that `urlkey ARGS --help` gives `--policy`.
fn policy_default_in_help(args: &[&str]) -> String {
    let mut with_help = args.to_vec();
    with_help.push("--help");
    let help = ok(&with_help, b"");
    // Help text is wrapped to the terminal: join the words before looking.
    let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let flag = words
        .find("--policy <")
        .unwrap_or_else(|| panic!("urlkey {args:?} --help has no --policy: {help}"));
    let rest = &words[flag..];
    let end = rest[2..].find(" --").map_or(rest.len(), |i| i + 2);
    let block = &rest[..end];
    let start = block
        .find("[default: ")
        .unwrap_or_else(|| panic!("--policy of urlkey {args:?} names no default: {block}"));
    let value = &block[start + "[default: ".len()..];
    value[..value.find(']').expect("a closing bracket")].to_string()
}

/// Every front end reads each command's default policy from `urlkey::policy::defaults`:
/// the flags (their `--help`), and no policy id written out as a default in serve's
/// handlers, the page's script or the Python package, which read the same constants
/// (serve's `GET /api/policies` and request defaults are compared with them in
/// crates/urlkey-serve/tests/api.rs).
#[test]
fn default_policies_are_defined_once() {
    use urlkey::policy::defaults;
    for (args, want) in [
        (&["key"][..], defaults::KEY),
        (&["map"][..], defaults::MAP),
        (&["inspect"][..], defaults::INSPECT),
        (&["explain"][..], defaults::EXPLAIN),
        (&["ledger", "ingest"][..], defaults::LEDGER),
    ] {
        assert_eq!(policy_default_in_help(args), want, "urlkey {args:?}");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let builtins: &[&str] = &urlkey::policy::BUILTIN_IDS;
    let mut files = Vec::new();
    for dir in [
        "crates/urlkey-serve/src",
        "crates/urlkey-serve/static",
        "crates/urlkey-py/src",
        "crates/urlkey-py/python",
    ] {
        let mut todo = vec![root.join(dir)];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).expect("the folder") {
                let p = e.expect("an entry").path();
                if p.is_dir() {
                    todo.push(p);
                } else if ["rs", "js", "py", "pyi"]
                    .contains(&p.extension().and_then(|x| x.to_str()).unwrap_or(""))
                {
                    files.push(p);
                }
            }
        }
    }
    assert!(files.len() > 10, "{files:?}");
    for p in files {
        let text = std::fs::read_to_string(&p).expect("the file");
        // Unit tests name the policies they test; only the code that runs is checked.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let python = p.extension().is_some_and(|x| x == "py" || x == "pyi");
        for (n, line) in code.lines().enumerate() {
            let t = line.trim_start();
            if t.starts_with("//") || t.starts_with("* ") || (python && t.starts_with('#')) {
                continue;
            }
            for id in builtins {
                for quoted in [format!("\"{id}\""), format!("'{id}'")] {
                    assert!(
                        !line.contains(&quoted),
                        "{}:{}: {quoted} written out; read urlkey::policy::defaults (or DEFAULT_POLICIES in Python, the API's defaults in the page): {line}",
                        p.display(),
                        n + 1
                    );
                }
            }
        }
    }
}

/// `serve --ledger` naming no ledger exits with the ledger's database row (6), as
/// `urlkey ledger` does, and names `--ledger`, not `urlkey ledger`'s `--db`.
#[test]
fn serve_with_a_missing_ledger_exits_6_and_names_ledger() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("missing.sqlite");
    let out = run(
        &[
            "serve",
            "--ledger",
            missing.to_str().expect("utf-8"),
            "--addr",
            "127.0.0.1:0",
        ],
        b"",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{err}");
    assert!(err.contains("--ledger"), "{err}");
    assert!(!err.contains("right --db"), "{err}");
    assert!(!missing.exists(), "serve creates no ledger");
}

/// The docs show what `ledger init` prints: the schema version of this urlkey.
#[test]
fn docs_show_the_schema_version_init_prints() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("citations.sqlite");
    let printed = ok(
        &["ledger", "--db", db.to_str().expect("utf-8"), "init"],
        b"",
    );
    let version = printed
        .trim()
        .rsplit("schema version ")
        .next()
        .expect("a version")
        .trim_end_matches(')')
        .to_string();
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/ledger.md"),
    )
    .expect("docs/ledger.md");
    assert!(
        doc.contains(&format!("(schema version {version})")),
        "docs/ledger.md's init example"
    );
    assert!(
        doc.contains(&format!("`PRAGMA user_version` (now {version})")),
        "docs/ledger.md's Schema section"
    );
}

/// The seed a text cites ("seed 004"), if any.
fn seed_cited(text: &str) -> Option<String> {
    let at = text.find("seed ")?;
    Some(text[at + 5..].chars().take(3).collect())
}

/// README.md's policy table is the builtin registry: the same ids in `urlkey policies`'
/// order, and each row's "from" cites the seed its description cites (or none).
#[test]
fn readme_policy_table_is_the_builtin_registry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let table: Vec<(String, String)> = readme
        .lines()
        .skip_while(|l| !l.starts_with("| policy | from |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].trim_matches('`').to_string(), cells[2].to_string())
        })
        .collect();
    let listed: Vec<(String, String)> = ok(&["policies"], b"")
        .lines()
        .filter(|l| l.contains(" builtin "))
        .map(|l| {
            let (id, rest) = l.split_once(' ').expect("id");
            let description = rest.trim_start().trim_start_matches("builtin").trim();
            (id.to_string(), description.to_string())
        })
        .collect();
    let ids = |v: &[(String, String)]| v.iter().map(|(i, _)| i.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&table), ids(&listed), "README.md's policy table");
    for ((id, from), (_, description)) in table.iter().zip(&listed) {
        assert_eq!(
            seed_cited(from),
            seed_cited(description),
            "{id}: README says {from:?}, the registry {description:?}"
        );
    }
}

/// Every route of serve's router is documented in docs/cli.md, and every `GET /...` or
/// `POST /...` the docs name is a route of the router.
#[test]
fn serve_routes_in_the_docs_are_the_routers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let router =
        std::fs::read_to_string(root.join("crates/urlkey-serve/src/router.rs")).expect("router.rs");
    let routes: Vec<(String, String)> = router
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix(".route(\"")?;
            let (path, rest) = rest.split_once('"')?;
            let method = if rest.contains("post(") {
                "POST"
            } else {
                "GET"
            };
            Some((method.to_string(), path.to_string()))
        })
        .collect();
    assert!(routes.len() >= 10, "{routes:?}");
    let docs = std::fs::read_to_string(root.join("docs/cli.md")).expect("docs/cli.md");
    for (method, path) in &routes {
        let named = docs.contains(&format!("{method} {path}"))
            || docs.contains(&format!("`{path}`"))
            || docs.contains(&format!("`{path} "));
        assert!(named, "docs/cli.md does not name {method} {path}");
    }
    for method in ["GET", "POST"] {
        for part in docs.split(&format!("{method} /")).skip(1) {
            let path: String = part
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "/._-".contains(*c))
                .collect();
            let path = format!("/{}", path.trim_end_matches('.'));
            assert!(
                routes.iter().any(|(m, p)| m == method && *p == path),
                "docs/cli.md names {method} {path}, which the router does not have"
            );
        }
    }
}

/// Every `diff` row, of both forms and both row formats, says `MANUAL REVIEW REQUIRED`
/// in its `review` column, as `map`'s rows do.
#[test]
fn diff_rows_carry_the_review_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = dir.path().join("old.txt");
    let new = dir.path().join("new.txt");
    std::fs::write(
        &old,
        "https://www.example.com/A\nnot a url\nhttps://a.example/\n",
    )
    .expect("old");
    std::fs::write(&new, "https://example.com/a\r\nhttps://b.example/").expect("new");
    let (old, new) = (old.to_str().expect("utf-8"), new.to_str().expect("utf-8"));
    let forms: [&[&str]; 2] = [
        &["diff", "--from", "citation@1", "--to", "webkey@1", old],
        &["diff", "--policy", "webkey@1", old, new],
    ];
    for form in forms {
        let csv_args: Vec<&str> = form.iter().copied().chain(["--format", "csv"]).collect();
        let (_, rows) = csv_rows(&run(&csv_args, b"").stdout);
        assert!(rows.len() >= 3, "{form:?}: {rows:?}");
        for r in &rows {
            assert_eq!(r["review"], "MANUAL REVIEW REQUIRED", "{form:?}: {r:?}");
        }
        let jsonl_args: Vec<&str> = form.iter().copied().chain(["--format", "jsonl"]).collect();
        let text = String::from_utf8(run(&jsonl_args, b"").stdout).expect("UTF-8");
        assert_eq!(text.lines().count(), rows.len(), "{form:?}");
        for l in text.lines() {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON row");
            assert_eq!(v["review"], "MANUAL REVIEW REQUIRED", "{form:?}: {l}");
        }
    }
}
