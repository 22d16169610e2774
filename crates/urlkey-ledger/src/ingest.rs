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
pub const INPUT_FIELDS: [&str; 8] = [
    "observation_id",
    "prompt_id",
    "prompt_version",
    "answer_system",
    "market",
    "collection",
    "run_timestamp",
    "observed_url",
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
    /// Columns or fields the ledger does not read.
    pub ignored_columns: Vec<String>,
}

impl IngestSummary {
    /// True when nothing was written.
    pub fn is_noop(&self) -> bool {
        self.added == 0
    }
}

impl fmt::Display for IngestSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
}

/// A row's fields before defaults: `None` for a missing column or an empty cell.
#[derive(Debug, Default)]
struct RawRow {
    line: u64,
    fields: HashMap<&'static str, String>,
    /// `Some` when the row has an `observed_url` (possibly empty).
    observed_url: Option<String>,
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
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| {
        LedgerError::Input(format!(
            "cannot read {shown}: {e}; check the path and its permissions"
        ))
    })?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let format = format.unwrap_or_else(|| detect_format(path, bytes));
    let fail = |line: u64, msg: String| {
        LedgerError::Input(format!(
            "{shown} line {line}: {msg}; nothing from {shown} was written"
        ))
    };
    let (raw_rows, ignored) = match format {
        InputFormat::Csv => read_delimited(bytes, b',', &shown)?,
        InputFormat::Tsv => read_delimited(bytes, b'\t', &shown)?,
        InputFormat::Jsonl => read_jsonl(bytes, &shown)?,
    };
    let mut rows = Vec::with_capacity(raw_rows.len());
    for raw in raw_rows {
        rows.push(complete_row(raw, defaults).map_err(|(line, msg)| fail(line, msg))?);
    }

    let hash = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(bytes));
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
            rows.len() as i64
        ],
    )
    .map_err(|e| LedgerError::db("cannot record the ingest", e))?;
    let ingest_id = tx.last_insert_rowid();

    let mut summary = IngestSummary {
        path: shown.clone(),
        format,
        policy: norm.id().to_string(),
        rows_read: rows.len(),
        added: 0,
        unchanged: 0,
        invalid_added: 0,
        ignored_columns: ignored,
    };
    {
        let mut find = tx
            .prepare(
                "SELECT o.prompt_id, o.prompt_version, o.answer_system, o.market, o.collection, \
                 o.run_timestamp, o.observed_url, o.normalization_policy_version, o.ingest_id, \
                 o.source_line, i.source_path \
                 FROM observations o JOIN ingests i USING (ingest_id) WHERE o.observation_id = ?1",
            )
            .map_err(|e| LedgerError::db("cannot prepare the lookup", e))?;
        let mut insert = tx
            .prepare(
                "INSERT INTO observations (observation_id, prompt_id, prompt_version, \
                 answer_system, market, collection, run_timestamp, run_at, observed_url, \
                 normalization_policy_version, normalized_key, canonical_form, \
                 publisher_hostname, transformations, removed_params, error_code, \
                 error_message, ingest_id, source_line) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, \
                 ?16, ?17, ?18, ?19)",
            )
            .map_err(|e| LedgerError::db("cannot prepare the insert", e))?;
        let total = rows.len() as u64;
        for (done, row) in rows.iter().enumerate() {
            if done % 1024 == 0 {
                progress(done as u64, total);
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
                        observed_url: r.get(6)?,
                        policy: r.get(7)?,
                        ingest_id: r.get(8)?,
                        source_line: r.get(9)?,
                        source_path: r.get(10)?,
                    })
                })
                .optional()
                .map_err(|e| LedgerError::db("cannot look up an observation", e))?;
            if let Some(stored) = existing {
                let diffs = stored.differences(row, norm.id());
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
                return Err(fail(
                    row.line,
                    format!(
                        "observation_id {:?} is already in the ledger ({origin}) with different \
                         content: {}. An observation_id names one dated observation: give this \
                         row a new observation_id, or correct it to match",
                        row.observation_id,
                        diffs.join("; ")
                    ),
                ));
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
                ])
                .map_err(|e| {
                    LedgerError::db(&format!("cannot store {shown} line {}", row.line), e)
                })?;
            summary.added += 1;
            if n.key.is_none() {
                summary.invalid_added += 1;
            }
        }
        progress(total, total);
    }
    if summary.added == 0 {
        // Nothing new: leave no trace, not even the ingest record.
        tx.rollback()
            .map_err(|e| LedgerError::db("cannot end the ingest transaction", e))?;
        return Ok(summary);
    }
    tx.execute(
        "UPDATE ingests SET rows_added = ?1, rows_unchanged = ?2 WHERE ingest_id = ?3",
        params![summary.added as i64, summary.unchanged as i64, ingest_id],
    )
    .map_err(|e| LedgerError::db("cannot record the ingest counts", e))?;
    tx.commit()
        .map_err(|e| LedgerError::db("cannot commit the ingest", e))?;
    Ok(summary)
}

struct Stored {
    prompt_id: Option<String>,
    prompt_version: String,
    answer_system: String,
    market: String,
    collection: Option<String>,
    run_timestamp: String,
    observed_url: String,
    policy: String,
    ingest_id: i64,
    source_line: i64,
    source_path: String,
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
        cmp(
            "observed_url",
            Some(&self.observed_url),
            Some(&row.observed_url),
        );
        cmp("normalization policy", Some(&self.policy), Some(policy));
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

fn field_name(name: &str) -> Option<&'static str> {
    INPUT_FIELDS.iter().copied().find(|f| *f == name)
}

type ReadResult = Result<(Vec<RawRow>, Vec<String>)>;

