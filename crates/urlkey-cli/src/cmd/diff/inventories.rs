//! `urlkey diff --policy P OLD NEW`: two inventories under one policy. Each side is one
//! input (a file in any reader format, or `-` for standard input on one side), read with
//! its own format: OLD may be a crawl's CSV and NEW a text list. `--field` applies to a
//! side whose name says JSONL; `--column` to a side whose name says CSV, TSV or a
//! spreadsheet, and to any other side whose header names the column (a `.txt` of
//! Excel's "Unicode text"); the rest are lists of lines, unless `--input-format` names
//! one format for both.

use std::io::Write;

use urlkey_batch::diff::inventories::{InventoryReport, InventoryRun, KeyExample, SideSummary};
use urlkey_batch::diff::rows::DiffRowWrite;
use urlkey_batch::input::{
    format_from_name, has_named_column, ChainSource, InputError, InputFormat, ReadOptions,
    RecordSource, Source,
};

use super::{finish_rows, limit, outcome, row_format, row_writer, setup, shown, write_report};
use crate::failure::{input_error, run_error, Failure};
use crate::flags::DiffArgs;

pub fn run(a: &DiffArgs, policy: &str) -> Result<(), Failure> {
    let [old, new] = a.input.files.as_slice() else {
        return Err(Failure::Usage(format!(
            "diff --policy takes two inputs, OLD and NEW ({} given): urlkey diff --policy P OLD NEW",
            a.input.files.len()
        )));
    };
    if old == "-" && new == "-" {
        return Err(Failure::Usage(
            "standard input (-) can be one side of diff --policy, not both".into(),
        ));
    }
    let policy = setup::policy(&a.source, policy, a.input.max_line_bytes)?;
    let side = |file: &String| -> Result<(Source, ReadOptions), Failure> {
        let mut one = a.input.clone();
        one.files = vec![file.clone()];
        // A side whose name says no format and no table is read as a list of lines
        // with --field (JSONL needs its name); with --column, its header decides (below).
        let named = format_from_name(std::path::Path::new(file)).is_some();
        if one.input_format.is_none() && !named {
            one.field = None;
        }
        let setup::Inputs {
            mut sources, opts, ..
        } = setup::inputs(&one, &[])?;
        Ok((sources.remove(0), opts))
    };
    let (mut old_src, mut old_opts) = side(old)?;
    let (mut new_src, mut new_opts) = side(new)?;
    // -o naming either input is refused (each side was checked alone above).
    let outputs: Vec<&std::path::Path> = a.input.output.iter().map(|p| p.as_path()).collect();
    setup::check_outputs(&outputs, &[old_src.clone(), new_src.clone()])?;
    let names = [old_src.label(), new_src.label()];
    // The second pass rereads the inputs: standard input is kept in a spill file.
    let mut spill = None;
    for src in [&mut old_src, &mut new_src] {
        if *src == Source::Stdin {
            let s = setup::spill_stdin()?;
            *src = s.source.clone();
            spill = Some(s);
        }
    }
    // The same reader as `key` and `map`, which read an input named neither .csv nor .tsv
    // as a table when --column is given. Here one --column serves both sides, so a side
    // whose name says nothing (a .txt of Excel's "Unicode text", `-`) is a table when its
    // header names the column, else a list of URLs, one per line (and a note says so).
    for (file, src, opts) in [
        (old, &old_src, &mut old_opts),
        (new, &new_src, &mut new_opts),
    ] {
        let named = format_from_name(std::path::Path::new(file)).is_some();
        if a.input.input_format.is_some() || named || !opts.format.is_tabular() {
            continue;
        }
        if !has_named_column(src, opts).map_err(input_error)? {
            setup::print_notices(
                a.input.quiet,
                &[format!(
                    "{}: its first line names no column {:?}: read as a list of URLs, one per line",
                    src.label(),
                    opts.column.as_deref().unwrap_or_default()
                )],
            );
            (opts.format, opts.column) = (InputFormat::Lines, None);
            // A list has no columns to keep: refused as for any list (--keep-columns).
            setup::check_read_options(opts)?;
        }
    }
    let (old_src_for_size, new_src_for_size) = (old_src.clone(), new_src.clone());
    let opener = |src: Source, opts: ReadOptions| {
        move || -> Result<Box<dyn RecordSource>, InputError> {
            Ok(Box::new(ChainSource::new(vec![src.clone()], opts.clone())?))
        }
    };
    let (open_old, open_new) = (opener(old_src, old_opts), opener(new_src, new_opts));
    // Fail before any output when an input cannot be opened.
    drop(open_old().map_err(input_error)?);
    drop(open_new().map_err(input_error)?);
    let pipeline = setup::pipeline(a.input.threads)?;
    let quiet = a.input.quiet;
    let notice = |m: &str| setup::print_notices(quiet, &[m.to_string()]);
    let total = setup::total_bytes(&[old_src_for_size, new_src_for_size]);
    let bar = setup::progress(quiet, total);
    let progress = super::super::map::pass_progress(&bar, 2);
    let diff = InventoryRun {
        policy: &policy,
        pipeline: &pipeline,
        names: [&names[0], &names[1]],
        notice: Some(&notice),
        limit: limit(a),
        progress: Some(&progress),
    };
    let result = match row_format(a.format) {
        Some(f) => {
            let mut rows = row_writer(a, f)?;
            let report = diff
                .run(
                    [&open_old, &open_new],
                    Some(&mut rows as &mut dyn DiffRowWrite),
                )
                .map_err(run_error)?;
            let written = finish_rows(rows);
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            if written.is_ok() && !quiet {
                urlkey_batch::note!("urlkey diff: {}", adds_up(&report));
            }
            outcome(written, report.differ())
        }
        None => {
            let report = diff.run([&open_old, &open_new], None).map_err(run_error)?;
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            outcome(write_report(a, &report, write_text), report.differ())
        }
    };
    drop(spill);
    result
}

