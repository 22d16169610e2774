//! Spreadsheets ingested as they are: `.xlsx` and `.ods` fixtures written by
//! `crates/urlkey-ledger/tests/fixtures/make_sheets.py` (synthetic rows, reserved domains), `--sheet`, the
//! sheet and format recorded, idempotence on the file bytes.

use crate::common::{dump, fixture, ledger, open};

fn stored(db: &std::path::Path) -> Vec<(String, i64, String, Option<String>, String)> {
    open(db)
        .prepare(
            "SELECT observation_id, source_line, observed_url, error_code, extra \
             FROM observations ORDER BY 1",
        )
        .expect("prepare")
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

#[test]
fn an_xlsx_goes_in_as_it_is_with_every_row_accounted_for() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let book = fixture("synthetic-citations.xlsx");
    let bp = book.to_str().expect("p");

    // All or nothing by default: x3 (a value in column H, past the header's 7 named
    // columns) and x5 (run_timestamp "soon") are refused, so nothing is stored.
    let err = ledger(&db, &["ingest", bp]).err();
    assert_eq!(err.exit_code(), 3);
    let msg = err.to_string();
    assert!(
        msg.contains("2 of 5 rows cannot be stored (2 problems)"),
        "{msg}"
    );
    assert!(
        msg.contains(
            "line 4: the row has a value in column 8, past the header's last named column (7)"
        ),
        "{msg}"
    );
    assert!(msg.contains("line 7, column run_timestamp"), "{msg}");

    // With --rejects: 5 rows read (row 6 is blank) = 3 stored (x4 without a URL, stored
    // invalid) + 0 + 2 rejected.
    let rejects = dir.path().join("rejects.csv");
    let rp = rejects.to_str().expect("p");
    let r = ledger(&db, &["ingest", bp, "--rejects", rp]).ok();
    assert!(
        r.stdout.contains(
            "5 rows read (xlsx, sheet \"Citations\", keyed with citation@1) = 3 stored (1 of \
             them with an invalid URL, stored with its error code) + 0 already in the ledger + \
             2 rejected"
        ),
        "{}",
        r.stdout
    );
    let rows = stored(&db);
    let ids: Vec<(&str, i64)> = rows.iter().map(|r| (r.0.as_str(), r.1)).collect();
    assert_eq!(ids, [("x1", 2), ("x2", 3), ("x4", 5)]);
    assert_eq!(rows[0].2, "https://docs.example.org/guide?utm_source=x");
    // A number cell is the text a person sees: 1, not 1.0.
    assert_eq!(rows[0].4, r#"{"position":"1"}"#);
    assert_eq!(rows[2].2, "");
    assert!(
        rows[2].3.is_some(),
        "x4 has no URL: stored with an error code"
    );

    // The rejects file: CSV, every cell of the refused rows, the stray one too.
    let text = std::fs::read_to_string(&rejects).expect("rejects");
    let mut rd = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let recs: Vec<csv::StringRecord> = rd.records().map(|r| r.expect("row")).collect();
    assert_eq!(recs.len(), 2);
    assert_eq!(&recs[0][0], "4");
    let cells: Vec<&str> = recs[0].iter().skip(2).collect();
    assert_eq!(
        cells,
        [
            "x3",
            "ps-1",
            "assistant-a",
            "fr",
            "2026-11-08T09:10:00Z",
            "https://news.example.com/",
            "3",
            "stray note"
        ]
    );
    assert_eq!(&recs[1][0], "7");
    assert_eq!(&recs[1][6], "soon");

    // What was recorded: the format, the sheet, the hash of the file's bytes.
    let (format, sheet, compression, hash): (String, Option<String>, Option<String>, String) =
        open(&db)
            .query_row(
                "SELECT input_format, sheet, compression, source_xxh3_128 FROM ingests",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .expect("ingest");
    let bytes = std::fs::read(&book).expect("book");
    assert_eq!(
        (format.as_str(), sheet.as_deref(), compression),
        ("xlsx", Some("Citations"), None)
    );
    assert_eq!(
        hash,
        format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes))
    );

    // Again: 5 = 0 + 3 + 2, and the ledger is unchanged.
    let before = dump(&db);
    let r = ledger(&db, &["ingest", bp, "--rejects", rp]).ok();
    assert!(
        r.stdout.contains("= 0 stored")
            && r.stdout.contains("+ 3 already in the ledger + 2 rejected"),
        "{}",
        r.stdout
    );
    assert_eq!(dump(&db), before);

    // The second sheet, by name and by number; a sheet that does not exist.
    let r = ledger(&db, &["ingest", bp, "--sheet", "Later"]).ok();
    assert!(
        r.stdout.contains(
            "1 rows read (xlsx, sheet \"Later\", keyed with citation@1): 1 observations added"
        ),
        "{}",
        r.stdout
    );
    let r = ledger(&db, &["ingest", bp, "--sheet", "2"]).ok();
    assert!(
        r.stdout.contains("all 1 already in the ledger"),
        "{}",
        r.stdout
    );
    assert_eq!(
        stored(&db).last().map(|r| r.4.clone()),
        Some(r#"{"position":"301"}"#.to_string())
    );
    let err = ledger(&db, &["ingest", bp, "--sheet", "Nope"]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().contains("no sheet \"Nope\""), "{err}");
    assert!(
        err.to_string().contains("\"Citations\", \"Later\""),
        "{err}"
    );
}

#[test]
fn an_ods_is_read_too_and_sheet_is_refused_for_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let book = fixture("synthetic-citations.ods");
    let bp = book.to_str().expect("p");
    let r = ledger(&db, &["ingest", bp, "--sheet", "Later"]).ok();
    assert!(
        r.stdout.contains("1 rows read (ods, sheet \"Later\""),
        "{}",
        r.stdout
    );
    let rows = stored(&db);
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0].2,
        "https://updates.example.com/story?edition=morning&utm_campaign=t"
    );
    let format: String = open(&db)
        .query_row("SELECT input_format FROM ingests", [], |r| r.get(0))
        .expect("format");
    assert_eq!(format, "ods");

    // --sheet on a text file is a usage error (exit 2), before anything is read.
    let f = dir.path().join("a.csv");
    std::fs::write(&f, "observation_id,observed_url\n").expect("write");
    let err = ledger(&db, &["ingest", f.to_str().expect("p"), "--sheet", "1"]).err();
    assert_eq!(err.exit_code(), 2, "{err}");
}
