//! `ledger ingest`: read a CSV, TSV, JSONL or spreadsheet file of citation observations
//! (`.gz`/`.zst` too), key each observed URL with a policy and store every row, invalid
//! ones included, in one transaction per file.
//!
//! A file is read twice, and never held whole: a first pass hashes the bytes, checks the
//! encoding and keeps the first 64 KiB for sniffing (standard input is copied to a
//! temporary file on the way); the second streams the rows in batches into one
//! transaction, checking, comparing and storing each. Every problem of the file is found
//! in that pass; without `--rejects` a single one rolls the transaction back.

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    /// Comma-separated, with a header row.
    Csv,
    /// Tab-separated, with a header row.
    Tsv,
    /// One JSON object per line.
    Jsonl,
    /// An Office Open XML workbook (`.xlsx`, also `.xlsm` and `.xlsb`), read as it is.
    Xlsx,
    /// An Excel 97-2003 workbook (`.xls`).
    Xls,
    /// An OpenDocument spreadsheet (`.ods`).
    Ods,
}

impl crate::choice::Choice for InputFormat {
    const CHOICES: &'static [(Self, &'static str, &'static str)] = &[
        (
            InputFormat::Csv,
            "csv",
            "Comma-separated, with a header row",
        ),
        (InputFormat::Tsv, "tsv", "Tab-separated, with a header row"),
        (InputFormat::Jsonl, "jsonl", "One JSON object per line"),
        (
            InputFormat::Xlsx,
            "xlsx",
            "An Office Open XML workbook (`.xlsx`, also `.xlsm` and `.xlsb`), read as it is",
        ),
        (
            InputFormat::Xls,
            "xls",
            "An Excel 97-2003 workbook (`.xls`)",
        ),
        (
            InputFormat::Ods,
            "ods",
            "An OpenDocument spreadsheet (`.ods`)",
        ),
    ];
}

crate::choice::from_str_by_name!(InputFormat);

