//! `urlkey redirects check`: its formats, exit codes and MAP files of every shape
//! (docs/redirects.md, "## Check").

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Output;

use common::{ok, run};

fn run_in(dir: &Path, args: &[&str]) -> Output {
    let mut full = vec!["redirects", "check"];
    full.extend_from_slice(args);
    let abs: Vec<String> = full
        .iter()
        .map(|a| {
            // File names (MAP, --new, -o) are the test directory's.
            let file = [".csv", ".json", ".xlsx", ".txt"]
                .iter()
                .any(|e| a.ends_with(e));
            if file && !a.starts_with('/') {
                dir.join(a).display().to_string()
            } else {
                a.to_string()
            }
        })
        .collect();
    let refs: Vec<&str> = abs.iter().map(String::as_str).collect();
    run(&refs, b"")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8")
}

/// The (severity, kind, lines) of each finding of a JSON report.
fn findings(json: &str) -> Vec<(String, String, String)> {
    let v: serde_json::Value = serde_json::from_str(json).expect("JSON report");
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let lines: Vec<String> = f["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.to_string())
                .collect();
            (
                f["severity"].as_str().unwrap().to_string(),
                f["kind"].as_str().unwrap().to_string(),
                lines.join(" "),
            )
        })
        .collect()
}

fn f(sev: &str, kind: &str, lines: &str) -> (String, String, String) {
    (sev.into(), kind.into(), lines.into())
}

/// A spreadsheet's worth of rows as a minimal .xlsx (a ZIP of XML, inline strings).
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
    let files = [
        ("[Content_Types].xml", r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#.to_string()),
        ("_rels/.rels", r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#.to_string()),
        ("xl/workbook.xml", r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Map" sheetId="1" r:id="rId1"/></sheets></workbook>"#.to_string()),
        ("xl/_rels/workbook.xml.rels", r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#.to_string()),
        ("xl/worksheets/sheet1.xml", sheet),
    ];
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, body) in files {
        w.start_file(name, opts).expect("zip entry");
        w.write_all(body.as_bytes()).expect("zip write");
    }
    w.finish().expect("zip").into_inner()
}

/// The rows of the shape tests: a reviewed proposal file, decisions included.
const ROWS: &[&[&str]] = &[
    &["source", "target", "status", "decision"],
    &["/About", "/team", "301", "accept"],
    &["/about", "/team", "", "ACCEPT"],
    &["/a", "/b", "", "accept"],
    &["/b", "/c", "302", "accept"],
    &["/old", "/", "", "reject"],
    &["/x", "", "", "accept"],
];

/// What nginx makes of ROWS: /About and /about are one key, /a -> /b -> /c two hops, the
/// row without a target a bad row; the rejected row is no finding.
fn nginx_findings() -> Vec<(String, String, String)> {
    vec![
        f("error", "chain", "4 5"),
        f("error", "duplicate-source", "2 3"),
        f("error", "bad-row", "7"),
    ]
}

#[test]
fn a_csv_map_with_bom_crlf_and_semicolons_and_the_same_as_xlsx() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv: String = ROWS.iter().map(|r| r.join(";") + "\r\n").collect();
    std::fs::write(d.join("map.csv"), format!("\u{feff}{}", csv.trim_end())).unwrap();
    std::fs::write(d.join("map.xlsx"), xlsx(ROWS)).unwrap();
    for map in ["map.csv", "map.xlsx"] {
        let o = run_in(d, &["--server", "nginx", "--format", "json", map]);
        assert_eq!(
            o.status.code(),
            Some(1),
            "{map}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let json = stdout(&o);
        assert_eq!(findings(&json), nginx_findings(), "{map}");
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["rows"], 6, "{map}");
        assert_eq!(
            v["entries"].as_u64().unwrap() + v["set_aside"].as_u64().unwrap(),
            6
        );
        // Apache's map keys keep their case: the same rows are two sources there.
        let o = run_in(d, &["--server", "apache", "--format", "json", map]);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            !findings(&stdout(&o))
                .iter()
                .any(|f| f.1 == "duplicate-source"),
            "{map}"
        );
    }
}

