//! The ingest cost of `PRAGMA synchronous = FULL` (what the ledger uses) against NORMAL
//! (the cheaper setting it is measured against), on this machine's disk.
//!
//! ```text
//! cargo run --release -p urlkey-ledger --example sync_cost -- [DIR] [ROUNDS]
//! ```
//!
//! DIR (default: the system's temporary directory) should be on the disk the ledger will
//! live on: the difference is one fsync of the write-ahead log per commit. Two loads are
//! measured, interleaved FULL / NORMAL over ROUNDS rounds (default 5), each on a fresh
//! ledger: 200 small ingests of 10 rows (commit-bound: one transaction each) and one
//! ingest of 20,000 rows (row-bound). The median of the rounds is printed.

use std::path::Path;
use std::time::Instant;

use urlkey_ledger::ingest::{ingest_file, Defaults};
use urlkey_ledger::norm::Normalizer;

fn write_csv(path: &Path, prefix: &str, rows: usize) -> std::io::Result<()> {
    let mut s = String::from(
        "observation_id,prompt_id,prompt_version,answer_system,market,collection,run_timestamp,observed_url\n",
    );
    for i in 0..rows {
        s.push_str(&format!(
            "{prefix}-{i},p-{},ps-1,assistant-a,us,c-1,2026-11-01T09:00:00Z,https://www.example{}.com/{prefix}/{i}?utm_source=x\n",
            i % 17,
            i % 40
        ));
    }
    std::fs::write(path, s)
}

/// Seconds to ingest `files` one by one into a fresh ledger at `db` with `sync`.
fn run(
    db: &Path,
    files: &[std::path::PathBuf],
    sync: &str,
    norm: &Normalizer,
) -> Result<f64, String> {
    let _ = std::fs::remove_file(db);
    let mut conn = urlkey_ledger::db::open(db, true).map_err(|e| e.to_string())?;
    conn.execute_batch(&format!("PRAGMA synchronous = {sync}"))
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    for f in files {
        ingest_file(&mut conn, f, None, &Defaults::default(), norm).map_err(|e| e.to_string())?;
    }
    let secs = start.elapsed().as_secs_f64();
    drop(conn);
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
    }
    Ok(secs)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let base = args
        .next()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(5).max(1);
    let dir = base.join(format!("urlkey-sync-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let norm = Normalizer::new("citation@1")?;
    let small: Vec<_> = (0..200)
        .map(|i| {
            let p = dir.join(format!("small-{i}.csv"));
            write_csv(&p, &format!("s{i}"), 10).map(|_| p)
        })
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let large = dir.join("large.csv");
    write_csv(&large, "l", 20_000).map_err(|e| e.to_string())?;
    let db = dir.join("ledger.sqlite");
    println!(
        "sync_cost: {} rounds in {}, load average {:?}",
        rounds,
        dir.display(),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split_whitespace()
            .next()
            .unwrap_or("?")
    );
    for (name, files) in [
        ("200 ingests x 10 rows", small),
        ("1 ingest x 20,000 rows", vec![large]),
    ] {
        let (mut full, mut normal) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            full.push(run(&db, &files, "FULL", &norm)?);
            normal.push(run(&db, &files, "NORMAL", &norm)?);
        }
        let (f, n) = (median(full), median(normal));
        println!(
            "{name}: FULL {:.1} ms, NORMAL {:.1} ms, FULL/NORMAL {:.2}x",
            f * 1000.0,
            n * 1000.0,
            f / n
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
