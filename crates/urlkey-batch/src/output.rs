//! Writers: key records (`urlkey key`) and map rows (`urlkey map`) as JSONL, CSV, TSV or
//! bare keys. CSV is RFC 4180, UTF-8; a text cell that a spreadsheet would run as a
//! formula (first character `=`, `+`, `-`, `@`, tab or carriage return) is written with a
//! leading `'` (the OWASP "CSV injection" advice), so it shows as text.

use std::io::{self, Write};

use serde::Serialize;
use urlkey::{Fact, Outcome, Transformation};

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

/// What every exported row of `urlkey map` says (seed 000).
pub const REVIEW: &str = "MANUAL REVIEW REQUIRED";

/// Makes a text cell safe to open in a spreadsheet.
pub fn spreadsheet_safe(s: &str) -> std::borrow::Cow<'_, str> {
    match s.as_bytes().first() {
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r') => std::borrow::Cow::Owned(format!("'{s}")),
        _ => std::borrow::Cow::Borrowed(s),
    }
}

/// One `urlkey key` record, borrowed for writing.
#[derive(Serialize)]
pub struct KeyRecord<'a> {
    /// Line in the input.
    pub line: u64,
    /// The input as read.
    pub observed: &'a str,
    /// The policy id.
    pub policy: &'a str,
    /// `ok` or `invalid`.
    pub status: urlkey::Status,
    /// The key.
    pub key: Option<&'a str>,
    /// The canonical form.
    pub canonical: Option<&'a str>,
    /// The error.
    pub error: Option<&'a urlkey::KeyError>,
    /// The changes.
    pub transformations: &'a [Transformation],
    /// Tracking parameters removed.
    pub removed_params: &'a [String],
    /// Facts.
    pub facts: &'a [Fact],
    /// PSL version when used.
    pub psl: Option<&'a str>,
}

impl<'a> KeyRecord<'a> {
    /// A record for an outcome.
    pub fn new(line: u64, observed: &'a str, policy: &'a str, o: &'a Outcome) -> Self {
        KeyRecord {
            line,
            observed,
            policy,
            status: o.status(),
            key: o.key.as_deref(),
            canonical: o.canonical.as_deref(),
            error: o.error.as_ref(),
            transformations: &o.transformations,
            removed_params: &o.removed_params,
            facts: &o.facts,
            psl: o.psl.as_deref(),
        }
    }
}

/// CSV/TSV columns of `urlkey key`.
pub const KEY_COLUMNS: [&str; 12] = [
    "line",
    "observed",
    "policy",
    "status",
    "key",
    "canonical",
    "error_code",
    "error",
    "transformations",
    "removed_params",
    "facts",
    "psl",
];

/// CSV/TSV columns of `urlkey map`.
pub const MAP_COLUMNS: [&str; 14] = [
    "line",
    "observed",
    "status",
    "key",
    "signature",
    "group",
    "duplicate_of",
    "duplicates",
    "variants",
    "classification",
    "removed_tracking",
    "error_code",
    "error",
    "review",
];

/// Writes records in one format.
pub struct RecordWriter<W: Write> {
    format: OutputFormat,
    /// CSV/TSV rows are encoded into memory and drained into `raw` with the other bytes.
    csv: Option<csv::Writer<Vec<u8>>>,
    raw: Option<W>,
    buf: Vec<u8>,
    header_written: bool,
    parquet: Option<crate::parquet_out::ParquetSink>,
}

impl RecordWriter<Vec<u8>> {
    /// A writer of part of the rows, into memory, without a header: worker threads format
    /// their rows with it and the writing thread joins the bytes in input order.
    pub fn fragment(format: OutputFormat) -> Self {
        let mut w = RecordWriter::new(format, Vec::with_capacity(64 * 1024));
        w.header_written = true;
        w
    }
}

impl<W: Write> RecordWriter<W> {
    /// A writer of `format` to `out`.
    pub fn new(format: OutputFormat, out: W) -> Self {
        match format {
            OutputFormat::Csv | OutputFormat::Tsv => RecordWriter {
                format,
                csv: Some(csv_encoder(format, Vec::with_capacity(64 * 1024))),
                raw: Some(out),
                buf: Vec::new(),
                header_written: false,
                parquet: None,
            },
            _ => RecordWriter {
                format,
                csv: None,
                raw: Some(out),
                buf: Vec::with_capacity(64 * 1024),
                header_written: false,
                parquet: (format == OutputFormat::Parquet)
                    .then(crate::parquet_out::ParquetSink::new),
            },
        }
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
        self.buf.extend_from_slice(bytes);
        self.flush_buf(false)
    }