impl InputFormat {
    /// `csv`, `tsv`, `jsonl`, `xlsx`, `xls` or `ods` (as stored in `ingests.input_format`).
    pub fn as_str(self) -> &'static str {
        match self {
            InputFormat::Csv => "csv",
            InputFormat::Tsv => "tsv",
            InputFormat::Jsonl => "jsonl",
            InputFormat::Xlsx => "xlsx",
            InputFormat::Xls => "xls",
            InputFormat::Ods => "ods",
        }
    }

    /// True for the spreadsheet formats.
    pub fn is_sheet(self) -> bool {
        matches!(
            self,
            InputFormat::Xlsx | InputFormat::Xls | InputFormat::Ods
        )
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
    /// The first [`PROBLEMS_LISTED`] problems found, by line (a rejected row may have
    /// several); `problem_count` counts them all.
    pub problems: Vec<Problem>,
    /// How many problems were found in all.
    pub problem_count: usize,
    /// `gzip` or `zstd` when the file was compressed (its hash is of the compressed bytes).
    pub compression: Option<&'static str>,
    /// The sheet read, for a spreadsheet.
    pub sheet: Option<String>,
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

/// The problems, one a line, the first [`PROBLEMS_LISTED`] then a count of the others
/// (`total`: how many there are in all, `problems` may hold only the first ones).
pub fn list_problems(problems: &[Problem], total: usize) -> String {
    let mut out = String::new();
    for p in problems.iter().take(PROBLEMS_LISTED) {
        out.push_str("\n  ");
        out.push_str(&p.to_string());
    }
    let shown = problems.len().min(PROBLEMS_LISTED);
    if total > shown {
        out.push_str(&format!("\n  ... and {} more problems", total - shown));
    }
    out
}

impl IngestSummary {
    /// True when nothing was written.
    pub fn is_noop(&self) -> bool {
        self.added == 0
    }

    /// How the file was read: `csv`, `csv, gzip`, `xlsx, sheet "Data"`.
    pub fn read_as(&self) -> String {
        let mut s = self.format.as_str().to_string();
        if let Some(c) = self.compression {
            s.push_str(", ");
            s.push_str(c);
        }
        if let Some(sh) = &self.sheet {
            s.push_str(&format!(", sheet {sh:?}"));
        }
        s
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
                self.read_as(),
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
        if self.rows_read == 0 {
            return write!(
                f,
                "{}: 0 rows read ({}): the file has no data rows, nothing written",
                self.path,
                self.read_as()
            );
        }
        if self.is_noop() {
            write!(
                f,
                "{}: {} rows read ({}), all {} already in the ledger with identical content: \
                 nothing written",
                self.path,
                self.rows_read,
                self.read_as(),
                self.unchanged
            )
        } else {
            write!(
                f,
                "{}: {} rows read ({}, keyed with {}): {} observations added ({} of them with an \
                 invalid URL, stored with its error code), {} already in the ledger",
                self.path,
                self.rows_read,
                self.read_as(),
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
    /// The `run_timestamp` cell as written (stored as `run_timestamp_as_written`).
    run_timestamp: String,
    /// The same instant in UTC (stored as `run_timestamp`).
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

/// Which part of an ingest a progress call is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The first read: the file's hash, its encoding and its start (no lock held).
    Check,
    /// The second read: every row checked, compared and stored, in the transaction.
    Store,
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
    /// `--sheet`: the sheet of a spreadsheet (a name or a 1-based number; the first).
    pub sheet: Option<&'a str>,
    /// `progress(phase, bytes of the file read, bytes in the file or 0 when unknown)`.
    pub progress: &'a dyn Fn(Phase, u64, u64),
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
    ingest_file_with_progress(conn, path, format, defaults, norm, &|_, _, _| {})
}

/// [`ingest_file`], calling `progress(phase, bytes read, bytes in the file)` as it goes
/// (every 1 MiB while checking, every batch of rows while storing), for a progress bar.
pub fn ingest_file_with_progress(
    conn: &mut Connection,
    path: &Path,
    format: Option<InputFormat>,
    defaults: &Defaults,
    norm: &Normalizer,
    progress: &dyn Fn(Phase, u64, u64),
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
            sheet: None,
            progress,
        },
    )
}

/// Rows read in one batch of the second pass (what memory holds at once).
const ROW_BATCH: usize = 4096;

/// Reads `path`, finds every problem of every row in one pass, and stores the good rows in
/// one transaction. Without `opts.rejects` a single problem stores nothing (the error lists
/// them all); with it, the good rows are stored and the refused ones written to that file
/// (atomically), so that rows read = stored + already present + rejected.
///
/// Memory is bounded: the file is read twice (see the module documentation), the rows a
/// batch at a time; what is kept across batches is the first [`PROBLEMS_LISTED`] problems
/// and counts (refused rows go straight to the rejects file's temporary file). A
/// spreadsheet is the exception: the reader holds its sheet whole.
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
    let checked = check_input(path, &shown, opts.progress)?;
    let format = opts
        .format
        .unwrap_or_else(|| detect_format(path, &checked.head));
    if let Some(s) = opts.sheet {
        if !format.is_sheet() {
            return Err(LedgerError::Usage(format!(
                "--sheet {s:?}: {shown} is read as {}, not as a spreadsheet (.xlsx, .xls, \
                 .ods): drop --sheet, or give --input-format",
                format.as_str()
            )));
        }
    }
    let utf16 = checked.head.starts_with(b"\xFF\xFE") || checked.head.starts_with(b"\xFE\xFF");
    if !format.is_sheet() {
        if let Some(why) = urlkey_batch::input::sniff(&checked.head).binary {
            return Err(LedgerError::Input(format!(
                "{shown} does not look like text: {why}; ledger ingest reads CSV, TSV, JSONL and \
                 spreadsheets (.xlsx, .xls, .ods), plain or as .gz/.zst; nothing from {shown} \
                 was written"
            )));
        }
        if let (None, false, Some((at, line))) = (opts.encoding, utf16, checked.not_utf8) {
            // Caught here for the whole file: the shared reader would show the bytes as
            // \xNN escapes, and the ledger stores observed URLs exactly.
            return Err(LedgerError::Input(format!(
                "{shown} line {line}: not valid UTF-8 (byte {at}); the file is in another \
                 encoding: pass --encoding LABEL (e.g. --encoding windows-1252 for an export \
                 from Excel on Windows), or save it as UTF-8; nothing from {shown} was written"
            )));
        }
    }
    let mut summary = IngestSummary {
        path: shown.clone(),
        format,
        policy: norm.id().to_string(),
        rows_read: 0,
        added: 0,
        unchanged: 0,
        invalid_added: 0,
        rejected: 0,
        problems: Vec::new(),
        problem_count: 0,
        rejects: None,
        notices: Vec::new(),
        ignored_columns: Vec::new(),
        compression: checked.compression,
        sheet: None,
    };
    if checked.head.is_empty() {
        // Nothing at all (not even a header): no rows, nothing to store or refuse.
        summary
            .notices
            .push(format!("{shown}: the input is empty: no records"));
        if let Some(r) = opts.rejects {
            let header: Vec<String> = Vec::new();
            RejectsFile::create(r, format, &header)?
                .finish()?
                .commit()
                .map_err(|e| rejects_failed(r, e))?;
            summary.rejects = Some(r.display().to_string());
        }
        return Ok(summary);
    }
    let rs = ReadSettings {
        shown: &shown,
        columns: opts.columns,
        encoding: opts.encoding,
        sheet: opts.sheet,
    };
    // Opened before the write lock: a missing column or an unreadable sheet is reported
    // without waiting for (or holding) the lock.
    let mut rows = RowReader::open(&checked.source, format, &rs)?;
    summary.notices = rows.take_notices();
    summary.sheet = rows.sheet_name();
    let mut refused = Refused {
        listed: Vec::new(),
        problems: 0,
        rows: 0,
        file: match opts.rejects {
            Some(r) => Some(RejectsFile::create(r, format, rows.header())?),
            None => None,
        },
        path: opts.rejects,
    };

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
         rows_unchanged, compression, sheet) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, 0, 0, ?7, ?8)",
        params![
            shown,
            checked.hash,
            format.as_str(),
            norm.id(),
            timefmt::now_millis(),
            env!("CARGO_PKG_VERSION"),
            checked.compression,
            summary.sheet,
        ],
    )
    .map_err(|e| LedgerError::db("cannot record the ingest", e))?;
    let ingest_id = tx.last_insert_rowid();

    {
        let mut find = tx
            .prepare(
                "SELECT o.prompt_id, o.prompt_version, o.answer_system, o.market, o.collection, \
                 o.run_timestamp_as_written, o.run_timestamp, o.observed_url, \
                 o.normalization_policy_version, \
                 o.ingest_id, o.source_line, i.source_path, o.claim, o.extra \
                 FROM observations o JOIN ingests i USING (ingest_id) WHERE o.observation_id = ?1",
            )
            .map_err(|e| LedgerError::db("cannot prepare the lookup", e))?;
        let mut insert = tx
            .prepare(
                "INSERT INTO observations (observation_id, prompt_id, prompt_version, \
                 answer_system, market, collection, run_timestamp_as_written, run_timestamp, observed_url, \
                 normalization_policy_version, normalized_key, canonical_form, \
                 publisher_hostname, transformations, removed_params, error_code, \
                 error_message, ingest_id, source_line, claim, extra) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, \
                 ?16, ?17, ?18, ?19, ?20, ?21)",
            )
            .map_err(|e| LedgerError::db("cannot prepare the insert", e))?;
        let mut batch: Vec<RawRow> = Vec::with_capacity(ROW_BATCH);
        loop {
            batch.clear();
            let more = rows.next_batch(&mut batch)?;
            for raw in batch.drain(..) {
                summary.rows_read += 1;
                if !raw.problems.is_empty() {
                    refused.add(raw.line, &raw.cells, raw.problems)?;
                    continue;
                }
                let row = match complete_row(raw, opts.defaults) {
                    Ok(row) => row,
                    Err((line, cells, ps)) => {
                        refused.add(line, &cells, ps)?;
                        continue;
                    }
                };
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
                            "observation_id {:?} is already in the ledger ({origin}) with \
                             different content: {}. An observation_id names one dated \
                             observation: give this row a new observation_id, or correct it \
                             to match",
                            row.observation_id,
                            diffs.join("; ")
                        ),
                    };
                    refused.add(row.line, &row.cells, vec![p])?;
                    continue;
                }
                // Without --rejects the rows after a problem are still stored (and rolled
                // back at the end): a later line that repeats their id is then still
                // compared with them, so the listing is the same as with --rejects.
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
            (opts.progress)(Phase::Store, rows.bytes_read(), checked.bytes);
            if !more {
                break;
            }
        }
    }
    // The second pass must have read the bytes the first one hashed: a file that grew or
    // shrank in between (still being written, replaced) is refused, nothing stored.
    let reread = rows.bytes_read();
    if reread != checked.bytes {
        return Err(LedgerError::Input(format!(
            "{shown} changed while it was read ({} bytes when hashed, {reread} bytes when its              rows were read): let the program writing it finish, then ingest it again;              nothing from {shown} was written",
            checked.bytes
        )));
    }
    summary.ignored_columns = rows.ignored().to_vec();
    summary.notices.extend(rows.take_notices());
    summary.rejected = refused.rows;
    summary.problem_count = refused.problems;
    summary.problems = std::mem::take(&mut refused.listed);
    if refused.problems > 0 && opts.rejects.is_none() {
        // All or nothing: the transaction is dropped (rolled back) with the error.
        return Err(LedgerError::Input(format!(
            "{shown}: {} of {} rows cannot be stored ({}); nothing from {shown} was \
             written:{}\nFix these rows and ingest the file again, or pass --rejects FILE to \
             store the good rows and write these to FILE",
            summary.rejected,
            summary.rows_read,
            plural(summary.problem_count, "problem"),
            list_problems(&summary.problems, summary.problem_count)
        )));
    }
    // The rejects file is complete in its temporary file before the rows are committed,
    // and renamed into place after: a failure before the commit leaves both untouched.
    let pending = refused.file.take().map(RejectsFile::finish).transpose()?;
    if summary.added == 0 {
        // Nothing new: leave no trace, not even the ingest record.
        tx.rollback()
            .map_err(|e| LedgerError::db("cannot end the ingest transaction", e))?;
    } else {
        tx.execute(
            "UPDATE ingests SET rows_read = ?1, rows_added = ?2, rows_unchanged = ?3 \
             WHERE ingest_id = ?4",
            params![
                summary.rows_read as i64,
                summary.added as i64,
                summary.unchanged as i64,
                ingest_id
            ],
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

/// The refused rows so far: counts, the first problems, and the rejects file they go to.
struct Refused<'a> {
    listed: Vec<Problem>,
    problems: usize,
    rows: usize,
    file: Option<RejectsFile>,
    path: Option<&'a Path>,
}

impl Refused<'_> {
    /// One refused row and its problems (rows come in line order, so the listing is).
    fn add(&mut self, line: u64, cells: &[String], ps: Vec<Problem>) -> Result<()> {
        self.rows += 1;
        self.problems += ps.len();
        if let (Some(f), Some(path)) = (self.file.as_mut(), self.path) {
            let reason = ps
                .iter()
                .map(|p| match &p.column {
                    Some(c) => format!("{c}: {}", p.reason),
                    None => p.reason.clone(),
                })
                .collect::<Vec<_>>()
                .join("; ");
            f.write(line, cells, &reason)
                .map_err(|e| rejects_failed(path, e))?;
        }
        let room = PROBLEMS_LISTED.saturating_sub(self.listed.len());
        self.listed.extend(ps.into_iter().take(room));
        Ok(())
    }
}

