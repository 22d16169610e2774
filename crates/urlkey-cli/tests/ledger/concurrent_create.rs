//! Two first writers of a ledger that does not exist yet.
//!
//! Before the fix, two `ledger ingest` commands started together on a missing file failed
//! in 32 of 40 tries: one of them exited 4 with "database is locked" (the switch to WAL
//! does not wait) or "migration to schema version 1 failed: table ingests already exists"
//! (both read schema version 0 before taking the write lock). Here 20 pairs of ingests,
//! each pair into its own missing file, run as two separate processes released at the
//! same instant; every ingest must succeed, the rows of both files must be there, and
//! `integrity_check` must be `ok`.
//!
//! The processes are this test binary started again with `CONCURRENT_CREATE_CHILD` set
//! and the filter `child_ingest`, running the real `urlkey ledger ingest` code.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Parser;

use crate::common::run_parsed;
use rusqlite::Connection;

#[derive(Parser, Debug)]
#[command(name = "urlkey-ledger-child")]
struct ChildCli {
    #[command(flatten)]
    args: urlkey_cli::flags::ledger::LedgerArgs,
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0)
}

/// In the child process only: wait for `CONCURRENT_CREATE_START_MS`, then ingest
/// `CONCURRENT_CREATE_FILE` into `CONCURRENT_CREATE_DB`.
#[test]
fn child_ingest() {
    if std::env::var_os("CONCURRENT_CREATE_CHILD").is_none() {
        return; // not started as a child: nothing to do
    }
    let db = std::env::var("CONCURRENT_CREATE_DB").expect("CONCURRENT_CREATE_DB");
    let file = std::env::var("CONCURRENT_CREATE_FILE").expect("CONCURRENT_CREATE_FILE");
    let start: u128 = std::env::var("CONCURRENT_CREATE_START_MS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    // Both children leave this loop within a millisecond of each other, so that their
    // opens of the missing file overlap as closely as two commands can.
    while now_ms() < start {
        std::thread::sleep(Duration::from_micros(200));
    }
    let cli = ChildCli::parse_from(["urlkey-ledger-child", "--db", &db, "ingest", &file]);
    let mut out = Vec::new();
    let mut err = Vec::new();
    if let Err(e) = run_parsed(cli.args, &mut out, &mut err) {
        eprintln!("{}", String::from_utf8_lossy(&err));
        panic!(
            "child ingest of {file} failed (exit {}): {e}",
            e.exit_code()
        );
    }
}

fn write_csv(path: &Path, prefix: &str, rows: usize) {
    let mut s = String::from(
        "observation_id,prompt_id,prompt_version,answer_system,market,collection,run_timestamp,observed_url\n",
    );
    for i in 0..rows {
        s.push_str(&format!(
            "{prefix}-{i},p-{},ps-1,assistant-a,us,c-1,2026-11-01T09:00:00Z,https://example.com/{prefix}/{i}?utm_source=x\n",
            i % 7
        ));
    }
    std::fs::write(path, s).expect("write the input file");
}

fn spawn_child(db: &Path, file: &Path, start_ms: u128) -> std::process::Child {
    Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "--exact",
            "concurrent_create::child_ingest",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CONCURRENT_CREATE_CHILD", "1")
        .env("CONCURRENT_CREATE_DB", db)
        .env("CONCURRENT_CREATE_FILE", file)
        .env("CONCURRENT_CREATE_START_MS", start_ms.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start a child ingest")
}

#[test]
fn twenty_pairs_of_first_ingests_into_a_missing_ledger_all_succeed() {
    const PAIRS: usize = 20;
    const ROWS: usize = 200;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut failures = Vec::new();
    for pair in 0..PAIRS {
        let db = dir.path().join(format!("ledger-{pair}.sqlite"));
        assert!(!db.exists());
        let a = dir.path().join(format!("a-{pair}.csv"));
        let b = dir.path().join(format!("b-{pair}.csv"));
        write_csv(&a, &format!("a{pair}"), ROWS);
        write_csv(&b, &format!("b{pair}"), ROWS);
        // Far enough ahead for both processes to be started and waiting.
        let start = now_ms() + 300;
        let children = [spawn_child(&db, &a, start), spawn_child(&db, &b, start)];
        for (child, f) in children.into_iter().zip([&a, &b]) {
            let out = child.wait_with_output().expect("wait for a child ingest");
            if !out.status.success() {
                failures.push(format!(
                    "pair {pair}, {}: {}",
                    f.display(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
        if !failures.is_empty() {
            continue;
        }
        let conn = Connection::open(&db).expect("open the ledger");
        let ok: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .expect("integrity_check");
        assert_eq!(ok, "ok", "pair {pair}: integrity_check");
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("user_version");
        assert_eq!(version, urlkey_ledger::db::SCHEMA_VERSION, "pair {pair}");
        let observations: i64 = conn
            .query_row("SELECT count(*) FROM observations", [], |r| r.get(0))
            .expect("count observations");
        assert_eq!(observations, 2 * ROWS as i64, "pair {pair}: rows lost");
        let ingests: Vec<(i64, i64)> = conn
            .prepare("SELECT rows_read, rows_added FROM ingests ORDER BY ingest_id")
            .and_then(|mut st| {
                st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .expect("read ingests");
        assert_eq!(
            ingests,
            vec![(ROWS as i64, ROWS as i64), (ROWS as i64, ROWS as i64)],
            "pair {pair}: one ingest record per file, each with all its rows"
        );
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .expect("journal_mode");
        assert_eq!(mode, "wal", "pair {pair}");
    }
    assert!(
        failures.is_empty(),
        "{} of {} ingests failed:\n{}",
        failures.len(),
        2 * PAIRS,
        failures.join("\n")
    );
}

/// An open while another writer holds the write lock in the middle of creating the
/// schema (tables created, version set, not yet committed) waits for that writer, then
/// finds the schema in place and migrates nothing. (This ordering alone passed before the
/// fix too: the race above needs the two opens to interleave more finely.)
#[test]
fn an_open_during_another_writers_migration_waits_and_succeeds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ledger.sqlite");
    // The first writer: a complete ledger schema, created the way `open` does it, but
    // held uncommitted for a moment. (A complete ledger made elsewhere supplies the SQL.)
    let model = dir.path().join("model.sqlite");
    drop(urlkey_ledger::db::open(&model, true).expect("a model ledger"));
    let schema: Vec<String> = Connection::open(&model)
        .expect("open the model")
        .prepare("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY rowid")
        .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
        .expect("the model's schema");
    let first = Connection::open(&db).expect("create the file");
    let mode: String = first
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .expect("WAL");
    assert_eq!(mode, "wal");
    first
        .execute_batch("BEGIN IMMEDIATE")
        .expect("the write lock");
    for sql in &schema {
        first.execute_batch(sql).expect("create the schema");
    }
    first
        .execute_batch(&format!(
            "PRAGMA user_version = {}",
            urlkey_ledger::db::SCHEMA_VERSION
        ))
        .expect("set the version");
    let second = {
        let db = db.clone();
        std::thread::spawn(move || urlkey_ledger::db::open(&db, true).map(|_| ()))
    };
    std::thread::sleep(Duration::from_millis(500));
    first.execute_batch("COMMIT").expect("commit the schema");
    let result = second.join().expect("the second opener");
    assert!(
        result.is_ok(),
        "the second opener failed: {}",
        result.err().map(|e| e.to_string()).unwrap_or_default()
    );
    let version: i64 = first
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .expect("user_version");
    assert_eq!(version, urlkey_ledger::db::SCHEMA_VERSION);
}
