//! `urlkey key`: one record per input line, in input order.

use std::time::Instant;

use urlkey::Outcome;
use urlkey_batch::input::{ChainSource, InputRecord, RecordSource};
use urlkey_batch::map::outcome_of;
use urlkey_batch::output::{KeyRecord, OutputFormat, RecordWriter};
use urlkey_batch::pipeline::{Pipeline, BATCH};

use crate::flags::KeyArgs;
use crate::{output_error, Failure};

pub fn run(a: KeyArgs) -> Result<(), Failure> {
    let set = super::policy_set(&a.source)?;
    let set = set.with_max_input_bytes(a.input.max_line_bytes);
    let policy = set
        .get(&a.policy)
        .map_err(|e| Failure::Policy(e.to_string()))?;
    if a.base.is_some() && !policy.accepts_base() {
        return Err(Failure::Usage(format!(
            "--base is used only by policies that resolve relative input (whatwg@1); {} does not",
            policy.id()
        )));
    }
    if let Some(b) = &a.base {
        urlkey::WebUrl::parse(b, None)
            .map_err(|e| Failure::Usage(format!("--base {b:?} is not a URL: {e}")))?;
    }
    let format = OutputFormat::parse(&a.format).ok_or_else(|| {
        Failure::Usage(format!(
            "--format {:?}: use jsonl, csv, tsv, key or parquet",
            a.format
        ))
    })?;
    if format == OutputFormat::Parquet && a.input.output.is_none() {
        return Err(Failure::Usage(
            "--format parquet writes a file, not standard output: give -o FILE".into(),
        ));
    }
    let (sources, opts) = super::read_options(&a.input)?;
    let pipeline = Pipeline::new(a.input.threads).map_err(Failure::Internal)?;
    let bar = super::progress(a.input.quiet, super::total_bytes(&sources));
    let mut src = ChainSource::new(sources, opts).map_err(|e| Failure::Input(e.to_string()))?;
    let mut writer = RecordWriter::new(format, super::output(&a.input.output)?);
    if matches!(
        format,
        OutputFormat::Csv | OutputFormat::Tsv | OutputFormat::Parquet
    ) {
        writer.start_key().map_err(output_error)?;
    }
    let start = Instant::now();
    let (mut records, mut invalid) = (0u64, 0u64);
    let mut batch: Vec<InputRecord> = Vec::with_capacity(BATCH);
    let base = a.base.as_deref();
    loop {
        batch.clear();
        let more = src
            .next_batch(&mut batch, BATCH)
            .map_err(|e| Failure::Input(e.to_string()))?;
        let run = |r: &InputRecord| match (&r.problem, base) {
            (None, Some(b)) => policy.key_with_base(&r.observed, Some(b)),
            _ => outcome_of(&policy, r),
        };
        if format == OutputFormat::Key && base.is_none() {
            // Keys alone: the lean key path, one reused buffer per chunk, no `Outcome`.
            let pieces = pipeline.map_chunks(&batch, 512, |recs| {
                let (mut bytes, mut key, mut bad) =
                    (Vec::with_capacity(recs.len() * 64), String::new(), 0u64);
                for r in recs {
                    let ok = r.problem.is_none() && policy.key_into(&r.observed, &mut key).is_ok();
                    if ok {
                        bytes.extend_from_slice(key.as_bytes());
                    }
                    bad += u64::from(!ok);
                    bytes.push(b'\n');
                }
                (bytes, bad)
            });
            for (bytes, bad) in pieces {
                invalid += bad;
                writer.write_raw(&bytes).map_err(output_error)?;
            }
            records += batch.len() as u64;
        } else if writer.supports_fragments() {
            // Records are formatted by the workers; this thread only joins the bytes.
            let format = writer.format();
            let pieces = pipeline.map_chunks(&batch, 512, |recs| {
                let mut w = RecordWriter::fragment(format);
                let mut bad = 0u64;
                for r in recs {
                    let o = run(r);
                    bad += u64::from(!o.is_valid());
                    w.write_key(&KeyRecord::new(r.line, &r.observed, policy.id(), &o))?;
                }
                w.finish().map(|bytes| (bytes, bad))
            });
            for p in pieces {
                let (bytes, bad) = p.map_err(output_error)?;
                invalid += bad;
                writer.write_raw(&bytes).map_err(output_error)?;
            }
            records += batch.len() as u64;
        } else {
            let outcomes: Vec<Outcome> = pipeline.map(&batch, run);
            for (r, o) in batch.iter().zip(&outcomes) {
                records += 1;
                invalid += u64::from(!o.is_valid());
                writer
                    .write_key(&KeyRecord::new(r.line, &r.observed, policy.id(), o))
                    .map_err(output_error)?;
            }
        }
        if let Some(b) = &bar {
            b.set_position(src.bytes_read());
            b.set_message(format!("{} lines", src.lines_read()));
        }
        if !more {
            break;
        }
    }
    writer.finish().map_err(output_error)?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if !a.input.quiet {
        let s = src.skipped();
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "urlkey key: {records} records ({} ok, {invalid} invalid), {} lines skipped ({} blank, {} comment), policy {}, {:.3} s, {:.0} lines/s, {} thread(s)",
            records - invalid,
            s.blank + s.comment,
            s.blank,
            s.comment,
            policy.id(),
            secs,
            if secs > 0.0 { src.lines_read() as f64 / secs } else { 0.0 },
            pipeline.threads()
        );
    }
    Ok(())
}
