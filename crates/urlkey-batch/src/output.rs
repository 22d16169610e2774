//! Writers: key records (`urlkey key`) and map rows (`urlkey map`) as JSONL, CSV, TSV or
//! bare keys. CSV is RFC 4180, UTF-8; a text cell that a spreadsheet would run as a
//! formula (first character `=`, `+`, `-`, `@`, tab or carriage return) is written with a
//! leading `'` (the OWASP "CSV injection" advice), so it shows as text.

use std::io::{self, Write};

use serde::Serialize;

use crate::rows::{Cell, GroupRow};
pub use crate::rows::{KeyRecord, MapRow, RowSink, Table, Tail, REVIEW};

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
    /// An Apache Parquet file with the JSONL fields as columns (`crate::parquet_out`).
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

/// Makes a text cell safe to open in a spreadsheet.
pub fn spreadsheet_safe(s: &str) -> std::borrow::Cow<'_, str> {
    if starts_a_formula(s.as_bytes().first()) {
        std::borrow::Cow::Owned(format!("'{s}"))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// True when a cell that starts with `first` is one that [`spreadsheet_safe`] prefixes.
pub(crate) fn starts_a_formula(first: Option<&u8>) -> bool {
    matches!(first, Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r'))
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
    parquet: Option<crate::parquet_out::ParquetSink>,
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
                parquet: (format == OutputFormat::Parquet)
                    .then(crate::parquet_out::ParquetSink::new),
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
        if !self.tail.is_empty() && self.buf.last() == Some(&b'}') {
            self.buf.pop();
            let cells = self.tail.cells(table, tail);
            for (name, cell) in self.tail.names(table).iter().zip(cells) {
                self.buf.push(b',');
                serde_json::to_writer(&mut self.buf, name).map_err(io::Error::other)?;
                self.buf.push(b':');
                match cell {
                    Cell::Text(t) => serde_json::to_writer(&mut self.buf, &t),
                    Cell::Int(n) => serde_json::to_writer(&mut self.buf, &n),
                }
                .map_err(io::Error::other)?;
            }
            self.buf.push(b'}');
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

/// RFC 4180 (CRLF) for CSV; the same quoting with tabs for TSV.
fn csv_encoder(format: OutputFormat, into: Vec<u8>) -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .delimiter(if format == OutputFormat::Tsv {
            b'\t'
        } else {
            b','
        })
        .terminator(csv::Terminator::CRLF)
        .from_writer(into)
}

/// The cells of a map row that only the whole input decides (`urlkey map`'s pass one
/// writes a row before its groups are known, and pass two fills these in).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct GroupCells<'a> {
    pub group: Option<u64>,
    pub duplicate_of: Option<u64>,
    pub duplicates: Option<u64>,
    pub variants: Option<u64>,
    pub classification: &'a str,
    pub group_source: Option<&'a str>,
    pub duplicate_of_source: Option<&'a str>,
}

impl<'a> GroupCells<'a> {
    /// A row's own.
    pub fn of(r: &MapRow<'a>) -> Self {
        GroupCells {
            group: r.group,
            duplicate_of: r.duplicate_of,
            duplicates: r.duplicates,
            variants: r.variants,
            classification: r.classification,
            group_source: r.group_source,
            duplicate_of_source: r.duplicate_of_source,
        }
    }
}

/// Where a CSV or TSV map row's [`GroupCells`] are, as offsets into its bytes: the
/// `group` to `classification` cells (`groups`) and, when the run names its inputs, the
/// `group_source` and `duplicate_of_source` cells (`sources`, empty otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MapRowHoles {
    pub groups: (usize, usize),
    pub sources: (usize, usize),
}

/// Appends one CSV or TSV map row (with `tail`'s cells) to `b`, and says where its
/// [`GroupCells`] went.
pub(crate) fn push_map_row(b: &mut Vec<u8>, d: u8, r: &MapRow<'_>, tail: &Tail) -> MapRowHoles {
    let (start, _) = push_map_row_head(b, d, r.line, r.observed, r.status);
    for cell in [r.key, r.signature] {
        csv_field(b, d, &spreadsheet_safe(cell.unwrap_or("")));
        b.push(d);
    }
    let rest = RowRest {
        cells: GroupCells::of(r),
        removed_tracking: &r.removed_tracking,
        error_code: r.error_code,
        error: r.error,
        source: r.source,
        run_line: r.run_line,
        kept: r.kept,
    };
    push_map_row_rest(b, d, start, &rest, tail)
}

/// The first cells of a CSV or TSV map row, `line` to `status`, each followed by the
/// delimiter: where the row starts in `b`, and true when the text as read went in without
/// quotes (then a cell cut from it, case folded, with additions that hold no delimiter,
/// `"`, CR or LF, needs none either: `urlkey map`'s pass two skips their scans, which were
/// a fifth of its work, [`crate::map`]'s spill).
pub(crate) fn push_map_row_head(
    b: &mut Vec<u8>,
    d: u8,
    line: u64,
    observed: &str,
    status: &str,
) -> (usize, bool) {
    let start = b.len();
    push_u64(b, line);
    b.push(d);
    let observed_quoted = csv_field(b, d, &spreadsheet_safe(observed));
    b.push(d);
    plain_field(b, d, status);
    b.push(d);
    (start, !observed_quoted)
}

/// The cells of a map row after its signature: its [`GroupCells`], the removed
/// parameters, the error, the review note and the tail's.
pub(crate) struct RowRest<'a> {
    pub cells: GroupCells<'a>,
    pub removed_tracking: &'a str,
    pub error_code: Option<&'a str>,
    pub error: Option<&'a str>,
    pub source: Option<&'a str>,
    pub run_line: Option<u64>,
    pub kept: &'a [String],
}

