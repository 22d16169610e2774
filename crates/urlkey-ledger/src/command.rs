//! The ledger's commands as typed options ([`LedgerCommand`]) and their run ([`run`]).
//! The command line (`urlkey ledger`, in the urlkey-cli crate) builds these from its flags;
//! every check of a value that clap cannot make (a window, a time zone, an encoding label)
//! is made here, so that every caller gets the same error kind, which each words its own
//! way ([`crate::words`]).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::db;
use crate::error::{ErrorKind, LedgerError, Result, Setting};
use crate::export::{self, ExportFormat};
use crate::ingest::{self, Defaults, InputFormat};
use crate::norm::Normalizer;
use crate::report::{self, ReportFormat, ReportOptions};
use crate::review::{self, Decision, ListFormat};
use crate::verify::{self, FetchConfig, NetworkScope, VerifyOptions};
use crate::words::{Hint, NoProgress, PlainWords, Progress, Remedy, Words};

/// The policy `ingest` keys with when none is named.
pub const DEFAULT_POLICY: &str = urlkey::policy::defaults::LEDGER;

/// A ledger command.
#[derive(Debug, Clone)]
pub enum LedgerCommand {
    /// Create the database (or bring its schema up to date).
    Init,
    /// Store the observations of files, one transaction per file.
    Ingest(IngestCommand),
    /// Count the measures of the ledger, grouped, filtered or compared.
    Report(ReportCommand),
    /// Fetch the observed URLs of unverified keys and record what was found.
    Verify(VerifyCommand),
    /// Record or list what people decide.
    Review(ReviewCommand),
    /// List the keys with more than one distinct observed URL.
    Merges {
        /// Output format.
        format: ListFormat,
    },
    /// Key the observations of some collections under another policy, beside their
    /// original keys.
    Rekey(crate::rekey::RekeyOptions),
    /// Write every observation with the latest verification of its key.
    Export {
        /// Output format.
        format: ExportFormat,
        /// Write here instead of `out`.
        output: Option<PathBuf>,
    },
}

/// `ingest`: the files and how to read them.
#[derive(Debug, Clone)]
pub struct IngestCommand {
    /// The files; `-` reads standard input (once).
    pub files: Vec<PathBuf>,
    /// The sheet of a spreadsheet: its name or a 1-based number (none: the first).
    pub sheet: Option<String>,
    /// `FIELD=HEADER,...`: which columns hold which ledger fields.
    pub columns: Option<String>,
    /// The WHATWG label of the encoding of inputs without a byte-order mark (none: UTF-8).
    pub encoding: Option<String>,
    /// The delimiter of CSV files (one ASCII character, or `tab`; none: detected from the
    /// header line).
    pub delimiter: Option<String>,
    /// CSV/TSV cells may be quoted (RFC 4180; the default); false: a quote is an ordinary
    /// character and every line is a row.
    pub quotes: bool,
    /// The normalization policy that makes the keys.
    pub policy: String,
    /// Read the files as this format instead of guessing.
    pub input_format: Option<InputFormat>,
    /// Values for rows that have none (answer_system, prompt_version, market,
    /// run_timestamp, collection), handed to the ingest as they are; their `timezone` is
    /// [`IngestCommand::timezone`]'s, read by the run.
    pub defaults: Defaults,
    /// The IANA zone of run timestamps without Z or an offset (none: they are refused).
    pub timezone: Option<String>,
    /// Store the good rows and write every refused row here (none: all or nothing).
    pub rejects: Option<PathBuf>,
}

impl Default for IngestCommand {
    fn default() -> Self {
        IngestCommand {
            files: Vec::new(),
            sheet: None,
            columns: None,
            encoding: None,
            delimiter: None,
            quotes: true,
            policy: DEFAULT_POLICY.to_string(),
            input_format: None,
            defaults: Defaults::default(),
            timezone: None,
            rejects: None,
        }
    }
}

/// `report`: what to count, over which observations, written how.
#[derive(Debug, Clone)]
pub struct ReportCommand {
    /// What to count and over which observations (grouping, comparison, policy, tops),
    /// handed to the report as they are; its `windows` are [`ReportCommand::window`]'s,
    /// read by the run.
    pub options: ReportOptions,
    /// `FROM..TO` windows: one filters, two are compared.
    pub window: Vec<String>,
    /// Output format.
    pub format: ReportFormat,
    /// Write here (through a temporary file and a rename) instead of `out`.
    pub output: Option<PathBuf>,
}

