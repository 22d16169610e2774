//! `urlkey key`: the flags turned into a [`KeyRun`] (urlkey-batch), its progress drawn and
//! its summary said.

use urlkey_batch::input::{ChainSource, RecordSource};
use urlkey_batch::key::KeyRun;
use urlkey_batch::rows::{OutputFormat, Tail};

use super::setup;
use crate::failure::{input_error, output_error, run_error, Failure};
use crate::flags::{value_name, KeyArgs, KeyFormat};

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
    let mut writer = setup::writer(format, &a.input, tail)?;
    let quiet = a.input.quiet;
    let notice = |m: &str| setup::print_notices(quiet, &[m.to_string()]);
    let progress = |lines: u64, bytes: u64| {
        if let Some(b) = &bar {
            b.set_position(bytes);
            b.set_message(format!("{lines} lines"));
        }
    };
    let run = KeyRun {
        policy: &policy,
        pipeline: &pipeline,
        base: a.base.as_deref(),
        sources: &labels,
        progress: Some(&progress),
        notice: Some(&notice),
    };
    let s = run.run(&mut src, &mut writer).map_err(run_error)?;
    writer.finish().map_err(output_error)?.commit()?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if !quiet {
        let secs = s.elapsed_seconds;
        urlkey_batch::note!(
            "urlkey key: {} records ({} ok, {} invalid), {} lines skipped ({} blank, {} comment), policy {}, {:.3} s, {:.0} lines/s, {} thread(s)",
            s.records,
            s.valid(),
            s.invalid,
            s.skipped.blank + s.skipped.comment,
            s.skipped.blank,
            s.skipped.comment,
            policy.id(),
            secs,
            if secs > 0.0 { s.lines_read as f64 / secs } else { 0.0 },
            s.threads
        );
    }
    Ok(())
}