/// The cells of [`RowRest`] and the row's line end, for a row that started at `start` in
/// `b`, whose cells up to its signature (each with its delimiter) `b` holds.
pub(crate) fn push_map_row_rest(
    b: &mut Vec<u8>,
    d: u8,
    start: usize,
    r: &RowRest<'_>,
    tail: &Tail,
) -> MapRowHoles {
    let groups_at = b.len() - start;
    push_map_groups(b, d, &r.cells);
    let groups = (groups_at, b.len() - start);
    b.push(d);
    csv_field(b, d, &spreadsheet_safe(r.removed_tracking));
    b.push(d);
    csv_field(b, d, r.error_code.unwrap_or(""));
    b.push(d);
    csv_field(b, d, &spreadsheet_safe(r.error.unwrap_or("")));
    b.push(d);
    plain_field(b, d, REVIEW);
    let mut sources = (b.len() - start, b.len() - start);
    if tail.sources {
        b.push(d);
        csv_field(b, d, &spreadsheet_safe(r.source.unwrap_or("")));
        b.push(d);
        if let Some(n) = r.run_line {
            push_u64(b, n);
        }
        let at = b.len() - start;
        push_map_group_sources(b, d, &r.cells);
        sources = (at, b.len() - start);
    }
    if !tail.is_empty() {
        for k in r.kept {
            b.push(d);
            csv_field(b, d, &spreadsheet_safe(k));
        }
    }
    b.extend_from_slice(b"\r\n");
    MapRowHoles { groups, sources }
}

/// The `group` to `classification` cells of a CSV or TSV map row.
pub(crate) fn push_map_groups(b: &mut Vec<u8>, d: u8, c: &GroupCells<'_>) {
    for n in [c.group, c.duplicate_of, c.duplicates, c.variants] {
        if let Some(n) = n {
            push_u64(b, n);
        }
        b.push(d);
    }
    plain_field(b, d, c.classification);
}

