//! Ingest of compressed files, rows longer or shorter than the header, files larger than
//! one batch of rows, and the progress of both passes.

use std::io::Write;

use crate::common::{dump, ledger, open};
use urlkey_ledger::ingest::{ingest, ColumnMap, Defaults, IngestOptions, Phase};
use urlkey_ledger::norm::Normalizer;

const CSV: &str = "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url\n\
z1,v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/a?utm_source=x\n\
z2,v,s,us,2026-11-08T09:01:00Z,https://docs.example.org/b\n\
z3,v,s,us,2026-11-08T09:02:00Z,https://docs.example.org/c\n";

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).expect("gzip");
    e.finish().expect("gzip")
}

fn recorded(db: &std::path::Path) -> Vec<(String, String, Option<String>, String)> {
    open(db)
        .prepare(
            "SELECT source_path, input_format, compression, source_xxh3_128 FROM ingests \
             ORDER BY ingest_id",
        )
        .expect("prepare")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
}

#[test]
fn gz_and_zst_are_read_hashed_as_stored_and_already_present_on_re_ingest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let gz = dir.path().join("export.csv.gz");
    let gz_bytes = gzip(CSV.as_bytes());
    std::fs::write(&gz, &gz_bytes).expect("write");
    let zst = dir.path().join("export.csv.zst");
    let zst_bytes = zstd::encode_all(CSV.as_bytes(), 3).expect("zstd");
    std::fs::write(&zst, &zst_bytes).expect("write");
    let plain = dir.path().join("export.csv");
    std::fs::write(&plain, CSV).expect("write");
    let p = |f: &std::path::Path| f.to_str().expect("p").to_string();

    let r = ledger(&db, &["ingest", &p(&gz)]).ok();
    assert!(
        r.stdout
            .contains("3 rows read (csv, gzip, keyed with citation@1): 3 observations added"),
        "{}",
        r.stdout
    );
    let rec = recorded(&db);
    assert_eq!(rec.len(), 1);
    assert_eq!(
        (rec[0].1.as_str(), rec[0].2.as_deref()),
        ("csv", Some("gzip"))
    );
    // The hash is of the bytes as stored: the compressed file, not the CSV inside.
    assert_eq!(
        rec[0].3,
        format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&gz_bytes))
    );
    assert_ne!(
        rec[0].3,
        format!("{:032x}", xxhash_rust::xxh3::xxh3_128(CSV.as_bytes()))
    );

    // The same .gz again, its .zst and its plain CSV: every row already present.
    let before = dump(&db);
    for f in [&gz, &zst, &plain] {
        let r = ledger(&db, &["ingest", &p(f)]).ok();
        assert!(
            r.stdout.contains("3 rows read (csv")
                && r.stdout.contains("all 3 already in the ledger"),
            "{}: {}",
            f.display(),
            r.stdout
        );
    }
    assert!(ledger(&db, &["ingest", &p(&zst)])
        .ok()
        .stdout
        .contains("(csv, zstd)"));
    assert_eq!(dump(&db), before, "nothing written by the re-ingests");

    // A .gz name over bytes that are not gzip: refused, naming the problem (exit 3).
    let fake = dir.path().join("fake.csv.gz");
    std::fs::write(&fake, CSV).expect("write");
    let err = ledger(&db, &["ingest", &p(&fake)]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().contains("not gzip"), "{err}");
    // A truncated gzip stream: refused before anything is stored.
    let cut = dir.path().join("cut.csv.gz");
    std::fs::write(&cut, &gz_bytes[..gz_bytes.len() / 2]).expect("write");
    let err = ledger(&db, &["ingest", &p(&cut)]).err();
    assert_eq!(err.exit_code(), 3);
    assert!(err.to_string().contains("cannot decompress"), "{err}");
    assert_eq!(dump(&db), before);
}

