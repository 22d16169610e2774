//! `urlkey map`: the Legacy URL Mapper over inventories of any size.

use urlkey_batch::input::{ChainSource, RecordSource, Source};
use urlkey_batch::map::{MapRun, Pass};
use urlkey_batch::rows::{OutputFormat, Tail};

use super::setup;
use crate::failure::{input_error, map_error, output_error, Failure};
use crate::flags::{value_name, MapArgs};

/// The progress of a two-pass run (`map`, `diff`) on `bar`: each pass counts against the
/// input's size, and says which pass it is.
pub(super) fn pass_progress(
    bar: &Option<indicatif::ProgressBar>,
    passes: u32,
) -> impl Fn(Pass, u64, u64) + Sync + '_ {
    let phase = std::sync::Mutex::new(None::<Pass>);
    move |pass: Pass, lines: u64, bytes: u64| {
        if let Some(b) = bar {
            let mut last = phase.lock().unwrap_or_else(|e| e.into_inner());
            if *last != Some(pass) {
                *last = Some(pass);
                b.reset();
                b.set_prefix(match pass {
                    Pass::Counting => format!("pass 1/{passes}: counting "),
                    Pass::Writing => "pass 2/2: writing ".to_string(),
                });
            }
            b.set_position(bytes);
            b.set_message(format!("{lines} lines"));
        }
    }
}

pub fn run(a: MapArgs) -> Result<(), Failure> {
    let policy = setup::policy(&a.source, &a.policy, a.input.max_line_bytes)?;
    let format = OutputFormat::from(a.format);
    setup::check_output_format(format, &value_name(a.format), &a.input)?;
    let summary_path: Vec<&std::path::Path> = a.summary.iter().map(|p| p.as_path()).collect();
    let setup::Inputs {
        mut sources,
        opts,
        labels,
    } = setup::inputs(&a.input, &summary_path)?;
    // The second pass rereads the input: standard input is kept in a spill file.
    let _spill = if let Some(at) = sources.iter().position(|s| *s == Source::Stdin) {
        if sources.iter().filter(|s| **s == Source::Stdin).count() > 1 {
            return Err(Failure::Usage(
                "standard input (-) can be one input of map, not several: give it once".into(),
            ));
        }
        let spill = setup::spill_stdin()?;
        sources[at] = spill.source.clone();
        Some(spill)
    } else {
        None
    };
    let pipeline = setup::pipeline(a.input.threads)?;
    let total = setup::total_bytes(&sources);
    let bar = setup::progress(a.input.quiet, total);
    let passes = if a.groups { 1 } else { 2 };
    let progress = pass_progress(&bar, passes);
    let quiet = a.input.quiet;
    let notice = |m: &str| setup::print_notices(quiet, &[m.to_string()]);
    let open = || -> Result<Box<dyn RecordSource>, urlkey_batch::input::InputError> {
        Ok(Box::new(ChainSource::new(sources.clone(), opts.clone())?))
    };
    // Fail before any output when the input cannot be opened.
    drop(open().map_err(input_error)?);
    let kept = open().map_err(input_error)?.kept_names().to_vec();
    let tail = Tail {
        sources: !labels.is_empty(),
        kept: if a.groups { Vec::new() } else { kept },
    };
    let mut writer = setup::writer(format, &a.input, tail)?;
    let run = MapRun {
        policy: &policy,
        pipeline: &pipeline,
        verify_fingerprints: a.verify_fingerprints,
        groups: a.groups,
        progress: Some(&progress),
        notice: Some(&notice),
        sources: &labels,
        spill: true,
    };
    let summary = run.run(&open, &mut writer).map_err(map_error)?;
    let out = writer.finish().map_err(output_error)?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    // The summary first: a run whose summary cannot be written leaves the output as it was.
    if let Some(path) = &a.summary {
        let mut bytes = serde_json::to_vec_pretty(&summary)
            .map_err(|e| Failure::Internal(format!("cannot encode the summary: {e}")))?;
        bytes.push(b'\n');
        setup::write_small_file(path, &bytes)?;
    }
    out.commit()?;
    if !a.input.quiet {
        let s = &summary;
        let codes: Vec<String> = s
            .invalid_by_code
            .iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect();
        urlkey_batch::note!(
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