fn rejects_failed(path: &Path, e: std::io::Error) -> LedgerError {
    LedgerError::Output(format!(
        "cannot write the rejects file {}: {e}; check the path and the free space (nothing \
         was stored)",
        path.display()
    ))
}

/// The rejects file, written to a temporary file beside it (committed by the caller):
/// CSV/TSV with `line`, `reason` and then the input's own columns (a spreadsheet's
/// rejects are CSV); JSONL objects with `line` and `reason` first, then the row's own
/// fields.
enum RejectsFile {
    Jsonl(std::io::BufWriter<urlkey_batch::outfile::OutputFile>),
    Table(Box<csv::Writer<std::io::BufWriter<urlkey_batch::outfile::OutputFile>>>),
}

impl RejectsFile {
    fn create(path: &Path, format: InputFormat, header: &[String]) -> Result<RejectsFile> {
        let failed = |e: std::io::Error| rejects_failed(path, e);
        let file = urlkey_batch::outfile::OutputFile::create(path).map_err(failed)?;
        let w = std::io::BufWriter::new(file);
        Ok(match format {
            InputFormat::Jsonl => RejectsFile::Jsonl(w),
            _ => {
                let mut c = csv::WriterBuilder::new()
                    .delimiter(if format == InputFormat::Tsv {
                        b'\t'
                    } else {
                        b','
                    })
                    .flexible(true)
                    .from_writer(w);
                let mut head = vec!["line".to_string(), "reason".to_string()];
                head.extend(header.iter().cloned());
                c.write_record(&head).map_err(|e| failed(e.into()))?;
                RejectsFile::Table(Box::new(c))
            }
        })
    }