impl Default for ReportCommand {
    fn default() -> Self {
        ReportCommand {
            options: ReportOptions::default(),
            window: Vec::new(),
            format: ReportFormat::Table,
            output: None,
        }
    }
}

/// `verify`: which keys, how fast, which networks.
#[derive(Debug, Clone)]
pub struct VerifyCommand {
    /// Verify at most N keys.
    pub limit: Option<usize>,
    /// Keys verified at once.
    pub concurrency: usize,
    /// Least milliseconds between two requests to the same host.
    pub per_host_delay: u64,
    /// Seconds allowed for each request.
    pub timeout: f64,
    /// Also re-verify keys whose latest verification is older than this (30d, 12h, 90m).
    pub older_than: Option<String>,
    /// Allow loopback, private, shared, link-local and reserved targets.
    pub allow_private_network: bool,
    /// Allow loopback targets only.
    pub allow_loopback: bool,
    /// List the keys that would be verified; fetch nothing.
    pub dry_run: bool,
    /// Distinct observed URLs fetched per key, at most.
    pub max_variants: usize,
    /// Also trust the PEM certificates of this file.
    pub ca_cert: Option<PathBuf>,
}

/// [`VerifyCommand::concurrency`] when none is given.
pub const DEFAULT_CONCURRENCY: usize = 4;
/// [`VerifyCommand::per_host_delay`] when none is given, in milliseconds.
pub const DEFAULT_PER_HOST_DELAY_MS: u64 = 1000;
/// [`VerifyCommand::timeout`] when none is given, in seconds.
pub const DEFAULT_TIMEOUT_SECS: f64 = 10.0;

impl Default for VerifyCommand {
    fn default() -> Self {
        VerifyCommand {
            limit: None,
            concurrency: DEFAULT_CONCURRENCY,
            per_host_delay: DEFAULT_PER_HOST_DELAY_MS,
            timeout: DEFAULT_TIMEOUT_SECS,
            older_than: None,
            allow_private_network: false,
            allow_loopback: false,
            dry_run: false,
            max_variants: verify::DEFAULT_MAX_VARIANTS,
            ca_cert: None,
        }
    }
}

/// `review`: record one decision, record a file of them, or list them.
#[derive(Debug, Clone)]
pub enum ReviewCommand {
    /// Record one decision.
    Add(Decision),
    /// Record the decisions of a CSV file, all or none.
    Import {
        /// The CSV file.
        file: PathBuf,
    },
    /// Every decision, oldest first.
    List {
        /// Output format.
        format: ListFormat,
    },
}

/// Writes an output file atomically (a temporary file beside it, renamed when complete),
/// refusing the ledger itself as the output.
fn write_to_file(
    path: &std::path::Path,
    db: &std::path::Path,
    err: &mut dyn Write,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    urlkey_batch::outfile::check_outputs(
        &[path],
        &[urlkey_batch::input::Source::File(db.to_path_buf())],
    )
    .map_err(|m| LedgerError::usage(m.replace("the input", "the ledger")))?;
    let failed = |e: std::io::Error| {
        LedgerError::output(format!(
            "cannot write {}: {e}; check the path and the free space",
            path.display()
        ))
    };
    let file = urlkey_batch::outfile::OutputFile::create(path).map_err(failed)?;
    let mut w = std::io::BufWriter::new(file);
    write(&mut w)?;
    w.into_inner()
        .map_err(|e| failed(e.into_error()))?
        .commit()
        .map_err(failed)?;
    writeln!(err, "report written to {}", path.display())?;
    Ok(())
}

