//! Run timestamps as spreadsheets write them: `T` or a space, fractions,
//! `Z` or an offset, stored in UTC; naive ones refused unless `--timezone` names a zone.

use crate::common::{ledger, open};

fn file(dir: &std::path::Path, stamps: &[&str]) -> std::path::PathBuf {
    let mut text = String::from(
        "observation_id,answer_system,prompt_version,market,run_timestamp,observed_url\n",
    );
    for (i, s) in stamps.iter().enumerate() {
        text.push_str(&format!("t{i},s,v,fr,{s},https://docs.example.org/{i}\n"));
    }
    let f = dir.join("times.csv");
    std::fs::write(&f, text).expect("write");
    f
}

fn stored(db: &std::path::Path) -> Vec<(String, String)> {
    open(db)
        .prepare("SELECT run_timestamp_as_written, run_timestamp FROM observations ORDER BY observation_id")
        .expect("prepare")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

#[test]
fn offsets_and_spaces_are_read_and_stored_in_utc_with_the_text_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = file(
        dir.path(),
        &[
            "2026-11-08T09:00:00+01:00",
            "2026-11-08 09:00:00Z",
            "2026-11-08T09:00:00.123456Z",
            "2026-11-08 10:30:00-0200",
        ],
    );
    ledger(&db, &["ingest", f.to_str().expect("p")]).ok();
    assert_eq!(
        stored(&db),
        [
            (
                "2026-11-08T09:00:00+01:00".into(),
                "2026-11-08T08:00:00Z".into()
            ),
            ("2026-11-08 09:00:00Z".into(), "2026-11-08T09:00:00Z".into()),
            (
                "2026-11-08T09:00:00.123456Z".into(),
                "2026-11-08T09:00:00Z".into()
            ),
            (
                "2026-11-08 10:30:00-0200".into(),
                "2026-11-08T12:30:00Z".into()
            ),
        ]
    );
}

#[test]
fn naive_timestamps_need_timezone_and_are_read_in_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = file(dir.path(), &["2026-11-08 09:00:00", "2026-07-01T09:00"]);
    let fp = f.to_str().expect("p");
    let err = ledger(&db, &["ingest", fp]).err();
    assert_eq!(err.exit_code(), 3);
    let msg = err.to_string();
    assert!(msg.contains("line 2, column run_timestamp"), "{msg}");
    assert!(msg.contains("line 3, column run_timestamp"), "{msg}");
    assert!(msg.contains("--timezone"), "names the flag: {msg}");

    let err = ledger(&db, &["ingest", fp, "--timezone", "Europe/Pariss"]).err();
    assert_eq!(err.exit_code(), 2);
    assert!(err.to_string().contains("Europe/Paris"), "{err}");

    ledger(&db, &["ingest", fp, "--timezone", "Europe/Paris"]).ok();
    assert_eq!(
        stored(&db),
        [
            ("2026-11-08 09:00:00".into(), "2026-11-08T08:00:00Z".into()),
            ("2026-07-01T09:00".into(), "2026-07-01T07:00:00Z".into()),
        ]
    );
    // The same text read in another zone is another instant: a conflict, not "present".
    let err = ledger(&db, &["ingest", fp, "--timezone", "UTC"]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().contains("read as UTC"), "{err}");
    // The same zone again: nothing new.
    let r = ledger(&db, &["ingest", fp, "--timezone", "Europe/Paris"]).ok();
    assert!(r.stdout.contains("nothing written"), "{}", r.stdout);
}

#[test]
fn the_run_timestamp_flag_takes_the_zone_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("nots.csv");
    std::fs::write(
        &f,
        "observation_id,answer_system,prompt_version,market,observed_url\nn1,s,v,fr,https://x.example/\n",
    )
    .expect("write");
    let fp = f.to_str().expect("p");
    let err = ledger(&db, &["ingest", fp, "--run-timestamp", "2026-11-08 09:00"]).err();
    assert_eq!(err.exit_code(), 2);
    ledger(
        &db,
        &[
            "ingest",
            fp,
            "--run-timestamp",
            "2026-11-08 09:00",
            "--timezone",
            "America/New_York",
        ],
    )
    .ok();
    assert_eq!(stored(&db)[0].1, "2026-11-08T14:00:00Z");
}

