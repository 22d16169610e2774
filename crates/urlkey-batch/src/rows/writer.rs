//! The writer of every format: key records (`urlkey key`), map rows and `--groups` rows
//! (`urlkey map`) as JSONL, CSV, TSV, bare keys or Parquet. JSONL is written here; CSV and
//! TSV cells are encoded by `rows/csv.rs` (map rows) or the csv crate (the other tables);
//! Parquet by `rows/parquet.rs`.

use std::io::{self, Write};

use serde::Serialize;

use super::columns::{Cell, Table, Tail};
use super::csv::{join, push_map_row, spreadsheet_safe};
use super::parquet::ParquetSink;
use super::record::{GroupRow, KeyRecord, MapRow, RowSink};

/// Output shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// One JSON object per line.
    Jsonl,
    /// CSV with a header row.
    Csv,
    /// Tab-separated with a header row.
    Tsv,
    /// The key alone, one per line (an empty line for an invalid record).
    Key,
    /// An Apache Parquet file with the JSONL fields as columns (`rows/parquet.rs`).
    Parquet,
}

impl OutputFormat {
    /// Parses `jsonl`, `csv`, `tsv`, `key` or `parquet`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "jsonl" | "json" | "ndjson" => Some(Self::Jsonl),
            "csv" => Some(Self::Csv),
            "tsv" => Some(Self::Tsv),
            "key" => Some(Self::Key),
            "parquet" => Some(Self::Parquet),
            _ => None,
        }
    }
}

/// Writes records in one format.
pub struct RecordWriter<W: Write> {
    tail: Tail,
    excel: bool,
    format: OutputFormat,
    /// CSV/TSV rows are encoded into memory and drained into `raw` with the other bytes.
    csv: Option<csv::Writer<Vec<u8>>>,
    /// `csv` holds bytes not yet moved into `buf` (rows encoded directly into `buf` must
    /// come after them).
    csv_pending: bool,
    raw: Option<W>,
    buf: Vec<u8>,
    header_written: bool,
    parquet: Option<ParquetSink>,
    /// A [`RecordWriter::fragment`]: every byte stays in `buf` until
    /// [`RecordWriter::into_bytes`] hands it over whole (copying it into `raw` on the way
    /// cost a memcpy of every output byte, and growing `raw` a realloc).
    keep_all: bool,
}

impl RecordWriter<Vec<u8>> {
    /// A writer of part of the rows, into memory, without a header: worker threads format
    /// their rows with it and the writing thread joins the bytes in input order.
    pub fn fragment(format: OutputFormat, tail: &Tail) -> Self {
        let mut w = RecordWriter::new(format, Vec::new());
        w.tail = tail.clone();
        w.header_written = true;
        w.keep_all = true;
        // A map chunk's rows are ~110 KB, some over 128 KB: room for them without growing.
        w.buf = Vec::with_capacity(FRAGMENT_BYTES);
        w
    }

    /// The bytes of a [`RecordWriter::fragment`] (or, for any other writer into memory,
    /// what [`RecordWriter::finish`] gives), without copying them once more.
    pub fn into_bytes(mut self) -> io::Result<Vec<u8>> {
        if self.parquet.is_some() || !self.raw.as_ref().is_some_and(Vec::is_empty) {
            return self.finish();
        }
        self.drain_csv()?;
        Ok(std::mem::take(&mut self.buf))
    }
}

/// The first capacity of a [`RecordWriter::fragment`]'s buffer.
const FRAGMENT_BYTES: usize = 192 * 1024;

/// A writer's buffer goes to its output once it holds this much.
const FLUSH_BYTES: usize = 60 * 1024;

impl<W: Write> RecordWriter<W> {
    /// A writer of `format` to `out`.
    pub fn new(format: OutputFormat, out: W) -> Self {
        match format {
            OutputFormat::Csv | OutputFormat::Tsv => RecordWriter {
                tail: Tail::default(),
                excel: false,
                format,
                csv: Some(csv_encoder(format, Vec::with_capacity(64 * 1024))),
                csv_pending: false,
                raw: Some(out),
                buf: Vec::new(),
                header_written: false,
                parquet: None,
                keep_all: false,
            },
            _ => RecordWriter {
                tail: Tail::default(),
                excel: false,
                format,
                csv: None,
                csv_pending: false,
                raw: Some(out),
                buf: Vec::with_capacity(64 * 1024),
                header_written: false,
                parquet: (format == OutputFormat::Parquet).then(ParquetSink::new),
                keep_all: false,
            },
        }
    }

