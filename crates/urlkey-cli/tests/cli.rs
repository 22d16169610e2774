//! The binary's contract, run as a user runs it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

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

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_urlkey"))
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("the binary finishes");
    writer.join().expect("stdin writer");
    out
}

fn ok(args: &[&str], stdin: &[u8]) -> String {
    let out = run(args, stdin);
    assert!(
        out.status.success(),
        "urlkey {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

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
    // pinned in urlkey-batch's rows.rs).
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

/// Issue 13, item 5: a policy that refuses the input says so at the top level, and query
/// pairs are null (text: "-") when the text is not a well-formed URL.
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

// ---- urlkey explain (issue 17) ----

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

/// One pair per rule of the catalogue: the first input is changed by that rule into the
/// second's key; the parser whose own parse leaves the difference for the rule to make.
const RULE_PAIRS: &[(&str, &str, &str, &str)] = &[
    (
        "remove-tracking-parameters",
        "whatwg",
        "https://a.example/x?utm_source=1",
        "https://a.example/x",
    ),
    (
        "remove-fragment",
        "whatwg",
        "https://a.example/x#f",
        "https://a.example/x",
    ),
    (
        "drop-credentials",
        "whatwg",
        "https://u:p@a.example/x",
        "https://a.example/x",
    ),
    (
        "collapse-slashes",
        "whatwg",
        "https://a.example//x",
        "https://a.example/x",
    ),
    (
        "sort-query",
        "whatwg",
        "https://a.example/x?b=1&a=2",
        "https://a.example/x?a=2&b=1",
    ),
    (
        "drop-empty-parameters",
        "whatwg",
        "https://a.example/x?a=1&",
        "https://a.example/x?a=1",
    ),
    (
        "drop-empty-query",
        "whatwg",
        "https://a.example/x?",
        "https://a.example/x",
    ),
    (
        "remove-trailing-slash",
        "whatwg",
        "https://a.example/x/",
        "https://a.example/x",
    ),
    (
        "strip-www",
        "whatwg",
        "https://www.a.example/x",
        "https://a.example/x",
    ),
    (
        "strip-root-dot",
        "whatwg",
        "https://a.example./x",
        "https://a.example/x",
    ),
    (
        "registrable-domain",
        "whatwg",
        "https://news.example.com/x",
        "https://example.com/x",
    ),
    (
        "decode-unreserved",
        "whatwg",
        "https://a.example/%7Ex",
        "https://a.example/~x",
    ),
    (
        "lowercase-path",
        "whatwg",
        "https://a.example/X",
        "https://a.example/x",
    ),
    (
        "drop-default-document",
        "whatwg",
        "https://a.example/x/index.html",
        "https://a.example/x/",
    ),
    (
        "drop-opaque-query",
        "whatwg",
        "mailto:a@b.example?subject=x",
        "mailto:a@b.example",
    ),
    (
        "lowercase-scheme",
        "document",
        "HTTPS://a.example/x",
        "https://a.example/x",
    ),
    (
        "lowercase-host",
        "document",
        "https://A.example/x",
        "https://a.example/x",
    ),
    (
        "normalize-port",
        "document",
        "https://a.example:443/x",
        "https://a.example/x",
    ),
    (
        "empty-path-to-root",
        "document",
        "https://a.example",
        "https://a.example/",
    ),
];

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
    for name in urlkey::policy::Rule::names() {
        let Some((_, parser, _, _)) = RULE_PAIRS.iter().find(|p| p.0 == *name) else {
            panic!("rule {name} has no pair in RULE_PAIRS: add one");
        };
        let key = form(parser);
        toml.push_str(&format!(
            "[[policy]]\nid = \"only-{name}@1\"\nparser = \"{parser}\"\nkey = \"{key}\"\nrules = [{{ rule = \"{name}\" }}]\n\n"
        ));
    }
    std::fs::write(&pf, toml).expect("write");
    let pfs = pf.to_str().expect("path");
    for (name, parser, a, b) in RULE_PAIRS {
        assert!(
            urlkey::policy::Rule::names().contains(name),
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

    // Three inputs, one apart: 1, with the hint.
    let (code, v) = explain_json(&[
        "https://www.example.com/A",
        "https://example.com/a",
        "http://example.com/a/",
    ]);
    assert_eq!(code, Some(1));
    // The first component in URL order where any two differ.
    assert_eq!(v["differs_in"]["component"], "scheme");
    assert_eq!(
        v["differs_in"]["values"],
        serde_json::json!(["https", "https", "http"])
    );
    assert_eq!(v["same_key_under"], serde_json::json!(["webkey@1"]));

    // An invalid input never shares a key, not even with itself.
    let (code, v) = explain_json(&["mailto:a@b.example", "mailto:a@b.example"]);
    assert_eq!(code, Some(1));
    assert_eq!(v["same_key"], false);
    assert_eq!(v["errors"][0]["code"], "citation.unsupported-scheme");
    assert!(v["differs_in"].is_null());

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
        assert_eq!(v["differs_in"]["component"], component, "{v}");
        assert_eq!(
            v["differs_in"]["values"],
            serde_json::json!([va, vb]),
            "{v}"
        );
    }
    // A web key (no scheme for http and https) against one with a scheme; a missing query.
    let (_, v) = explain_json(&[
        "--policy",
        "webkey@1",
        "https://a.example/x",
        "ftp://a.example/x",
    ]);
    assert_eq!(v["differs_in"]["component"], "scheme", "{v}");
    assert_eq!(v["differs_in"]["values"], serde_json::json!([null, "ftp"]));
    let (_, v) = explain_json(&[
        "--policy",
        "webkey@1",
        "https://a.example/x?q=1",
        "a.example/x",
    ]);
    assert_eq!(v["differs_in"]["component"], "query", "{v}");
    assert_eq!(v["differs_in"]["values"], serde_json::json!(["q=1", null]));
}

// ---- urlkey diff --from P --to Q (issue 17) ----

/// `urlkey diff --format json ARGS`, which must succeed.
fn diff_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["diff", "--format", "json", "--quiet"];
    all.extend_from_slice(args);
    let out = run(&all, b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
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
    assert_eq!(written.status.code(), Some(0));
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
    // Flags diff would otherwise ignore are refused.
    for extra in [&["--excel"][..], &["--keep-columns", "all"][..]] {
        let mut args = vec!["diff", "--from", "mapper@1", "--to", "webkey@1", sa];
        args.extend_from_slice(extra);
        let o = run(&args, b"");
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("does not take"),
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