    /// Moves the encoded CSV rows into the byte buffer, in order.
    fn drain_csv(&mut self) -> io::Result<()> {
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

    fn header(&mut self, cols: &[&str]) -> io::Result<()> {
        if !self.header_written {
            self.header_written = true;
            if let Some(w) = &mut self.csv {
                w.write_record(cols)?;
            }
        }
        Ok(())
    }

    /// Writes the header now (an empty input still gets one).
    pub fn start_key(&mut self) -> io::Result<()> {
        if let Some(p) = &mut self.parquet {
            p.start(crate::parquet_out::Table::Key)?;
        }
        self.header(&KEY_COLUMNS)
    }

    /// Writes the header now (an empty input still gets one).
    pub fn start_map(&mut self) -> io::Result<()> {
        if let Some(p) = &mut self.parquet {
            p.start(crate::parquet_out::Table::Map)?;
        }
        self.header(&MAP_COLUMNS)
    }

    /// Writes one `urlkey key` record.
    pub fn write_key(&mut self, r: &KeyRecord<'_>) -> io::Result<()> {
        if let Some(p) = &mut self.parquet {
            p.write_key(r, &mut self.buf)?;
            return self.flush_buf(false);
        }
        match self.format {
            OutputFormat::Jsonl => {
                serde_json::to_writer(&mut self.buf, r).map_err(io::Error::other)?;
                self.buf.push(b'\n');
                self.flush_buf(false)
            }
            OutputFormat::Parquet => Err(io::Error::other("the Parquet writer is closed")),
            OutputFormat::Key => {
                self.buf.extend_from_slice(r.key.unwrap_or("").as_bytes());
                self.buf.push(b'\n');
                self.flush_buf(false)
            }
            OutputFormat::Csv | OutputFormat::Tsv => {
                self.header(&KEY_COLUMNS)?;
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
                self.csv_write(&cells)
            }
        }
    }

    /// Writes one `urlkey map` row.
    pub fn write_map(&mut self, r: &MapRow<'_>) -> io::Result<()> {
        if let Some(p) = &mut self.parquet {
            p.write_map(r, &mut self.buf)?;
            return self.flush_buf(false);
        }
        match self.format {
            OutputFormat::Jsonl => {
                serde_json::to_writer(&mut self.buf, r).map_err(io::Error::other)?;
                self.buf.push(b'\n');
                self.flush_buf(false)
            }
            OutputFormat::Parquet => Err(io::Error::other("the Parquet writer is closed")),
            OutputFormat::Key => {
                self.buf.extend_from_slice(r.key.unwrap_or("").as_bytes());
                self.buf.push(b'\n');
                self.flush_buf(false)
            }
            OutputFormat::Csv | OutputFormat::Tsv => {
                self.header(&MAP_COLUMNS)?;
                let num = |v: Option<u64>| v.map(|n| n.to_string()).unwrap_or_default();
                let cells: [&str; 14] = [
                    &r.line.to_string(),
                    &spreadsheet_safe(r.observed),
                    r.status,
                    &spreadsheet_safe(r.key.unwrap_or("")),
                    &spreadsheet_safe(r.signature.unwrap_or("")),
                    &num(r.group),
                    &num(r.duplicate_of),
                    &num(r.duplicates),
                    &num(r.variants),
                    r.classification,
                    &spreadsheet_safe(&r.removed_tracking),
                    r.error_code.unwrap_or(""),
                    &spreadsheet_safe(r.error.unwrap_or("")),
                    REVIEW,
                ];
                self.csv_write(&cells)
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
            p.start(crate::parquet_out::Table::Groups)?;
        }
        self.header(&crate::map::GROUP_COLUMNS)
    }

    /// Writes one `--groups` row.
    pub fn write_group(&mut self, g: &crate::map::GroupRow) -> io::Result<()> {
        if let Some(p) = &mut self.parquet {
            p.write_group(g, &mut self.buf)?;
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
                self.csv_write(&cells)
            }
            _ => self.write_json(g),
        }
    }

    /// Writes a JSON value as one line.
    pub fn write_json<T: Serialize>(&mut self, v: &T) -> io::Result<()> {
        serde_json::to_writer(&mut self.buf, v).map_err(io::Error::other)?;
        self.buf.push(b'\n');
        self.flush_buf(false)
    }

    fn csv_write(&mut self, cells: &[&str]) -> io::Result<()> {
        match &mut self.csv {
            Some(w) => w.write_record(cells).map_err(io::Error::other)?,
            None => return Err(io::Error::other("not a CSV writer")),
        }
        if self
            .csv
            .as_ref()
            .is_some_and(|w| w.get_ref().len() >= 60 * 1024)
        {
            self.drain_csv()?;
            self.flush_buf(false)?;
        }
        Ok(())
    }

    fn flush_buf(&mut self, force: bool) -> io::Result<()> {
        if force || self.buf.len() >= 60 * 1024 {
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

fn join<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let mut s = String::new();
    for (i, it) in items.enumerate() {
        if i > 0 {
            s.push(';');
        }
        s.push_str(it);
    }
    s
}

/// One row of `urlkey map`, borrowed for writing.
#[derive(Serialize)]
pub struct MapRow<'a> {
    /// Line in the input.
    pub line: u64,
    /// The input as read.
    pub observed: &'a str,
    /// `ok` or `invalid`.
    pub status: &'a str,
    /// The key.
    pub key: Option<&'a str>,
    /// The grouping signature.
    pub signature: Option<&'a str>,
    /// The signature group's id: the line of its first member.
    pub group: Option<u64>,
    /// The line of the first record with the same key (none for that record itself).
    pub duplicate_of: Option<u64>,
    /// Records sharing this key, itself included.
    pub duplicates: Option<u64>,
    /// Distinct keys sharing this signature.
    pub variants: Option<u64>,
    /// `invalid`, `review`, `duplicate` or `unique`.
    pub classification: &'a str,
    /// Tracking parameter names removed, joined by `;`.
    pub removed_tracking: String,
    /// The error code.
    pub error_code: Option<&'a str>,
    /// The error message.
    pub error: Option<&'a str>,
    /// Always `MANUAL REVIEW REQUIRED`.
    pub review: &'static str,
    /// The changes (JSONL only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transformations: Option<&'a [Transformation]>,
    /// Tracking parameters removed, as a list (JSONL only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed_params: Option<&'a [String]>,
    /// Facts (JSONL only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facts: Option<&'a [Fact]>,
}

/// Joins names with `;`.
pub fn join_names(names: &[String]) -> String {
    join(names.iter().map(String::as_str))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralized() {
        assert_eq!(spreadsheet_safe("=1+1"), "'=1+1");
        assert_eq!(spreadsheet_safe("@SUM"), "'@SUM");
        assert_eq!(spreadsheet_safe("-2"), "'-2");
        assert_eq!(spreadsheet_safe("https://a/"), "https://a/");
    }
}