#[test]
fn export_and_report_give_the_utc_instant_and_keep_the_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let written = [
        "2026-11-08 09:00:00+01:00",
        "2026-11-08T09:00:00-05:30",
        "2026-11-08T09:00:00Z",
        "2026-11-08 09:00:00+0000",
        "2026-11-08T09:00:00.999+01:00",
        "2026-11-08",
    ];
    let f = file(dir.path(), &written);
    ledger(&db, &["ingest", f.to_str().expect("p")]).ok();
    let utc = [
        "2026-11-08T08:00:00Z",
        "2026-11-08T14:30:00Z",
        "2026-11-08T09:00:00Z",
        "2026-11-08T09:00:00Z",
        "2026-11-08T08:00:00Z",
        "2026-11-08T00:00:00Z",
    ];
    let jsonl = ledger(&db, &["export", "--format", "jsonl"]).ok().stdout;
    let rows: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(rows.len(), written.len());
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["run_timestamp"], utc[i], "{r}");
        assert_eq!(r["run_timestamp_as_written"], written[i], "{r}");
    }
    let csv = ledger(&db, &["export", "--format", "csv"]).ok().stdout;
    let mut rd = csv::Reader::from_reader(csv.as_bytes());
    let h = rd.headers().expect("header").clone();
    let ts = h.iter().position(|c| c == "run_timestamp").expect("col");
    let tw = h
        .iter()
        .position(|c| c == "run_timestamp_as_written")
        .expect("col");
    assert_eq!(
        tw, 28,
        "after every column of the schemas before 5 (later ones follow it)"
    );
    for (i, rec) in rd.records().enumerate() {
        let rec = rec.expect("record");
        assert_eq!(&rec[ts], utc[i]);
        assert_eq!(&rec[tw], written[i]);
    }
    // The collection window is the earliest and latest UTC instant.
    let report = ledger(&db, &["report", "--format", "json"]).ok().stdout;
    assert!(report.contains("2026-11-08T00:00:00Z"), "{report}");
    assert!(report.contains("2026-11-08T14:30:00Z"), "{report}");
    assert!(!report.contains("+01:00"), "{report}");
}

#[test]
fn local_times_a_dst_change_skips_or_repeats_and_bad_text_are_refused_by_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = file(
        dir.path(),
        &[
            "2026-03-29 02:30:00", // skipped in Paris (02:00 -> 03:00)
            "2026-10-25 02:30:00", // repeated in Paris (03:00 -> 02:00)
            "2026-11-08T25:00:00Z",
            "last tuesday",
        ],
    );
    let err = ledger(
        &db,
        &[
            "ingest",
            f.to_str().expect("p"),
            "--timezone",
            "Europe/Paris",
        ],
    )
    .err();
    assert_eq!(err.exit_code(), 3);
    let msg = err.to_string();
    for line in 2..=5 {
        assert!(
            msg.contains(&format!("line {line}, column run_timestamp")),
            "line {line}: {msg}"
        );
    }
    assert!(
        msg.contains("names no single instant in Europe/Paris"),
        "{msg}"
    );
    assert!(
        msg.contains("2026-03-29 02:30:00+01:00"),
        "asks for the offset: {msg}"
    );
    assert!(!db.exists() || stored(&db).is_empty(), "nothing stored");
    // With the offset written, each of the repeated half hours is its own instant.
    let g = file(
        dir.path(),
        &["2026-10-25 02:30:00+02:00", "2026-10-25 02:30:00+01:00"],
    );
    ledger(
        &db,
        &[
            "ingest",
            g.to_str().expect("p"),
            "--timezone",
            "Europe/Paris",
        ],
    )
    .ok();
    let got: Vec<String> = stored(&db).into_iter().map(|r| r.1).collect();
    assert_eq!(got, ["2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z"]);
}
