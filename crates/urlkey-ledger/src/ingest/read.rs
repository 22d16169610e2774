//! The two reads of a file: the first ([`check_input`]) hashes its bytes, checks the encoding
//! and keeps its start for sniffing; the second ([`RowReader`]) streams its rows in batches,
//! through the batch crate's shared readers (CSV, TSV, spreadsheets) or line by line (JSONL).

use std::path::Path;

use super::columns::{ColumnMap, InputFormat, INPUT_FIELDS};
use super::row::RawRow;
use super::summary::Problem;
use crate::error::{ErrorKind, LedgerError, Result, Setting};
use crate::words::Remedy;

/// Rows read in one batch of the second pass (what memory holds at once).
pub(super) const ROW_BATCH: usize = 4096;

/// Which part of an ingest a progress call is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The first read: the file's hash, its encoding and its start (no lock held).
    Check,
    /// The second read: every row checked, compared and stored, in the transaction.
    Store,
}

/// How many bytes of the start of the content are kept for sniffing.
pub(super) const HEAD_BYTES: usize = 64 * 1024;

/// The file as the first pass found it.
pub(super) struct Checked {
    /// What the second pass reads: the file, or standard input's temporary copy.
    pub(super) source: urlkey_batch::input::Source,
    /// Standard input's copy, removed when dropped.
    pub(super) _spill: Option<tempfile::TempPath>,
    /// xxh3-128 of the bytes as stored (a compressed file: the compressed bytes).
    pub(super) hash: String,
    /// `gzip` or `zstd`.
    pub(super) compression: Option<&'static str>,
    /// The first [`HEAD_BYTES`] of the content (decompressed).
    pub(super) head: Vec<u8>,
    /// The size of the file as stored.
    pub(super) bytes: u64,
    /// The first byte that is not UTF-8 (offset in the content, line).
    pub(super) not_utf8: Option<(u64, u64)>,
}

/// The content seen chunk by chunk: its head, and where it stops being UTF-8.
#[derive(Default)]
pub(super) struct TextCheck {
    pub(super) head: Vec<u8>,
    /// The start of a character cut by the end of the last chunk.
    pub(super) carry: Vec<u8>,
    pub(super) offset: u64,
    pub(super) lines: u64,
    pub(super) bad: Option<(u64, u64)>,
}

