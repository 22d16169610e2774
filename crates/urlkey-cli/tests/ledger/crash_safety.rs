//! Crash safety and concurrency of `ledger ingest`.
//!
//! The ingest runs in a separate process that is killed with SIGKILL at random points, so
//! nothing of its own (no destructor, no rollback) runs: what is on disk is what SQLite's
//! journal guarantees. The process is this test binary itself, started again with
//! `CRASH_SAFETY_CHILD` set and the filter `child_ingest`: it runs the real
//! `urlkey ledger ingest` code (the CLI's flags, then `urlkey_ledger::run`, as the `urlkey`
//! binary) and nothing else in that process.
//!
//! After every kill the ledger must be consistent: `PRAGMA integrity_check` is `ok`, every
//! file is in it whole or not at all (its observation count is 0 or its row count, and an
//! ingest record exists exactly when its rows do), and no observation lacks its ingest.
//! A rerun without kills then completes every file with no duplicate. Two (and three)
//! ingests at once into one ledger all finish, and nothing is lost: the second waits on
//! SQLite's busy timeout while the first holds the write lock.
//!
//! The random delays come from a seed printed by the test (`CRASH_SAFETY_SEED` reruns it).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;

use crate::common::run_parsed;
use rusqlite::{Connection, OpenFlags};

#[derive(Parser, Debug)]
#[command(name = "urlkey-ledger-child")]
struct ChildCli {
    #[command(flatten)]
    args: urlkey_cli::flags::ledger::LedgerArgs,
}

/// In the child process only: ingest the files of `CRASH_SAFETY_FILE` (one path a line)
/// into `CRASH_SAFETY_DB`, as one `ingest` command.
#[test]
fn child_ingest() {
    let (Ok(db), Ok(file)) = (
        std::env::var("CRASH_SAFETY_DB"),
        std::env::var("CRASH_SAFETY_FILE"),
    ) else {
        return; // not started as a child: nothing to do
    };
    if std::env::var_os("CRASH_SAFETY_CHILD").is_none() {
        return;
    }
    let mut argv = vec!["urlkey-ledger-child", "--db", &db, "ingest"];
    argv.extend(file.lines());
    let cli = ChildCli::parse_from(argv);
    let mut out = Vec::new();
    let mut err = Vec::new();
    if let Err(e) = run_parsed(cli.args, &mut out, &mut err) {
        eprintln!("{}", String::from_utf8_lossy(&err));
        panic!("child ingest of {file} failed: {e}");
    }
}

