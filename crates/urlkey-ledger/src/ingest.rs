//! `ledger ingest`: read a CSV, TSV or JSONL file of citation observations, key each
//! observed URL with a policy and store every row, invalid ones included, in one
//! transaction per file.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::error::{LedgerError, Result};
use crate::norm::Normalizer;
use crate::timefmt;

/// The input columns (CSV header names, JSONL field names), as seed 004 names them.
pub const INPUT_FIELDS: [&str; 9] = [
    "observation_id",
    "prompt_id",
    "prompt_version",
    "answer_system",
    "market",
    "collection",
    "run_timestamp",
    "observed_url",
    "claim",
];

/// The format of an input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    /// Comma-separated, with a header row.
    Csv,
    /// Tab-separated, with a header row.
    Tsv,
    /// One JSON object per line.
    Jsonl,
}

impl InputFormat {
    /// `csv`, `tsv` or `jsonl`.
    pub fn as_str(self) -> &'static str {
        match self {
            InputFormat::Csv => "csv",
            InputFormat::Tsv => "tsv",
            InputFormat::Jsonl => "jsonl",
        }
    }
}

/// Values used where a row has none (the column is absent or the cell empty).
/// A value in the file always wins over these.
#[derive(Debug, Clone, Default)]
pub struct Defaults {
    /// `--answer-system`
    pub answer_system: Option<String>,
    /// `--prompt-version`
    pub prompt_version: Option<String>,
    /// `--market`
    pub market: Option<String>,
    /// `--run-timestamp`
    pub run_timestamp: Option<String>,
    /// `--collection`
    pub collection: Option<String>,
    /// `--timezone`: the zone of naive run timestamps (none: they are refused).
    pub timezone: Option<jiff::tz::TimeZone>,
}

/// What one ingest did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestSummary {
    /// The file as named on the command line.
    pub path: String,
    /// The format it was read as.
    pub format: InputFormat,
    /// The policy that keyed it.
    pub policy: String,
    /// Data rows read.
    pub rows_read: usize,
    /// New observations stored.
    pub added: usize,
    /// Rows already in the ledger with the same content (nothing written for them).
    pub unchanged: usize,
    /// Of the added rows, those whose URL is invalid (stored with their error code).
    pub invalid_added: usize,
    /// Rows refused (set aside in the rejects file when one was given).
    pub rejected: usize,
    /// Every problem found, by line (a rejected row may have several).
    pub problems: Vec<Problem>,
    /// The rejects file written, if any.
    pub rejects: Option<String>,
    /// What the reader noticed about the input (a detected delimiter, an empty file).
    pub notices: Vec<String>,
    /// Columns or fields the ledger does not read.
    pub ignored_columns: Vec<String>,
}

/// One problem of one row: its line, the column (when one is to blame) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The physical line where the row starts.
    pub line: u64,
    /// The column to blame, if one is.
    pub column: Option<String>,
    /// What is wrong and what to do.
    pub reason: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.column {
            Some(c) => write!(f, "line {}, column {c}: {}", self.line, self.reason),
            None => write!(f, "line {}: {}", self.line, self.reason),
        }
    }
}

/// `1 problem`, `2 problems`.
pub fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// How many problems a listing shows before it gives only their count.
pub const PROBLEMS_LISTED: usize = 100;

/// The problems, one a line, the first [`PROBLEMS_LISTED`] then a count of the others.
pub fn list_problems(problems: &[Problem]) -> String {
    let mut out = String::new();
    for p in problems.iter().take(PROBLEMS_LISTED) {
        out.push_str("\n  ");
        out.push_str(&p.to_string());
    }
    if problems.len() > PROBLEMS_LISTED {
        out.push_str(&format!(
            "\n  ... and {} more problems",
            problems.len() - PROBLEMS_LISTED
        ));
    }
    out
}

impl IngestSummary {
    /// True when nothing was written.
    pub fn is_noop(&self) -> bool {
        self.added == 0
    }
}

impl fmt::Display for IngestSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rejected > 0 || self.rejects.is_some() {
            return write!(
                f,
                "{}: {} rows read ({}, keyed with {}) = {} stored ({} of them with an invalid \
                 URL, stored with its error code) + {} already in the ledger + {} rejected{}",
                self.path,
                self.rows_read,
                self.format.as_str(),
                self.policy,
                self.added,
                self.invalid_added,
                self.unchanged,
                self.rejected,
                match &self.rejects {
                    Some(r) => format!(" (written to {r})"),
                    None => String::new(),
                }
            );
        }
        if self.is_noop() {
            write!(
                f,
                "{}: {} rows read ({}), all {} already in the ledger with identical content: \
                 nothing written",
                self.path,
                self.rows_read,
                self.format.as_str(),
                self.unchanged
            )
        } else {
            write!(
                f,
                "{}: {} rows read ({}, keyed with {}): {} observations added ({} of them with an \
                 invalid URL, stored with its error code), {} already in the ledger",
                self.path,
                self.rows_read,
                self.format.as_str(),
                self.policy,
                self.added,
                self.invalid_added,
                self.unchanged
            )
        }
    }
}