#[test]
fn rejects_carry_every_original_cell_of_short_and_long_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("ragged.csv");
    std::fs::write(
        &f,
        "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url,note\n\
r1,v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/a,ok\n\
r2,v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/b,n,extra one,\"extra, two\",\n\
r3,v,s,us\n\
r4,v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/d,\n",
    )
    .expect("write");
    let rejects = dir.path().join("rejects.csv");
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
        r.stdout.contains("4 rows read (csv, keyed with citation@1) = 2 stored (0 of them with an invalid URL, stored with its error code) + 0 already in the ledger + 2 rejected"),
        "{}",
        r.stdout
    );
    let text = std::fs::read_to_string(&rejects).expect("rejects");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("line,reason,observation_id,prompt_version,answer_system,market,run_timestamp,observed_url,note")
    );
    // Line 3: 10 cells (3 past the header's 7, the last one empty), all of them, in order.
    let l3 = lines.next().expect("line 3");
    assert!(
        l3.starts_with("3,\"the row has 10 cells, the header has 7"),
        "{l3}"
    );
    assert!(
        l3.ends_with(",r2,v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/b,n,extra one,\"extra, two\","),
        "{l3}"
    );
    // Line 4: its own 4 cells, no padding.
    let l4 = lines.next().expect("line 4");
    assert!(
        l4.starts_with("4,\"the row has 4 cells, the header has 7"),
        "{l4}"
    );
    assert!(l4.ends_with("\",r3,v,s,us"), "{l4}");
    assert_eq!(lines.next(), None);
    let mut rd = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let lens: Vec<usize> = rd.records().map(|r| r.expect("row").len()).collect();
    assert_eq!(lens, [2 + 10, 2 + 4]);
}

/// 5,000 rows: more than one batch (4,096). Line 5,001 repeats the id of line 2 with
/// another URL: the conflict is found across batches, with or without --rejects.
#[test]
fn a_conflict_across_batches_is_found_and_all_or_nothing_still_holds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let f = dir.path().join("big.csv");
    let mut text = String::from(
        "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url\n",
    );
    for i in 0..5000 {
        text.push_str(&format!(
            "b{i},v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/p/{i}\n"
        ));
    }
    text.push_str("b0,v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/other\n");
    std::fs::write(&f, &text).expect("write");
    let fp = f.to_str().expect("p");
    let err = ledger(&db, &["ingest", fp]).err();
    assert_eq!(err.exit_code(), 3);
    let msg = err.to_string();
    assert!(
        msg.contains("1 of 5001 rows cannot be stored (1 problem)"),
        "{msg}"
    );
    assert!(
        msg.contains("line 5002, column observation_id: observation_id \"b0\" is already in the ledger (first seen at line 2 of this file)"),
        "{msg}"
    );
    // Rolled back: not one of the 5,000 good rows, not the ingest record.
    let n: i64 = open(&db)
        .query_row("SELECT count(*) FROM observations", [], |r| r.get(0))
        .expect("count");
    let i: i64 = open(&db)
        .query_row("SELECT count(*) FROM ingests", [], |r| r.get(0))
        .expect("count");
    assert_eq!((n, i), (0, 0));

    let rejects = dir.path().join("rejects.csv");
    let r = ledger(
        &db,
        &["ingest", fp, "--rejects", rejects.to_str().expect("p")],
    )
    .ok();
    assert!(
        r.stdout.contains("5001 rows read (csv, keyed with citation@1) = 5000 stored (0 of them with an invalid URL, stored with its error code) + 0 already in the ledger + 1 rejected"),
        "{}",
        r.stdout
    );
    let (read, added, unchanged): (i64, i64, i64) = open(&db)
        .query_row(
            "SELECT rows_read, rows_added, rows_unchanged FROM ingests",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .expect("ingest");
    assert_eq!((read, added, unchanged), (5001, 5000, 0));
    let rej = std::fs::read_to_string(&rejects).expect("rejects");
    assert_eq!(rej.lines().count(), 2);
    assert!(
        rej.lines().nth(1).expect("row").starts_with("5002,"),
        "{rej}"
    );
}