/// Runs `command` on the ledger at `db_path`: results to `out`, notes to `err`, in the
/// ledger's own words and without progress ([`run_with`]).
pub fn run(
    command: LedgerCommand,
    db_path: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<()> {
    run_with(command, db_path, out, err, &NoProgress, &PlainWords)
}

/// Runs `command` on the ledger at `db_path`: results to `out`, notes to `err`, the
/// progress of each ingested file to `progress`, advice in `words` (the command line's
/// names its flags).
pub fn run_with(
    command: LedgerCommand,
    db_path: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
    progress: &dyn Progress,
    words: &dyn Words,
) -> Result<()> {
    match command {
        LedgerCommand::Init => init(db_path, out),
        LedgerCommand::Ingest(command) => ingest_files(command, db_path, out, err, progress, words),
        LedgerCommand::Report(command) => report(command, db_path, out, err),
        LedgerCommand::Verify(command) => verify_keys(command, db_path, out, words),
        LedgerCommand::Review(command) => run_review(command, db_path, out),
        LedgerCommand::Merges { format } => {
            let conn = db::open(db_path, false)?;
            review::write_merges(&conn, format, out)?;
            Ok(())
        }
        LedgerCommand::Rekey(opts) => {
            let mut conn = db::open(db_path, false)?;
            let s = crate::rekey::run(&mut conn, &opts)?;
            writeln!(out, "{s}")?;
            Ok(())
        }
        LedgerCommand::Export { format, output } => {
            export_observations(format, output, db_path, out, err)
        }
    }
}

/// `init`: the database created, or its schema brought up to date.
fn init(db_path: &Path, out: &mut dyn Write) -> Result<()> {
    let conn = db::open(db_path, true)?;
    let v = db::user_version(&conn)?;
    writeln!(
        out,
        "ledger ready: {} (schema version {v})",
        db_path.display()
    )?;
    Ok(())
}

/// `ingest`: each file stored in its own transaction, its summary on `out`, notes on `err`.
fn ingest_files(
    command: IngestCommand,
    db_path: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
    progress: &dyn Progress,
    words: &dyn Words,
) -> Result<()> {
    let IngestCommand {
        files,
        mut defaults,
        timezone,
        rejects,
        ..
    } = command;
    let delimiter = command
        .delimiter
        .as_deref()
        .map(|d| {
            urlkey_batch::input::parse_delimiter(d).ok_or_else(|| {
                LedgerError::invalid(
                    Setting::Delimiter,
                    format!(" {d:?}: give one ASCII character such as ; or |, or tab"),
                )
            })
        })
        .transpose()?;
    let columns = ingest::ColumnMap::parse(command.columns.as_deref().unwrap_or(""))
        .map_err(|m| LedgerError::invalid(Setting::Columns, format!(": {m}")))?;
    if let Some(l) = &command.encoding {
        if urlkey_batch::input::encoding_for_label(l).is_none() {
            return Err(crate::ingest::unknown_encoding(l));
        }
    }
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        return Err(LedgerError::usage(
            "standard input (-) can be read once per command".to_string(),
        ));
    }
    let timezone = timezone
        .map(|z| crate::timefmt::time_zone(&z))
        .transpose()
        .map_err(|m| LedgerError::invalid(Setting::Timezone, format!(": {m}")))?;
    if let Some(r) = &rejects {
        if files.len() > 1 {
            return Err(LedgerError::new(ErrorKind::RejectsWithFiles {
                rejects: r.clone(),
                files: files.len(),
            }));
        }
        let mut inputs: Vec<urlkey_batch::input::Source> = files
            .iter()
            .map(|f| urlkey_batch::input::Source::from_arg(&f.to_string_lossy()))
            .collect();
        inputs.push(urlkey_batch::input::Source::File(db_path.to_path_buf()));
        urlkey_batch::outfile::check_outputs(&[r.as_path()], &inputs)
            .map_err(|m| LedgerError::invalid(Setting::Rejects, format!(": {m}")))?;
    }
    let norm = Normalizer::new(&command.policy).map_err(LedgerError::policy)?;
    if let Some(ts) = &defaults.run_timestamp {
        crate::timefmt::parse_run_timestamp_in(ts, timezone.as_ref()).map_err(|m| {
            LedgerError::new(ErrorKind::Invalid {
                setting: Setting::RunTimestamp,
                detail: format!(": {m}"),
                remedy: (timezone.is_none() && crate::timefmt::is_naive(ts))
                    .then_some(Remedy::Timezone),
            })
        })?;
    }
    defaults.timezone = timezone;
    let mut conn = db::open(db_path, true)?;
    for f in &files {
        progress.start(f);
        let s = ingest::ingest(
            &mut conn,
            f,
            &ingest::IngestOptions {
                format: command.input_format,
                defaults: &defaults,
                norm: &norm,
                rejects: rejects.as_deref(),
                columns: &columns,
                encoding: command.encoding.as_deref(),
                sheet: command.sheet.as_deref(),
                delimiter,
                quotes: command.quotes,
                progress,
                words,
            },
        );
        progress.finish();
        let s = s?;
        for n in &s.notices {
            let n = n.replace(
                urlkey_batch::input::OTHER_DELIMITER,
                &words.hint(Hint::OtherDelimiter),
            );
            writeln!(err, "note: {n}")?;
        }
        if !s.ignored_columns.is_empty() {
            writeln!(
                err,
                "note: {}: columns without a ledger field, kept in extra: {}",
                s.path,
                s.ignored_columns.join(", ")
            )?;
        }
        if !s.problems.is_empty() {
            writeln!(
                err,
                "note: {}: {} refused ({}), written to {}:{}",
                s.path,
                ingest::plural(s.rejected, "row"),
                ingest::plural(s.problem_count, "problem"),
                s.rejects.as_deref().unwrap_or("?"),
                ingest::list_problems(&s.problems, s.problem_count, words)
            )?;
        }
        writeln!(out, "{s}")?;
    }
    Ok(())
}

