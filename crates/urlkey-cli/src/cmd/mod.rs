//! The commands, each turning flags into settings and running the work.

pub mod info;
pub mod inspect;
pub mod key;
pub mod map;

use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};

use indicatif::{ProgressBar, ProgressStyle};
use urlkey::{PolicySet, PublicSuffixList};
use urlkey_batch::input::{format_from_name, InputFormat, ReadOptions, Source};

use crate::flags::{InputArgs, PolicySource};
use crate::Failure;

/// Loads the policy set: builtins, `--policy-file`s, `--psl`.
pub fn policy_set(src: &PolicySource) -> Result<PolicySet, Failure> {
    let mut set = PolicySet::builtin();
    if let Some(path) = &src.psl {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Failure::Policy(format!(
                "{}: cannot read the suffix list: {e}",
                path.display()
            ))
        })?;
        let psl = PublicSuffixList::parse(&text)
            .map_err(|e| Failure::Policy(format!("{}: {e}", path.display())))?;
        set = set.with_psl(psl);
    }
    for path in &src.policy_files {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Failure::Policy(format!(
                "{}: cannot read the policy file: {e}",
                path.display()
            ))
        })?;
        set.load_policy_file(&text, &path.display().to_string())
            .map_err(|e| Failure::Policy(e.to_string()))?;
    }
    Ok(set)
}

/// The sources and reader settings of `key`/`map`.
pub fn read_options(a: &InputArgs) -> Result<(Vec<Source>, ReadOptions), Failure> {
    let sources: Vec<Source> = if a.files.is_empty() {
        vec![Source::Stdin]
    } else {
        a.files.iter().map(|f| Source::from_arg(f)).collect()
    };
    let format = match &a.input_format {
        Some(f) => InputFormat::parse(f).ok_or_else(|| {
            Failure::Usage(format!(
                "--input-format {f:?}: use lines, csv, tsv or jsonl"
            ))
        })?,
        None => sources
            .iter()
            .find_map(|s| match s {
                Source::File(p) => format_from_name(p),
                Source::Stdin => None,
            })
            .unwrap_or(if a.field.is_some() {
                InputFormat::Jsonl
            } else if a.column.is_some() {
                InputFormat::Csv
            } else {
                InputFormat::Lines
            }),
    };
    if matches!(format, InputFormat::Csv | InputFormat::Tsv) && a.column.is_none() {
        return Err(Failure::Usage(
            "CSV/TSV input needs --column NAME (or a 1-based number)".into(),
        ));
    }
    if format == InputFormat::Jsonl && a.field.is_none() {
        return Err(Failure::Usage("JSONL input needs --field NAME".into()));
    }
    if a.max_line_bytes == 0 {
        return Err(Failure::Usage("--max-line-bytes must be at least 1".into()));
    }
    Ok((
        sources,
        ReadOptions {
            format,
            column: a.column.clone(),
            field: a.field.clone(),
            max_line_bytes: a.max_line_bytes,
        },
    ))
}

/// Standard output or `-o FILE`, buffered.
pub fn output(path: &Option<std::path::PathBuf>) -> Result<Box<dyn Write>, Failure> {
    Ok(match path {
        Some(p) => Box::new(BufWriter::with_capacity(
            256 * 1024,
            File::create(p)
                .map_err(|e| Failure::Output(format!("{}: cannot create: {e}", p.display())))?,
        )),
        None => Box::new(BufWriter::with_capacity(256 * 1024, io::stdout())),
    })
}

/// A progress bar on standard error when it is a terminal and not `--quiet`.
pub fn progress(quiet: bool, total_bytes: Option<u64>) -> Option<ProgressBar> {
    if quiet || !io::stderr().is_terminal() {
        return None;
    }
    let bar = match total_bytes {
        Some(t) => ProgressBar::new(t).with_style(
            ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {msg} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {bytes} read {msg} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    Some(bar)
}

/// Total size of the sources, when every one is a file.
pub fn total_bytes(sources: &[Source]) -> Option<u64> {
    sources.iter().map(Source::byte_len).sum()
}
