//! `urlkey diff`: `--from P --to Q FILE...` (one inventory, two policies: [`policies`])
//! or `--policy P OLD NEW` (two inventories, one policy: [`inventories`]).
//! [`urlkey_batch::diff`] does the comparing; this picks the form, opens the inputs and
//! writes the report or the rows.

mod inventories;
mod policies;

use urlkey_batch::diff::rows::{DiffRows, RowFormat};
use urlkey_batch::rows::OutputFormat;

use super::setup;
use crate::failure::{json_error, output_error, Exit, Failure};
use crate::flags::{DiffArgs, DiffFormat};

pub fn run(a: DiffArgs) -> Result<(), Failure> {
    // A flag that would do nothing is refused rather than accepted and ignored.
    if a.input.excel {
        return Err(Failure::Usage(
            "urlkey diff does not take --excel (its rows have their own columns: docs/cli.md)"
                .into(),
        ));
    }
    if a.input.keep_columns.is_some() && row_format(a.format).is_none() {
        return Err(Failure::Usage(
            "--keep-columns carries the input's columns into diff's rows: give --format csv, jsonl or parquet (a report has no rows)".into(),
        ));
    }
    if a.format == DiffFormat::Parquet {
        setup::check_output_format(OutputFormat::Parquet, "parquet", &a.input)?;
    }
    match (&a.policy, &a.from, &a.to) {
        (Some(p), None, None) => inventories::run(&a, p),
        (None, Some(from), Some(to)) => policies::run(&a, from, to),
        _ => Err(Failure::Usage(
            "give --from P --to Q FILE... (one inventory under two policies) or --policy P OLD NEW (two inventories under one policy)".into(),
        )),
    }
}

/// How many of each kind the text report lists at most (`--format json` lists every one).
const TEXT_LIST: u64 = 10;

/// What the run keeps of each kind: `--limit`, and for the text report no more than it
/// shows, so that its memory is that of the counts alone.
fn limit(a: &DiffArgs) -> Option<u64> {
    match a.format {
        DiffFormat::Text => Some(a.limit.map_or(TEXT_LIST, |n| n.min(TEXT_LIST))),
        _ => a.limit,
    }
}

/// The outcome of a completed run, as diff(1): the sides differ (1) or not (0). A
/// report whose reader closed the pipe still gives the answer: it was complete.
fn outcome(written: Result<(), Failure>, differ: bool) -> Result<(), Failure> {
    match written {
        Ok(()) | Err(Failure::Exit(Exit::Done)) => {}
        Err(e) => return Err(e),
    }
    if differ {
        Err(Failure::Exit(Exit::Differ))
    } else {
        Ok(())
    }
}

/// "all 3 keys" or "first 10 of 523 keys; --format json for all", for the text report's
/// headings (`noun` after the number, with its space).
fn shown(listed: usize, total: u64, noun: &str) -> String {
    if listed as u64 >= total {
        format!("all {total}{noun}")
    } else {
        format!("first {listed} of {total}{noun}; --format json for all")
    }
}

/// The row format of `--format`, or `None` for a report.
fn row_format(f: DiffFormat) -> Option<RowFormat> {
    match f {
        DiffFormat::Csv => Some(RowFormat::Csv),
        DiffFormat::Jsonl => Some(RowFormat::Jsonl),
        DiffFormat::Parquet => Some(RowFormat::Parquet),
        DiffFormat::Text | DiffFormat::Json => None,
    }
}

/// The rows' writer, into `-o` (atomic) or standard output.
fn row_writer(a: &DiffArgs, f: RowFormat) -> Result<DiffRows<setup::Output>, Failure> {
    Ok(DiffRows::new(f, setup::output(&a.input.output)?))
}

/// Flushes the rows and commits `-o`.
fn finish_rows(w: DiffRows<setup::Output>) -> Result<(), Failure> {
    w.into_inner().map_err(output_error)?.commit()
}

/// Writes the report as pretty JSON, or through `text`.
fn write_report<R: serde::Serialize>(
    a: &DiffArgs,
    report: &R,
    text: impl FnOnce(&mut setup::Output, &R) -> std::io::Result<()>,
) -> Result<(), Failure> {
    let mut out = setup::output(&a.input.output)?;
    if a.format == DiffFormat::Json {
        serde_json::to_writer_pretty(&mut out, report).map_err(json_error)?;
        std::io::Write::write_all(&mut out, b"\n").map_err(output_error)?;
    } else {
        text(&mut out, report).map_err(output_error)?;
    }
    out.commit()
}