fn read_delimited(bytes: &[u8], delimiter: u8, shown: &str) -> ReadResult {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(true)
        .flexible(false)
        .from_reader(bytes);
    let headers = reader
        .headers()
        .map_err(|e| {
            LedgerError::Input(format!(
                "{shown}: cannot read the header row: {e}; the first line must name the columns \
                 ({})",
                INPUT_FIELDS.join(", ")
            ))
        })?
        .clone();
    let mut columns: Vec<(usize, &'static str)> = Vec::new();
    let mut ignored = Vec::new();
    for (i, h) in headers.iter().enumerate() {
        let name = h.trim();
        match field_name(name) {
            Some(f) => {
                if columns.iter().any(|(_, g)| *g == f) {
                    return Err(LedgerError::Input(format!(
                        "{shown}: the column {f:?} appears twice in the header; keep one"
                    )));
                }
                columns.push((i, f));
            }
            None => ignored.push(name.to_string()),
        }
    }
    for required in ["observation_id", "observed_url"] {
        if !columns.iter().any(|(_, f)| *f == required) {
            let found: Vec<&str> = headers.iter().collect();
            return Err(LedgerError::Input(format!(
                "{shown}: no {required:?} column (the header has: {}); the ledger needs \
                 observation_id and observed_url, and reads {}",
                found.join(", "),
                INPUT_FIELDS.join(", ")
            )));
        }
    }
    let mut rows = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        let line = reader.position().line();
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let at = e.position().map(|p| p.line()).unwrap_or(line);
                return Err(LedgerError::Input(format!(
                    "{shown} line {at}: {e}; fix the row (every row needs as many cells as the \
                     header, in UTF-8); nothing from {shown} was written"
                )));
            }
        }
        let line = record.position().map(|p| p.line()).unwrap_or(line);
        // A row of nothing but empty cells is a blank line: skip it.
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let mut raw = RawRow {
            line,
            ..RawRow::default()
        };
        for (i, f) in &columns {
            let cell = record.get(*i).unwrap_or_default();
            if *f == "observed_url" {
                raw.observed_url = Some(cell.to_string());
            } else if !cell.trim().is_empty() {
                raw.fields.insert(f, cell.trim().to_string());
            }
        }
        rows.push(raw);
    }
    Ok((rows, ignored))
}

fn read_jsonl(bytes: &[u8], shown: &str) -> ReadResult {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        LedgerError::Input(format!(
            "{shown} line {line}: not valid UTF-8; save the file as UTF-8"
        ))
    })?;
    let mut rows = Vec::new();
    let mut ignored: Vec<String> = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let line = i as u64 + 1;
        if l.trim().is_empty() {
            continue;
        }
        let bad = |msg: String| {
            LedgerError::Input(format!(
                "{shown} line {line}: {msg}; nothing from {shown} was written"
            ))
        };
        let value: serde_json::Value =
            serde_json::from_str(l).map_err(|e| bad(format!("not a JSON value ({e})")))?;
        let serde_json::Value::Object(map) = value else {
            return Err(bad("each line must be one JSON object".to_string()));
        };
        let mut raw = RawRow {
            line,
            ..RawRow::default()
        };
        for (k, v) in &map {
            let Some(f) = field_name(k) else {
                if !ignored.contains(k) {
                    ignored.push(k.clone());
                }
                continue;
            };
            let text = match v {
                serde_json::Value::Null => None,
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(n) if f != "observed_url" => Some(n.to_string()),
                serde_json::Value::Bool(b) if f != "observed_url" => Some(b.to_string()),
                _ => {
                    return Err(bad(format!(
                        "field {f:?} must be a string{}",
                        if f == "observed_url" {
                            ""
                        } else {
                            " or a number"
                        }
                    )))
                }
            };
            if f == "observed_url" {
                raw.observed_url = text;
            } else if let Some(t) = text.filter(|t| !t.trim().is_empty()) {
                raw.fields.insert(f, t.trim().to_string());
            }
        }
        if raw.observed_url.is_none() {
            return Err(bad(
                "no \"observed_url\" string: every observation needs the URL exactly as the \
                 answer showed it"
                    .to_string(),
            ));
        }
        rows.push(raw);
    }
    Ok((rows, ignored))
}

fn complete_row(mut raw: RawRow, d: &Defaults) -> std::result::Result<Row, (u64, String)> {
    let line = raw.line;
    let mut take = |name: &'static str, default: &Option<String>| -> Option<String> {
        raw.fields.remove(name).or_else(|| {
            default
                .as_ref()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        })
    };
    let need = |name: &str, flag: &str, v: Option<String>| {
        v.ok_or_else(|| {
            (
                line,
                format!(
                    "no {name}: add a {name} column, or pass {flag} to fill in rows that have none"
                ),
            )
        })
    };
    let observation_id = take("observation_id", &None).ok_or_else(|| {
        (
            line,
            "no observation_id: every row needs a stable id for its dated answer observation"
                .to_string(),
        )
    })?;
    let prompt_id = take("prompt_id", &None);
    let prompt_version = need(
        "prompt_version",
        "--prompt-version",
        take("prompt_version", &d.prompt_version),
    )?;
    let answer_system = need(
        "answer_system",
        "--answer-system",
        take("answer_system", &d.answer_system),
    )?;
    let market = need("market", "--market", take("market", &d.market))?;
    let collection = take("collection", &d.collection);
    let run_timestamp = need(
        "run_timestamp",
        "--run-timestamp",
        take("run_timestamp", &d.run_timestamp),
    )?;
    let run_at = timefmt::parse_run_timestamp(&run_timestamp).map_err(|m| (line, m))?;
    let observed_url = raw
        .observed_url
        .ok_or_else(|| (line, "no observed_url".to_string()))?;
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
        observed_url,
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
