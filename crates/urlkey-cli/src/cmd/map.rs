//! `urlkey map`: the Legacy URL Mapper over inventories of any size.

use std::io::Write;

use urlkey_batch::input::{ChainSource, RecordSource, Source};
use urlkey_batch::map::{MapError, MapRun};
use urlkey_batch::output::{OutputFormat, RecordWriter};
use urlkey_batch::pipeline::Pipeline;

use crate::flags::MapArgs;
use crate::{output_error, Failure};

pub fn run(a: MapArgs) -> Result<(), Failure> {
    let set = super::policy_set(&a.source)?.with_max_input_bytes(a.input.max_line_bytes);
    let policy = set
        .get(&a.policy)
        .map_err(|e| Failure::Policy(e.to_string()))?;
    let format = match OutputFormat::parse(&a.format) {
        Some(
            f @ (OutputFormat::Csv
            | OutputFormat::Jsonl
            | OutputFormat::Tsv
            | OutputFormat::Parquet),
        ) => f,
        _ => {
            return Err(Failure::Usage(format!(
                "--format {:?}: use csv, jsonl, tsv or parquet",
                a.format
            )))
        }
    };
    if format == OutputFormat::Parquet && a.input.output.is_none() {
        return Err(Failure::Usage(
            "--format parquet writes a file, not standard output: give -o FILE".into(),
        ));
    }
    let (mut sources, opts) = super::read_options(&a.input)?;
    // The second pass rereads the input: standard input is kept in a spill file.
    let _spill = if sources.contains(&Source::Stdin) {
        if sources.len() > 1 {
            return Err(Failure::Usage(
                "standard input (-) cannot be combined with files in map".into(),
            ));
        }
        let mut tmp = tempfile::NamedTempFile::new().map_err(|e| {
            Failure::Input(format!(
                "cannot create a spill file for standard input: {e}"
            ))
        })?;
        std::io::copy(&mut std::io::stdin().lock(), tmp.as_file_mut())
            .map_err(|e| Failure::Input(format!("cannot read standard input: {e}")))?;
        sources = vec![Source::File(tmp.path().to_path_buf())];
        Some(tmp)
    } else {
        None
    };
    let pipeline = Pipeline::new(a.input.threads).map_err(Failure::Internal)?;
    let total = super::total_bytes(&sources);
    let bar = super::progress(a.input.quiet, total.map(|t| t * 2));
    let pass = std::sync::atomic::AtomicU64::new(0);
    let progress = |_lines: u64, bytes: u64| {
        if let Some(b) = &bar {
            let base = pass.load(std::sync::atomic::Ordering::Relaxed);
            b.set_position(base + bytes);
        }
    };
    let open = || -> Result<Box<dyn RecordSource>, urlkey_batch::input::InputError> {
        Ok(Box::new(ChainSource::new(sources.clone(), opts.clone())?))
    };
    // Fail before any output when the input cannot be opened.
    drop(open().map_err(|e| Failure::Input(e.to_string()))?);
    let mut writer = RecordWriter::new(format, super::output(&a.input.output)?);
    let run = MapRun {
        policy: &policy,
        pipeline: &pipeline,
        verify_fingerprints: a.verify_fingerprints,
        groups: a.groups,
        progress: Some(&progress),
    };
    let summary = run.run(&open, &mut writer).map_err(|e| match e {
        MapError::Input(e) => Failure::Input(e.to_string()),
        MapError::Output(e) => output_error(e),
        MapError::Collision(_) => Failure::Internal(e.to_string()),
    })?;
    writer.finish().map_err(output_error)?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(path) = &a.summary {
        let mut f = std::fs::File::create(path)
            .map_err(|e| Failure::Output(format!("{}: cannot create: {e}", path.display())))?;
        serde_json::to_writer_pretty(&mut f, &summary)
            .map_err(|e| Failure::Output(format!("{}: {e}", path.display())))?;
        writeln!(f).map_err(|e| Failure::Output(format!("{}: {e}", path.display())))?;
    }
    if !a.input.quiet {
        let s = &summary;
        let codes: Vec<String> = s
            .invalid_by_code
            .iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect();
        eprintln!(
            "urlkey map: {} lines read, {} skipped ({} blank, {} comment); {} records: {} valid, {} invalid{}; {} distinct keys, {} duplicate groups, {} review groups; policy {}; {:.3} s, {:.0} lines/s, {} thread(s)",
            s.lines_read,
            s.skipped.blank + s.skipped.comment,
            s.skipped.blank,
            s.skipped.comment,
            s.records,
            s.valid,
            s.invalid,
            if codes.is_empty() { String::new() } else { format!(" ({})", codes.join(", ")) },
            s.distinct_keys,
            s.duplicate_groups,
            s.review_groups,
            s.policy,
            s.elapsed_seconds,
            s.lines_per_second,
            s.threads
        );
    }
    Ok(())
}