/// One observation as read from a file, defaults applied.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    line: u64,
    observation_id: String,
    prompt_id: Option<String>,
    prompt_version: String,
    answer_system: String,
    market: String,
    collection: Option<String>,
    run_timestamp: String,
    run_at: String,
    observed_url: String,
    /// The answer text that cited the URL.
    claim: Option<String>,
    /// Every other column, a JSON object.
    extra: String,
    /// The row's cells as read, for the rejects file.
    cells: Vec<String>,
}

/// A row's fields before defaults: `None` for a missing column or an empty cell.
#[derive(Debug, Default)]
struct RawRow {
    line: u64,
    fields: HashMap<&'static str, String>,
    /// `Some` when the row has an `observed_url` (possibly empty).
    observed_url: Option<String>,
    /// The row's cells as read (a JSONL row: its line), for the rejects file.
    cells: Vec<String>,
    /// Problems found while reading the row (its shape, its encoding).
    problems: Vec<Problem>,
    /// The columns the ledger has no field for, kept as they are in `extra`.
    extra: serde_json::Map<String, serde_json::Value>,
}

/// A file as read: its header (empty for JSONL), rows, and the columns not read.
struct Table {
    header: Vec<String>,
    rows: Vec<RawRow>,
    ignored: Vec<String>,
    delimiter: u8,
    /// What the reader noticed (a detected delimiter, an empty file).
    notices: Vec<String>,
}

/// How to ingest a file.
pub struct IngestOptions<'a> {
    /// The format, instead of guessing it.
    pub format: Option<InputFormat>,
    /// Values for rows that have none.
    pub defaults: &'a Defaults,
    /// The policy that makes the keys.
    pub norm: &'a Normalizer,
    /// Store the good rows and write the refused ones here (else: all or nothing).
    pub rejects: Option<&'a Path>,
    /// `--columns`: which input columns hold which fields.
    pub columns: &'a ColumnMap,
    /// `--encoding`: the text encoding of an input without a byte-order mark.
    pub encoding: Option<&'a str>,
    /// `progress(rows done, rows in the file)`.
    pub progress: &'a dyn Fn(u64, u64),
}

/// Reads `path` and stores its observations in one transaction. A conflicting row (an
/// `observation_id` already stored with other content) aborts the whole file.
pub fn ingest_file(
    conn: &mut Connection,
    path: &Path,
    format: Option<InputFormat>,
    defaults: &Defaults,
    norm: &Normalizer,
) -> Result<IngestSummary> {
    ingest_file_with_progress(conn, path, format, defaults, norm, &|_, _| {})
}

/// [`ingest_file`], calling `progress(rows stored or compared, rows in the file)` as it goes
/// (every 1,024 rows and at the end), for a progress bar.
pub fn ingest_file_with_progress(
    conn: &mut Connection,
    path: &Path,
    format: Option<InputFormat>,
    defaults: &Defaults,
    norm: &Normalizer,
    progress: &dyn Fn(u64, u64),
) -> Result<IngestSummary> {
    ingest(
        conn,
        path,
        &IngestOptions {
            format,
            defaults,
            norm,
            rejects: None,
            columns: &ColumnMap::default(),
            encoding: None,
            progress,
        },
    )
}

