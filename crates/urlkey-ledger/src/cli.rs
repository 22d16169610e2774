//! The `urlkey ledger` subcommand: arguments (clap derive) and [`run`].

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use crate::db;
use crate::error::{LedgerError, Result};
use crate::export::{self, ExportFormat};
use crate::ingest::{self, Defaults, InputFormat};
use crate::norm::Normalizer;
use crate::report::{self, GroupBy, ReportFormat, ReportOptions};
use crate::verify::{self, FetchConfig, NetworkScope, VerifyOptions};

/// `urlkey ledger [--db PATH] COMMAND`
#[derive(Args, Debug, Clone)]
#[command(after_help = "Examples:
  urlkey ledger --db citations.sqlite ingest export.csv
  urlkey ledger --db citations.sqlite report --by answer_system,market
  urlkey ledger --db citations.sqlite report --compare c-2026-11-01 c-2026-11-08
  urlkey ledger --db citations.sqlite report --format html -o report.html
  urlkey ledger --db citations.sqlite export -o ledger.csv
More: docs/ledger.md (ingest, report, verify, review, merges, export, exit codes).")]
pub struct LedgerArgs {
    /// The ledger database (SQLite). Created by `init` and `ingest`.
    #[arg(long, default_value = "urlkey-ledger.sqlite", global = true)]
    pub db: PathBuf,
    /// What to do.
    #[command(subcommand)]
    pub command: LedgerCommand,
}

