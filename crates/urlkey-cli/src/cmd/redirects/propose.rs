//! `urlkey redirects propose --policy P OLD NEW` and `urlkey redirects evidence`.
//!
//! NEW is read once into [`NewSite`]'s indexes; OLD is then read in batches, each
//! proposed on the worker threads and written in input order, one row per record
//! ([`urlkey_redirects::propose::rows`]). Each side is read once, so standard input can
//! be either side without a spill file.

use std::io::Write;
use std::path::Path;

use urlkey_batch::input::{KeepColumns, ReadOptions, Source};
use urlkey_batch::rows::OutputFormat;
use urlkey_redirects::propose::writer::{RowFormat, RowWriter};
use urlkey_redirects::propose::{run, NewSite, EVIDENCE, LOOSE_POLICY};

use super::super::setup;
use crate::failure::{input_error, json_error, output_error, run_error, Failure};
use crate::flags::redirects::{ProposeArgs, ProposeFormat};
use crate::flags::{FormatArgs, TextFormat};

pub fn run(a: ProposeArgs) -> Result<(), Failure> {
    let [old, new] = a.input.files.as_slice() else {
        return Err(Failure::Usage(format!(
            "redirects propose takes two inputs, OLD and NEW ({} given): urlkey redirects propose --policy P OLD NEW",
            a.input.files.len()
        )));
    };
    if old == "-" && new == "-" {
        return Err(Failure::Usage(
            "standard input (-) can be one side of redirects propose, not both".into(),
        ));
    }
    // Flags that would do nothing are refused rather than accepted and ignored.
    if a.input.keep_columns.is_some() {
        return Err(Failure::Usage(
            "redirects propose does not take --keep-columns (its rows have their own columns: docs/redirects.md); --title-column carries a title".into(),
        ));
    }
    if a.input.excel {
        return Err(Failure::Usage(
            "redirects propose does not take --excel (its CSV opens in a spreadsheet as it is)"
                .into(),
        ));
    }
    let format = match a.format {
        ProposeFormat::Csv => RowFormat::Csv,
        ProposeFormat::Jsonl => RowFormat::Jsonl,
        ProposeFormat::Parquet => {
            setup::check_output_format(OutputFormat::Parquet, "parquet", &a.input)?;
            RowFormat::Parquet
        }
    };
    let max = a.input.max_line_bytes;
    let policy = setup::policy(&a.source, &a.policy, max)?;
    // The loose policy from the same set: the same suffix list (--psl) as the run's.
    let loose = setup::policy(&a.source, LOOSE_POLICY, max)?;
    let side = |file: &String| -> Result<(Source, ReadOptions), Failure> {
        let mut one = a.input.clone();
        one.files = vec![file.clone()];
        let setup::Inputs {
            mut sources,
            mut opts,
            ..
        } = setup::inputs(&one, &[])?;
        if let Some(t) = &a.title_column {
            if !opts.format.is_tabular() {
                return Err(Failure::Usage(format!(
                    "--title-column {t:?}: {file} is read as a list of URLs, which has no columns: give a CSV, TSV or spreadsheet with a header (or --input-format csv)"
                )));
            }
            opts.keep = KeepColumns::Names(vec![t.clone()]);
        }
        Ok((sources.remove(0), opts))
    };
    let (old_src, old_opts) = side(old)?;
    let (new_src, new_opts) = side(new)?;
    let outputs: Vec<&Path> = a.input.output.iter().map(|p| p.as_path()).collect();
    setup::check_outputs(&outputs, &[old_src.clone(), new_src.clone()])?;
    // Both open before anything is written: a missing OLD fails before NEW is indexed.
    let mut old_records =
        urlkey_batch::input::open_records(&old_src, &old_opts).map_err(input_error)?;
    let mut new_records =
        urlkey_batch::input::open_records(&new_src, &new_opts).map_err(input_error)?;
    let titles = a.title_column.is_some();
    let threads = a.input.threads;
    let mut site = NewSite::with_loose(policy, Some(loose));
    let new_counts =
        run::index_new(&mut site, new_records.as_mut(), titles, threads).map_err(input_error)?;
    let mut rows = RowWriter::new(format, setup::output(&a.input.output)?).map_err(output_error)?;
    let summary = run::propose_old(&site, old_records.as_mut(), titles, threads, &mut rows)
        .map_err(run_error)?;
    let out = rows.into_inner().map_err(output_error)?;
    out.commit()?;
    if !a.input.quiet {
        let skipped = old_records.skipped();
        urlkey_batch::note!(
            "urlkey redirects propose: policy {}{}; old {}: {} (and {} blank, {} comment lines skipped); new {}: {} records indexed ({} without a key under the policy), {} unreadable; every row needs a person's decision",
            site.policy().id(),
            site.loose_policy().map_or(String::new(), |l| format!(", loose {l}")),
            old_src.label(),
            summary.adds_up(),
            skipped.blank,
            skipped.comment,
            new_src.label(),
            site.len(),
            site.invalid(),
            new_counts.unreadable,
        );
    }
    Ok(())
}

/// `urlkey redirects evidence`: the evidence table.
pub fn evidence(a: FormatArgs) -> Result<(), Failure> {
    let mut out = std::io::BufWriter::new(std::io::stdout());
    match a.format {
        TextFormat::Text => {
            let width = EVIDENCE.iter().map(|e| e.name.len()).max().unwrap_or(0);
            let mut text = String::from(
                "The evidence propose names, strongest first (a target's score is its strongest evidence's points, plus 1 per other kind, plus the word similarity):\n",
            );
            for e in EVIDENCE {
                text.push_str(&format!(
                    "{:<width$}  {:>3}  {}\n",
                    e.name, e.points, e.meaning
                ));
            }
            out.write_all(text.as_bytes()).map_err(output_error)?;
        }
        TextFormat::Json => {
            let rows: Vec<serde_json::Value> = EVIDENCE
                .iter()
                .map(|e| {
                    serde_json::json!({
                        "name": e.name,
                        "points": e.points,
                        "meaning": e.meaning,
                    })
                })
                .collect();
            serde_json::to_writer_pretty(&mut out, &rows).map_err(json_error)?;
            out.write_all(b"\n").map_err(output_error)?;
        }
    }
    out.flush().map_err(output_error)
}