/// Reads `path`, finds every problem of every row in one pass, and stores the good rows in
/// one transaction. Without `opts.rejects` a single problem stores nothing (the error lists
/// them all); with it, the good rows are stored and the refused ones written to that file
/// (atomically), so that rows read = stored + already present + rejected.
pub fn ingest(
    conn: &mut Connection,
    path: &Path,
    opts: &IngestOptions<'_>,
) -> Result<IngestSummary> {
    let norm = opts.norm;
    let stdin = path == Path::new("-");
    let shown = if stdin {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    };
    let bytes = if stdin {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut b)
            .map_err(|e| LedgerError::Input(format!("cannot read standard input: {e}")))?;
        b
    } else {
        std::fs::read(path).map_err(|e| {
            LedgerError::Input(format!(
                "cannot read {shown}: {e}; check the path and its permissions"
            ))
        })?
    };
    if let Some(kind) = spreadsheet_kind(path, &bytes) {
        return Err(LedgerError::Input(format!(
            "{shown} is a spreadsheet ({kind}); ledger ingest reads CSV, TSV and JSONL: save \
             the sheet as CSV (UTF-8) and ingest that"
        )));
    }
    let utf16 = bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF");
    if opts.encoding.is_none() && !utf16 {
        if let Err(e) = std::str::from_utf8(&bytes) {
            // Caught here for the whole file: the shared reader would show the bytes as
            // \xNN escapes, and the ledger stores observed URLs exactly.
            let at = e.valid_up_to();
            let line = 1 + memchr_count(b'\n', &bytes[..at]);
            return Err(LedgerError::Input(format!(
                "{shown} line {line}: not valid UTF-8 (byte {at}); the file is in another \
                 encoding: pass --encoding LABEL (e.g. --encoding windows-1252 for an export \
                 from Excel on Windows), or save it as UTF-8; nothing from {shown} was written"
            )));
        }
    }
    let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes));
    let format = opts
        .format
        .unwrap_or_else(|| detect_format(path, &sniff_text(&bytes)));
    let rs = ReadSettings {
        shown: &shown,
        columns: opts.columns,
        encoding: opts.encoding,
    };
    let table = match format {
        InputFormat::Csv => read_delimited(bytes, b',', &rs)?,
        InputFormat::Tsv => read_delimited(bytes, b'\t', &rs)?,
        InputFormat::Jsonl => read_jsonl(bytes, &rs)?,
    };
    let rows_read = table.rows.len();
    let mut problems: Vec<Problem> = Vec::new();
    let mut rejected: Vec<(u64, Vec<String>, String)> = Vec::new();
    let mut reject =
        |line: u64, cells: Vec<String>, ps: Vec<Problem>, problems: &mut Vec<Problem>| {
            let reason = ps
                .iter()
                .map(|p| match &p.column {
                    Some(c) => format!("{c}: {}", p.reason),
                    None => p.reason.clone(),
                })
                .collect::<Vec<_>>()
                .join("; ");
            rejected.push((line, cells, reason));
            problems.extend(ps);
        };
    let mut rows = Vec::with_capacity(table.rows.len());
    for raw in table.rows {
        if !raw.problems.is_empty() {
            let (line, cells, ps) = (raw.line, raw.cells, raw.problems);
            reject(line, cells, ps, &mut problems);
            continue;
        }
        match complete_row(raw, opts.defaults) {
            Ok(row) => rows.push(row),
            Err((line, cells, ps)) => reject(line, cells, ps, &mut problems),
        }
    }

    // Another writer may hold the write lock for longer than the busy timeout (an ingest
    // of a large file takes that long): wait for it, up to WRITE_LOCK_WAIT, rather than
    // fail with "database is locked". Once the lock is ours, the usual timeout is back.
    conn.busy_timeout(crate::db::WRITE_LOCK_WAIT)
        .map_err(|e| LedgerError::db("cannot set the busy timeout", e))?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| LedgerError::db("cannot start the ingest transaction", e))?;
    tx.busy_timeout(crate::db::BUSY_TIMEOUT)
        .map_err(|e| LedgerError::db("cannot set the busy timeout", e))?;
    tx.execute(
        "INSERT INTO ingests (source_path, source_xxh3_128, input_format, \
         normalization_policy_version, ingested_at, tool_version, rows_read, rows_added, \
         rows_unchanged) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, 0)",
        params![
            shown,
            hash,
            format.as_str(),
            norm.id(),
            timefmt::now_millis(),
            env!("CARGO_PKG_VERSION"),
            rows_read as i64
        ],
    )
    .map_err(|e| LedgerError::db("cannot record the ingest", e))?;
    let ingest_id = tx.last_insert_rowid();

    let mut summary = IngestSummary {
        path: shown.clone(),
        format,
        policy: norm.id().to_string(),
        rows_read,
        added: 0,
        unchanged: 0,
        invalid_added: 0,
        rejected: 0,
        problems: Vec::new(),
        rejects: None,
        notices: table.notices,
        ignored_columns: table.ignored,
    };
    {
        let mut find = tx
            .prepare(
                "SELECT o.prompt_id, o.prompt_version, o.answer_system, o.market, o.collection, \
                 o.run_timestamp, o.run_at, o.observed_url, o.normalization_policy_version, \
                 o.ingest_id, o.source_line, i.source_path, o.claim, o.extra \
                 FROM observations o JOIN ingests i USING (ingest_id) WHERE o.observation_id = ?1",
            )
            .map_err(|e| LedgerError::db("cannot prepare the lookup", e))?;
        let mut insert = tx
            .prepare(
                "INSERT INTO observations (observation_id, prompt_id, prompt_version, \
                 answer_system, market, collection, run_timestamp, run_at, observed_url, \
                 normalization_policy_version, normalized_key, canonical_form, \
                 publisher_hostname, transformations, removed_params, error_code, \
                 error_message, ingest_id, source_line, claim, extra) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, \
                 ?16, ?17, ?18, ?19, ?20, ?21)",
            )
            .map_err(|e| LedgerError::db("cannot prepare the insert", e))?;
        let total = rows.len() as u64;
        for (done, row) in rows.into_iter().enumerate() {
            if done % 1024 == 0 {
                (opts.progress)(done as u64, total);
            }
            let existing = find
                .query_row([&row.observation_id], |r| {
                    Ok(Stored {
                        prompt_id: r.get(0)?,
                        prompt_version: r.get(1)?,
                        answer_system: r.get(2)?,
                        market: r.get(3)?,
                        collection: r.get(4)?,
                        run_timestamp: r.get(5)?,
                        run_at: r.get(6)?,
                        observed_url: r.get(7)?,
                        policy: r.get(8)?,
                        ingest_id: r.get(9)?,
                        source_line: r.get(10)?,
                        source_path: r.get(11)?,
                        claim: r.get(12)?,
                        extra: r.get(13)?,
                    })
                })
                .optional()
                .map_err(|e| LedgerError::db("cannot look up an observation", e))?;
            if let Some(stored) = existing {
                let diffs = stored.differences(&row, norm.id());
                if diffs.is_empty() {
                    summary.unchanged += 1;
                    continue;
                }
                let origin = if stored.ingest_id == ingest_id {
                    format!("first seen at line {} of this file", stored.source_line)
                } else {
                    format!(
                        "ingested earlier from {} line {}",
                        stored.source_path, stored.source_line
                    )
                };
                let p = Problem {
                    line: row.line,
                    column: Some("observation_id".to_string()),
                    reason: format!(
                        "observation_id {:?} is already in the ledger ({origin}) with different \
                         content: {}. An observation_id names one dated observation: give this \
                         row a new observation_id, or correct it to match",
                        row.observation_id,
                        diffs.join("; ")
                    ),
                };
                reject(row.line, row.cells, vec![p], &mut problems);
                continue;
            }
            let n = norm.normalize(&row.observed_url);
            insert
                .execute(params![
                    row.observation_id,
                    row.prompt_id,
                    row.prompt_version,
                    row.answer_system,
                    row.market,
                    row.collection,
                    row.run_timestamp,
                    row.run_at,
                    row.observed_url,
                    norm.id(),
                    n.key,
                    n.canonical,
                    n.host,
                    n.transformations_json,
                    n.removed_params_json,
                    n.error_code,
                    n.error_message,
                    ingest_id,
                    row.line as i64,
                    row.claim,
                    row.extra,
                ])
                .map_err(|e| {
                    LedgerError::db(&format!("cannot store {shown} line {}", row.line), e)
                })?;
            summary.added += 1;
            if n.key.is_none() {
                summary.invalid_added += 1;
            }
        }
        (opts.progress)(total, total);
    }
    problems.sort_by_key(|p| p.line);
    rejected.sort_by_key(|r| r.0);
    summary.rejected = rejected.len();
    if !problems.is_empty() && opts.rejects.is_none() {
        // All or nothing: the transaction is dropped (rolled back) with the error.
        return Err(LedgerError::Input(format!(
            "{shown}: {} of {} rows cannot be stored ({}); nothing from {shown} was \
             written:{}\nFix these rows and ingest the file again, or pass --rejects FILE to \
             store the good rows and write these to FILE",
            summary.rejected,
            rows_read,
            plural(problems.len(), "problem"),
            list_problems(&problems)
        )));
    }
    // The rejects file is complete in its temporary file before the rows are committed,
    // and renamed into place after: a failure before the commit leaves both untouched.
    let pending = match opts.rejects {
        Some(r) => Some(write_rejects(
            r,
            format,
            &table.header,
            table.delimiter,
            &rejected,
        )?),
        None => None,
    };
    summary.problems = problems;
    if summary.added == 0 {
        // Nothing new: leave no trace, not even the ingest record.
        tx.rollback()
            .map_err(|e| LedgerError::db("cannot end the ingest transaction", e))?;
    } else {
        tx.execute(
            "UPDATE ingests SET rows_added = ?1, rows_unchanged = ?2 WHERE ingest_id = ?3",
            params![summary.added as i64, summary.unchanged as i64, ingest_id],
        )
        .map_err(|e| LedgerError::db("cannot record the ingest counts", e))?;
        tx.commit()
            .map_err(|e| LedgerError::db("cannot commit the ingest", e))?;
    }
    if let (Some(file), Some(r)) = (pending, opts.rejects) {
        file.commit().map_err(|e| {
            LedgerError::Output(format!(
                "cannot write the rejects file {}: {e}; the {} good rows of {shown} were stored: \
                 ingest {shown} again with --rejects naming a writable file to get the refused \
                 rows (stored rows count as already present)",
                r.display(),
                summary.added
            ))
        })?;
        summary.rejects = Some(r.display().to_string());
    }
    Ok(summary)
}