/// The `group_source` and `duplicate_of_source` cells of a CSV or TSV map row, each after
/// its delimiter.
pub(crate) fn push_map_group_sources(b: &mut Vec<u8>, d: u8, c: &GroupCells<'_>) {
    b.push(d);
    csv_field(b, d, &spreadsheet_safe(c.group_source.unwrap_or("")));
    b.push(d);
    csv_field(b, d, &spreadsheet_safe(c.duplicate_of_source.unwrap_or("")));
}

/// One CSV/TSV field as the csv crate writes it with [`csv_encoder`]'s settings (quote
/// style "necessary", `"` doubled): quoted when it holds the delimiter, `"`, CR or LF.
/// True when it was quoted.
fn csv_field(out: &mut Vec<u8>, delimiter: u8, field: &str) -> bool {
    let bytes = field.as_bytes();
    // Half of a map row's text fields are empty: no scan, no call to copy nothing.
    if bytes.is_empty() {
        return false;
    }
    if !needs_quotes(bytes, delimiter) {
        out.extend_from_slice(bytes);
        return false;
    }
    out.push(b'"');
    for (i, piece) in bytes.split(|&c| c == b'"').enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\"\"");
        }
        out.extend_from_slice(piece);
    }
    out.push(b'"');
    true
}

/// A field that is one of this crate's own names (a status, a classification, the
/// review note), which never holds a delimiter, `"`, CR or LF: copied without
/// the scan that [`csv_field`] makes.
fn plain_field(out: &mut Vec<u8>, delimiter: u8, field: &str) {
    debug_assert!(!needs_quotes(field.as_bytes(), delimiter), "{field:?}");
    out.extend_from_slice(field.as_bytes());
}

/// True when `bytes` holds `delimiter`, `"`, CR or LF. Sixteen bytes at a time with a
/// test that has no early exit inside the block, which the compiler turns into vector
/// compares; the rest with [`needs_quotes_words`]. The byte-wise test was ~2,000
/// instructions a map row, the word-wise one still a tenth of `map`'s time at 10M rows.
pub(crate) fn needs_quotes(bytes: &[u8], delimiter: u8) -> bool {
    let special = |c: u8| (c == delimiter) | (c == b'"') | (c == b'\r') | (c == b'\n');
    let mut blocks = bytes.chunks_exact(16);
    for block in &mut blocks {
        if block.iter().fold(false, |any, &c| any | special(c)) {
            return true;
        }
    }
    needs_quotes_words(blocks.remainder(), delimiter)
}

/// [`needs_quotes`] eight bytes at a time, with the "has a zero byte" word trick on
/// `word ^ splat(v)` (exact as a yes/no answer), then byte by byte in the tail.
fn needs_quotes_words(bytes: &[u8], delimiter: u8) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has = |w: u64, v: u8| {
        let x = w ^ (ONES * u64::from(v));
        x.wrapping_sub(ONES) & !x
    };
    let special = |c: u8| c == delimiter || c == b'"' || c == b'\r' || c == b'\n';
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        if (has(w, delimiter) | has(w, b'"') | has(w, b'\r') | has(w, b'\n')) & HIGH != 0 {
            return true;
        }
    }
    chunks.remainder().iter().any(|&c| special(c))
}

/// A decimal number, without the formatting machinery.
fn push_u64(out: &mut Vec<u8>, n: u64) {
    if n < 10 {
        // Most counts in a map row (duplicates, variants) are one digit.
        out.push(b'0' + n as u8);
        return;
    }
    // Up to sixteen digits are built in registers and stored eight bytes at a time, then
    // cut to length: digits stored one by one and read back as a block stalled on the
    // store buffer, and a copy of a length known only at run time was a call to
    // `memmove` (together a twentieth of `map`'s time at 10M rows).
    let len = n.ilog10() as usize + 1;
    let start = out.len();
    match len {
        // The leading zeros are the word's low bytes.
        ..=8 => out.extend_from_slice(&(ascii_digits8(n) >> (8 * (8 - len))).to_le_bytes()),
        9..=16 => {
            let (high, low) = (n / 100_000_000, n % 100_000_000);
            let high = ascii_digits8(high) >> (8 * (16 - len));
            out.extend_from_slice(&high.to_le_bytes());
            out.truncate(start + len - 8);
            out.extend_from_slice(&ascii_digits8(low).to_le_bytes());
        }
        _ => {
            let mut digits = [0u8; 20];
            let mut rest = n;
            for d in digits[..len].iter_mut().rev() {
                *d = b'0' + (rest % 10) as u8;
                rest /= 10;
            }
            out.extend_from_slice(&digits[..len]);
        }
    }
    out.truncate(start + len);
}

