//! Ingest never loses a row: every problem of a file is found in one pass and
//! listed; without `--rejects` nothing is stored, with it the good rows are stored and the
//! refused ones written to the rejects file, and rows read = stored + present + rejected.

use crate::common::{dump, ledger, open};

const HEADER: &str =
    "observation_id,answer_system,prompt_version,market,run_timestamp,observed_url,note";

/// 8 data rows (lines 2-9): 4 good, 4 bad, each bad one for a different reason.
fn mixed() -> String {
    [
        HEADER,
        "m1,sys,v1,us,2026-11-01T09:00:00Z,https://docs.example.org/a,ok",
        "m2,sys,v1,us,2026-11-01T09:00:00Z,https://docs.example.org/b",
        "m3,sys,v1,us,last tuesday,https://docs.example.org/c,bad time",
        "m4,sys,v1,us,2026-11-01T09:00:00Z,not a url,invalid url is stored",
        ",sys,v1,,2026-11-01T09:00:00Z,https://docs.example.org/d,no id and no market",
        "m6,sys,v1,us,2026-11-01T09:00:00Z,https://docs.example.org/e,ok",
        "m1,sys,v1,us,2026-11-01T09:00:00Z,https://docs.example.org/OTHER,dup id",
        "m8,sys,v1,us,2026-11-01T09:00:00Z,https://docs.example.org/f,ok",
    ]
    .join("\n")
        + "\n"
}

fn count(db: &std::path::Path) -> i64 {
    open(db)
        .query_row("SELECT count(*) FROM observations", [], |r| r.get(0))
        .expect("count")
}

#[test]
fn all_problems_are_listed_in_one_pass_and_nothing_is_stored() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("mixed.csv");
    std::fs::write(&f, mixed()).expect("write");
    let err = ledger(&db, &["ingest", f.to_str().expect("path")]).err();
    assert_eq!(err.exit_code(), 3);
    let msg = err.to_string();
    // line 3 is short (6 cells for 7 columns) but complete: a shape problem all the same.
    assert!(
        msg.contains("line 3: the row has 6 cells, the header has 7"),
        "{msg}"
    );
    assert!(msg.contains("line 4, column run_timestamp"), "{msg}");
    assert!(msg.contains("line 6, column observation_id"), "{msg}");
    assert!(msg.contains("line 6, column market"), "{msg}");
    assert!(msg.contains("line 8, column observation_id"), "{msg}");
    assert!(msg.contains("first seen at line 2 of this file"), "{msg}");
    assert!(
        msg.contains("4 of 8 rows cannot be stored (5 problems)"),
        "{msg}"
    );
    assert!(msg.contains("--rejects"), "says what to do: {msg}");
    assert!(
        !msg.contains("line 5"),
        "an invalid URL is not a problem: {msg}"
    );
    assert!(!db.exists() || count(&db) == 0, "all or nothing");
}

#[test]
fn rejects_stores_the_good_rows_and_sets_the_bad_ones_aside() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("mixed.csv");
    let rej = dir.path().join("rejects.csv");
    std::fs::write(&f, mixed()).expect("write");
    let args = [
        "ingest",
        f.to_str().expect("path"),
        "--rejects",
        rej.to_str().expect("path"),
    ];
    let r = ledger(&db, &args).ok();
    assert!(
        r.stdout.contains(
            "8 rows read (csv, keyed with citation@1) = 4 stored (1 of them with an invalid URL, \
             stored with its error code) + 0 already in the ledger + 4 rejected"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("line 4, column run_timestamp"),
        "{}",
        r.stderr
    );
    assert_eq!(count(&db), 4);
    let text = std::fs::read_to_string(&rej).expect("rejects");
    let mut rd = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let head: Vec<String> = rd
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    assert_eq!(
        head,
        [
            "line",
            "reason",
            "observation_id",
            "answer_system",
            "prompt_version",
            "market",
            "run_timestamp",
            "observed_url",
            "note"
        ]
    );
    let rows: Vec<csv::StringRecord> = rd.records().map(|r| r.expect("row")).collect();
    let lines: Vec<&str> = rows.iter().map(|r| &r[0]).collect();
    assert_eq!(lines, ["3", "4", "6", "8"]);
    // The original cells, exactly.
    assert_eq!(&rows[1][6], "last tuesday");
    assert_eq!(&rows[3][7], "https://docs.example.org/OTHER");
    // A short row's cells as the file has them: 6 cells (line 3 has no `note`), not
    // padded to the header's 7 (the rejects file shows the row faithfully).
    assert_eq!(rows[0].len(), 2 + 6);
    assert_eq!(&rows[0][7], "https://docs.example.org/b");
    assert!(rows[2][1].contains("market"), "{:?}", &rows[2]);

    // Again: the 4 stored rows are present, the 4 bad ones are rejected again; 8 = 0+4+4.
    let before = dump(&db);
    let r = ledger(&db, &args).ok();
    assert!(
        r.stdout.contains("= 0 stored")
            && r.stdout.contains("+ 4 already in the ledger + 4 rejected"),
        "{}",
        r.stdout
    );
    assert_eq!(dump(&db), before);
}