impl TextCheck {
    pub(super) fn feed(&mut self, chunk: &[u8]) {
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

    pub(super) fn finish(&mut self) {
        if self.bad.is_none() && !self.carry.is_empty() {
            self.bad = Some((self.offset, self.lines + 1));
        }
    }
}

/// The first pass: hashes the bytes as stored, copies standard input to a temporary file,
/// and looks at the content (decompressed): its first bytes, and whether it is UTF-8.
pub(super) fn check_input(
    path: &Path,
    shown: &str,
    progress: &dyn crate::words::Progress,
) -> Result<Checked> {
    use std::io::{Read, Write};
    use urlkey_batch::input::Source;
    let cannot = |e: std::io::Error| {
        LedgerError::input(format!(
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
                    LedgerError::input(format!(
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
                LedgerError::input(format!(
                    "cannot keep standard input in a temporary file ({e}); check the free \
                     space of the temporary directory (TMPDIR), or ingest a file"
                ))
            })?;
        }
        done += n as u64;
        progress.advance(Phase::Check, done, total);
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
            .map_err(|e| LedgerError::input(format!("{e}; nothing from {shown} was written")))?;
        text = TextCheck::default();
        let mut out = 0u64;
        loop {
            let n = match r.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(LedgerError::input(format!(
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
            progress.advance(Phase::Check, out, 0);
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

/// How the shared reader is to read the file.
pub(super) struct ReadSettings<'a> {
    pub(super) shown: &'a str,
    pub(super) columns: &'a ColumnMap,
    pub(super) encoding: Option<&'a str>,
    pub(super) sheet: Option<&'a str>,
    pub(super) delimiter: Option<u8>,
    pub(super) quotes: bool,
}

/// The longest line (a JSONL row) or URL cell read whole.
pub(super) const MAX_CELL_BYTES: usize = 16 << 20;

pub(super) fn reader_options(
    format: InputFormat,
    rs: &ReadSettings<'_>,
) -> Result<urlkey_batch::input::ReadOptions> {
    use urlkey_batch::input::{encoding_for_label, InputFormat as B, KeepColumns, ReadOptions};
    let encoding = match rs.encoding {
        None => None,
        Some(l) => Some(encoding_for_label(l).ok_or_else(|| unknown_encoding(l))?),
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
        delimiter: rs.delimiter,
        quotes: rs.quotes,
        // Every column is read; the URL's is found from the header afterwards, and a
        // line break in it is refused there ([`TableRows::next_batch`]).
        url_in_column: false,
        ..ReadOptions::default()
    })
}

/// The rows of a file, a batch at a time.
pub(super) enum RowReader<'a> {
    Table(TableRows),
    Jsonl(JsonlRows<'a>),
}

/// CSV, TSV and spreadsheet rows: which column holds which field.
pub(super) struct TableRows {
    pub(super) src: Box<dyn urlkey_batch::input::RecordSource>,
    pub(super) headers: Vec<String>,
    pub(super) columns: Vec<(usize, &'static str)>,
    pub(super) ignored: Vec<String>,
    /// A spreadsheet: trailing empty cells are no cells, and no row is short.
    pub(super) sheet: bool,
    /// The file's name in messages.
    pub(super) shown: String,
    pub(super) recs: Vec<urlkey_batch::input::InputRecord>,
}

/// JSONL rows.
pub(super) struct JsonlRows<'a> {
    pub(super) src: Box<dyn urlkey_batch::input::RecordSource>,
    pub(super) columns: &'a ColumnMap,
    pub(super) ignored: Vec<String>,
    pub(super) recs: Vec<urlkey_batch::input::InputRecord>,
}

impl<'a> RowReader<'a> {
    /// Opens the reader and, for a table, resolves the header (the fields' columns).
    pub(super) fn open(
        source: &urlkey_batch::input::Source,
        format: InputFormat,
        rs: &ReadSettings<'a>,
    ) -> Result<RowReader<'a>> {
        let shown = rs.shown;
        let ropts = reader_options(format, rs)?;
        let src = urlkey_batch::input::open_records(source, &ropts).map_err(|e| {
            if let urlkey_batch::input::InputErrorKind::Quote { .. } = e.kind {
                return read_failed(e);
            }
            LedgerError::new(ErrorKind::Unreadable {
                detail: e.to_string(),
                file: shown.to_string(),
            })
            .with_source(e)
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
                        return Err(LedgerError::new(ErrorKind::SameField {
                            file: shown.to_string(),
                            headers: (headers[*j].clone(), name.to_string()),
                            field: f,
                        }));
                    }
                    columns.push((i, f));
                }
                None => ignored.push(name.to_string()),
            }
        }
        let missing = rs.columns.missing(&headers);
        if !missing.is_empty() {
            return Err(LedgerError::new(ErrorKind::NoSuchColumn {
                file: shown.to_string(),
                missing: missing.iter().map(|m| m.to_string()).collect(),
                header: headers.clone(),
            }));
        }
        for required in ["observation_id", "observed_url"] {
            if !columns.iter().any(|(_, f)| *f == required) {
                return Err(LedgerError::new(ErrorKind::NoColumn {
                    file: shown.to_string(),
                    field: required,
                    header: headers.clone(),
                }));
            }
        }
        Ok(RowReader::Table(TableRows {
            src,
            headers,
            columns,
            ignored,
            sheet,
            shown: shown.to_string(),
            recs: Vec::new(),
        }))
    }

    pub(super) fn src(&mut self) -> &mut Box<dyn urlkey_batch::input::RecordSource> {
        match self {
            RowReader::Table(t) => &mut t.src,
            RowReader::Jsonl(j) => &mut j.src,
        }
    }

    pub(super) fn take_notices(&mut self) -> Vec<String> {
        self.src().take_notices()
    }

    pub(super) fn sheet_name(&mut self) -> Option<String> {
        self.src().sheet_name().map(str::to_string)
    }

    pub(super) fn bytes_read(&mut self) -> u64 {
        self.src().bytes_read()
    }

    /// The header of a table (empty for JSONL).
    pub(super) fn header(&self) -> &[String] {
        match self {
            RowReader::Table(t) => &t.headers,
            RowReader::Jsonl(_) => &[],
        }
    }

    /// The ledger fields a table's header has no column for (none for JSONL, whose
    /// objects may each differ).
    pub(super) fn absent_fields(&self) -> Vec<super::rejects::Absent> {
        match self {
            RowReader::Table(t) => INPUT_FIELDS
                .iter()
                .filter(|f| !t.columns.iter().any(|(_, g)| g == *f))
                .map(|&field| super::rejects::Absent {
                    field,
                    ..Default::default()
                })
                .collect(),
            RowReader::Jsonl(_) => Vec::new(),
        }
    }

    /// Columns or fields without a ledger field (JSONL: those seen so far).
    pub(super) fn ignored(&self) -> &[String] {
        match self {
            RowReader::Table(t) => &t.ignored,
            RowReader::Jsonl(j) => &j.ignored,
        }
    }

    /// Appends the next batch of rows to `out`; false at the end.
    pub(super) fn next_batch(&mut self, out: &mut Vec<RawRow>) -> Result<bool> {
        match self {
            RowReader::Table(t) => t.next_batch(out),
            RowReader::Jsonl(j) => j.next_batch(out),
        }
    }
}

pub(super) fn read_failed(e: urlkey_batch::input::InputError) -> LedgerError {
    match e.kind {
        urlkey_batch::input::InputErrorKind::Quote { line } => stray_quote(&e.to_string(), line),
        _ => LedgerError::input(format!("{e}; nothing was written")),
    }
}

/// The refusal of a quote that folds lines into one cell (code `input.stray-quote`).
fn stray_quote(what: &str, line: u64) -> LedgerError {
    LedgerError::new(ErrorKind::StrayQuote {
        detail: what.to_string(),
        line,
    })
}

/// The refusal of an encoding label that names no encoding.
pub fn unknown_encoding(label: &str) -> LedgerError {
    LedgerError::invalid(
        Setting::Encoding,
        format!(
            " {label:?} is not an encoding label: use e.g. utf-8, utf-16le, windows-1252, \
             iso-8859-1"
        ),
    )
}

impl TableRows {
    pub(super) fn next_batch(&mut self, out: &mut Vec<RawRow>) -> Result<bool> {
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
                        reason: format!("{}: save the file as UTF-8", p.message),
                        remedy: Some(Remedy::Encoding),
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
                        remedy: None,
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
                    remedy: None,
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
                    if !self.sheet && cell.contains(['\n', '\r']) {
                        // A URL never holds a line break: a quote that opens this cell
                        // and closes lines later folded rows into it.
                        let breaks = cell.matches('\n').count().max(cell.matches('\r').count());
                        return Err(stray_quote(
                            &format!(
                                "{}: line {line}: a quote opens the observed_url cell and is \
                                 closed {breaks} line(s) later: the URL's cell would hold line \
                                 breaks, and a URL holds none",
                                self.shown
                            ),
                            line,
                        ));
                    }
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
    pub(super) fn next_batch(&mut self, out: &mut Vec<RawRow>) -> Result<bool> {
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
                remedy: None,
            };
            let not_utf8 = |message: &str| Problem {
                line,
                column: None,
                reason: format!("{message}: save the file as UTF-8"),
                remedy: Some(Remedy::Encoding),
            };
            let mut raw = RawRow {
                line,
                ..RawRow::default()
            };
            if let Some(p) = &rec.problem {
                raw.problems.push(not_utf8(&p.message));
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