/// Writes the refused rows to a temporary file beside `path` (committed by the caller):
/// CSV/TSV with `line`, `reason` and then the input's own columns; JSONL objects with
/// `line` and `reason` first, then the row's own fields.
fn write_rejects(
    path: &Path,
    format: InputFormat,
    header: &[String],
    delimiter: u8,
    rejected: &[(u64, Vec<String>, String)],
) -> Result<urlkey_batch::outfile::OutputFile> {
    let failed = |e: std::io::Error| {
        LedgerError::Output(format!(
            "cannot write the rejects file {}: {e}; check the path and the free space (nothing \
             was stored)",
            path.display()
        ))
    };
    let file = urlkey_batch::outfile::OutputFile::create(path).map_err(failed)?;
    let mut w = std::io::BufWriter::new(file);
    match format {
        InputFormat::Jsonl => {
            use std::io::Write;
            for (line, cells, reason) in rejected {
                let raw = cells.first().map(String::as_str).unwrap_or("");
                let head = format!(
                    "{{\"line\":{line},\"reason\":{}",
                    serde_json::Value::String(reason.clone())
                );
                let text = match serde_json::from_str::<serde_json::Value>(raw) {
                    Ok(serde_json::Value::Object(m)) if m.is_empty() => format!("{head}}}"),
                    Ok(serde_json::Value::Object(_)) => {
                        let inner = raw.trim().strip_prefix('{').unwrap_or(raw);
                        format!("{head},{inner}")
                    }
                    _ => format!(
                        "{head},\"text\":{}}}",
                        serde_json::Value::String(raw.to_string())
                    ),
                };
                writeln!(w, "{text}").map_err(failed)?;
            }
        }
        InputFormat::Csv | InputFormat::Tsv => {
            let mut c = csv::WriterBuilder::new()
                .delimiter(delimiter)
                .flexible(true)
                .from_writer(&mut w);
            let mut head = vec!["line".to_string(), "reason".to_string()];
            head.extend(header.iter().cloned());
            c.write_record(&head).map_err(|e| failed(e.into()))?;
            for (line, cells, reason) in rejected {
                let mut rec = vec![line.to_string(), reason.clone()];
                rec.extend(cells.iter().cloned());
                c.write_record(&rec).map_err(|e| failed(e.into()))?;
            }
            c.flush().map_err(failed)?;
        }
    }
    w.into_inner().map_err(|e| failed(e.into_error()))
}