    /// One refused row: the cells exactly as read (every one of them: a short row has
    /// only its own, a long row all of its own, past the header's last column too).
    fn write(&mut self, line: u64, cells: &[String], reason: &str) -> std::io::Result<()> {
        match self {
            RejectsFile::Jsonl(w) => {
                use std::io::Write;
                let raw = cells.first().map(String::as_str).unwrap_or("");
                let head = format!(
                    "{{\"line\":{line},\"reason\":{}",
                    serde_json::Value::String(reason.to_string())
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
                writeln!(w, "{text}")
            }
            RejectsFile::Table(c) => {
                let line = line.to_string();
                let rec = [line.as_str(), reason]
                    .into_iter()
                    .chain(cells.iter().map(String::as_str));
                c.write_record(rec).map_err(std::io::Error::from)
            }
        }
    }

    /// Everything flushed to the temporary file, ready to be renamed into place.
    fn finish(self) -> Result<urlkey_batch::outfile::OutputFile> {
        let failed = |e: std::io::Error| {
            LedgerError::Output(format!(
                "cannot write the rejects file: {e}; check the path and the free space \
                 (nothing was stored)"
            ))
        };
        let w = match self {
            RejectsFile::Jsonl(w) => w,
            RejectsFile::Table(c) => (*c).into_inner().map_err(|e| failed(e.into_error()))?,
        };
        w.into_inner().map_err(|e| failed(e.into_error()))
    }
}

/// How many bytes of the start of the content are kept for sniffing.
const HEAD_BYTES: usize = 64 * 1024;

/// The file as the first pass found it.
struct Checked {
    /// What the second pass reads: the file, or standard input's temporary copy.
    source: urlkey_batch::input::Source,
    /// Standard input's copy, removed when dropped.
    _spill: Option<tempfile::TempPath>,
    /// xxh3-128 of the bytes as stored (a compressed file: the compressed bytes).
    hash: String,
    /// `gzip` or `zstd`.
    compression: Option<&'static str>,
    /// The first [`HEAD_BYTES`] of the content (decompressed).
    head: Vec<u8>,
    /// The size of the file as stored.
    bytes: u64,
    /// The first byte that is not UTF-8 (offset in the content, line).
    not_utf8: Option<(u64, u64)>,
}

/// The content seen chunk by chunk: its head, and where it stops being UTF-8.
#[derive(Default)]
struct TextCheck {
    head: Vec<u8>,
    /// The start of a character cut by the end of the last chunk.
    carry: Vec<u8>,
    offset: u64,
    lines: u64,
    bad: Option<(u64, u64)>,
}

impl TextCheck {
    fn feed(&mut self, chunk: &[u8]) {
        if self.head.len() < HEAD_BYTES {
            let n = (HEAD_BYTES - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..n]);
        }
        if self.bad.is_some() {
            return;
        }
        let joined;
        let data: &[u8] = if self.carry.is_empty() {
            chunk
        } else {
            let carry = std::mem::take(&mut self.carry);
            joined = [carry.as_slice(), chunk].concat();
            &joined
        };
        let (good, cut) = match std::str::from_utf8(data) {
            Ok(_) => (data.len(), false),
            Err(e) => (e.valid_up_to(), e.error_len().is_none()),
        };
        self.lines += data[..good].iter().filter(|&&b| b == b'\n').count() as u64;
        if good == data.len() || cut {
            self.offset += good as u64;
            self.carry = data[good..].to_vec();
        } else {
            self.bad = Some((self.offset + good as u64, self.lines + 1));
        }
    }

