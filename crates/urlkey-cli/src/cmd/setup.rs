//! Flags become settings here, once for every command: the policy, the inputs and their
//! reader settings, the pipeline, the writer and the progress bar. `key` and `map` (and
//! the commands to come) call these in their own order; none opens a policy, a file or a
//! pool itself. The library names settings; this module adds the flag that sets them.

use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};
use urlkey::{Policy, PolicySet, PublicSuffixList};
use urlkey_batch::input::{
    encoding_for_label, format_from_name, parse_delimiter, InputFormat, KeepColumns, OptionsError,
    ReadOptions, Setting, Source,
};
use urlkey_batch::outfile::OutputFile;
use urlkey_batch::pipeline::Pipeline;
use urlkey_batch::rows::{OutputFormat, RecordWriter, Tail};

use crate::failure::{output_error, policy_error, thread_error, Failure};
use crate::flags::{InputArgs, PolicySource, QuoteArg};

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
            .map_err(policy_error)?;
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
        Some(f) => InputFormat::from(*f),
        None => sources
            .iter()
            .find_map(|s| match s {
                Source::File(p) => format_from_name(p),
                _ => None,
            })
            .unwrap_or(if a.field.is_some() {
                InputFormat::Jsonl
            } else if a.column.is_some() {
                InputFormat::Csv
            } else {
                InputFormat::Lines
            }),
    };
    let encoding = match &a.encoding {
        None => None,
        Some(l) => Some(encoding_for_label(l).ok_or_else(|| {
            Failure::Usage(format!(
                "--encoding {l:?} is not an encoding label: use one such as utf-8, utf-16le, utf-16be, windows-1252, iso-8859-2, shift_jis, gb18030"
            ))
        })?),
    };
    let delimiter = match a.delimiter.as_deref() {
        None => None,
        Some(d) => Some(parse_delimiter(d).ok_or_else(|| {
            Failure::Usage(format!(
                "--delimiter {d:?}: give one ASCII character such as ; or |, or tab"
            ))
        })?),
    };
    let opts = ReadOptions {
        format,
        column: a.column.clone(),
        field: a.field.clone(),
        max_line_bytes: a.max_line_bytes,
        encoding,
        delimiter,
        headers: !a.no_headers,
        skip_rows: a.skip_rows,
        sheet: a.sheet.clone(),
        keep: a
            .keep_columns
            .as_deref()
            .map(KeepColumns::parse)
            .unwrap_or_default(),
        quotes: a.quote == QuoteArg::Double,
        url_in_column: true,
    };
    check_read_options(&opts)?;
    Ok((sources, opts))
}

/// Refuses reader settings that cannot work together, naming the flags.
pub fn check_read_options(opts: &ReadOptions) -> Result<(), Failure> {
    opts.validate().map_err(|e| Failure::Usage(with_flag(&e)))
}

/// The library names settings; the command line names its flags.
fn with_flag(e: &OptionsError) -> String {
    let flag = match e.setting {
        Setting::Column => " (--column NAME or --column N)",
        Setting::Field => " (--field NAME)",
        Setting::Keep => " (--keep-columns)",
        Setting::Headers => " (--no-headers with --column N)",
        Setting::Sheet => " (--sheet)",
        Setting::LineLimit => " (--max-line-bytes)",
        Setting::Delimiter => " (--delimiter)",
        _ => "",
    };
    format!("{}{flag}", e.message)
}

/// Where the records go: standard output, or a file written through a temporary file.
pub enum Output {
    /// Standard output.
    Stdout(BufWriter<io::Stdout>),
    /// `-o FILE`.
    File(BufWriter<OutputFile>),
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(w) => w.write(buf),
            Output::File(w) => w.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(w) => w.flush(),
            Output::File(w) => w.flush(),
        }
    }
}

impl Output {
    /// Flushes and, for a file, renames it into place.
    pub fn commit(self) -> Result<(), Failure> {
        match self {
            Output::Stdout(mut w) => w.flush().map_err(output_error),
            Output::File(w) => {
                let f = w.into_inner().map_err(|e| output_error(e.into_error()))?;
                let name = f.target().display().to_string();
                f.commit()
                    .map_err(|e| Failure::Output(format!("{name}: cannot finish writing: {e}")))
            }
        }
    }
}

/// Refuses `-o` (and the other output files) naming an input, before anything is opened.
pub fn check_outputs(outputs: &[&Path], sources: &[Source]) -> Result<(), Failure> {
    urlkey_batch::outfile::check_outputs(outputs, sources).map_err(Failure::Usage)
}

/// Standard output or `-o FILE`, buffered.
pub fn output(path: &Option<std::path::PathBuf>) -> Result<Output, Failure> {
    Ok(match path {
        Some(p) => Output::File(BufWriter::with_capacity(
            256 * 1024,
            OutputFile::create(p)
                .map_err(|e| Failure::Output(format!("{}: cannot create: {e}", p.display())))?,
        )),
        None => Output::Stdout(BufWriter::with_capacity(256 * 1024, io::stdout())),
    })
}

/// Writes a small file (a summary) through a temporary file.
pub fn write_small_file(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let fail = |e: io::Error| Failure::Output(format!("{}: cannot write: {e}", path.display()));
    let mut f = OutputFile::create(path).map_err(fail)?;
    f.write_all(bytes).map_err(fail)?;
    f.commit().map_err(fail)
}

