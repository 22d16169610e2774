//! The per-record rows of both diff forms (`--format csv|jsonl|parquet`): one row per
//! record, in input order, with the columns of [`POLICY_COLUMNS`] or [`INVENTORY_COLUMNS`]
//! (typed by [`crate::rows::DIFF_POLICY_TABLE`] and [`crate::rows::DIFF_INVENTORY_TABLE`]), then the input's kept
//! columns (`--keep-columns`) as `map`'s rows carry them ([`Tail`]: a kept column named as
//! one of diff's own is renamed `input:NAME`).

use std::io::{self, Write};

use serde::Serialize;

use crate::rows::{push_json_tail, spreadsheet_safe, Cell, ParquetSink, Table, Tail};

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
    /// The kept columns' cells, in the order of the names given to
    /// [`DiffRowWrite::start_policy_rows`].
    #[serde(skip)]
    pub kept: Vec<Option<&'a str>>,
}

impl PolicyRow<'_> {
    /// Its own cells, in the order of [`crate::rows::DIFF_POLICY_TABLE`].
    pub fn cells(&self) -> Vec<Cell<'_>> {
        vec![
            Cell::Text(Some(self.source)),
            Cell::Int(Some(self.line)),
            Cell::Text(Some(self.observed)),
            Cell::Text(Some(self.class)),
            Cell::Text(self.key_from),
            Cell::Text(self.key_to),
            Cell::Text(self.group),
            Cell::Text(self.error_from),
            Cell::Text(self.error_to),
            Cell::Text(Some(self.review)),
        ]
    }
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
    /// The kept columns' cells, in the order of the names given to
    /// [`DiffRowWrite::start_inventory_rows`] (`None`: its side has no such column).
    #[serde(skip)]
    pub kept: Vec<Option<&'a str>>,
}

impl InventoryRow<'_> {
    /// Its own cells, in the order of [`crate::rows::DIFF_INVENTORY_TABLE`].
    pub fn cells(&self) -> Vec<Cell<'_>> {
        vec![
            Cell::Text(Some(self.side)),
            Cell::Text(Some(self.source)),
            Cell::Int(Some(self.line)),
            Cell::Text(Some(self.observed)),
            Cell::Text(Some(self.class)),
            Cell::Text(self.key),
            Cell::Int(self.old_line),
            Cell::Int(self.new_line),
            Cell::Int(self.old_records),
            Cell::Int(self.new_records),
            Cell::Text(self.spellings),
            Cell::Text(self.error),
            Cell::Text(Some(self.review)),
        ]
    }
}