    fn finish(&mut self) {
        if self.bad.is_none() && !self.carry.is_empty() {
            self.bad = Some((self.offset, self.lines + 1));
        }
    }
}

/// The first pass: hashes the bytes as stored, copies standard input to a temporary file,
/// and looks at the content (decompressed): its first bytes, and whether it is UTF-8.
fn check_input(path: &Path, shown: &str, progress: &dyn Fn(Phase, u64, u64)) -> Result<Checked> {
    use std::io::{Read, Write};
    use urlkey_batch::input::Source;
    let cannot = |e: std::io::Error| {
        LedgerError::Input(format!(
            "cannot read {shown}: {e}; check the path and its permissions"
        ))
    };
    let stdin = path == Path::new("-");
    let (mut input, total): (Box<dyn Read>, u64) = if stdin {
        (Box::new(std::io::stdin().lock()), 0)
    } else {
        let f = std::fs::File::open(path).map_err(cannot)?;
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        (Box::new(f), len)
    };
    let mut spill = if stdin {
        Some(
            tempfile::Builder::new()
                .prefix(".urlkey-ledger-stdin-")
                .tempfile()
                .map_err(|e| {
                    LedgerError::Input(format!(
                        "cannot keep standard input in a temporary file ({e}); check the \
                         free space of the temporary directory (TMPDIR), or ingest a file"
                    ))
                })?,
        )
    } else {
        None
    };
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut text = TextCheck::default();
    let mut buf = vec![0u8; 1 << 20];
    let mut done = 0u64;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(cannot(e)),
        };
        let chunk = &buf[..n];
        hasher.update(chunk);
        text.feed(chunk);
        if let Some(s) = spill.as_mut() {
            s.write_all(chunk).map_err(|e| {
                LedgerError::Input(format!(
                    "cannot keep standard input in a temporary file ({e}); check the free \
                     space of the temporary directory (TMPDIR), or ingest a file"
                ))
            })?;
        }
        done += n as u64;
        progress(Phase::Check, done, total);
    }
    text.finish();
    let (source, spill) = match spill {
        Some(s) => {
            let p = s.into_temp_path();
            (Source::Spilled(p.to_path_buf()), Some(p))
        }
        None => (Source::File(path.to_path_buf()), None),
    };
    let compression = if text.head.starts_with(&[0x1f, 0x8b]) {
        Some("gzip")
    } else if text.head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Some("zstd")
    } else {
        None
    };
    let named_compressed = !stdin
        && path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("gz") || e.eq_ignore_ascii_case("zst"));
    if compression.is_some() || named_compressed {
        // The content is what the decompressor gives: look at that instead.
        let mut r = source
            .open()
            .map_err(|e| LedgerError::Input(format!("{e}; nothing from {shown} was written")))?;
        text = TextCheck::default();
        let mut out = 0u64;
        loop {
            let n = match r.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(LedgerError::Input(format!(
                        "{shown}: cannot decompress ({}): {e}; check the file (e.g. `{} -t`); \
                         nothing from {shown} was written",
                        compression.unwrap_or("?"),
                        if compression == Some("zstd") {
                            "zstd"
                        } else {
                            "gzip"
                        }
                    )))
                }
            };
            text.feed(&buf[..n]);
            out += n as u64;
            progress(Phase::Check, out, 0);
        }
        text.finish();
    }
    Ok(Checked {
        source,
        _spill: spill,
        hash: format!("{:032x}", hasher.digest128()),
        compression,
        head: text.head,
        bytes: done,
        not_utf8: text.bad,
    })
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