#[test]
fn formats_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("clean.csv"), "source,target\n/a,/b\n/c,/d\n").unwrap();
    std::fs::write(d.join("loop.csv"), "source,target\n/a,/b\n/b,/a\n").unwrap();
    // Warnings alone pass: pages sent to the home page are counted, not refused.
    std::fs::write(d.join("home.csv"), "source,target\n/a,/\n/b,/\n").unwrap();

    let o = run_in(d, &["--server", "nginx", "clean.csv"]);
    assert_eq!(o.status.code(), Some(0));
    // The MAP from standard input, without a final newline.
    let piped = ok(
        &["redirects", "check", "--server", "nginx", "-"],
        b"source,target\n/a,/b\n/c,/d",
    );
    assert_eq!(
        piped,
        stdout(&o).replace(&d.join("clean.csv").display().to_string(), "<stdin>")
    );
    assert!(
        stdout(&o).ends_with("passes: 0 errors, 0 warnings\n"),
        "{}",
        stdout(&o)
    );

    let o = run_in(d, &["--server", "nginx", "home.csv"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).contains("warning homepage-dump      lines 2, 3: 2 of 2 redirects"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).ends_with("passes: 0 errors, 1 warnings\n"));

    let o = run_in(d, &["--server", "nginx", "loop.csv"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error   loop               lines 2, 3: 2 rows redirect in a circle: /a (line 2) -> /b (line 3) -> /a"), "{}", stdout(&o));

    let o = run_in(d, &["--server", "netlify", "--format", "csv", "loop.csv"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let mut rd = csv::Reader::from_reader(out.as_bytes());
    assert_eq!(
        rd.headers().unwrap().iter().collect::<Vec<_>>(),
        ["severity", "kind", "limit", "lines", "detail"]
    );
    let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (&rows[0][0], &rows[0][1], &rows[0][3]),
        ("error", "loop", "2 3")
    );

    // -o FILE: the report goes there, and the exit code is the same.
    let o = run_in(
        d,
        &[
            "--server", "iis", "--format", "json", "-o", "r.json", "loop.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let written = std::fs::read_to_string(d.join("r.json")).unwrap();
    assert_eq!(findings(&written), vec![f("error", "loop", "2 3")]);
    // -o naming the MAP is refused before anything is written.
    let o = run_in(d, &["--server", "iis", "-o", "loop.csv", "loop.csv"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::read_to_string(d.join("loop.csv"))
        .unwrap()
        .starts_with("source,target"));

    // Troubles are 2 or more: an unknown server, a missing MAP, a MAP without target.
    assert_eq!(
        run_in(d, &["--server", "caddy", "clean.csv"]).status.code(),
        Some(2)
    );
    assert_eq!(
        run_in(d, &["--server", "nginx", "/nonexistent/m.csv"])
            .status
            .code(),
        Some(3)
    );
    std::fs::write(d.join("notarget.csv"), "source,to\n/a,/b\n").unwrap();
    let o = run_in(d, &["--server", "nginx", "notarget.csv"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no target column"));
    // --column needs --new; MAP and --new cannot both be standard input.
    assert_eq!(
        run_in(d, &["--server", "nginx", "--column", "u", "clean.csv"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run_in(d, &["--server", "nginx", "--new", "-", "-"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn missing_targets_against_a_new_inventory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("map.csv"),
        "source,target\n/a,/team\n/b,/Contact\n/c,/gone\n/d,https://other.org/x\n",
    )
    .unwrap();
    std::fs::write(
        d.join("new.csv"),
        "\u{feff}Address;Title\r\nhttps://new.com/team;Team\r\nhttps://new.com/contact;Contact\r\n",
    )
    .unwrap();
    let o = run_in(
        d,
        &[
            "--server", "nginx", "--new", "new.csv", "--column", "Address", "--format", "json",
            "map.csv",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let json = stdout(&o);
    assert_eq!(
        findings(&json),
        vec![
            f("error", "missing-target", "4"),
            f("warning", "missing-target", "3")
        ]
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["targets"],
        serde_json::json!({"held": 1, "held_otherwise": 1, "missing": 1, "external": 1})
    );
    // NEW as plain lines, the column not needed.
    std::fs::write(
        d.join("new.txt"),
        "https://new.com/team\nhttps://new.com/Contact\nhttps://new.com/gone",
    )
    .unwrap();
    let o = run_in(d, &["--server", "apache", "--new", "new.txt", "map.csv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("targets in the new site: 3 held, 0 held under another spelling, 0 missing, 1 on other sites"), "{}", stdout(&o));
}
