//! `urlkey key`: one record per input line, in input order.

use std::time::Instant;

use urlkey::Outcome;
use urlkey_batch::input::{ChainSource, InputRecord, RecordSource};
use urlkey_batch::pipeline::{ReadBatch, StreamError};
use urlkey_batch::rows::outcome_of;
use urlkey_batch::rows::{KeyRecord, OutputFormat, RecordWriter, Tail};

/// Records per unit of work.
const CHUNK: usize = 512;

/// What the workers make of a chunk: output bytes and the invalid count, or outcomes.
enum Chunk {
    Bytes(Vec<u8>, u64),
    Outcomes(Vec<Outcome>),
}

use super::setup;
use crate::failure::{input_error, output_error, thread_error, Failure};
use crate::flags::{value_name, KeyArgs, KeyFormat};

/// The record of one input record's outcome, with its source's name and kept cells.
fn record<'a>(
    r: &'a InputRecord,
    o: &'a Outcome,
    policy: &'a str,
    labels: &'a [String],
) -> KeyRecord<'a> {
    KeyRecord::new(r.line, &r.observed, policy, o)
        .with_input(labels.get(r.source as usize).map(String::as_str), &r.kept)
}

pub fn run(a: KeyArgs) -> Result<(), Failure> {
    let policy = setup::policy(&a.source, &a.policy, a.input.max_line_bytes)?;
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
    let chosen = a.format.unwrap_or(if a.input.excel {
        KeyFormat::Csv
    } else {
        KeyFormat::Jsonl
    });
    let format = OutputFormat::from(chosen);
    setup::check_output_format(format, &value_name(chosen), &a.input)?;
    let setup::Inputs {
        sources,
        opts,
        labels,
    } = setup::inputs(&a.input, &[])?;
    let pipeline = setup::pipeline(a.input.threads)?;
    let bar = setup::progress(a.input.quiet, setup::total_bytes(&sources));
    let mut src = ChainSource::new(sources, opts).map_err(input_error)?;
    let tail = Tail {
        sources: !labels.is_empty(),
        kept: src.kept_names().to_vec(),
    };
    let mut writer = setup::writer(format, &a.input, tail.clone())?;
    if matches!(
        format,
        OutputFormat::Csv | OutputFormat::Tsv | OutputFormat::Parquet
    ) {
        writer.start_key().map_err(output_error)?;
    }
    let start = Instant::now();
    let (mut records, mut invalid) = (0u64, 0u64);
    let base = a.base.as_deref();
    let run = |r: &InputRecord| match (&r.problem, base) {
        (None, Some(b)) => policy.key_with_base(&r.observed, Some(b)),
        _ => outcome_of(&policy, r),
    };
    let (id, labels) = (policy.id(), &labels[..]);
    let format = writer.format();
    let lean = format == OutputFormat::Key && base.is_none();
    let fragments = writer.supports_fragments();
    // Workers turn a chunk of records into output bytes (or outcomes, for the formats
    // written in one piece); this thread only joins them, in input order.
    let work = |recs: &[InputRecord]| -> Result<Chunk, std::io::Error> {
        if lean {
            // Keys alone: the lean key path, one reused buffer, no `Outcome`.
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
            Ok(Chunk::Bytes(bytes, bad))
        } else if fragments {
            let mut w = RecordWriter::fragment(format, &tail);
            let mut bad = 0u64;
            for r in recs {
                let o = run(r);
                bad += u64::from(!o.is_valid());
                w.write_key(&record(r, &o, id, labels))?;
            }
            w.into_bytes().map(|bytes| Chunk::Bytes(bytes, bad))
        } else {
            Ok(Chunk::Outcomes(recs.iter().map(run).collect()))
        }
    };
    let sink =
        |batch: &ReadBatch, chunks: Vec<Result<Chunk, std::io::Error>>| -> Result<(), Failure> {
            let mut recs = batch.records.iter();
            for c in chunks {
                match c.map_err(output_error)? {
                    Chunk::Bytes(bytes, bad) => {
                        invalid += bad;
                        writer.write_raw(&bytes).map_err(output_error)?;
                    }
                    Chunk::Outcomes(outcomes) => {
                        // Outcomes first: zip must not take a record past the chunk's end.
                        for (o, r) in outcomes.iter().zip(recs.by_ref()) {
                            invalid += u64::from(!o.is_valid());
                            writer
                                .write_key(&record(r, o, id, labels))
                                .map_err(output_error)?;
                        }
                    }
                }
            }
            records += batch.records.len() as u64;
            setup::print_notices(a.input.quiet, &batch.notices);
            if let Some(b) = &bar {
                b.set_position(batch.bytes_read);
                b.set_message(format!("{} lines", batch.lines_read));
            }
            Ok(())
        };
    pipeline
        .stream(&mut src, CHUNK, work, sink)
        .map_err(|e| match e {
            StreamError::Input(e) => input_error(e),
            StreamError::Sink(f) => f,
            StreamError::Spawn(e) => thread_error(e),
        })?;
    writer.finish().map_err(output_error)?.commit()?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if !a.input.quiet {
        let s = src.skipped();
        let secs = start.elapsed().as_secs_f64();
        urlkey_batch::note!(
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
