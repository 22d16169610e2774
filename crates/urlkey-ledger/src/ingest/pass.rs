//! The ingest of one file: the first read, the checks that need no lock, then one
//! transaction in which every row is completed, compared with what is stored, and stored or
//! refused.

use std::path::Path;

use rusqlite::{params, Connection, Transaction, TransactionBehavior};

use super::columns::{detect_format, ColumnMap, InputFormat};
use super::read::{check_input, Checked, Phase, ReadSettings, RowReader, ROW_BATCH};
use super::reingest::Stored;
use super::rejects::{rejects_failed, Refused, RejectsFile};
use super::row::{complete_row, Defaults, RawRow};
use super::summary::IngestSummary;
use crate::error::{ErrorKind, LedgerError, Result};
use crate::norm::Normalizer;
use crate::timefmt;
use crate::words::{NoProgress, PlainWords, Progress, Words};

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
    /// `--delimiter`: the delimiter of CSV files (none: detected from the header line).
    pub delimiter: Option<u8>,
    /// `--quote`: cells may be quoted (true, RFC 4180) or a quote is an ordinary character.
    pub quotes: bool,
    /// Told the bytes read as the file is checked and stored ([`Progress::advance`]).
    pub progress: &'a dyn Progress,
    /// How the rejects file words a remedy ([`Words::remedy`]).
    pub words: &'a dyn Words,
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
    ingest_file_with_progress(conn, path, format, defaults, norm, &NoProgress)
}

/// [`ingest_file`], telling `progress` the bytes read as it goes (every 1 MiB while
/// checking, every batch of rows while storing), for a progress bar.
pub fn ingest_file_with_progress(
    conn: &mut Connection,
    path: &Path,
    format: Option<InputFormat>,
    defaults: &Defaults,
    norm: &Normalizer,
    progress: &dyn Progress,
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
            delimiter: None,
            quotes: true,
            progress,
            words: &PlainWords,
        },
    )
}

/// Reads `path`, finds every problem of every row in one pass, and stores the good rows in
/// one transaction. Without `opts.rejects` a single problem stores nothing (the error lists
/// them all); with it, the good rows are stored and the refused ones written to that file
/// (atomically), so that rows read = stored + already present + rejected.
///
/// Memory is bounded: the file is read twice (see the module documentation), the rows a
/// batch at a time; what is kept across batches is the first [`PROBLEMS_LISTED`](super::PROBLEMS_LISTED) problems
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
    refuse_unreadable(&checked, format, opts, &shown)?;
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
        delimiter: opts.delimiter,
        quotes: opts.quotes,
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
        absent: rows.absent_fields(),
        words: opts.words,
    };

    let tx = begin(conn)?;
    let ingest_id = record_ingest(&tx, &checked, format, &summary)?;
    store_rows(
        &tx,
        &mut rows,
        opts,
        ingest_id,
        checked.bytes,
        &mut summary,
        &mut refused,
    )?;
    // The second pass must have read the bytes the first one hashed: a file that grew or
    // shrank in between (still being written, replaced) is refused, nothing stored.
    let reread = rows.bytes_read();
    if reread != checked.bytes {
        return Err(LedgerError::input(format!(
            "{shown} changed while it was read ({} bytes when hashed, {reread} bytes when its              rows were read): let the program writing it finish, then ingest it again;              nothing from {shown} was written",
            checked.bytes
        )));
    }
    summary.ignored_columns = rows.ignored().to_vec();
    summary.notices.extend(rows.take_notices());
    summary.rejected = refused.rows;
    refused.fold_absent();
    summary.problem_count = refused.problems;
    summary.problems = std::mem::take(&mut refused.listed);
    if refused.problems > 0 && opts.rejects.is_none() {
        // All or nothing: the transaction is dropped (rolled back) with the error.
        return Err(LedgerError::new(ErrorKind::RowsRefused {
            file: shown,
            rejected: summary.rejected,
            read: summary.rows_read,
            problem_count: summary.problem_count,
            problems: std::mem::take(&mut summary.problems),
        }));
    }
    end(tx, ingest_id, &mut summary, &mut refused, opts.rejects)?;
    Ok(summary)
}