/// `report`: the measures, written in the format asked, to `out` or to a file.
fn report(
    command: ReportCommand,
    db_path: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<()> {
    let ReportCommand {
        options: mut opts,
        window,
        format,
        output,
    } = command;
    let conn = db::open(db_path, false)?;
    opts.windows = window
        .iter()
        .map(|w| report::TimeWindow::parse(w))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|m| LedgerError::invalid(Setting::Window, format!(" {m}")))?;
    if opts.windows.len() > 2 {
        return Err(LedgerError::new(ErrorKind::TooManyWindows {
            given: opts.windows.len(),
        }));
    }
    match output {
        Some(path) => write_to_file(&path, db_path, err, |w| {
            report::write(&conn, &opts, format, w)
        })?,
        None => report::write(&conn, &opts, format, out)?,
    }
    Ok(())
}

/// `verify`: the settings checked, then the keys fetched and their results recorded.
fn verify_keys(
    command: VerifyCommand,
    db_path: &Path,
    out: &mut dyn Write,
    words: &dyn Words,
) -> Result<()> {
    let VerifyCommand {
        limit,
        concurrency,
        per_host_delay,
        timeout,
        older_than,
        allow_private_network,
        allow_loopback,
        dry_run,
        max_variants,
        ca_cert,
    } = command;
    if max_variants == 0 {
        return Err(LedgerError::invalid(
            Setting::MaxVariants,
            " 0: give at least 1 (1 fetches the first observation's URL only)",
        ));
    }
    let extra_roots = match &ca_cert {
        None => Vec::new(),
        Some(p) => vec![std::fs::read(p).map_err(|e| {
            LedgerError::invalid(
                Setting::CaCert,
                format!(" {}: cannot read it: {e}", p.display()),
            )
            .with_source(e)
        })?],
    };
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 3600.0) {
        return Err(LedgerError::invalid(
            Setting::Timeout,
            format!(" {timeout}: give seconds between 0 and 3600, e.g. 10"),
        ));
    }
    if concurrency == 0 {
        return Err(LedgerError::invalid(
            Setting::Concurrency,
            " 0: give at least 1",
        ));
    }
    let older_than = older_than
        .map(|t| crate::timefmt::parse_duration(&t))
        .transpose()
        .map_err(|m| LedgerError::invalid(Setting::OlderThan, format!(": {m}")))?;
    let scope = if allow_private_network {
        NetworkScope::AnyPrivate
    } else if allow_loopback {
        NetworkScope::PublicAndLoopback
    } else {
        NetworkScope::Public
    };
    let opts = VerifyOptions {
        limit,
        concurrency,
        older_than,
        dry_run,
        max_variants,
        fetch: FetchConfig {
            timeout: Duration::from_secs_f64(timeout),
            per_host_delay: Duration::from_millis(per_host_delay),
            scope,
            extra_roots,
            ..verify::fetch::fetch_config()
        },
    };
    let mut conn = db::open(db_path, false)?;
    verify::run(&mut conn, &opts, out, words)?;
    Ok(())
}