/// Starts the child ingest of `files` into `db`.
fn spawn_ingest_all(db: &Path, files: &[&Path]) -> std::process::Child {
    let list: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "crash_safety::child_ingest",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("CRASH_SAFETY_CHILD", "1")
        .env("CRASH_SAFETY_DB", db)
        .env("CRASH_SAFETY_FILE", list.join("\n"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn spawn_ingest(db: &Path, file: &Path) -> std::process::Child {
    spawn_ingest_all(db, &[file])
}

fn ingest_to_end(db: &Path, files: &[&Path]) {
    let out = spawn_ingest_all(db, files).wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "ingest of {files:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A citation CSV of `rows` rows whose observation ids start with `prefix`.
fn write_csv(path: &Path, prefix: &str, rows: usize) {
    let mut s = String::from(
        "observation_id,prompt_id,prompt_version,answer_system,market,collection,run_timestamp,observed_url\n",
    );
    for i in 0..rows {
        let url = match i % 5 {
            0 => format!("https://docs.example.org/guide/{i}?utm_source=x#s{i}"),
            1 => format!("https://Research.Example.NET/report/{}/", i / 3),
            2 => format!("http://news.example.com/a/b/../c?id={i}&gclid=z"),
            3 => "not a url".to_string(),
            _ => format!("https://example.com/{prefix}/{i}"),
        };
        s.push_str(&format!(
            "{prefix}-{i},p-{},ps-1,assistant-{},us,c-1,2026-11-01T09:00:00Z,{url}\n",
            i % 17,
            i % 3
        ));
    }
    std::fs::write(path, s).unwrap();
}

/// A small xorshift generator: no dependency, and a seed to print.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn open_ro(db: &Path) -> Connection {
    // Read-write (not read-only) so that a hot WAL left by a killed writer is recovered,
    // as the next `urlkey ledger` command would.
    Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE).unwrap()
}

/// Checks the invariants and returns the files (by path) that are in the ledger.
fn check_consistent(db: &Path, files: &[(PathBuf, usize)]) -> Vec<PathBuf> {
    if !db.exists() {
        return Vec::new(); // killed before it created the ledger
    }
    let conn = open_ro(db);
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok", "integrity_check");
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' \
             AND name IN ('ingests', 'observations')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    if tables == 0 {
        // Killed before the schema was created: an empty file, schema version 0, which
        // the next command migrates.
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, 0, "a schema version without its tables");
        return Vec::new();
    }
    assert_eq!(tables, 2, "half a schema");
    let fk: i64 = conn
        .query_row(
            "SELECT count(*) FROM observations o LEFT JOIN ingests i USING (ingest_id) \
             WHERE i.ingest_id IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(fk, 0, "observations without their ingest record");
    // One row per ingest record: its file, its observations, and what it says it added.
    let mut per_ingest = conn
        .prepare(
            "SELECT i.source_path, count(o.observation_id), i.rows_added \
             FROM ingests i LEFT JOIN observations o USING (ingest_id) GROUP BY i.ingest_id",
        )
        .unwrap();
    let ingests: Vec<(String, i64, i64)> = per_ingest
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut present = Vec::new();
    for (path, rows) in files {
        let shown = path.display().to_string();
        let mine: Vec<&(String, i64, i64)> = ingests.iter().filter(|i| i.0 == shown).collect();
        match mine.as_slice() {
            [] => {}
            [(_, observations, added)] => {
                assert_eq!(
                    *observations, *rows as i64,
                    "{shown}: a partial file is in the ledger"
                );
                assert_eq!(*added, *rows as i64, "{shown}: rows_added");
                present.push(path.clone());
            }
            more => panic!("{shown}: {} ingest records for one file", more.len()),
        }
    }
    assert_eq!(
        present.len(),
        ingests.len(),
        "ingest records of unknown files"
    );
    let (total, distinct): (i64, i64) = conn
        .query_row(
            "SELECT count(*), count(DISTINCT observation_id) FROM observations",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(total, distinct, "duplicate observation ids");
    let expected: usize = files
        .iter()
        .filter(|(p, _)| present.contains(p))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(total as usize, expected, "observations outside the files");
    present
}

#[test]
fn sigkill_during_ingest_leaves_whole_files_or_nothing() {
    const KILLS: usize = 30;
    const ROWS: usize = 8_000;
    let seed = std::env::var("CRASH_SAFETY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    println!("CRASH_SAFETY_SEED={seed}");
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ledger.sqlite");

    // How long one ingest takes here: the kills are spread over most of that time. The
    // window shrinks whenever a kill lands after the commit (the machine got faster than
    // when it was measured), so most kills land inside the ingest whatever the load.
    let probe = dir.path().join("probe.csv");
    write_csv(&probe, "probe", ROWS);
    let t = Instant::now();
    ingest_to_end(&dir.path().join("probe.sqlite"), &[&probe]);
    let mut window = t.elapsed();
    println!("one ingest of {ROWS} rows: {window:?}");

    let mut files = Vec::new();
    let mut killed_mid = 0;
    let mut wal_max = 0;
    for k in 0..KILLS {
        let file = dir.path().join(format!("part-{k:02}.csv"));
        write_csv(&file, &format!("f{k}"), ROWS);
        files.push((file.clone(), ROWS));
        // Between half the window and its end: the parse comes first and the writes
        // last, so this is where the transaction and its commit are.
        let half = window.as_micros() as u64 / 2;
        let delay = Duration::from_micros(half + rng.next() % (half + 1));
        let mut child = spawn_ingest(&db, &file);
        std::thread::sleep(delay);
        let finished = child.try_wait().unwrap().is_some();
        child.kill().ok(); // SIGKILL
        child.wait().unwrap();
        // The write-ahead log as the kill left it: frames of an uncommitted transaction
        // (SQLite spills pages before the commit) are there for recovery to discard.
        let wal = std::fs::metadata(db.with_extension("sqlite-wal")).map_or(0, |m| m.len());
        wal_max = wal_max.max(wal);
        let present = check_consistent(&db, &files);
        if !finished && !present.contains(&file) {
            killed_mid += 1;
        } else {
            window = window * 3 / 4;
        }
    }
    println!(
        "{killed_mid} of {KILLS} ingests killed before they committed; largest log left by a \
         kill: {wal_max} bytes"
    );
    assert!(
        killed_mid >= KILLS / 4,
        "too few kills landed before the commit ({killed_mid}): the test proves little"
    );

    // A rerun completes every file with no duplicate; a second rerun adds nothing.
    let all: Vec<&Path> = files.iter().map(|(f, _)| f.as_path()).collect();
    ingest_to_end(&db, &all);
    let present = check_consistent(&db, &files);
    assert_eq!(
        present.len(),
        files.len(),
        "a file is missing after the rerun"
    );
    let conn = open_ro(&db);
    let before: i64 = conn
        .query_row("SELECT count(*) FROM ingests", [], |r| r.get(0))
        .unwrap();
    drop(conn);
    ingest_to_end(&db, &all[..1]);
    let conn = open_ro(&db);
    let after: i64 = conn
        .query_row("SELECT count(*) FROM ingests", [], |r| r.get(0))
        .unwrap();
    assert_eq!(before, after, "a no-op rerun left an ingest record");
    check_consistent(&db, &files);
}

#[test]
fn concurrent_ingests_into_one_ledger_all_finish() {
    const ROWS: usize = 5_000;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ledger.sqlite");
    // Create the ledger first, then start all writers at once.
    let seed_file = dir.path().join("seed.csv");
    write_csv(&seed_file, "seed", 10);
    ingest_to_end(&db, &[&seed_file]);
    let mut files = vec![(seed_file, 10)];
    for round in 0..2 {
        let n = 2 + round; // two at once, then three at once
        let batch: Vec<PathBuf> = (0..n)
            .map(|i| {
                let f = dir.path().join(format!("r{round}-{i}.csv"));
                write_csv(&f, &format!("r{round}w{i}"), ROWS);
                f
            })
            .collect();
        let children: Vec<_> = batch.iter().map(|f| spawn_ingest(&db, f)).collect();
        for (child, f) in children.into_iter().zip(&batch) {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "concurrent ingest of {} failed: {}",
                f.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        files.extend(batch.into_iter().map(|f| (f, ROWS)));
        let present = check_consistent(&db, &files);
        assert_eq!(present.len(), files.len(), "an ingest was lost");
    }
}

/// A second ingest started while another writer holds the ledger's write lock for longer
/// than SQLite's 10 s busy timeout (a large file takes that long) still finishes: it
/// waits for the lock instead of failing with "database is locked". The long writer is
/// this test holding `BEGIN IMMEDIATE` for 12 s.
#[test]
fn an_ingest_waits_for_a_writer_that_holds_the_lock_past_the_busy_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("ledger.sqlite");
    let first = dir.path().join("first.csv");
    write_csv(&first, "first", 10);
    ingest_to_end(&db, &[&first]);
    let second = dir.path().join("second.csv");
    write_csv(&second, "second", 1_000);

    let writer = open_ro(&db);
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let child = spawn_ingest(&db, &second);
    std::thread::sleep(Duration::from_secs(12));
    writer.execute_batch("COMMIT").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the ingest gave up waiting for the write lock: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(writer);
    let files = [(first, 10), (second, 1_000)];
    assert_eq!(check_consistent(&db, &files).len(), 2);
}