/// Ends the ingest: the counts recorded and the rows committed (or, with none added, no
/// trace left), then the rejects file renamed into place.
fn end(
    tx: Transaction<'_>,
    ingest_id: i64,
    summary: &mut IngestSummary,
    refused: &mut Refused<'_>,
    rejects: Option<&Path>,
) -> Result<()> {
    let shown = summary.path.clone();
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
    if let (Some(file), Some(r)) = (pending, rejects) {
        file.commit().map_err(|e| {
            LedgerError::new(ErrorKind::RejectsUnwritable {
                path: r.to_path_buf(),
                file: shown.clone(),
                stored: summary.added,
                error: e.to_string(),
            })
            .with_source(e)
        })?;
        summary.rejects = Some(r.display().to_string());
    }
    Ok(())
}

/// Refuses, before any lock is taken, an input that cannot be read as `format`: `--sheet`
/// with a text format, binary bytes, or bytes that are not UTF-8 when no encoding is given.
fn refuse_unreadable(
    checked: &Checked,
    format: InputFormat,
    opts: &IngestOptions<'_>,
    shown: &str,
) -> Result<()> {
    if let Some(s) = opts.sheet {
        if !format.is_sheet() {
            return Err(LedgerError::new(ErrorKind::SheetOfText {
                sheet: s.to_string(),
                file: shown.to_string(),
                format: format.as_str(),
            }));
        }
    }
    let utf16 = checked.head.starts_with(b"\xFF\xFE") || checked.head.starts_with(b"\xFE\xFF");
    if !format.is_sheet() {
        if let Some(why) = urlkey_batch::input::sniff(&checked.head).binary {
            return Err(LedgerError::input(format!(
                "{shown} does not look like text: {why}; ledger ingest reads CSV, TSV, JSONL and \
                 spreadsheets (.xlsx, .xls, .ods), plain or as .gz/.zst; nothing from {shown} \
                 was written"
            )));
        }
        if let (None, false, Some((at, line))) = (opts.encoding, utf16, checked.not_utf8) {
            // Caught here for the whole file: the shared reader would show the bytes as
            // \xNN escapes, and the ledger stores observed URLs exactly.
            return Err(LedgerError::new(ErrorKind::NotUtf8 {
                file: shown.to_string(),
                line,
                byte: at,
            }));
        }
    }
    Ok(())
}

/// Starts the ingest's write transaction, waiting for another writer's lock.
fn begin(conn: &mut Connection) -> Result<Transaction<'_>> {
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
    Ok(tx)
}

/// Records the ingest (its counts are set when it ends); its id.
fn record_ingest(
    tx: &Transaction<'_>,
    checked: &Checked,
    format: InputFormat,
    summary: &IngestSummary,
) -> Result<i64> {
    tx.execute(
        "INSERT INTO ingests (source_path, source_xxh3_128, input_format, \
         normalization_policy_version, ingested_at, tool_version, rows_read, rows_added, \
         rows_unchanged, compression, sheet) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, 0, 0, ?7, ?8)",
        params![
            summary.path,
            checked.hash,
            format.as_str(),
            summary.policy,
            timefmt::now_millis(),
            env!("CARGO_PKG_VERSION"),
            checked.compression,
            summary.sheet,
        ],
    )
    .map_err(|e| LedgerError::db("cannot record the ingest", e))?;
    Ok(tx.last_insert_rowid())
}

/// The second read: every row completed, compared with what is stored under its
/// `observation_id`, and stored or refused.
fn store_rows(
    tx: &Transaction<'_>,
    rows: &mut RowReader<'_>,
    opts: &IngestOptions<'_>,
    ingest_id: i64,
    file_bytes: u64,
    summary: &mut IngestSummary,
    refused: &mut Refused<'_>,
) -> Result<()> {
    let norm = opts.norm;
    let shown = summary.path.clone();
    let mut find = tx
        .prepare(Stored::LOOKUP)
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
    let mut insert_fragments = tx
        .prepare(crate::fragments::INSERT)
        .map_err(|e| LedgerError::db("cannot prepare the text fragment insert", e))?;
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
            let existing = Stored::find(&mut find, &row.observation_id)?;
            if let Some(stored) = existing {
                let diffs = stored.differences(&row, norm.id());
                if diffs.is_empty() {
                    summary.unchanged += 1;
                    continue;
                }
                let p = stored.conflict(&row, ingest_id, &diffs);
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
            crate::fragments::store(
                &mut insert_fragments,
                &row.observation_id,
                &row.observed_url,
            )?;
            summary.added += 1;
            if n.key.is_none() {
                summary.invalid_added += 1;
            }
        }
        opts.progress
            .advance(Phase::Store, rows.bytes_read(), file_bytes);
        if !more {
            break;
        }
    }
    Ok(())
}
