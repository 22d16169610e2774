//! Ingest time of one large file (the target: "1M rows stay well under a minute"):
//!
//! ```sh
//! cargo run --release -p urlkey-ledger --example ingest_bench -- DIR 1000000
//! ```
//!
//! writes DIR/bench.csv (N synthetic rows, reserved placeholder domains, 1 in 50 with a
//! bad timestamp), then ingests it into a fresh DIR/bench.sqlite with `--rejects`, and
//! prints the seconds of the ingest and its summary line. A third argument `gz` or `zst`
//! compresses the file first (DIR/bench.csv.gz, .zst) and ingests that.

use std::io::Write;
use std::time::Instant;

use urlkey_ledger::ingest::{ingest, ColumnMap, Defaults, IngestOptions, Phase};
use urlkey_ledger::norm::Normalizer;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(
        args.next()
            .ok_or("usage: ingest_bench DIR [ROWS [gz|zst]]")?,
    );
    let rows: usize = args
        .next()
        .map(|s| s.parse().map_err(|e| format!("ROWS: {e}")))
        .transpose()?
        .unwrap_or(1_000_000);
    let compress = args.next();
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let csv = dir.join("bench.csv");
    let db = dir.join("bench.sqlite");
    let rejects = dir.join("bench-rejects.csv");
    let _ = std::fs::remove_file(&db);
    {
        let f = std::fs::File::create(&csv).map_err(|e| e.to_string())?;
        let mut w = std::io::BufWriter::new(f);
        writeln!(w, "Observation ID;Prompt ID;Prompt Version;Answer System;Market;Run Timestamp;Observed URL;Position")
            .map_err(|e| e.to_string())?;
        for i in 0..rows {
            let ts = if i % 50 == 49 {
                "soon".to_string()
            } else {
                format!("2026-11-{:02} 09:{:02}:00+01:00", 1 + i % 28, i % 60)
            };
            writeln!(
                w,
                "b-{i};p-{};ps-1;assistant-{};{};{ts};https://site{}.example.org/page/{}?utm_source=x&id={};{}",
                i % 40,
                ["a", "b", "c"][i % 3],
                ["us", "fr"][i % 2],
                i % 500,
                i % 7919,
                i % 13,
                i % 10
            )
            .map_err(|e| e.to_string())?;
        }
    }
    let input = match compress.as_deref() {
        None => csv.clone(),
        Some(kind @ ("gz" | "zst")) => {
            let out = dir.join(format!("bench.csv.{kind}"));
            // Streamed, so that the compression adds nothing to the measured peak memory.
            let mut from = std::fs::File::open(&csv).map_err(|e| e.to_string())?;
            let to = std::fs::File::create(&out).map_err(|e| e.to_string())?;
            if kind == "gz" {
                let mut e = flate2::write::GzEncoder::new(to, flate2::Compression::default());
                std::io::copy(&mut from, &mut e).map_err(|e| e.to_string())?;
                e.finish().map_err(|e| e.to_string())?;
            } else {
                zstd::stream::copy_encode(&mut from, to, 3).map_err(|e| e.to_string())?;
            }
            out
        }
        Some(other) => return Err(format!("{other:?}: give gz or zst")),
    };
    let norm = Normalizer::new("citation@1")?;
    let mut conn = urlkey_ledger::db::open(&db, true).map_err(|e| e.to_string())?;
    let start = Instant::now();
    // When the first pass (hash, encoding) ended: the first progress call of the second.
    let checked = std::cell::Cell::new(None);
    let s = ingest(
        &mut conn,
        &input,
        &IngestOptions {
            format: None,
            defaults: &Defaults::default(),
            norm: &norm,
            rejects: Some(&rejects),
            columns: &ColumnMap::default(),
            encoding: None,
            sheet: None,
            delimiter: None,
            quotes: true,
            progress: &|phase, _, _| {
                if phase == Phase::Store && checked.get().is_none() {
                    checked.set(Some(start.elapsed().as_secs_f64()));
                }
            },
            words: &urlkey_ledger::PlainWords,
        },
    )
    .map_err(|e| e.to_string())?;
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{rows} rows: ingest {secs:.2} s (first pass, hash and encoding: {:.2} s)",
        checked.get().unwrap_or(secs)
    );
    println!("{s}");
    Ok(())
}
