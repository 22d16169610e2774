//! The per-record rows of both diff forms (`--format csv|jsonl`): one row per record, in
//! input order, with the columns of [`POLICY_COLUMNS`] or [`INVENTORY_COLUMNS`].

use std::io::{self, Write};

use serde::Serialize;

/// The columns of a `diff --from P --to Q` row, in order.
pub const POLICY_COLUMNS: [&str; 10] = [
    "source",
    "line",
    "observed",
    "class",
    "key_from",
    "key_to",
    "group",
    "error_from",
    "error_to",
    "review",
];

/// The columns of a `diff --policy P OLD NEW` row, in order.
pub const INVENTORY_COLUMNS: [&str; 13] = [
    "side",
    "source",
    "line",
    "observed",
    "class",
    "key",
    "old_line",
    "new_line",
    "old_records",
    "new_records",
    "spellings",
    "error",
    "review",
];

/// One record of `diff --from P --to Q` (the field names are [`POLICY_COLUMNS`]).
#[derive(Debug, Serialize)]
pub struct PolicyRow<'a> {
    /// Its input's name.
    pub source: &'a str,
    /// Its line.
    pub line: u64,
    /// The text as read.
    pub observed: &'a str,
    /// Its [`super::Class`].
    pub class: &'static str,
    /// Its key under `--from` (empty when invalid).
    pub key_from: Option<&'a str>,
    /// Its key under `--to` (empty when invalid).
    pub key_to: Option<&'a str>,
    /// The key the report lists its group under: the `--to` key of a merge (and of a
    /// merge_split), the `--from` key of a split; empty otherwise.
    pub group: Option<&'a str>,
    /// The error code under `--from`.
    pub error_from: Option<&'static str>,
    /// The error code under `--to`.
    pub error_to: Option<&'static str>,
    /// Always `MANUAL REVIEW REQUIRED` ([`crate::rows::REVIEW`]), as `map`'s rows: a key
    /// is evidence, not a verdict.
    pub review: &'static str,
}

/// One record of `diff --policy P OLD NEW` (the field names are [`INVENTORY_COLUMNS`]).
#[derive(Debug, Serialize)]
pub struct InventoryRow<'a> {
    /// `old` or `new`.
    pub side: &'static str,
    /// Its input's name.
    pub source: &'a str,
    /// Its line.
    pub line: u64,
    /// The text as read.
    pub observed: &'a str,
    /// `only_old`, `only_new`, `both` or `invalid`.
    pub class: &'static str,
    /// Its key (empty when invalid).
    pub key: Option<&'a str>,
    /// The first line of OLD with that key.
    pub old_line: Option<u64>,
    /// The first line of NEW with that key.
    pub new_line: Option<u64>,
    /// OLD's records with that key.
    pub old_records: Option<u64>,
    /// NEW's records with that key.
    pub new_records: Option<u64>,
    /// For a key in both: `same`, `differ` or `several` (see
    /// [`super::inventories::Spellings`]).
    pub spellings: Option<&'static str>,
    /// The error code of an invalid record.
    pub error: Option<&'static str>,
    /// Always `MANUAL REVIEW REQUIRED` ([`crate::rows::REVIEW`]).
    pub review: &'static str,
}

/// Where rows go.
pub trait DiffRowWrite: Send {
    /// Before the first `diff --from --to` row (a header, for CSV).
    fn start_policy_rows(&mut self) -> io::Result<()>;
    /// One row.
    fn policy_row(&mut self, row: &PolicyRow<'_>) -> io::Result<()>;
    /// Before the first `diff --policy OLD NEW` row.
    fn start_inventory_rows(&mut self) -> io::Result<()>;
    /// One row.
    fn inventory_row(&mut self, row: &InventoryRow<'_>) -> io::Result<()>;
}

/// The row formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowFormat {
    /// RFC 4180 CSV with a header row; an absent value is an empty cell.
    Csv,
    /// One JSON object per line; an absent value is `null`.
    Jsonl,
}

/// Writes rows as CSV or JSONL into `W` (give it a buffered writer).
///
/// ```
/// use urlkey_batch::diff::rows::{DiffRowWrite, DiffRows, PolicyRow, RowFormat};
///
/// let mut out = DiffRows::new(RowFormat::Csv, Vec::new());
/// out.start_policy_rows().unwrap();
/// out.policy_row(&PolicyRow {
///     source: "a.txt", line: 1, observed: "https://www.example.com/",
///     class: "merge", key_from: Some("https://www.example.com/"),
///     key_to: Some("example.com/"), group: Some("example.com/"),
///     error_from: None, error_to: None, review: urlkey_batch::rows::REVIEW,
/// }).unwrap();
/// let text = String::from_utf8(out.into_inner().unwrap()).unwrap();
/// assert_eq!(text.lines().nth(1), Some(
///     "a.txt,1,https://www.example.com/,merge,https://www.example.com/,example.com/,example.com/,,,MANUAL REVIEW REQUIRED"
/// ));
/// ```
pub struct DiffRows<W: Write> {
    out: Rows<W>,
}

enum Rows<W: Write> {
    // Boxed: the csv writer carries its buffer and state inline.
    Csv(Box<csv::Writer<W>>),
    Jsonl(W),
}

impl<W: Write> DiffRows<W> {
    /// A writer of `format` rows.
    pub fn new(format: RowFormat, out: W) -> Self {
        let out = match format {
            RowFormat::Csv => Rows::Csv(Box::new(
                csv::WriterBuilder::new()
                    .has_headers(false)
                    .from_writer(out),
            )),
            RowFormat::Jsonl => Rows::Jsonl(out),
        };
        DiffRows { out }
    }

    /// Flushes the rows and gives back the writer.
    pub fn into_inner(self) -> io::Result<W> {
        match self.out {
            Rows::Csv(w) => w.into_inner().map_err(|e| e.into_error()),
            Rows::Jsonl(w) => Ok(w),
        }
    }

    fn header(&mut self, columns: &[&str]) -> io::Result<()> {
        match &mut self.out {
            Rows::Csv(w) => w.write_record(columns).map_err(io_error),
            Rows::Jsonl(_) => Ok(()),
        }
    }

    fn row<T: Serialize>(&mut self, row: &T) -> io::Result<()> {
        match &mut self.out {
            Rows::Csv(w) => w.serialize(row).map_err(io_error),
            Rows::Jsonl(w) => {
                serde_json::to_writer(&mut *w, row)?;
                w.write_all(b"\n")
            }
        }
    }
}

/// The writer's own error when there is one, so that a closed pipe stays a closed pipe
/// (`io::Error::from` would wrap it, and its kind would say "other").
fn io_error(e: csv::Error) -> io::Error {
    if !e.is_io_error() {
        return io::Error::other(e);
    }
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}

impl<W: Write + Send> DiffRowWrite for DiffRows<W> {
    fn start_policy_rows(&mut self) -> io::Result<()> {
        self.header(&POLICY_COLUMNS)
    }
    fn policy_row(&mut self, row: &PolicyRow<'_>) -> io::Result<()> {
        self.row(row)
    }
    fn start_inventory_rows(&mut self) -> io::Result<()> {
        self.header(&INVENTORY_COLUMNS)
    }
    fn inventory_row(&mut self, row: &InventoryRow<'_>) -> io::Result<()> {
        self.row(row)
    }
}