/// The eight decimal digits of `n` (below 10^8, zero-padded) as ASCII bytes in a
/// little-endian word, the first digit in the lowest byte. Lanes of one word are divided
/// at once: two 4-digit halves split into 2-digit quarters, then into digits, each with a
/// multiply and shift that divide exactly in the lane's range (`x * 10486 >> 20` is
/// `x / 100` below 10^4, `x * 103 >> 10` is `x / 10` below 100), and no lane's product
/// reaches the next lane. A loop of divisions by ten was ~100 instructions a number, a
/// twentieth of `map`'s instructions.
#[inline]
fn ascii_digits8(n: u64) -> u64 {
    debug_assert!(n < 100_000_000);
    let x = (n / 10_000) | ((n % 10_000) << 32);
    let q = ((x * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let x = q | ((x - q * 100) << 16);
    let q = ((x * 103) >> 10) & 0x000f_000f_000f_000f;
    let x = q | ((x - q * 10) << 8);
    x + 0x3030_3030_3030_3030
}

fn join<'a>(items: impl Iterator<Item = &'a str> + Clone) -> String {
    let mut s = String::new();
    join_into(&mut s, items);
    s
}

/// [`join`] into `out`, after what it holds.
fn join_into<'a>(out: &mut String, items: impl Iterator<Item = &'a str> + Clone) {
    // Sized first: growing from empty cost a realloc or two per map row with removed names.
    let len = items.clone().map(|it| it.len() + 1).sum::<usize>();
    out.reserve(len.saturating_sub(1));
    for (i, it) in items.enumerate() {
        if i > 0 {
            out.push(';');
        }
        out.push_str(it);
    }
}

/// Joins names with `;`.
pub fn join_names(names: &[String]) -> String {
    join(names.iter().map(String::as_str))
}