/// The ledger's commands.
#[derive(Subcommand, Debug, Clone)]
// Parsed once per run: the size of the Ingest variant (its many flags) does not matter.
#[allow(clippy::large_enum_variant)]
pub enum LedgerCommand {
    /// Create the database (or bring its schema up to date).
    Init,
    /// Store the observations of CSV, TSV, JSONL or spreadsheet files (also .gz/.zst),
    /// one transaction per file.
    ///
    /// Columns: observation_id, prompt_id, prompt_version, answer_system, market,
    /// collection, run_timestamp, observed_url. Each observed URL is kept exactly as read
    /// and keyed with --policy; invalid URLs are stored with their error code.
    Ingest {
        /// The files: CSV, TSV, JSONL, spreadsheets (.xlsx, .xls, .ods), each also as .gz
        /// or .zst (format by content and extension); `-` reads standard input.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// The sheet of a spreadsheet to read: its name or a 1-based number (default: the
        /// first).
        #[arg(long, value_name = "NAME|N")]
        sheet: Option<String>,
        /// Which columns (JSONL fields) hold which ledger fields, when the header names
        /// them otherwise: 'observation_id=Observation ID,observed_url=URL'. Header names
        /// also match ignoring case, spaces and separators.
        #[arg(long, value_name = "FIELD=HEADER,...")]
        columns: Option<String>,
        /// The text encoding of inputs without a byte-order mark (a WHATWG label:
        /// windows-1252, iso-8859-1, utf-16le, shift_jis); default UTF-8.
        #[arg(long, value_name = "LABEL")]
        encoding: Option<String>,
        /// The normalization policy that makes the keys.
        #[arg(long, default_value = "citation@1")]
        policy: String,
        /// Read the files as this format instead of guessing.
        #[arg(long, value_enum)]
        input_format: Option<InputFormat>,
        /// answer_system for rows that have none.
        #[arg(long)]
        answer_system: Option<String>,
        /// prompt_version for rows that have none.
        #[arg(long)]
        prompt_version: Option<String>,
        /// market for rows that have none.
        #[arg(long)]
        market: Option<String>,
        /// run_timestamp (RFC 3339 or YYYY-MM-DD) for rows that have none.
        #[arg(long)]
        run_timestamp: Option<String>,
        /// Read run timestamps without Z or an offset (`2026-11-08 09:00:00`) as wall-clock
        /// time in this IANA zone (Europe/Paris, UTC). Without it they are refused.
        #[arg(long, value_name = "ZONE")]
        timezone: Option<String>,
        /// collection (the dated collection run) for rows that have none.
        #[arg(long)]
        collection: Option<String>,
        /// Store the good rows and write every refused row here (its cells, with `line`
        /// and `reason`). Without it a file with any bad row stores nothing.
        #[arg(long, value_name = "FILE")]
        rejects: Option<PathBuf>,
    },
    /// Count observations, valid observations, unique URL keys and unique publisher
    /// hostnames, with the top publishers' shares and the sample they describe.
    Report {
        /// Report each value of these columns separately: one column, or several joined
        /// with commas (`--by answer_system,market`: one group per pair of values).
        #[arg(long, value_enum, value_delimiter = ',', value_name = "COLUMN,...")]
        by: Vec<GroupBy>,
        /// What a publisher is: the key's hostname (seed 004's default), or its registrable
        /// domain from the Public Suffix List (docs.example.org and wiki.example.org both
        /// count as example.org).
        #[arg(long, value_enum, default_value = "host")]
        publisher: report::PublisherUnit,
        /// Compare two collections: per publisher and per URL key, the valid observations
        /// in each, the change, new and gone, with both samples.
        #[arg(long, num_args = 2, value_names = ["COLLECTION_A", "COLLECTION_B"])]
        compare: Option<Vec<String>>,
        /// Only observations run in this window: FROM..TO, both included (dates or RFC
        /// 3339 instants; a date as TO includes that day). Given twice (without --compare),
        /// the two windows are compared as --compare compares two collections.
        #[arg(long, value_name = "FROM..TO")]
        window: Vec<String>,
        /// Output format (html: one self-contained page with SVG charts; use -o FILE).
        #[arg(long, value_enum, default_value = "table")]
        format: ReportFormat,
        /// How many top publishers to list (0 = all).
        #[arg(long, default_value_t = 5)]
        top: usize,
        /// How many top URL keys to list (0 = all).
        #[arg(long, default_value_t = 5)]
        top_keys: usize,
        /// Only observations keyed with this policy (needed when the ledger holds several).
        #[arg(long)]
        policy: Option<String>,
        /// Write here (through a temporary file and a rename) instead of standard output.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Fetch the observed URLs of each unverified key (up to --max-variants distinct ones),
    /// compare their content, and record the result, hop by hop.
    Verify {
        /// Verify at most N keys.
        #[arg(long)]
        limit: Option<usize>,
        /// Keys verified at once.
        #[arg(long, default_value_t = 4)]
        concurrency: usize,
        /// Least milliseconds between two requests to the same host.
        #[arg(long, default_value_t = 1000)]
        per_host_delay: u64,
        /// Seconds allowed for each request, connection to last byte read.
        #[arg(long, default_value_t = 10.0)]
        timeout: f64,
        /// Also re-verify keys whose latest verification is older than this (30d, 12h, 90m).
        #[arg(long)]
        older_than: Option<String>,
        /// Allow loopback, private, shared, link-local and reserved targets.
        #[arg(long)]
        allow_private_network: bool,
        /// Allow loopback targets (127.0.0.0/8, ::1) only, e.g. a server on this machine.
        #[arg(long)]
        allow_loopback: bool,
        /// List the keys that would be verified; fetch nothing.
        #[arg(long)]
        dry_run: bool,
        /// Distinct observed URLs fetched per key, at most, for the content comparison
        /// (1: the first observation's only, as before schema 4).
        #[arg(long, default_value_t = verify::DEFAULT_MAX_VARIANTS, value_name = "N")]
        max_variants: usize,
        /// Also trust the PEM certificates in FILE (a private or test CA), beside the
        /// built-in roots.
        #[arg(long, value_name = "FILE")]
        ca_cert: Option<PathBuf>,
    },
    /// Record what people decide (source role, claim support, merge), list the decisions.
    Review {
        /// add, import or list.
        #[command(subcommand)]
        command: crate::review_cli::ReviewCommand,
    },
    /// List the keys with more than one distinct observed URL, merges to review first.
    Merges {
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: crate::review::ListFormat,
    },
    /// Write every observation with the latest verification of its key.
    Export {
        /// Output format.
        #[arg(long, value_enum, default_value = "csv")]
        format: ExportFormat,
        /// Write here instead of standard output.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

/// The ingest progress bar: on standard error when it is a terminal, as `urlkey map`'s.
fn ingest_bar(path: &std::path::Path) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let style = indicatif::ProgressStyle::with_template(
        "{prefix}{msg} {bar:30} {bytes}/{total_bytes} {elapsed}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    let bar = indicatif::ProgressBar::new(0).with_style(style);
    bar.set_prefix(format!("ingest {}: ", path.display()));
    Some(bar)
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
    .map_err(|m| LedgerError::Usage(m.replace("the input", "the ledger")))?;
    let failed = |e: std::io::Error| {
        LedgerError::Output(format!(
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

/// Runs a ledger command, writing results to standard output and notes to standard error.
pub fn run(args: LedgerArgs) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    match run_with(args, &mut out, &mut err) {
        Err(LedgerError::OutputClosed) => Ok(()),
        other => other,
    }
}

/// [`run`], with the output streams given (for tests and embedding).
pub fn run_with(args: LedgerArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<()> {
    match args.command {
        LedgerCommand::Init => {
            let conn = db::open(&args.db, true)?;
            let v = db::user_version(&conn)?;
            writeln!(
                out,
                "ledger ready: {} (schema version {v})",
                args.db.display()
            )?;
        }
        LedgerCommand::Ingest {
            files,
            policy,
            input_format,
            answer_system,
            prompt_version,
            market,
            run_timestamp,
            timezone,
            collection,
            rejects,
            columns,
            encoding,
            sheet,
        } => {
            let columns = ingest::ColumnMap::parse(columns.as_deref().unwrap_or(""))
                .map_err(|m| LedgerError::Usage(format!("--columns: {m}")))?;
            if let Some(l) = &encoding {
                if urlkey_batch::input::encoding_for_label(l).is_none() {
                    return Err(LedgerError::Usage(format!(
                        "--encoding {l:?} is not an encoding label: use e.g. utf-8, utf-16le, \
                         windows-1252, iso-8859-1"
                    )));
                }
            }
            if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
                return Err(LedgerError::Usage(
                    "standard input (-) can be read once per command".to_string(),
                ));
            }
            let timezone = timezone
                .map(|z| crate::timefmt::time_zone(&z))
                .transpose()
                .map_err(|m| LedgerError::Usage(format!("--timezone: {m}")))?;
            if let Some(r) = &rejects {
                if files.len() > 1 {
                    return Err(LedgerError::Usage(format!(
                        "--rejects {} with {} input files: give one file per ingest when \
                         setting refused rows aside, so that each rejects file matches its input",
                        r.display(),
                        files.len()
                    )));
                }
                let mut inputs: Vec<urlkey_batch::input::Source> = files
                    .iter()
                    .map(|f| urlkey_batch::input::Source::from_arg(&f.to_string_lossy()))
                    .collect();
                inputs.push(urlkey_batch::input::Source::File(args.db.clone()));
                urlkey_batch::outfile::check_outputs(&[r.as_path()], &inputs)
                    .map_err(|m| LedgerError::Usage(format!("--rejects: {m}")))?;
            }
            let norm = Normalizer::new(&policy).map_err(LedgerError::Policy)?;
            if let Some(ts) = &run_timestamp {
                crate::timefmt::parse_run_timestamp_in(ts, timezone.as_ref())
                    .map_err(|m| LedgerError::Usage(format!("--run-timestamp: {m}")))?;
            }
            let defaults = Defaults {
                answer_system,
                prompt_version,
                market,
                run_timestamp,
                collection,
                timezone,
            };
            let mut conn = db::open(&args.db, true)?;
            for f in &files {
                let bar = ingest_bar(f);
                let progress = |phase: ingest::Phase, done: u64, total: u64| {
                    if let Some(b) = &bar {
                        // Standard input and a decompressed stream have no known size.
                        b.set_length(total.max(done));
                        b.set_position(done);
                        b.set_message(match phase {
                            ingest::Phase::Check => "checking",
                            ingest::Phase::Store => "storing",
                        });
                    }
                };
                let s = ingest::ingest(
                    &mut conn,
                    f,
                    &ingest::IngestOptions {
                        format: input_format,
                        defaults: &defaults,
                        norm: &norm,
                        rejects: rejects.as_deref(),
                        columns: &columns,
                        encoding: encoding.as_deref(),
                        sheet: sheet.as_deref(),
                        progress: &progress,
                    },
                )?;
                if let Some(b) = bar {
                    b.finish_and_clear();
                }
                for n in &s.notices {
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
                        ingest::list_problems(&s.problems, s.problem_count)
                    )?;
                }
                writeln!(out, "{s}")?;
            }
        }
        LedgerCommand::Report {
            by,
            publisher,
            compare,
            window,
            format,
            top,
            top_keys,
            policy,
            output,
        } => {
            let conn = db::open(&args.db, false)?;
            let compare = compare.map(|v| {
                let mut v = v.into_iter();
                (v.next().unwrap_or_default(), v.next().unwrap_or_default())
            });
            let windows = window
                .iter()
                .map(|w| report::TimeWindow::parse(w))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|m| LedgerError::Usage(format!("--window {m}")))?;
            if windows.len() > 2 {
                return Err(LedgerError::Usage(format!(
                    "--window given {} times: give one (a filter) or two (compared)",
                    windows.len()
                )));
            }
            let opts = ReportOptions {
                by,
                top,
                top_keys,
                policy,
                publisher,
                compare,
                windows,
            };
            match output {
                Some(path) => write_to_file(&path, &args.db, err, |w| {
                    report::write(&conn, &opts, format, w)
                })?,
                None => report::write(&conn, &opts, format, out)?,
            }
        }
        LedgerCommand::Verify {
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
        } => {
            if max_variants == 0 {
                return Err(LedgerError::Usage(
                    "--max-variants 0: give at least 1 (1 fetches the first observation's URL \
                     only)"
                        .to_string(),
                ));
            }
            let extra_roots = match &ca_cert {
                None => Vec::new(),
                Some(p) => vec![std::fs::read(p).map_err(|e| {
                    LedgerError::Usage(format!("--ca-cert {}: cannot read it: {e}", p.display()))
                })?],
            };
            if !(timeout.is_finite() && timeout > 0.0 && timeout <= 3600.0) {
                return Err(LedgerError::Usage(format!(
                    "--timeout {timeout}: give seconds between 0 and 3600, e.g. --timeout 10"
                )));
            }
            if concurrency == 0 {
                return Err(LedgerError::Usage(
                    "--concurrency 0: give at least 1".to_string(),
                ));
            }
            let older_than = older_than
                .map(|t| crate::timefmt::parse_duration(&t))
                .transpose()
                .map_err(|m| LedgerError::Usage(format!("--older-than: {m}")))?;
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
                    ..FetchConfig::default()
                },
            };
            let mut conn = db::open(&args.db, false)?;
            verify::run(&mut conn, &opts, out)?;
        }
        LedgerCommand::Review { command } => crate::review_cli::run(&args.db, command, out)?,
        LedgerCommand::Merges { format } => {
            let conn = db::open(&args.db, false)?;
            crate::review::write_merges(&conn, format, out)?;
        }
        LedgerCommand::Export { format, output } => {
            let conn = db::open(&args.db, false)?;
            let n = match output {
                Some(path) => {
                    urlkey_batch::outfile::check_outputs(
                        &[path.as_path()],
                        &[urlkey_batch::input::Source::File(args.db.clone())],
                    )
                    .map_err(|m| LedgerError::Usage(m.replace("the input", "the ledger")))?;
                    let failed = |e: std::io::Error| {
                        LedgerError::Output(format!(
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
                    n
                }
                None => export::write(&conn, format, out)?,
            };
            let _ = n;
        }
    }
    Ok(())
}