struct Stored {
    prompt_id: Option<String>,
    prompt_version: String,
    answer_system: String,
    market: String,
    collection: Option<String>,
    run_timestamp: String,
    run_at: String,
    observed_url: String,
    policy: String,
    ingest_id: i64,
    source_line: i64,
    source_path: String,
    claim: Option<String>,
    /// NULL for a row stored before the ledger kept claims and other columns (schema 1):
    /// then neither is compared.
    extra: Option<String>,
}

impl Stored {
    fn differences(&self, row: &Row, policy: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cmp = |name: &str, ledger: Option<&str>, file: Option<&str>| {
            if ledger != file {
                out.push(format!(
                    "{name}: ledger has {}, file has {}",
                    show(ledger),
                    show(file)
                ));
            }
        };
        cmp(
            "prompt_id",
            self.prompt_id.as_deref(),
            row.prompt_id.as_deref(),
        );
        cmp(
            "prompt_version",
            Some(&self.prompt_version),
            Some(&row.prompt_version),
        );
        cmp(
            "answer_system",
            Some(&self.answer_system),
            Some(&row.answer_system),
        );
        cmp("market", Some(&self.market), Some(&row.market));
        cmp(
            "collection",
            self.collection.as_deref(),
            row.collection.as_deref(),
        );
        cmp(
            "run_timestamp",
            Some(&self.run_timestamp),
            Some(&row.run_timestamp),
        );
        if self.run_timestamp == row.run_timestamp && self.run_at != row.run_at {
            cmp(
                "run_timestamp read as UTC",
                Some(&self.run_at),
                Some(&row.run_at),
            );
        }
        cmp(
            "observed_url",
            Some(&self.observed_url),
            Some(&row.observed_url),
        );
        cmp("normalization policy", Some(&self.policy), Some(policy));
        if let Some(extra) = &self.extra {
            cmp("claim", self.claim.as_deref(), row.claim.as_deref());
            let same = serde_json::from_str::<serde_json::Value>(extra).ok()
                == serde_json::from_str::<serde_json::Value>(&row.extra).ok();
            if !same {
                cmp("extra", Some(extra), Some(&row.extra));
            }
        }
        out
    }
}

fn show(v: Option<&str>) -> String {
    match v {
        None => "nothing".to_string(),
        Some(s) if s.chars().count() > 160 => {
            let cut: String = s.chars().take(160).collect();
            format!("{cut:?}...")
        }
        Some(s) => format!("{s:?}"),
    }
}

/// By extension (`.csv`, `.tsv`, `.jsonl`, `.ndjson`, `.json`), else by content: a first
/// non-blank byte `{` is JSONL, a header with tabs and no commas is TSV, anything else CSV.
pub fn detect_format(path: &Path, bytes: &[u8]) -> InputFormat {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("csv") => return InputFormat::Csv,
        Some("tsv") | Some("tab") => return InputFormat::Tsv,
        Some("jsonl") | Some("ndjson") | Some("json") => return InputFormat::Jsonl,
        _ => {}
    }
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'{') {
        return InputFormat::Jsonl;
    }
    let header = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    if header.contains(&b'\t') && !header.contains(&b',') {
        InputFormat::Tsv
    } else {
        InputFormat::Csv
    }
}

fn memchr_count(b: u8, hay: &[u8]) -> usize {
    hay.iter().filter(|&&c| c == b).count()
}

/// The first 64 KiB as text for sniffing: a UTF-8 byte-order mark removed, UTF-16 (a
/// byte-order mark) narrowed to its ASCII bytes.
fn sniff_text(bytes: &[u8]) -> Vec<u8> {
    let head = &bytes[..bytes.len().min(64 * 1024)];
    if head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF") {
        head[2..].iter().copied().filter(|&b| b != 0).collect()
    } else {
        head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head).to_vec()
    }
}