/// The extension that names the content: `x.csv.gz` is `csv`.
fn content_extension(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let name = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".zst"))
        .unwrap_or(&name);
    Some(name.rsplit_once('.')?.1.to_string())
}

/// A spreadsheet by its first bytes (a ZIP: `.xlsx`, or `.ods` when its mimetype says so;
/// an OLE file: `.xls`), else by extension (`.xlsx`, `.xlsm`, `.xlsb`, `.xls`, `.ods`, also
/// through `.gz`/`.zst`), else by extension (`.csv`, `.tsv`, `.jsonl`, `.ndjson`, `.json`),
/// else by content: a first non-blank byte `{` is JSONL, a header with tabs and no commas is
/// TSV, anything else CSV. `bytes` is the start of the content.
pub fn detect_format(path: &Path, bytes: &[u8]) -> InputFormat {
    if bytes.starts_with(b"PK\x03\x04") {
        let ods = bytes
            .windows(46)
            .take(256)
            .any(|w| w == b"application/vnd.oasis.opendocument.spreadsheet");
        return if ods {
            InputFormat::Ods
        } else {
            InputFormat::Xlsx
        };
    }
    if bytes.starts_with(b"\xD0\xCF\x11\xE0") {
        return InputFormat::Xls;
    }
    match content_extension(path).as_deref() {
        Some("xlsx") | Some("xlsm") | Some("xlsb") => return InputFormat::Xlsx,
        Some("xls") => return InputFormat::Xls,
        Some("ods") => return InputFormat::Ods,
        Some("csv") => return InputFormat::Csv,
        Some("tsv") | Some("tab") => return InputFormat::Tsv,
        Some("jsonl") | Some("ndjson") | Some("json") => return InputFormat::Jsonl,
        _ => {}
    }
    let text = sniff_text(bytes);
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'{') {
        return InputFormat::Jsonl;
    }
    let header = text.split(|&b| b == b'\n').next().unwrap_or_default();
    if header.contains(&b'\t') && !header.contains(&b',') {
        InputFormat::Tsv
    } else {
        InputFormat::Csv
    }
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

fn field_name(name: &str) -> Option<&'static str> {
    INPUT_FIELDS.iter().copied().find(|f| *f == name)
}

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
    sheet: Option<&'a str>,
}

/// The longest line (a JSONL row) or URL cell read whole.
const MAX_CELL_BYTES: usize = 16 << 20;

fn reader_options(
    format: InputFormat,
    rs: &ReadSettings<'_>,
) -> Result<urlkey_batch::input::ReadOptions> {
    use urlkey_batch::input::{encoding_for_label, InputFormat as B, KeepColumns, ReadOptions};
    let encoding = match rs.encoding {
        None => None,
        Some(l) => Some(encoding_for_label(l).ok_or_else(|| {
            LedgerError::Usage(format!(
                "--encoding {l:?} is not an encoding label: use e.g. utf-8, utf-16le, \
                 windows-1252, iso-8859-1"
            ))
        })?),
    };
    let format = match format {
        InputFormat::Csv => B::Csv,
        InputFormat::Tsv => B::Tsv,
        InputFormat::Jsonl => B::Lines,
        InputFormat::Xlsx | InputFormat::Xls | InputFormat::Ods => B::Sheet,
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
        sheet: rs.sheet.map(str::to_string),
        ..ReadOptions::default()
    })
}

