//! `urlkey diff --from P --to Q FILE...`: the inventory keyed under two policies
//! ([`urlkey_batch::diff`] does the comparing; this writes its report).

use std::io::Write;

use urlkey_batch::diff::{Group, PolicyDiff, Report};
use urlkey_batch::input::{ChainSource, InputRecord, RecordSource};

use super::setup;
use crate::flags::{DiffArgs, TextFormat};
use crate::{output_error, Failure};

pub fn run(a: DiffArgs) -> Result<(), Failure> {
    // Input flags that shape rows or threads do nothing here yet: refuse them rather than
    // accept and ignore them.
    for (given, flag) in [
        (a.input.threads != 0, "--threads"),
        (a.input.excel, "--excel"),
        (a.input.keep_columns.is_some(), "--keep-columns"),
    ] {
        if given {
            return Err(Failure::Usage(format!(
                "urlkey diff does not take {flag} (it writes a report, not rows, on one thread)"
            )));
        }
    }
    let from = setup::policy(&a.source, &a.from, a.input.max_line_bytes)?;
    let to = setup::policy(&a.source, &a.to, a.input.max_line_bytes)?;
    let setup::Inputs { sources, opts, .. } = setup::inputs(&a.input, &[])?;
    let names: Vec<String> = sources.iter().map(|s| s.label()).collect();
    let mut reader = ChainSource::new(sources, opts).map_err(|e| Failure::Input(e.to_string()))?;
    setup::print_notices(a.input.quiet, &reader.take_notices());
    let mut diff = PolicyDiff::new(&from, &to);
    let mut batch: Vec<InputRecord> = Vec::with_capacity(4096);
    loop {
        batch.clear();
        let more = reader
            .next_batch(&mut batch, 4096)
            .map_err(|e| Failure::Input(e.to_string()))?;
        for r in batch.drain(..) {
            diff.add(r);
        }
        if !more {
            break;
        }
    }
    setup::print_notices(a.input.quiet, &reader.take_notices());
    let report = diff.finish(&names);
    let mut out = setup::output(&a.input.output)?;
    match a.format {
        TextFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &report)
                .map_err(|e| Failure::Output(e.to_string()))?;
            writeln!(out).map_err(output_error)?;
        }
        TextFormat::Text => write_text(&mut out, &report).map_err(output_error)?,
    }
    out.commit()
}

fn write_text(out: &mut impl Write, r: &Report) -> std::io::Result<()> {
    writeln!(out, "from {} to {}: {} records", r.from, r.to, r.records)?;
    writeln!(out, "keys under {:<12} {}", r.from, r.keys_from)?;
    writeln!(out, "keys under {:<12} {}", r.to, r.keys_to)?;
    let in_groups = |g: &[Group]| g.iter().map(|g| g.records).sum::<u64>();
    writeln!(
        out,
        "merges              {} ({} records)",
        r.merges.len(),
        in_groups(&r.merges)
    )?;
    writeln!(
        out,
        "splits              {} ({} records)",
        r.splits.len(),
        in_groups(&r.splits)
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
    for (title, groups, single, many) in [
        ("merges", &r.merges, &r.to, &r.from),
        ("splits", &r.splits, &r.from, &r.to),
    ] {
        if groups.is_empty() {
            continue;
        }
        writeln!(out, "{title} (first 10; --format json for all)")?;
        for g in groups.iter().take(10) {
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
