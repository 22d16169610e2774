//! The ledger ingest on an arbitrary file body, into a fresh SQLite ledger file (the
//! ledger needs WAL mode, which an in-memory database cannot take).
//! Byte 0 picks the file name (`.csv`, `.tsv`, `.jsonl`, or none: format by content).
//! Properties: never a panic; an ingest that fails leaves no observation and no ingest
//! record (whole files or nothing); one that succeeds stores `added` observations,
//! `added + unchanged == rows_read`, and for CSV `rows_read` is the csv crate's own count
//! of non-blank rows; ingesting the same file again adds nothing (no duplicates).
#![no_main]
use libfuzzer_sys::fuzz_target;
use urlkey_ledger::ingest::{ingest_file, Defaults, InputFormat};
use urlkey_ledger::norm::Normalizer;

fn count(conn: &rusqlite::Connection, table: &str) -> i64 {
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

fn csv_rows(body: &[u8], delimiter: u8) -> Option<usize> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    // Flexible, as the ledger's reader: a row may have fewer or more cells than the header.
    let mut r = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(true)
        .flexible(true)
        .from_reader(body);
    let mut rec = csv::StringRecord::new();
    let mut n = 0;
    while r.read_record(&mut rec).ok()? {
        if !rec.iter().all(|c| c.trim().is_empty()) {
            n += 1;
        }
    }
    Some(n)
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, body)) = data.split_first() else {
        return;
    };
    let name = match mode & 3 {
        0 => "in.csv",
        1 => "in.tsv",
        2 => "in.jsonl",
        _ => "in.data",
    };
    let dir = urlkey_fuzz::scratch_dir();
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    let db = dir.join("ledger.sqlite");
    for f in ["ledger.sqlite", "ledger.sqlite-wal", "ledger.sqlite-shm"] {
        let _ = std::fs::remove_file(dir.join(f));
    }
    let mut conn = urlkey_ledger::db::open(&db, true).unwrap();
    let defaults = Defaults {
        answer_system: (mode & 4 != 0).then(|| "fuzz-system".to_string()),
        prompt_version: (mode & 4 != 0).then(|| "p1".to_string()),
        market: (mode & 4 != 0).then(|| "us".to_string()),
        run_timestamp: (mode & 8 != 0).then(|| "2026-11-01T00:00:00Z".to_string()),
        collection: None,
        timezone: None,
    };
    let norm = Normalizer::new(if mode & 16 == 0 {
        "citation@1"
    } else {
        "webkey@1"
    })
    .unwrap();
    match ingest_file(&mut conn, &path, None, &defaults, &norm) {
        Err(_) => {
            assert_eq!(
                count(&conn, "observations"),
                0,
                "a failed ingest left observations"
            );
            assert_eq!(
                count(&conn, "ingests"),
                0,
                "a failed ingest left an ingest record"
            );
        }
        Ok(s) => {
            assert_eq!(count(&conn, "observations"), s.added as i64, "{s:?}");
            assert_eq!(s.added + s.unchanged, s.rows_read, "{s:?}");
            assert_eq!(count(&conn, "ingests"), i64::from(s.added > 0), "{s:?}");
            let delim = match s.format {
                InputFormat::Csv => Some(b','),
                InputFormat::Tsv => Some(b'\t'),
                // Row counts of JSONL and spreadsheets are not re-derived here.
                InputFormat::Jsonl | InputFormat::Xlsx | InputFormat::Xls | InputFormat::Ods => {
                    None
                }
            };
            if let Some(d) = delim {
                assert_eq!(csv_rows(body, d), Some(s.rows_read), "{s:?}");
            }
            let again = ingest_file(&mut conn, &path, None, &defaults, &norm)
                .expect("the same file ingests again");
            assert_eq!(again.added, 0, "a rerun added rows: {again:?}");
            assert_eq!(again.unchanged, s.rows_read);
            assert_eq!(count(&conn, "observations"), s.added as i64);
            let ok: String = conn
                .query_row("PRAGMA integrity_check", [], |r| r.get(0))
                .unwrap();
            assert_eq!(ok, "ok");
        }
    }
});