#[test]
fn progress_runs_over_both_passes_to_the_file_size() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut conn = urlkey_ledger::db::open(&dir.path().join("l.sqlite"), true).expect("db");
    let f = dir.path().join("p.csv");
    let mut text = String::from(
        "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url\n",
    );
    for i in 0..10_000 {
        text.push_str(&format!(
            "q{i},v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/{i}\n"
        ));
    }
    std::fs::write(&f, &text).expect("write");
    let calls = std::sync::Mutex::new(Vec::new());
    let norm = Normalizer::new("citation@1").expect("policy");
    let s = ingest(
        &mut conn,
        &f,
        &IngestOptions {
            format: None,
            defaults: &Defaults::default(),
            norm: &norm,
            rejects: None,
            columns: &ColumnMap::default(),
            encoding: None,
            sheet: None,
            delimiter: None,
            quotes: true,
            progress: &|phase, done, total| calls.lock().expect("lock").push((phase, done, total)),
            words: &urlkey_ledger::PlainWords,
        },
    )
    .expect("ingest");
    assert_eq!((s.rows_read, s.added), (10_000, 10_000));
    let calls = calls.into_inner().expect("lock");
    let size = text.len() as u64;
    let first_store = calls
        .iter()
        .position(|c| c.0 == Phase::Store)
        .expect("store calls");
    assert!(first_store > 0, "the check pass reports first");
    assert!(calls[..first_store]
        .iter()
        .all(|c| c.0 == Phase::Check && c.2 == size));
    assert_eq!(
        calls[first_store - 1].1,
        size,
        "the check pass ends at the file size"
    );
    assert!(calls[first_store..].iter().all(|c| c.0 == Phase::Store));
    assert!(
        calls.len() - first_store >= 3,
        "10,000 rows are 3 batches: {calls:?}"
    );
    assert_eq!(calls.last().map(|c| (c.1, c.2)), Some((size, size)));
}

#[test]
fn a_file_that_grows_between_the_two_passes_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("l.sqlite");
    let mut conn = urlkey_ledger::db::open(&db, true).expect("db");
    let f = dir.path().join("growing.csv");
    // 10,000 rows (about 640 KB): more than the reader's buffer and one batch, so the
    // second pass is still reading when the first batch is stored.
    let mut text = String::from(
        "observation_id,prompt_version,answer_system,market,run_timestamp,observed_url\n",
    );
    for i in 0..10_000 {
        text.push_str(&format!(
            "g{i},v,s,us,2026-11-08T09:00:00Z,https://docs.example.org/{i}\n"
        ));
    }
    std::fs::write(&f, &text).expect("write");
    let norm = Normalizer::new("citation@1").expect("policy");
    // After the first batch is stored, a writer appends a row (58 bytes).
    let grown = std::sync::atomic::AtomicBool::new(false);
    let grow = |phase: Phase, _: u64, _: u64| {
        if phase == Phase::Store && !grown.swap(true, std::sync::atomic::Ordering::SeqCst) {
            let mut w = std::fs::OpenOptions::new()
                .append(true)
                .open(&f)
                .expect("append");
            w.write_all(b"z4,v,s,us,2026-11-08T09:03:00Z,https://docs.example.org/d\n")
                .expect("append");
        }
    };
    let err = ingest(
        &mut conn,
        &f,
        &IngestOptions {
            format: None,
            defaults: &Defaults::default(),
            norm: &norm,
            rejects: None,
            columns: &ColumnMap::default(),
            encoding: None,
            sheet: None,
            delimiter: None,
            quotes: true,
            progress: &grow,
            words: &urlkey_ledger::PlainWords,
        },
    )
    .expect_err("refused");
    assert_eq!(err.exit_code(), 3);
    let size = text.len();
    assert!(
        err.to_string().contains(&format!(
            "changed while it was read ({size} bytes when hashed, {} bytes",
            size + 58
        )),
        "{err}"
    );
    drop(conn);
    let n: i64 = open(&db)
        .query_row("SELECT count(*) FROM observations", [], |r| r.get(0))
        .expect("count");
    assert_eq!(n, 0, "rolled back");
}