/// Each side's records, and that they add up.
fn adds_up(r: &InventoryReport) -> String {
    let side = |s: &SideSummary, only: u64, both: u64, name: &str| {
        format!(
            "{name} {} records = {only} only in {name} + {both} in both + {} invalid",
            s.records, s.invalid
        )
    };
    format!(
        "policy {}: {}; {}",
        r.policy,
        side(&r.old, r.only_old.records, r.both.old_records, "old"),
        side(&r.new, r.only_new.records, r.both.new_records, "new")
    )
}

fn write_text(out: &mut impl Write, r: &InventoryReport) -> std::io::Result<()> {
    writeln!(
        out,
        "policy {}: old {} ({} records, {} keys), new {} ({} records, {} keys)",
        r.policy, r.old.input, r.old.records, r.old.keys, r.new.input, r.new.records, r.new.keys
    )?;
    writeln!(
        out,
        "only in old  {} keys ({} records)",
        r.only_old.keys, r.only_old.records
    )?;
    writeln!(
        out,
        "only in new  {} keys ({} records)",
        r.only_new.keys, r.only_new.records
    )?;
    let sp = |k: &str| r.both.spellings.get(k).copied().unwrap_or(0);
    writeln!(
        out,
        "in both      {} keys ({} old records, {} new): spelled the same {}, differently {}, several ways {}",
        r.both.keys,
        r.both.old_records,
        r.both.new_records,
        sp("same"),
        sp("differ"),
        sp("several")
    )?;
    writeln!(
        out,
        "invalid      old {}, new {}",
        r.old.invalid, r.new.invalid
    )?;
    writeln!(out, "{}", adds_up(r))?;
    let line = |l: &Option<urlkey_batch::diff::inventories::Line>| {
        l.as_ref().map_or_else(
            || "-".to_string(),
            |l| format!("{} {:?}", l.line, l.observed),
        )
    };
    for (title, examples, total) in [
        ("only in old", &r.only_old.listed, r.only_old.keys),
        ("only in new", &r.only_new.listed, r.only_new.keys),
        ("in both", &r.both.listed, r.both.keys),
    ] {
        if examples.is_empty() {
            continue;
        }
        let shown = shown(examples.len(), total, " keys");
        writeln!(out, "{title} ({shown}; --format csv for every record)")?;
        for KeyExample {
            key,
            old,
            new,
            spellings,
            ..
        } in examples
        {
            writeln!(out, "  {key}")?;
            if old.is_some() {
                writeln!(out, "    old line {}", line(old))?;
            }
            if new.is_some() {
                writeln!(out, "    new line {}", line(new))?;
            }
            if let Some(s) = spellings {
                writeln!(out, "    spellings: {s}")?;
            }
        }
    }
    Ok(())
}