/// `export`: every observation, to `out` or (through a temporary file) to `output`.
fn export_observations(
    format: ExportFormat,
    output: Option<PathBuf>,
    db_path: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<()> {
    let conn = db::open(db_path, false)?;
    match output {
        Some(path) => {
            urlkey_batch::outfile::check_outputs(
                &[path.as_path()],
                &[urlkey_batch::input::Source::File(db_path.to_path_buf())],
            )
            .map_err(|m| LedgerError::usage(m.replace("the input", "the ledger")))?;
            let failed = |e: std::io::Error| {
                LedgerError::output(format!(
                    "cannot write {}: {e}; check the path and the free space",
                    path.display()
                ))
            };
            let file = urlkey_batch::outfile::OutputFile::create(&path).map_err(failed)?;
            let mut w = std::io::BufWriter::new(file);
            let n = export::write(&conn, format, &mut w)?;
            w.into_inner()
                .map_err(|e| failed(e.into_error()))?
                .commit()
                .map_err(failed)?;
            writeln!(err, "{n} observations written to {}", path.display())?;
        }
        None => {
            export::write(&conn, format, out)?;
        }
    }
    Ok(())
}

/// Runs a review command.
fn run_review(command: ReviewCommand, db_path: &Path, out: &mut dyn Write) -> Result<()> {
    match command {
        ReviewCommand::Add(decision) => {
            let conn = db::open(db_path, false)?;
            let id = review::add(&conn, &decision)?;
            writeln!(out, "review {id} recorded")?;
        }
        ReviewCommand::Import { file } => {
            let mut conn = db::open(db_path, false)?;
            let n = review::import(&mut conn, &file)?;
            writeln!(out, "{n} reviews recorded from {}", file.display())?;
        }
        ReviewCommand::List { format } => {
            let conn = db::open(db_path, false)?;
            review::list(&conn, format, out)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// Records what the run tells it.
    #[derive(Default)]
    struct Recorder(RefCell<Vec<String>>);

    impl Progress for Recorder {
        fn start(&self, file: &Path) {
            let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
            self.0
                .borrow_mut()
                .push(format!("start {}", name.unwrap_or_default()));
        }
        fn advance(&self, phase: ingest::Phase, done: u64, total: u64) {
            let mut calls = self.0.borrow_mut();
            let line = format!("advance {phase:?}");
            if calls.last() != Some(&line) {
                calls.push(line);
            }
            assert!(done <= total.max(done));
        }
        fn finish(&self) {
            self.0.borrow_mut().push("finish".to_string());
        }
    }

    /// Each ingested file is started, advanced through both passes and finished, the
    /// refused one too; the caller's words reach the notes.
    #[test]
    fn the_caller_draws_each_file_and_words_the_notes() {
        struct Marked;
        impl Words for Marked {
            fn hint(&self, _: Hint) -> String {
                "MARK".to_string()
            }
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("l.sqlite");
        let header = "observation_id;observed_url;prompt_version;answer_system;market;\
                      run_timestamp;collection\n";
        let good = dir.path().join("a.csv");
        std::fs::write(
            &good,
            format!("{header}1;https://a.example/;v;s;m;2026-11-01;c\n"),
        )
        .expect("write");
        let command = |f: &Path| {
            LedgerCommand::Ingest(IngestCommand {
                files: vec![f.to_path_buf()],
                ..IngestCommand::default()
            })
        };
        let (rec, mut out, mut err) = (Recorder::default(), Vec::new(), Vec::new());
        run_with(command(&good), &db, &mut out, &mut err, &rec, &Marked).expect("ingest");
        assert_eq!(
            rec.0.borrow().as_slice(),
            ["start a.csv", "advance Check", "advance Store", "finish"]
        );
        let notes = String::from_utf8_lossy(&err);
        assert!(
            notes.contains("separated (detected from the header line; MARK)"),
            "{notes}"
        );

        let bad = dir.path().join("b.csv");
        std::fs::write(
            &bad,
            format!("{header}2;https://b.example/;v;s;m;yesterday;c\n"),
        )
        .expect("write");
        let rec = Recorder::default();
        let e =
            run_with(command(&bad), &db, &mut out, &mut err, &rec, &Marked).expect_err("refused");
        assert!(matches!(e.kind(), ErrorKind::RowsRefused { .. }), "{e:?}");
        assert_eq!(
            rec.0.borrow().first().map(String::as_str),
            Some("start b.csv")
        );
        assert_eq!(rec.0.borrow().last().map(String::as_str), Some("finish"));
    }
}
