//! Run timestamps as spreadsheets write them (issue 15, item 2): `T` or a space, fractions,
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