    /// The same writer with these tail columns after urlkey's own.
    pub fn with_tail(mut self, tail: Tail) -> Self {
        self.tail = tail;
        self
    }

    /// CSV/TSV for Excel: a UTF-8 byte-order mark before the header (rows already end in
    /// CRLF), without which Excel on Windows shows `pÃ¤ge` for `päge`.
    pub fn with_excel_bom(mut self, on: bool) -> Self {
        self.excel = on;
        self
    }

    /// A row's tail cells, built only when the writer has tail columns (most runs have
    /// none, and the row loop is hot).
    fn tail_of<'r>(&self, cells: impl FnOnce() -> Vec<Cell<'r>>) -> Vec<Cell<'r>> {
        if self.tail.is_empty() {
            Vec::new()
        } else {
            cells()
        }
    }

    /// The tail columns.
    pub fn tail(&self) -> &Tail {
        &self.tail
    }

    /// The output format.
    pub fn format(&self) -> OutputFormat {
        self.format
    }

    /// True when rows can be formatted in pieces by worker threads ([`RecordWriter::fragment`])
    /// and joined with [`RecordWriter::write_raw`]: every text format; not Parquet.
    pub fn supports_fragments(&self) -> bool {
        self.format != OutputFormat::Parquet
    }

    /// Writes bytes that a [`RecordWriter::fragment`] of the same format produced.
    pub fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.drain_csv()?;
        if self.keep_all {
            self.buf.extend_from_slice(bytes);
            return Ok(());
        }
        // Nothing waits to go before these bytes, or they are a large piece (a chunk's
        // rows): straight to the writer (buffered by the caller) after what is buffered,
        // not through `buf`, which would copy every output byte once more.
        if !self.buf.is_empty() && self.buf.len() + bytes.len() < FLUSH_BYTES {
            self.buf.extend_from_slice(bytes);
            return Ok(());
        }
        self.flush_buf(true)?;
        match &mut self.raw {
            Some(w) => w.write_all(bytes),
            None => Err(io::Error::other("writer already finished")),
        }
    }

    /// Moves the encoded CSV rows into the byte buffer, in order.
    fn drain_csv(&mut self) -> io::Result<()> {
        self.csv_pending = false;
        if let Some(w) = self.csv.take() {
            let mut bytes = w
                .into_inner()
                .map_err(|e| io::Error::other(e.to_string()))?;
            self.buf.extend_from_slice(&bytes);
            bytes.clear();
            self.csv = Some(csv_encoder(self.format, bytes));
        }
        Ok(())
    }

    fn header(&mut self, table: Table) -> io::Result<()> {
        if !self.header_written {
            self.header_written = true;
            if let Some(w) = &mut self.csv {
                if self.excel {
                    self.buf.extend_from_slice("\u{feff}".as_bytes());
                }
                let tail = self.tail.names(table);
                self.csv_pending = true;
                w.write_record(
                    table
                        .csv_names()
                        .into_iter()
                        .chain(tail.iter().map(String::as_str)),
                )?;
            }
        }
        Ok(())
    }

    /// Writes a row as one JSON object, the tail cells after its fields.
    fn write_json_row<T: Serialize>(
        &mut self,
        table: Table,
        v: &T,
        tail: Vec<Cell<'_>>,
    ) -> io::Result<()> {
        serde_json::to_writer(&mut self.buf, v).map_err(io::Error::other)?;
        if !self.tail.is_empty() {
            let cells = self.tail.cells(table, tail);
            push_json_tail(&mut self.buf, &self.tail.names(table), cells)?;
        }
        self.buf.push(b'\n');
        self.flush_buf(false)
    }

    /// Writes the header now (an empty input still gets one).
    pub fn start_key(&mut self) -> io::Result<()> {
        if let Some(p) = &mut self.parquet {
            p.start(Table::Key, self.tail.names(Table::Key))?;
        }
        self.header(Table::Key)
    }

    /// Writes the header now (an empty input still gets one).
    pub fn start_map(&mut self) -> io::Result<()> {
        if let Some(p) = &mut self.parquet {
            p.start(Table::Map, self.tail.names(Table::Map))?;
        }
        self.header(Table::Map)
    }

    /// Writes one `urlkey key` record.
    pub fn write_key(&mut self, r: &KeyRecord<'_>) -> io::Result<()> {
        let tail = self.tail_of(|| r.tail());
        if let Some(p) = &mut self.parquet {
            p.write_key(r, &self.tail.cells(Table::Key, tail), &mut self.buf)?;
            return self.flush_buf(false);
        }
        match self.format {
            OutputFormat::Jsonl => self.write_json_row(Table::Key, r, tail),
            OutputFormat::Parquet => Err(io::Error::other("the Parquet writer is closed")),
            OutputFormat::Key => {
                self.buf.extend_from_slice(r.key.unwrap_or("").as_bytes());
                self.buf.push(b'\n');
                self.flush_buf(false)
            }
            OutputFormat::Csv | OutputFormat::Tsv => {
                self.header(Table::Key)?;
                let rules = join(r.transformations.iter().map(|t| t.rule));
                let removed = join(r.removed_params.iter().map(String::as_str));
                let facts = join(r.facts.iter().map(|f| f.as_str()));
                let line = r.line.to_string();
                let status = if r.error.is_none() { "ok" } else { "invalid" };
                let cells: [&str; 12] = [
                    &line,
                    &spreadsheet_safe(r.observed),
                    r.policy,
                    status,
                    &spreadsheet_safe(r.key.unwrap_or("")),
                    &spreadsheet_safe(r.canonical.unwrap_or("")),
                    r.error.map_or("", |e| e.code.as_str()),
                    &spreadsheet_safe(r.error.map_or("", |e| e.message.as_str())),
                    &rules,
                    &spreadsheet_safe(&removed),
                    &facts,
                    r.psl.unwrap_or(""),
                ];
                self.csv_write_with_tail(Table::Key, &cells, tail)
            }
        }
    }

    /// Writes one `urlkey map` row.
    pub fn write_map(&mut self, r: &MapRow<'_>) -> io::Result<()> {
        if self.parquet.is_some() {
            let cells = self.tail.cells(Table::Map, self.tail_of(|| r.tail()));
            if let Some(p) = &mut self.parquet {
                p.write_map(r, &cells, &mut self.buf)?;
            }
            return self.flush_buf(false);
        }
        match self.format {
            OutputFormat::Jsonl => {
                let tail = self.tail_of(|| r.tail());
                self.write_json_row(Table::Map, r, tail)
            }
            OutputFormat::Parquet => Err(io::Error::other("the Parquet writer is closed")),
            OutputFormat::Key => {
                self.buf.extend_from_slice(r.key.unwrap_or("").as_bytes());
                self.buf.push(b'\n');
                self.flush_buf(false)
            }
            OutputFormat::Csv | OutputFormat::Tsv => {
                self.header(Table::Map)?;
                if self.csv_pending {
                    self.drain_csv()?;
                }
                // Encoded here, as the csv crate does with this writer's settings
                // (`csv_encoder`; the test `direct_map_rows_equal_the_csv_crate`): its
                // per-field state machine cost as much as keying the record.
                let d = self.csv_delimiter();
                push_map_row(&mut self.buf, d, r, &self.tail);
                self.flush_buf(false)
            }
        }
    }

    /// True for JSON Lines output (and Parquet, whose rows carry the same fields).
    pub fn is_jsonl(&self) -> bool {
        matches!(self.format, OutputFormat::Jsonl | OutputFormat::Parquet)
    }

    /// Writes the `--groups` header now.
    pub fn start_map_groups(&mut self) -> io::Result<()> {
        if let Some(p) = &mut self.parquet {
            p.start(Table::Groups, self.tail.names(Table::Groups))?;
        }
        self.header(Table::Groups)
    }

    /// Writes one `--groups` row.
    pub fn write_group(&mut self, g: &GroupRow) -> io::Result<()> {
        let tail = vec![Cell::Text(g.group_source.as_deref())];
        if let Some(p) = &mut self.parquet {
            p.write_group(g, &self.tail.cells(Table::Groups, tail), &mut self.buf)?;
            return self.flush_buf(false);
        }
        match self.format {
            OutputFormat::Csv | OutputFormat::Tsv => {
                let lines = g
                    .sample_lines
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(";");
                let cells: [&str; 7] = [
                    &g.group.to_string(),
                    &spreadsheet_safe(&g.signature),
                    &g.members.to_string(),
                    &g.distinct_keys.to_string(),
                    g.classification,
                    &lines,
                    g.review,
                ];
                self.csv_write_with_tail(Table::Groups, &cells, tail)
            }
            _ => self.write_json_row(Table::Groups, g, tail),
        }
    }

    /// Writes a JSON value as one line.
    pub fn write_json<T: Serialize>(&mut self, v: &T) -> io::Result<()> {
        serde_json::to_writer(&mut self.buf, v).map_err(io::Error::other)?;
        self.buf.push(b'\n');
        self.flush_buf(false)
    }

    fn csv_delimiter(&self) -> u8 {
        if self.format == OutputFormat::Tsv {
            b'\t'
        } else {
            b','
        }
    }

    fn csv_write_with_tail(
        &mut self,
        table: Table,
        cells: &[&str],
        tail: Vec<Cell<'_>>,
    ) -> io::Result<()> {
        if self.tail.is_empty() {
            return self.csv_write(cells.iter().copied());
        }
        let tail: Vec<std::borrow::Cow<'_, str>> = self
            .tail
            .cells(table, tail)
            .into_iter()
            .map(|c| match c {
                Cell::Text(t) => spreadsheet_safe(t.unwrap_or("")),
                Cell::Int(n) => n.map_or(String::new(), |n| n.to_string()).into(),
            })
            .collect();
        self.csv_write(cells.iter().copied().chain(tail.iter().map(|c| c.as_ref())))
    }

    fn csv_write<'c>(&mut self, cells: impl IntoIterator<Item = &'c str>) -> io::Result<()> {
        self.csv_pending = true;
        match &mut self.csv {
            Some(w) => w.write_record(cells).map_err(io::Error::other)?,
            None => return Err(io::Error::other("not a CSV writer")),
        }
        if self
            .csv
            .as_ref()
            .is_some_and(|w| w.get_ref().len() >= FLUSH_BYTES)
        {
            self.drain_csv()?;
            self.flush_buf(false)?;
        }
        Ok(())
    }

    fn flush_buf(&mut self, force: bool) -> io::Result<()> {
        if force || (!self.keep_all && self.buf.len() >= FLUSH_BYTES) {
            if let Some(w) = &mut self.raw {
                w.write_all(&self.buf)?;
            }
            self.buf.clear();
        }
        Ok(())
    }

    /// Flushes everything and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(p) = self.parquet.take() {
            p.finish(&mut self.buf)?;
        }
        self.drain_csv()?;
        self.flush_buf(true)?;
        match self.raw.take() {
            Some(mut w) => {
                w.flush()?;
                Ok(w)
            }
            None => Err(io::Error::other("writer already finished")),
        }
    }
}