#[test]
fn rejects_of_a_jsonl_file_keep_each_object() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("rows.jsonl");
    let rej = dir.path().join("rejects.jsonl");
    std::fs::write(
        &f,
        "{\"observation_id\":\"j1\",\"answer_system\":\"s\",\"prompt_version\":\"v\",\"market\":\"us\",\"run_timestamp\":\"2026-11-01\",\"observed_url\":\"https://x.example/\"}\n\
         {\"observation_id\":\"j2\",\"observed_url\":\"https://x.example/2\",\"position\":3}\n\
         not json\n",
    )
    .expect("write");
    let r = ledger(
        &db,
        &[
            "ingest",
            f.to_str().expect("p"),
            "--rejects",
            rej.to_str().expect("p"),
        ],
    )
    .ok();
    assert!(
        r.stdout.contains("3 rows read") && r.stdout.contains("1 stored"),
        "{}",
        r.stdout
    );
    let text = std::fs::read_to_string(&rej).expect("rejects");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["line"], 2);
    assert_eq!(lines[0]["observation_id"], "j2");
    assert_eq!(lines[0]["position"], 3);
    assert!(lines[0]["reason"]
        .as_str()
        .expect("s")
        .contains("answer_system"));
    assert_eq!(lines[1]["line"], 3);
    assert_eq!(lines[1]["text"], "not json");
}

#[test]
fn more_than_a_hundred_problems_are_cut_to_a_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("many.csv");
    // Columns without a value are listed per row (a column the header lacks is listed once:
    // `a_field_without_a_column_is_listed_once`).
    let mut text = String::from(
        "observation_id,observed_url,market,prompt_version,answer_system,run_timestamp\n",
    );
    for i in 0..130 {
        text.push_str(&format!("id{i},https://x.example/{i},us,,,\n"));
    }
    std::fs::write(&f, text).expect("write");
    let msg = ledger(&db, &["ingest", f.to_str().expect("p")])
        .err()
        .to_string();
    // Each row lacks prompt_version, answer_system and run_timestamp: 390 problems.
    assert!(
        msg.contains("130 of 130 rows cannot be stored (390 problems)"),
        "{msg}"
    );
    assert!(msg.contains("... and 290 more problems"), "{msg}");
    assert_eq!(msg.matches("\n  line ").count(), 100, "{msg}");

    // With --rejects: only the first 100 problems are kept for the note, all 390 counted,
    // and every one of the 130 rows is in the rejects file (130 = 0 + 0 + 130).
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
        r.stderr.contains("130 rows refused (390 problems)")
            && r.stderr.contains("... and 290 more problems"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr.matches("\n  line ").count(), 100, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("130 rows read (csv, keyed with citation@1) = 0 stored")
            && r.stdout
                .contains("+ 0 already in the ledger + 130 rejected"),
        "{}",
        r.stdout
    );
    let text = std::fs::read_to_string(&rejects).expect("rejects");
    assert_eq!(text.lines().count(), 1 + 130);
    assert!(
        text.lines().last().expect("last").starts_with("131,"),
        "{text}"
    );
}

#[test]
fn rejects_cannot_overwrite_the_input_or_serve_several_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("mixed.csv");
    std::fs::write(&f, mixed()).expect("write");
    let fp = f.to_str().expect("p");
    let err = ledger(&db, &["ingest", fp, "--rejects", fp]).err();
    assert_eq!(err.exit_code(), 2);
    assert_eq!(std::fs::read_to_string(&f).expect("kept"), mixed());
    let err = ledger(&db, &["ingest", fp, fp, "--rejects", "r.csv"]).err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("one file per ingest"), "{err}");
}

#[test]
fn a_field_without_a_column_is_listed_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("many.csv");
    let mut text = String::from("observation_id,observed_url,market\n");
    for i in 0..130 {
        text.push_str(&format!("id{i},https://x.example/{i},us\n"));
    }
    std::fs::write(&f, text).expect("write");
    let msg = ledger(&db, &["ingest", f.to_str().expect("p")])
        .err()
        .to_string();
    // The header lacks prompt_version, answer_system and run_timestamp: three problems,
    // each said once with the rows that lack it and the flag that fills it in.
    assert!(
        msg.contains("130 of 130 rows cannot be stored (3 problems)"),
        "{msg}"
    );
    assert_eq!(msg.matches("\n  line ").count(), 3, "{msg}");
    for (field, flag) in [
        ("prompt_version", "--prompt-version"),
        ("answer_system", "--answer-system"),
        ("run_timestamp", "--run-timestamp"),
    ] {
        let want = format!(
            "line 2, column {field}: the header has no {field} column: 130 rows lack it (lines 2 to 131)"
        );
        assert!(msg.contains(&want), "{want} in {msg}");
        assert!(msg.contains(flag), "{msg}");
    }
    // The rejects file still gives every row its reasons.
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
        r.stderr.contains("130 rows refused (3 problems)"),
        "{}",
        r.stderr
    );
    let text = std::fs::read_to_string(&rejects).expect("rejects");
    assert_eq!(text.lines().count(), 1 + 130);
    assert!(text
        .lines()
        .all(|l| l.starts_with("line") || l.contains("run_timestamp")));
}