/// Where rows go.
pub trait DiffRowWrite: Send {
    /// Before the first `diff --from --to` row (a header, for CSV); `kept` names the
    /// input's kept columns, which every row carries after its own.
    fn start_policy_rows(&mut self, kept: &[String]) -> io::Result<()>;
    /// One row.
    fn policy_row(&mut self, row: &PolicyRow<'_>) -> io::Result<()>;
    /// Before the first `diff --policy OLD NEW` row; `kept` names the kept columns of
    /// both sides (their union by name).
    fn start_inventory_rows(&mut self, kept: &[String]) -> io::Result<()>;
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
    /// An Apache Parquet file (zstd, as `map`'s): numbers `int64`, texts `string`, an
    /// absent value null.
    Parquet,
}

/// Writes rows as CSV or JSONL into `W` (give it a buffered writer).
///
/// ```
/// use urlkey_batch::diff::rows::{DiffRowWrite, DiffRows, PolicyRow, RowFormat};
///
/// let mut out = DiffRows::new(RowFormat::Csv, Vec::new());
/// out.start_policy_rows(&[]).unwrap();
/// out.policy_row(&PolicyRow {
///     source: "a.txt", line: 1, observed: "https://www.example.com/",
///     class: "merge", key_from: Some("https://www.example.com/"),
///     key_to: Some("example.com/"), group: Some("example.com/"),
///     error_from: None, error_to: None, review: urlkey_batch::rows::REVIEW,
///     kept: Vec::new(),
/// }).unwrap();
/// let text = String::from_utf8(out.into_inner().unwrap()).unwrap();
/// assert_eq!(text.lines().nth(1), Some(
///     "a.txt,1,https://www.example.com/,merge,https://www.example.com/,example.com/,example.com/,,,MANUAL REVIEW REQUIRED"
/// ));
/// ```
pub struct DiffRows<W: Write> {
    out: Rows<W>,
    /// The kept columns after diff's own.
    tail: Tail,
    /// Their names in the output (set by the `start_*` call).
    names: Vec<String>,
    /// A row's bytes before they go out (a JSON object, Parquet's pages).
    buf: Vec<u8>,
}

enum Rows<W: Write> {
    // Boxed: the csv writer and the Parquet sink carry their buffers and state inline.
    Csv(Box<csv::Writer<W>>),
    Jsonl(W),
    Parquet(Box<ParquetSink>, W),
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
            RowFormat::Parquet => Rows::Parquet(Box::default(), out),
        };
        DiffRows {
            out,
            tail: Tail::default(),
            names: Vec::new(),
            buf: Vec::new(),
        }
    }

    /// Flushes the rows and gives back the writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        match self.out {
            Rows::Csv(w) => w.into_inner().map_err(|e| e.into_error()),
            Rows::Jsonl(mut w) => {
                w.flush()?;
                Ok(w)
            }
            Rows::Parquet(sink, mut w) => {
                sink.finish(&mut self.buf)?;
                w.write_all(&self.buf)?;
                w.flush()?;
                Ok(w)
            }
        }
    }

    fn header(&mut self, table: Table, kept: &[String]) -> io::Result<()> {
        self.tail = Tail {
            sources: false,
            kept: kept.to_vec(),
        };
        self.names = self.tail.names(table);
        match &mut self.out {
            Rows::Csv(w) => {
                let own = table.csv_names();
                let all = own
                    .iter()
                    .copied()
                    .chain(self.names.iter().map(String::as_str));
                w.write_record(all).map_err(io_error)
            }
            Rows::Jsonl(_) => Ok(()),
            Rows::Parquet(sink, _) => sink.start(table, self.names.clone()),
        }
    }

    /// One row: `row` as JSON, `cells` its own cells, `kept` its kept columns' cells.
    fn row<T: Serialize>(
        &mut self,
        table: Table,
        row: &T,
        cells: Vec<Cell<'_>>,
        kept: &[Option<&str>],
    ) -> io::Result<()> {
        let kept: Vec<Cell<'_>> = kept.iter().map(|k| Cell::Text(*k)).collect();
        if kept.len() != self.names.len() {
            return Err(io::Error::other(
                "a diff row whose kept columns are not the header's",
            ));
        }
        match &mut self.out {
            Rows::Csv(w) => {
                // As `map`'s rows: diff's own cells as they are, kept cells made safe
                // for a spreadsheet ([`spreadsheet_safe`]).
                let own = cells.iter().map(|c| match c {
                    Cell::Text(t) => std::borrow::Cow::Borrowed(t.unwrap_or("")),
                    Cell::Int(n) => n.map_or(String::new(), |n| n.to_string()).into(),
                });
                let kept = kept.iter().map(|c| match c {
                    Cell::Text(t) => spreadsheet_safe(t.unwrap_or("")),
                    Cell::Int(n) => n.map_or(String::new(), |n| n.to_string()).into(),
                });
                let all: Vec<std::borrow::Cow<'_, str>> = own.chain(kept).collect();
                w.write_record(all.iter().map(|c| c.as_ref()))
                    .map_err(io_error)
            }
            Rows::Jsonl(w) => {
                self.buf.clear();
                serde_json::to_writer(&mut self.buf, row)?;
                if !kept.is_empty() {
                    push_json_tail(&mut self.buf, &self.names, kept)?;
                }
                self.buf.push(b'\n');
                w.write_all(&self.buf)
            }
            Rows::Parquet(sink, w) => {
                self.buf.clear();
                sink.write_cells(table, &cells, &kept, &mut self.buf)?;
                w.write_all(&self.buf)
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
    fn start_policy_rows(&mut self, kept: &[String]) -> io::Result<()> {
        self.header(Table::DiffPolicies, kept)
    }
    fn policy_row(&mut self, row: &PolicyRow<'_>) -> io::Result<()> {
        self.row(Table::DiffPolicies, row, row.cells(), &row.kept)
    }
    fn start_inventory_rows(&mut self, kept: &[String]) -> io::Result<()> {
        self.header(Table::DiffInventories, kept)
    }
    fn inventory_row(&mut self, row: &InventoryRow<'_>) -> io::Result<()> {
        self.row(Table::DiffInventories, row, row.cells(), &row.kept)
    }
}

/// The kept columns of `diff --policy OLD NEW`: both sides' by name, OLD's in its order,
/// then those only NEW has (a name twice on a side is two columns); and for each side,
/// where each of them is in its records' cells (`None`: that side has no such column).
pub(crate) fn union_of_kept(sides: [&[String]; 2]) -> (Vec<String>, [Vec<Option<usize>>; 2]) {
    let [old, new] = sides;
    let mut names: Vec<String> = old.to_vec();
    let mut new_at: Vec<Option<usize>> = vec![None; names.len()];
    for (j, n) in new.iter().enumerate() {
        match (0..names.len()).find(|&i| names[i] == *n && new_at[i].is_none()) {
            Some(i) => new_at[i] = Some(j),
            None => {
                names.push(n.clone());
                new_at.push(Some(j));
            }
        }
    }
    let old_at = (0..names.len())
        .map(|i| (i < old.len()).then_some(i))
        .collect();
    (names, [old_at, new_at])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::{ColumnType, DIFF_INVENTORY_TABLE, DIFF_POLICY_TABLE};

    /// A cell and its column agree on the type, and the cell is the row's JSON field.
    fn agrees(json: &serde_json::Value, name: &str, cell: Cell<'_>, ty: ColumnType) -> bool {
        match cell {
            Cell::Text(t) => ty == ColumnType::Text && json[name] == serde_json::json!(t),
            Cell::Int(n) => ty == ColumnType::Int && json[name] == serde_json::json!(n),
        }
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_kept_columns_of_two_sides_are_their_union_by_name() {
        let (old, new) = (strings(&["a", "b", "a"]), strings(&["c", "a", "b"]));
        let (names, [o, n]) = union_of_kept([&old, &new]);
        assert_eq!(names, ["a", "b", "a", "c"]);
        assert_eq!(o, [Some(0), Some(1), Some(2), None]);
        assert_eq!(n, [Some(1), Some(2), None, Some(0)]);
        let (names, [o, n]) = union_of_kept([&[], &new]);
        assert_eq!(names, new);
        assert_eq!((o, n), (vec![None; 3], vec![Some(0), Some(1), Some(2)]));
    }

    /// The JSONL field order, the CSV header and the Parquet schema are one table.
    #[test]
    fn the_rows_columns_are_the_tables() {
        let own = |t: Table| -> Vec<&str> { t.columns().iter().map(|c| c.name).collect() };
        assert_eq!(own(Table::DiffPolicies), POLICY_COLUMNS);
        assert_eq!(own(Table::DiffInventories), INVENTORY_COLUMNS);
        assert_eq!(Table::DiffPolicies.csv_names(), POLICY_COLUMNS);
        assert_eq!(Table::DiffInventories.csv_names(), INVENTORY_COLUMNS);
        let p = PolicyRow {
            source: "s",
            line: 3,
            observed: "o",
            class: "changed",
            key_from: Some("f"),
            key_to: None,
            group: None,
            error_from: None,
            error_to: Some("E"),
            review: crate::rows::REVIEW,
            kept: vec![Some("k")],
        };
        let json = serde_json::to_value(&p).expect("json");
        let keys: Vec<&str> = json
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys.len(),
            POLICY_COLUMNS.len(),
            "kept cells are not fields"
        );
        for ((name, cell), col) in POLICY_COLUMNS.iter().zip(p.cells()).zip(DIFF_POLICY_TABLE) {
            assert!(agrees(&json, name, cell, col.ty), "{name}");
        }
        let i = InventoryRow {
            side: "old",
            source: "s",
            line: 1,
            observed: "o",
            class: "both",
            key: Some("k"),
            old_line: Some(1),
            new_line: Some(2),
            old_records: Some(3),
            new_records: None,
            spellings: Some("same"),
            error: None,
            review: crate::rows::REVIEW,
            kept: Vec::new(),
        };
        let json = serde_json::to_value(&i).expect("json");
        for ((name, cell), col) in INVENTORY_COLUMNS
            .iter()
            .zip(i.cells())
            .zip(DIFF_INVENTORY_TABLE)
        {
            assert!(agrees(&json, name, cell, col.ty), "{name}");
        }
    }
}