impl<W: Write + Send> RowSink for RecordWriter<W> {
    fn start(&mut self, table: Table) -> io::Result<()> {
        match table {
            Table::Key => self.start_key(),
            Table::Map => self.start_map(),
            Table::Groups => self.start_map_groups(),
            Table::DiffPolicies | Table::DiffInventories => Err(io::Error::other(
                "diff rows are written by urlkey_batch::diff::rows::DiffRows",
            )),
        }
    }
    fn key_record(&mut self, r: &KeyRecord<'_>) -> io::Result<()> {
        self.write_key(r)
    }
    fn map_row(&mut self, r: &MapRow<'_>) -> io::Result<()> {
        self.write_map(r)
    }
    fn group_row(&mut self, g: &GroupRow) -> io::Result<()> {
        self.write_group(g)
    }
}

/// Appends tail cells, named `names`, to the JSON object that `buf` ends with.
pub(crate) fn push_json_tail(
    buf: &mut Vec<u8>,
    names: &[String],
    cells: Vec<Cell<'_>>,
) -> io::Result<()> {
    if buf.last() != Some(&b'}') {
        return Ok(());
    }
    buf.pop();
    for (name, cell) in names.iter().zip(cells) {
        buf.push(b',');
        serde_json::to_writer(&mut *buf, name).map_err(io::Error::other)?;
        buf.push(b':');
        match cell {
            Cell::Text(t) => serde_json::to_writer(&mut *buf, &t),
            Cell::Int(n) => serde_json::to_writer(&mut *buf, &n),
        }
        .map_err(io::Error::other)?;
    }
    buf.push(b'}');
    Ok(())
}

/// RFC 4180 (CRLF) for CSV; the same quoting with tabs for TSV.
pub(super) fn csv_encoder(format: OutputFormat, into: Vec<u8>) -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .delimiter(if format == OutputFormat::Tsv {
            b'\t'
        } else {
            b','
        })
        .terminator(csv::Terminator::CRLF)
        .from_writer(into)
}