/// `Some(kind)` when the input is a spreadsheet, by extension or by its first bytes.
fn spreadsheet_kind(path: &Path, bytes: &[u8]) -> Option<&'static str> {
    if let Some(urlkey_batch::input::InputFormat::Sheet) =
        urlkey_batch::input::format_from_name(path)
    {
        return Some("by its extension");
    }
    if bytes.starts_with(b"PK\x03\x04") {
        Some("a zip file: .xlsx or .ods")
    } else if bytes.starts_with(b"\xD0\xCF\x11\xE0") {
        Some("an OLE file: .xls")
    } else {
        None
    }
}

fn field_name(name: &str) -> Option<&'static str> {
    INPUT_FIELDS.iter().copied().find(|f| *f == name)
}

type ReadResult = Result<Table>;

/// `--columns 'observation_id=Observation ID,observed_url=URL'`: which input column (or
/// JSONL field) holds which ledger field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnMap(Vec<(&'static str, String)>);

impl ColumnMap {
    /// Parses `field=Header,field=Header`; the fields are the ledger's input fields.
    pub fn parse(text: &str) -> std::result::Result<ColumnMap, String> {
        let mut out: Vec<(&'static str, String)> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((field, header)) = part.split_once('=') else {
                return Err(format!(
                    "{part:?} is not FIELD=HEADER: write e.g. --columns \
                     'observation_id=Observation ID,observed_url=URL'"
                ));
            };
            let Some(f) = field_name(field.trim()) else {
                return Err(format!(
                    "{:?} is not a ledger field; the fields are {}",
                    field.trim(),
                    INPUT_FIELDS.join(", ")
                ));
            };
            if out.iter().any(|(g, _)| *g == f) {
                return Err(format!("{f} is mapped twice: keep one"));
            }
            out.push((f, header.trim().to_string()));
        }
        Ok(ColumnMap(out))
    }

    /// The ledger field an input column or JSONL key stands for: a `--columns` mapping
    /// (the header name exactly, else ignoring case and separators), else the field's own
    /// name ignoring case and separators (`Observation ID` = `observation_id`), unless
    /// `--columns` maps that field to another column.
    pub fn field_for(&self, name: &str) -> Option<&'static str> {
        let name = name.trim();
        if let Some((f, _)) = self.0.iter().find(|(_, h)| h == name) {
            return Some(f);
        }
        let sq = squash(name);
        if let Some((f, _)) = self.0.iter().find(|(_, h)| squash(h) == sq) {
            return Some(f);
        }
        INPUT_FIELDS
            .iter()
            .copied()
            .find(|f| squash(f) == sq && !self.0.iter().any(|(g, _)| g == f))
    }

    /// The mapped header names that `header` lacks.
    fn missing(&self, header: &[String]) -> Vec<String> {
        self.0
            .iter()
            .filter(|(f, _)| !header.iter().any(|h| self.field_for(h) == Some(f)))
            .map(|(f, h)| format!("{f}={h}"))
            .collect()
    }
}

/// Lowercase letters and digits only: `Observation ID`, `observation-id` and
/// `observation_id` are one name.
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// How the shared reader is to read the file.
struct ReadSettings<'a> {
    shown: &'a str,
    columns: &'a ColumnMap,
    encoding: Option<&'a str>,
}

/// The longest line (a JSONL row) or URL cell read whole.
const MAX_CELL_BYTES: usize = 16 << 20;

fn reader_options(
    format: urlkey_batch::input::InputFormat,
    rs: &ReadSettings<'_>,
) -> Result<urlkey_batch::input::ReadOptions> {
    use urlkey_batch::input::{encoding_for_label, KeepColumns, ReadOptions};
    let encoding = match rs.encoding {
        None => None,
        Some(l) => Some(encoding_for_label(l).ok_or_else(|| {
            LedgerError::Usage(format!(
                "--encoding {l:?} is not an encoding label: use e.g. utf-8, utf-16le, \
                 windows-1252, iso-8859-1"
            ))
        })?),
    };
    let tabular = format.is_tabular();
    Ok(ReadOptions {
        format,
        column: tabular.then(|| "1".to_string()),
        keep: if tabular {
            KeepColumns::All
        } else {
            KeepColumns::None
        },
        max_line_bytes: MAX_CELL_BYTES,
        encoding,
        ..ReadOptions::default()
    })
}

fn open_reader(
    bytes: Vec<u8>,
    format: urlkey_batch::input::InputFormat,
    rs: &ReadSettings<'_>,
) -> Result<Box<dyn urlkey_batch::input::RecordSource>> {
    let ropts = reader_options(format, rs)?;
    urlkey_batch::input::records_from(
        Box::new(std::io::Cursor::new(bytes)),
        rs.shown.to_string(),
        &ropts,
    )
    .map_err(|e| {
        LedgerError::Input(format!(
            "{e}; the file must be CSV, TSV or JSONL (UTF-8, UTF-16 with a byte-order mark, or \
             --encoding LABEL)"
        ))
    })
}

