//! `urlkey diff --from P --to Q FILE...`: one inventory keyed under two policies.

use std::io::Write;

use urlkey_batch::diff::rows::DiffRowWrite;
use urlkey_batch::diff::{Class, DiffRun, Report};
use urlkey_batch::input::{ChainSource, InputError, RecordSource, Source};

use super::{finish_rows, limit, outcome, row_format, row_writer, setup, shown, write_report};
use crate::failure::{input_error, run_error, Failure};
use crate::flags::DiffArgs;

pub fn run(a: &DiffArgs, from: &str, to: &str) -> Result<(), Failure> {
    let from = setup::policy(&a.source, from, a.input.max_line_bytes)?;
    let to = setup::policy(&a.source, to, a.input.max_line_bytes)?;
    let setup::Inputs {
        mut sources, opts, ..
    } = setup::inputs(&a.input, &[])?;
    // The second pass rereads the input: standard input is kept in a spill file.
    let _spill = if sources.contains(&Source::Stdin) {
        if sources.len() > 1 {
            return Err(Failure::Usage(
                "standard input (-) cannot be combined with files in diff --from --to".into(),
            ));
        }
        let spill = setup::spill_stdin()?;
        sources = vec![spill.source.clone()];
        Some(spill)
    } else {
        None
    };
    let names: Vec<String> = sources.iter().map(Source::label).collect();
    let open = || -> Result<Box<dyn RecordSource>, InputError> {
        Ok(Box::new(ChainSource::new(sources.clone(), opts.clone())?))
    };
    // Fail before any output when the input cannot be opened.
    drop(open().map_err(input_error)?);
    let pipeline = setup::pipeline(a.input.threads)?;
    let quiet = a.input.quiet;
    let notice = |m: &str| setup::print_notices(quiet, &[m.to_string()]);
    let bar = setup::progress(quiet, setup::total_bytes(&sources));
    let progress = super::super::map::pass_progress(&bar, 2);
    let diff = DiffRun {
        from: &from,
        to: &to,
        pipeline: &pipeline,
        sources: &names,
        notice: Some(&notice),
        limit: limit(a),
        progress: Some(&progress),
    };
    match row_format(a.format) {
        Some(f) => {
            let mut rows = row_writer(a, f)?;
            let report = diff
                .run(&open, Some(&mut rows as &mut dyn DiffRowWrite))
                .map_err(run_error)?;
            let written = finish_rows(rows);
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            if written.is_ok() && !quiet {
                urlkey_batch::note!("urlkey diff: {}", summary_line(&report));
            }
            outcome(written, report.differ())
        }
        None => {
            let report = diff.run(&open, None).map_err(run_error)?;
            if let Some(b) = &bar {
                b.finish_and_clear();
            }
            outcome(write_report(a, &report, write_text), report.differ())
        }
    }
}

/// The line on standard error after the rows.
fn summary_line(r: &Report) -> String {
    format!(
        "from {} to {}: {} lines read, {} skipped; {}",
        r.from,
        r.to,
        r.lines_read,
        r.skipped.blank + r.skipped.comment,
        classes(r)
    )
}

/// Every record's class, and that they add up.
fn classes(r: &Report) -> String {
    let classes: Vec<String> = Class::ALL
        .iter()
        .map(|c| format!("{} {}", c.as_str(), r.by_class[c.as_str()]))
        .collect();
    format!("{} records = {}", r.records, classes.join(" + "))
}

fn write_text(out: &mut impl Write, r: &Report) -> std::io::Result<()> {
    writeln!(out, "from {} to {}: {} records", r.from, r.to, r.records)?;
    writeln!(out, "keys under {:<12} {}", r.from, r.keys_from)?;
    writeln!(out, "keys under {:<12} {}", r.to, r.keys_to)?;
    // A merge_split record is in a merge and in a split.
    let in_groups = |c: Class| r.by_class[c.as_str()] + r.by_class[Class::MergeSplit.as_str()];
    writeln!(
        out,
        "merges              {} ({} records)",
        r.merge_groups,
        in_groups(Class::Merge)
    )?;
    writeln!(
        out,
        "splits              {} ({} records)",
        r.split_groups,
        in_groups(Class::Split)
    )?;
    writeln!(out, "changed, same group {} records", r.changed.records)?;
    writeln!(
        out,
        "invalid under {} only: {}",
        r.from, r.invalid_from_only.records
    )?;
    writeln!(
        out,
        "invalid under {} only: {}",
        r.to, r.invalid_to_only.records
    )?;
    writeln!(out, "invalid under both: {}", r.invalid_both)?;
    writeln!(out, "by class: {}", classes(r))?;
    for (title, groups, total, single, many) in [
        ("merges", &r.merges, r.merge_groups, &r.to, &r.from),
        ("splits", &r.splits, r.split_groups, &r.from, &r.to),
    ] {
        if groups.is_empty() {
            continue;
        }
        let shown = shown(groups.len(), total, "");
        writeln!(out, "{title} ({shown})")?;
        for g in groups {
            writeln!(
                out,
                "  {single} {}: {} keys under {many}",
                g.key,
                g.keys.len()
            )?;
            for k in g.keys.iter().take(5) {
                writeln!(out, "    {k}")?;
            }
            if g.keys.len() > 5 {
                writeln!(out, "    ... {} more", g.keys.len() - 5)?;
            }
            if !g.rules.is_empty() {
                writeln!(out, "    rules: {}", g.rules.join(", "))?;
            }
            for e in &g.examples {
                writeln!(out, "    e.g. {}:{} {:?}", e.source, e.line, e.observed)?;
            }
        }
    }
    Ok(())
}