/// The rows of a file, a batch at a time.
enum RowReader<'a> {
    Table(TableRows),
    Jsonl(JsonlRows<'a>),
}

/// CSV, TSV and spreadsheet rows: which column holds which field.
struct TableRows {
    src: Box<dyn urlkey_batch::input::RecordSource>,
    headers: Vec<String>,
    columns: Vec<(usize, &'static str)>,
    ignored: Vec<String>,
    /// A spreadsheet: trailing empty cells are no cells, and no row is short.
    sheet: bool,
    recs: Vec<urlkey_batch::input::InputRecord>,
}

/// JSONL rows.
struct JsonlRows<'a> {
    src: Box<dyn urlkey_batch::input::RecordSource>,
    columns: &'a ColumnMap,
    ignored: Vec<String>,
    recs: Vec<urlkey_batch::input::InputRecord>,
}

impl<'a> RowReader<'a> {
    /// Opens the reader and, for a table, resolves the header (the fields' columns).
    fn open(
        source: &urlkey_batch::input::Source,
        format: InputFormat,
        rs: &ReadSettings<'a>,
    ) -> Result<RowReader<'a>> {
        let shown = rs.shown;
        let ropts = reader_options(format, rs)?;
        let src = urlkey_batch::input::open_records(source, &ropts).map_err(|e| {
            LedgerError::Input(format!(
                "{e}; the file must be CSV, TSV, JSONL or a spreadsheet (UTF-8, UTF-16 with a \
                 byte-order mark, or --encoding LABEL); nothing from {shown} was written"
            ))
        })?;
        if format == InputFormat::Jsonl {
            return Ok(RowReader::Jsonl(JsonlRows {
                src,
                columns: rs.columns,
                ignored: Vec::new(),
                recs: Vec::new(),
            }));
        }
        let sheet = format.is_sheet();
        let mut headers: Vec<String> = src.header().to_vec();
        if sheet {
            // A sheet's rows are as wide as its widest row: the header ends at its last name.
            let used = headers
                .iter()
                .rposition(|h| !h.trim().is_empty())
                .map_or(0, |i| i + 1);
            headers.truncate(used);
        }
        let mut columns: Vec<(usize, &'static str)> = Vec::new();
        let mut ignored = Vec::new();
        for (i, h) in headers.iter().enumerate() {
            let name = h.trim();
            match rs.columns.field_for(name) {
                Some(f) => {
                    if let Some((j, _)) = columns.iter().find(|(_, g)| *g == f) {
                        return Err(LedgerError::Input(format!(
                            "{shown}: the columns {:?} and {name:?} both stand for {f}: keep \
                             one, or say which with --columns {f}=NAME",
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
                     observation_id and observed_url, and reads {} (case, spaces and \
                     separators do not matter: \"Observation ID\" is observation_id); name \
                     other headers with --columns {required}=HEADER",
                    headers.join(", "),
                    INPUT_FIELDS.join(", ")
                )));
            }
        }
        Ok(RowReader::Table(TableRows {
            src,
            headers,
            columns,
            ignored,
            sheet,
            recs: Vec::new(),
        }))
    }

    fn src(&mut self) -> &mut Box<dyn urlkey_batch::input::RecordSource> {
        match self {
            RowReader::Table(t) => &mut t.src,
            RowReader::Jsonl(j) => &mut j.src,
        }
    }

    fn take_notices(&mut self) -> Vec<String> {
        self.src().take_notices()
    }

    fn sheet_name(&mut self) -> Option<String> {
        self.src().sheet_name().map(str::to_string)
    }

    fn bytes_read(&mut self) -> u64 {
        self.src().bytes_read()
    }

    /// The header of a table (empty for JSONL).
    fn header(&self) -> &[String] {
        match self {
            RowReader::Table(t) => &t.headers,
            RowReader::Jsonl(_) => &[],
        }
    }

    /// Columns or fields without a ledger field (JSONL: those seen so far).
    fn ignored(&self) -> &[String] {
        match self {
            RowReader::Table(t) => &t.ignored,
            RowReader::Jsonl(j) => &j.ignored,
        }
    }

    /// Appends the next batch of rows to `out`; false at the end.
    fn next_batch(&mut self, out: &mut Vec<RawRow>) -> Result<bool> {
        match self {
            RowReader::Table(t) => t.next_batch(out),
            RowReader::Jsonl(j) => j.next_batch(out),
        }
    }
}

fn read_failed(e: urlkey_batch::input::InputError) -> LedgerError {
    LedgerError::Input(format!("{e}; nothing was written"))
}

impl TableRows {
    fn next_batch(&mut self, out: &mut Vec<RawRow>) -> Result<bool> {
        self.recs.clear();
        let more = self
            .src
            .next_batch(&mut self.recs, ROW_BATCH)
            .map_err(read_failed)?;
        let width = self.headers.len();
        for rec in self.recs.drain(..) {
            let line = rec.line;
            let mut raw = RawRow {
                line,
                ..RawRow::default()
            };
            // The row's cells as read, in column order (the URL's column is the first).
            let mut cells = Vec::with_capacity(1 + rec.kept.len() + rec.overflow.len());
            cells.push(rec.observed);
            cells.extend(rec.kept);
            if self.sheet {
                // A sheet row is as wide as the sheet: its cells end at its last value.
                let used = cells
                    .iter()
                    .rposition(|c| !c.is_empty())
                    .map_or(0, |i| i + 1);
                cells.truncate(used);
            } else {
                // The reader pads a short row to the header's width: drop the padding, and
                // add the cells past the header, so `cells` is the row exactly as read.
                cells.truncate(rec.fields.max(1));
                cells.extend(rec.overflow);
            }
            // A row of nothing but empty cells is a blank line: skip it.
            if cells.iter().all(|c| c.trim().is_empty()) {
                continue;
            }
            if let Some(p) = &rec.problem {
                if p.code != urlkey::ErrorCode::InputMissingField {
                    raw.problems.push(Problem {
                        line,
                        column: self.headers.first().cloned(),
                        reason: format!(
                            "{}: save the file as UTF-8, or pass --encoding LABEL",
                            p.message
                        ),
                    });
                }
            }
            if self.sheet {
                if cells.len() > width {
                    raw.problems.push(Problem {
                        line,
                        column: None,
                        reason: format!(
                            "the row has a value in column {}, past the header's last named \
                             column ({width}): name that column in the header row, or move \
                             the value",
                            cells.len()
                        ),
                    });
                }
            } else if rec.fields != width {
                raw.problems.push(Problem {
                    line,
                    column: None,
                    reason: format!(
                        "the row has {} cells, the header has {width}: every row needs one \
                         cell per column (quote a cell that holds the delimiter)",
                        rec.fields
                    ),
                });
            }
            for (i, h) in self.headers.iter().enumerate() {
                if !self.columns.iter().any(|(j, _)| *j == i) {
                    let cell = cells.get(i).cloned().unwrap_or_default();
                    raw.extra
                        .insert(h.trim().to_string(), serde_json::Value::String(cell));
                }
            }
            for (i, f) in &self.columns {
                let cell = cells.get(*i).cloned().unwrap_or_default();
                if *f == "observed_url" {
                    raw.observed_url = Some(cell);
                } else if !cell.trim().is_empty() {
                    raw.fields.insert(f, cell.trim().to_string());
                }
            }
            raw.cells = cells;
            out.push(raw);
        }
        Ok(more)
    }
}

impl JsonlRows<'_> {
    fn next_batch(&mut self, out: &mut Vec<RawRow>) -> Result<bool> {
        self.recs.clear();
        let more = self
            .src
            .next_batch(&mut self.recs, ROW_BATCH)
            .map_err(read_failed)?;
        for rec in self.recs.drain(..) {
            let line = rec.line;
            let bad = |column: Option<&str>, reason: String| Problem {
                line,
                column: column.map(str::to_string),
                reason,
            };
            let mut raw = RawRow {
                line,
                ..RawRow::default()
            };
            if let Some(p) = &rec.problem {
                raw.problems.push(bad(
                    None,
                    format!(
                        "{}: save the file as UTF-8, or pass --encoding LABEL",
                        p.message
                    ),
                ));
                raw.cells = vec![rec.observed];
                out.push(raw);
                continue;
            }
            let map = match serde_json::from_str::<serde_json::Value>(&rec.observed) {
                Ok(serde_json::Value::Object(map)) => map,
                Ok(_) => {
                    raw.problems
                        .push(bad(None, "each line must be one JSON object".to_string()));
                    raw.cells = vec![rec.observed];
                    out.push(raw);
                    continue;
                }
                Err(e) => {
                    raw.problems
                        .push(bad(None, format!("not a JSON value ({e})")));
                    raw.cells = vec![rec.observed];
                    out.push(raw);
                    continue;
                }
            };
            raw.cells = vec![rec.observed];
            for (k, v) in map {
                let Some(f) = self.columns.field_for(&k) else {
                    if !self.ignored.contains(&k) {
                        self.ignored.push(k.clone());
                    }
                    raw.extra.insert(k, v);
                    continue;
                };
                let text = match v {
                    serde_json::Value::Null => None,
                    serde_json::Value::String(s) => Some(s),
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
            out.push(raw);
        }
        Ok(more)
    }
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