fn read_delimited(bytes: Vec<u8>, delimiter: u8, rs: &ReadSettings<'_>) -> ReadResult {
    let shown = rs.shown;
    let format = if delimiter == b'\t' {
        urlkey_batch::input::InputFormat::Tsv
    } else {
        urlkey_batch::input::InputFormat::Csv
    };
    let mut src = open_reader(bytes, format, rs)?;
    let notices = src.take_notices();
    let headers: Vec<String> = src.header().to_vec();
    let mut columns: Vec<(usize, &'static str)> = Vec::new();
    let mut ignored = Vec::new();
    for (i, h) in headers.iter().enumerate() {
        let name = h.trim();
        match rs.columns.field_for(name) {
            Some(f) => {
                if let Some((j, _)) = columns.iter().find(|(_, g)| *g == f) {
                    return Err(LedgerError::Input(format!(
                        "{shown}: the columns {:?} and {name:?} both stand for {f}: keep one, \
                         or say which with --columns {f}=NAME",
                        headers[*j]
                    )));
                }
                columns.push((i, f));
            }
            None => ignored.push(name.to_string()),
        }
    }
    let missing = rs.columns.missing(&headers);
    if !missing.is_empty() {
        return Err(LedgerError::Input(format!(
            "{shown}: --columns {}: no such column (the header has: {})",
            missing.join(", "),
            headers.join(", ")
        )));
    }
    for required in ["observation_id", "observed_url"] {
        if !columns.iter().any(|(_, f)| *f == required) {
            return Err(LedgerError::Input(format!(
                "{shown}: no {required:?} column (the header has: {}); the ledger needs \
                 observation_id and observed_url, and reads {} (case, spaces and separators \
                 do not matter: \"Observation ID\" is observation_id); name other headers with \
                 --columns {required}=HEADER",
                headers.join(", "),
                INPUT_FIELDS.join(", ")
            )));
        }
    }
    let width = headers.len();
    let mut rows = Vec::new();
    let mut batch = Vec::new();
    loop {
        batch.clear();
        let more = src
            .next_batch(&mut batch, 4096)
            .map_err(|e| LedgerError::Input(format!("{e}; nothing from {shown} was written")))?;
        for rec in batch.drain(..) {
            let line = rec.line;
            let mut raw = RawRow {
                line,
                ..RawRow::default()
            };
            let mut cells = Vec::with_capacity(width);
            cells.push(rec.observed);
            cells.extend(rec.kept);
            // A row of nothing but empty cells is a blank line: skip it.
            if cells.iter().all(|c| c.trim().is_empty()) {
                continue;
            }
            if let Some(p) = &rec.problem {
                if p.code != urlkey::ErrorCode::InputMissingField {
                    raw.problems.push(Problem {
                        line,
                        column: headers.first().cloned(),
                        reason: format!(
                            "{}: save the file as UTF-8, or pass --encoding LABEL",
                            p.message
                        ),
                    });
                }
            }
            if rec.fields != width {
                raw.problems.push(Problem {
                    line,
                    column: None,
                    reason: format!(
                        "the row has {} cells, the header has {width}: every row needs one cell \
                         per column (quote a cell that holds the delimiter)",
                        rec.fields
                    ),
                });
            }
            for (i, h) in headers.iter().enumerate() {
                if !columns.iter().any(|(j, _)| *j == i) {
                    let cell = cells.get(i).cloned().unwrap_or_default();
                    raw.extra
                        .insert(h.trim().to_string(), serde_json::Value::String(cell));
                }
            }
            for (i, f) in &columns {
                let cell = cells.get(*i).cloned().unwrap_or_default();
                if *f == "observed_url" {
                    raw.observed_url = Some(cell);
                } else if !cell.trim().is_empty() {
                    raw.fields.insert(f, cell.trim().to_string());
                }
            }
            raw.cells = cells;
            rows.push(raw);
        }
        if !more {
            break;
        }
    }
    Ok(Table {
        header: headers,
        rows,
        ignored,
        delimiter,
        notices,
    })
}

fn read_jsonl(bytes: Vec<u8>, rs: &ReadSettings<'_>) -> ReadResult {
    let mut src = open_reader(bytes, urlkey_batch::input::InputFormat::Lines, rs)?;
    let notices = src.take_notices();
    let shown = rs.shown;
    let mut rows = Vec::new();
    let mut ignored: Vec<String> = Vec::new();
    let mut batch = Vec::new();
    loop {
        batch.clear();
        let more = src
            .next_batch(&mut batch, 4096)
            .map_err(|e| LedgerError::Input(format!("{e}; nothing from {shown} was written")))?;
        for rec in batch.drain(..) {
            let line = rec.line;
            let l = rec.observed.as_str();
            let mut raw = RawRow {
                line,
                cells: vec![l.to_string()],
                ..RawRow::default()
            };
            let bad = |column: Option<&str>, reason: String| Problem {
                line,
                column: column.map(str::to_string),
                reason,
            };
            if let Some(p) = &rec.problem {
                raw.problems.push(bad(
                    None,
                    format!(
                        "{}: save the file as UTF-8, or pass --encoding LABEL",
                        p.message
                    ),
                ));
                rows.push(raw);
                continue;
            }
            let map = match serde_json::from_str::<serde_json::Value>(l) {
                Ok(serde_json::Value::Object(map)) => map,
                Ok(_) => {
                    raw.problems
                        .push(bad(None, "each line must be one JSON object".to_string()));
                    rows.push(raw);
                    continue;
                }
                Err(e) => {
                    raw.problems
                        .push(bad(None, format!("not a JSON value ({e})")));
                    rows.push(raw);
                    continue;
                }
            };
            for (k, v) in &map {
                let Some(f) = rs.columns.field_for(k) else {
                    if !ignored.contains(k) {
                        ignored.push(k.clone());
                    }
                    raw.extra.insert(k.clone(), v.clone());
                    continue;
                };
                let text = match v {
                    serde_json::Value::Null => None,
                    serde_json::Value::String(s) => Some(s.clone()),
                    serde_json::Value::Number(n) if f != "observed_url" => Some(n.to_string()),
                    serde_json::Value::Bool(b) if f != "observed_url" => Some(b.to_string()),
                    _ => {
                        let p = bad(
                            Some(f),
                            format!(
                                "must be a string{}",
                                if f == "observed_url" {
                                    ""
                                } else {
                                    " or a number"
                                }
                            ),
                        );
                        raw.problems.push(p);
                        continue;
                    }
                };
                if f == "observed_url" {
                    raw.observed_url = text;
                } else if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
                    raw.fields.insert(f, t.trim().to_string());
                }
            }
            if raw.observed_url.is_none() && raw.problems.is_empty() {
                let p = bad(
                    Some("observed_url"),
                    "no \"observed_url\" string: every observation needs the URL exactly as the \
                     answer showed it"
                        .to_string(),
                );
                raw.problems.push(p);
            }
            rows.push(raw);
        }
        if !more {
            break;
        }
    }
    Ok(Table {
        header: Vec::new(),
        rows,
        ignored,
        delimiter: b',',
        notices,
    })
}