/// The inputs' names for the `source` columns: empty with one input.
pub fn source_labels(sources: &[Source]) -> Vec<String> {
    if sources.len() > 1 {
        sources.iter().map(Source::label).collect()
    } else {
        Vec::new()
    }
}

/// Prints notices about the input on standard error (unless quiet).
pub fn print_notices(quiet: bool, notices: &[String]) {
    if !quiet {
        for n in notices {
            // The reader names no flag; here is how to give the encoding.
            let n = n
                .replace(
                    urlkey_batch::input::OTHER_DELIMITER,
                    "give another with --delimiter C",
                )
                .replace(
                    urlkey_batch::input::NAME_THE_COLUMN,
                    "name the URL's column with --column NAME",
                );
            if n.contains(urlkey_batch::input::NUL_BYTES) {
                let n = n.replacen(
                    "name its encoding:",
                    "name its encoding with --encoding:",
                    1,
                );
                urlkey_batch::note!("urlkey: note: {n}");
            } else {
                urlkey_batch::note!("urlkey: note: {n}");
            }
        }
    }
}

/// A progress bar on standard error when it is a terminal and not `--quiet`.
pub fn progress(quiet: bool, total_bytes: Option<u64>) -> Option<ProgressBar> {
    if quiet || !io::stderr().is_terminal() {
        return None;
    }
    let bar = match total_bytes {
        Some(t) => ProgressBar::new(t).with_style(
            ProgressStyle::with_template("{prefix}{bar:30} {bytes}/{total_bytes} {msg} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{prefix}{spinner} {bytes} read {msg} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        ),
    };
    Some(bar)
}

/// Total size of the sources, when every one is a file.
pub fn total_bytes(sources: &[Source]) -> Option<u64> {
    sources.iter().map(Source::byte_len).sum()
}

/// The policy `id` of the set `src` describes, refusing input longer than
/// `max_input_bytes` (`--max-line-bytes`).
pub fn policy(src: &PolicySource, id: &str, max_input_bytes: usize) -> Result<Policy, Failure> {
    policy_set(src)?
        .with_max_input_bytes(max_input_bytes)
        .get(id)
        .map_err(policy_error)
}

/// Refuses an output format that the other output flags contradict: `--excel` with a
/// format that is not CSV, Parquet to standard output. `name` is the format as the flag
/// names it.
pub fn check_output_format(
    format: OutputFormat,
    name: &str,
    input: &InputArgs,
) -> Result<(), Failure> {
    if input.excel && !matches!(format, OutputFormat::Csv | OutputFormat::Tsv) {
        return Err(Failure::Usage(format!(
            "--excel writes CSV for spreadsheets; --format {name} is not CSV: drop one of them"
        )));
    }
    if format == OutputFormat::Parquet && input.output.is_none() {
        return Err(Failure::Usage(
            "--format parquet writes a file, not standard output: give -o FILE".into(),
        ));
    }
    Ok(())
}

/// The inputs of a batch command.
pub struct Inputs {
    /// The sources, in order.
    pub sources: Vec<Source>,
    /// The reader settings, validated ([`ReadOptions::validate`]).
    pub opts: ReadOptions,
    /// The sources' names for the `source` column (empty with one source).
    pub labels: Vec<String>,
}

/// The inputs and reader settings, with `-o` and `also_written` (`--summary`) checked not
/// to name one of them.
pub fn inputs(input: &InputArgs, also_written: &[&Path]) -> Result<Inputs, Failure> {
    let (sources, opts) = read_options(input)?;
    let outputs: Vec<&Path> = input
        .output
        .iter()
        .map(|p| p.as_path())
        .chain(also_written.iter().copied())
        .collect();
    check_outputs(&outputs, &sources)?;
    let labels = source_labels(&sources);
    Ok(Inputs {
        sources,
        opts,
        labels,
    })
}

/// The worker pool of `--threads`.
pub fn pipeline(threads: usize) -> Result<Pipeline, Failure> {
    Pipeline::new(threads).map_err(thread_error)
}

/// The record writer of `format` to standard output or `-o`, with the tail columns and
/// `--excel`'s byte-order mark.
pub fn writer(
    format: OutputFormat,
    input: &InputArgs,
    tail: Tail,
) -> Result<RecordWriter<Output>, Failure> {
    Ok(RecordWriter::new(format, output(&input.output)?)
        .with_tail(tail)
        .with_excel_bom(input.excel))
}

/// Standard input copied to a temporary file, for a command that reads its input twice
/// (`map`, `diff`); the file is removed when this is dropped, and on Ctrl-C.
pub struct Spill {
    _file: tempfile::NamedTempFile,
    _guard: urlkey_batch::outfile::TempGuard,
    /// The copy, to read instead of standard input.
    pub source: Source,
}

/// Copies standard input to a spill file.
pub fn spill_stdin() -> Result<Spill, Failure> {
    let mut file = tempfile::Builder::new()
        .prefix("urlkey-stdin-")
        .suffix(".spill")
        .tempfile()
        .map_err(|e| {
            Failure::Input(format!(
                "cannot create a spill file for standard input: {e} (set TMPDIR to a writable directory)"
            ))
        })?;
    let guard = urlkey_batch::outfile::TempGuard::new(file.path().to_path_buf());
    std::io::copy(&mut std::io::stdin().lock(), file.as_file_mut())
        .map_err(|e| Failure::Input(format!("cannot read standard input: {e}")))?;
    Ok(Spill {
        source: Source::Spilled(file.path().to_path_buf()),
        _file: file,
        _guard: guard,
    })
}