/// [`join_names`] into `out`, which it empties first: a buffer used again record after
/// record.
pub(crate) fn join_names_into(out: &mut String, names: &[String]) {
    out.clear();
    join_into(out, names.iter().map(String::as_str));
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A xorshift generator, the same sequence every run: for tests over generated text.
    pub(crate) fn xorshift() -> impl FnMut() -> u64 {
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// Every field of a few thousand generated ones, over the bytes that decide quoting,
    /// comes out of [`csv_field`] as the csv crate writes it, for both delimiters.
    #[test]
    fn csv_field_equals_the_csv_crate_on_generated_fields() {
        const PIECES: [&str; 12] = [
            "a", ",", "\t", "\"", "\r", "\n", " ", "é", "=", ";", "\r\n", "",
        ];
        let mut next = xorshift();
        for format in [OutputFormat::Csv, OutputFormat::Tsv] {
            let delimiter = if format == OutputFormat::Tsv {
                b'\t'
            } else {
                b','
            };
            for i in 0..6000 {
                // Short fields of any pieces; long ones (up to 80 bytes, past several
                // 16-byte blocks) mostly of plain text, one special piece anywhere.
                let field: String = if i % 2 == 0 {
                    let len = (next() % 8) as usize;
                    (0..len)
                        .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                        .collect()
                } else {
                    let len = (next() % 80) as usize;
                    let odd = (next() % 100) as usize;
                    (0..len)
                        .map(|at| match at == odd {
                            true => PIECES[(next() % PIECES.len() as u64) as usize],
                            false => PIECES[[0, 6, 7, 8, 9][(next() % 5) as usize]],
                        })
                        .collect()
                };
                let mut want = csv_encoder(format, Vec::new());
                want.write_record([field.as_str(), "x"]).unwrap();
                let want = want.into_inner().unwrap();
                let mut got = Vec::new();
                csv_field(&mut got, delimiter, &field);
                got.push(delimiter);
                got.extend_from_slice(b"x\r\n");
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "{format:?}: {field:?}"
                );
            }
        }
    }

    /// The word-at-a-time scan answers as the byte-by-byte test does: every byte value at
    /// every place of fields long enough to cross two words and a tail, for both delimiters.
    #[test]
    fn push_u64_equals_display() {
        let mut numbers: Vec<u64> = (0..=10_000).collect();
        for p in 1..=19 {
            let t = 10u64.pow(p);
            numbers.extend([t - 1, t, t + 1]);
        }
        numbers.push(u64::MAX);
        // Every lane of the word-wise digits: each 4-digit half and 2-digit quarter.
        let mut next = xorshift();
        numbers.extend((0..200_000).map(|_| next() % 10u64.pow(1 + (next() % 16) as u32)));
        numbers.extend((0..100_000u64).map(|i| i * 1_000 + 999));
        for n in numbers {
            let mut out = b"x".to_vec();
            push_u64(&mut out, n);
            assert_eq!(out, format!("x{n}").into_bytes(), "{n}");
        }
    }

    #[test]
    fn needs_quotes_equals_the_byte_test() {
        for delimiter in [b',', b'\t'] {
            let special = |c: u8| c == delimiter || c == b'"' || c == b'\r' || c == b'\n';
            for len in 0..=40 {
                let plain = vec![b'a'; len];
                assert!(!needs_quotes(&plain, delimiter), "{len}");
                for at in 0..len {
                    for v in 0..=255u8 {
                        let mut field = plain.clone();
                        field[at] = v;
                        assert_eq!(
                            needs_quotes(&field, delimiter),
                            special(v),
                            "byte {v:#x} at {at} of {len}, delimiter {delimiter:#x}"
                        );
                    }
                }
            }
            // Bytes just above and below the special ones next to one another, where a
            // borrow between the bytes of a word could show: never a false answer.
            let near: Vec<u8> = [delimiter, b'"', b'\r', b'\n']
                .iter()
                .flat_map(|&c| [c.wrapping_sub(1), c.wrapping_add(1), 0x80, 0xff, 0x00])
                .filter(|&c| !special(c))
                .collect();
            assert!(!needs_quotes(&near, delimiter));
            for at in 0..near.len() {
                let mut field = near.clone();
                field[at] = b'"';
                assert!(needs_quotes(&field, delimiter), "at {at}");
            }
        }
    }

    /// The map rows encoded by hand equal the csv crate's encoding of the same cells (the
    /// code they replaced), for CSV and TSV, with and without tail columns.
    #[test]
    fn direct_map_rows_equal_the_csv_crate() {
        let texts = [
            "",
            "plain",
            "a,b",
            "a\tb",
            "say \"hi\"",
            "\"",
            "cr\rlf\n",
            "=1+1",
            "-x",
            "@y",
            "\t",
            "é,ü\"",
            "https://a.example/p?x=1&y=2#f",
        ];
        let kept = vec!["k,1".to_string(), "k\"2".to_string()];
        for format in [OutputFormat::Csv, OutputFormat::Tsv] {
            for tail in [
                Tail::default(),
                Tail {
                    sources: true,
                    kept: vec!["c1".into(), "c2".into()],
                },
            ] {
                let mut got = RecordWriter::new(format, Vec::new()).with_tail(tail.clone());
                got.start_map().unwrap();
                let mut want = csv_encoder(format, Vec::new());
                let header: Vec<String> = Table::Map
                    .csv_names()
                    .into_iter()
                    .map(str::to_string)
                    .chain(tail.names(Table::Map))
                    .collect();
                want.write_record(&header).unwrap();
                for (i, t) in texts.iter().enumerate() {
                    let u = texts[(i * 7 + 3) % texts.len()];
                    let n = |k: u64| (i % 3 != 0).then_some(k * 1_000_003 + i as u64);
                    let row = MapRow {
                        line: i as u64 * 12_345_678_901,
                        observed: t,
                        status: "ok",
                        key: (i % 4 != 0).then_some(u),
                        signature: Some(t),
                        group: n(1),
                        duplicate_of: n(2),
                        duplicates: n(0),
                        variants: Some(u64::MAX - i as u64),
                        classification: "review",
                        removed_tracking: format!("{u};{t}"),
                        error_code: (i % 2 == 0).then_some(t),
                        error: (i % 2 == 0).then_some(u),
                        review: REVIEW,
                        transformations: None,
                        removed_params: None,
                        facts: None,
                        source: Some(u),
                        run_line: (i % 3 != 0).then_some(i as u64 * 7),
                        group_source: (i % 2 == 1).then_some(t),
                        duplicate_of_source: None,
                        kept: &kept,
                    };
                    got.write_map(&row).unwrap();
                    let num = |v: Option<u64>| v.map(|n| n.to_string()).unwrap_or_default();
                    let mut cells: Vec<String> = [
                        row.line.to_string(),
                        spreadsheet_safe(row.observed).into_owned(),
                        row.status.to_string(),
                        spreadsheet_safe(row.key.unwrap_or("")).into_owned(),
                        spreadsheet_safe(row.signature.unwrap_or("")).into_owned(),
                        num(row.group),
                        num(row.duplicate_of),
                        num(row.duplicates),
                        num(row.variants),
                        row.classification.to_string(),
                        spreadsheet_safe(&row.removed_tracking).into_owned(),
                        row.error_code.unwrap_or("").to_string(),
                        spreadsheet_safe(row.error.unwrap_or("")).into_owned(),
                        REVIEW.to_string(),
                    ]
                    .into();
                    if !tail.is_empty() {
                        cells.extend(tail.cells(Table::Map, row.tail()).into_iter().map(
                            |c| match c {
                                crate::rows::Cell::Text(t) => {
                                    spreadsheet_safe(t.unwrap_or("")).into_owned()
                                }
                                crate::rows::Cell::Int(n) => num(n),
                            },
                        ));
                    }
                    want.write_record(&cells).unwrap();
                }
                let got = got.finish().unwrap();
                let want = want.into_inner().unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "{format:?} {tail:?}"
                );
            }
        }
    }

    #[test]
    fn formulas_are_neutralized() {
        assert_eq!(spreadsheet_safe("=1+1"), "'=1+1");
        assert_eq!(spreadsheet_safe("@SUM"), "'@SUM");
        assert_eq!(spreadsheet_safe("-2"), "'-2");
        assert_eq!(spreadsheet_safe("https://a/"), "https://a/");
    }

    #[test]
    fn raw_bytes_come_out_after_everything_written_before_them() {
        // A header in the buffer, a fragment past the flush size, then one written
        // straight through: in that order, each once.
        let mut w = RecordWriter::new(OutputFormat::Csv, Vec::new());
        w.start_key().unwrap();
        let big = "https://a.example/\r\n".repeat(4000);
        w.write_raw(big.as_bytes()).unwrap();
        w.write_raw(b"last\r\n").unwrap();
        let out = String::from_utf8(w.finish().unwrap()).unwrap();
        let (header, rest) = out.split_once("\r\n").unwrap();
        assert!(header.starts_with("line,"), "{header}");
        assert_eq!(rest, format!("{big}last\r\n"));
        // No header: every fragment straight through, in order.
        let mut w = RecordWriter::new(OutputFormat::Key, Vec::new());
        for k in ["a\n", "b\n", "c\n"] {
            w.write_raw(k.as_bytes()).unwrap();
        }
        assert_eq!(w.finish().unwrap(), b"a\nb\nc\n");
    }
}