type RowProblems = (u64, Vec<String>, Vec<Problem>);

/// Applies the defaults and checks every value; on failure returns all the row's problems.
fn complete_row(mut raw: RawRow, d: &Defaults) -> std::result::Result<Row, RowProblems> {
    let line = raw.line;
    let mut problems = Vec::new();
    let mut take = |name: &'static str, default: &Option<String>| -> Option<String> {
        raw.fields.remove(name).or_else(|| {
            default
                .as_ref()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        })
    };
    let need = |name: &str, flag: &str, v: Option<String>, problems: &mut Vec<Problem>| {
        if v.is_none() {
            problems.push(Problem {
                line,
                column: Some(name.to_string()),
                reason: format!(
                    "no {name}: add a {name} column, or pass {flag} to fill in rows that have none"
                ),
            });
        }
        v.unwrap_or_default()
    };
    let observation_id = take("observation_id", &None).unwrap_or_default();
    if observation_id.is_empty() {
        problems.push(Problem {
            line,
            column: Some("observation_id".to_string()),
            reason: "no observation_id: every row needs a stable id for its dated answer \
                     observation"
                .to_string(),
        });
    }
    let prompt_id = take("prompt_id", &None);
    let prompt_version = need(
        "prompt_version",
        "--prompt-version",
        take("prompt_version", &d.prompt_version),
        &mut problems,
    );
    let answer_system = need(
        "answer_system",
        "--answer-system",
        take("answer_system", &d.answer_system),
        &mut problems,
    );
    let market = need(
        "market",
        "--market",
        take("market", &d.market),
        &mut problems,
    );
    let collection = take("collection", &d.collection);
    let claim = take("claim", &None);
    let run_timestamp = take("run_timestamp", &d.run_timestamp);
    let run_timestamp = need(
        "run_timestamp",
        "--run-timestamp",
        run_timestamp,
        &mut problems,
    );
    let run_at = if run_timestamp.is_empty() {
        String::new()
    } else {
        match timefmt::parse_run_timestamp_in(&run_timestamp, d.timezone.as_ref()) {
            Ok(t) => t,
            Err(m) => {
                problems.push(Problem {
                    line,
                    column: Some("run_timestamp".to_string()),
                    reason: m,
                });
                String::new()
            }
        }
    };
    let observed_url = raw.observed_url.take();
    if observed_url.is_none() {
        problems.push(Problem {
            line,
            column: Some("observed_url".to_string()),
            reason: "no observed_url".to_string(),
        });
    }
    if !problems.is_empty() {
        return Err((line, raw.cells, problems));
    }
    Ok(Row {
        line,
        observation_id,
        prompt_id,
        prompt_version,
        answer_system,
        market,
        collection,
        run_timestamp,
        run_at,
        observed_url: observed_url.unwrap_or_default(),
        claim,
        extra: serde_json::Value::Object(raw.extra).to_string(),
        cells: raw.cells,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_detection() {
        let p = Path::new("x.data");
        assert_eq!(detect_format(p, b"  {\"a\":1}\n"), InputFormat::Jsonl);
        assert_eq!(detect_format(p, b"a\tb\n1\t2\n"), InputFormat::Tsv);
        assert_eq!(detect_format(p, b"a,b\n1,2\n"), InputFormat::Csv);
        assert_eq!(
            detect_format(Path::new("x.CSV"), b"{"),
            InputFormat::Csv,
            "the extension decides first"
        );
        assert_eq!(
            detect_format(Path::new("x.ndjson"), b"a,b"),
            InputFormat::Jsonl
        );
    }
}
