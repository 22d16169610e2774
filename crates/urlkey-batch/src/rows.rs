//! The rows urlkey writes, and one column table per row type from which every writer takes
//! its columns: CSV/TSV headers ([`Table::csv_names`]), the Parquet schema
//! (`crate::parquet_out`) and the JSONL field order (the structs' field order, which a test
//! holds to the table). Writers are [`RowSink`]s.

use std::io;

use serde::Serialize;
use urlkey::{Fact, Outcome, Transformation};

/// Which table a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// `urlkey key` records.
    Key,
    /// `urlkey map` rows.
    Map,
    /// `urlkey map --groups` rows.
    Groups,
}

/// The type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// A 64-bit integer (Parquet `int64`; Spark reads unsigned 64-bit columns as decimals).
    Int,
    /// UTF-8 text.
    Text,
    /// `{code, message}` (CSV: two columns, `error_code` and `error`).
    Error,
    /// A list of `{rule, component, before, after}` (CSV: the rule names, `;`-joined).
    Transformations,
    /// A list of texts (CSV: `;`-joined).
    TextList,
    /// A list of integers (CSV: `;`-joined).
    IntList,
}

/// One column of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The name in every format.
    pub name: &'static str,
    /// Its type.
    pub ty: ColumnType,
    /// Whether it can be null (empty in CSV).
    pub nullable: bool,
    /// Whether CSV/TSV has it (the map rows' details are JSONL and Parquet only).
    pub in_csv: bool,
}

impl Column {
    /// The CSV/TSV column names of this column.
    pub fn csv_names(&'static self) -> &'static [&'static str] {
        match (self.ty, self.in_csv) {
            (_, false) => &[],
            (ColumnType::Error, _) => &["error_code", "error"],
            _ => std::slice::from_ref(&self.name),
        }
    }
}

const fn col(name: &'static str, ty: ColumnType, nullable: bool) -> Column {
    Column {
        name,
        ty,
        nullable,
        in_csv: true,
    }
}

const fn detail(name: &'static str, ty: ColumnType) -> Column {
    Column {
        name,
        ty,
        nullable: true,
        in_csv: false,
    }
}

use ColumnType::{Error as Err_, Int, IntList, Text, TextList, Transformations as Steps};

/// The columns of `urlkey key` records.
pub const KEY_TABLE: &[Column] = &[
    col("line", Int, false),
    col("observed", Text, false),
    col("policy", Text, false),
    col("status", Text, false),
    col("key", Text, true),
    col("canonical", Text, true),
    col("error", Err_, true),
    col("transformations", Steps, false),
    col("removed_params", TextList, false),
    col("facts", TextList, false),
    col("psl", Text, true),
];

/// The columns of `urlkey map` rows.
pub const MAP_TABLE: &[Column] = &[
    col("line", Int, false),
    col("observed", Text, false),
    col("status", Text, false),
    col("key", Text, true),
    col("signature", Text, true),
    col("group", Int, true),
    col("duplicate_of", Int, true),
    col("duplicates", Int, true),
    col("variants", Int, true),
    col("classification", Text, false),
    col("removed_tracking", Text, false),
    col("error_code", Text, true),
    col("error", Text, true),
    col("review", Text, false),
    detail("transformations", Steps),
    detail("removed_params", TextList),
    detail("facts", TextList),
];

/// The columns of `urlkey map --groups` rows.
pub const GROUP_TABLE: &[Column] = &[
    col("group", Int, false),
    col("signature", Text, false),
    col("members", Int, false),
    col("distinct_keys", Int, false),
    col("classification", Text, false),
    col("sample_lines", IntList, false),
    col("review", Text, false),
];

impl Table {
    /// The table's columns, in order.
    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Key => KEY_TABLE,
            Table::Map => MAP_TABLE,
            Table::Groups => GROUP_TABLE,
        }
    }

    /// The CSV/TSV header (without tail columns).
    pub fn csv_names(self) -> Vec<&'static str> {
        self.columns()
            .iter()
            .flat_map(|c| c.csv_names().iter().copied())
            .collect()
    }
}

/// Where rows go: the text and Parquet writers ([`crate::output::RecordWriter`]), or a
/// caller's own collection (the web page's table).
pub trait RowSink: Send {
    /// Begins a table (a header, a schema); an empty input still gets one.
    fn start(&mut self, table: Table) -> io::Result<()>;
    /// One `urlkey key` record.
    fn key_record(&mut self, r: &KeyRecord<'_>) -> io::Result<()>;
    /// One `urlkey map` row.
    fn map_row(&mut self, r: &MapRow<'_>) -> io::Result<()>;
    /// One `urlkey map --groups` row.
    fn group_row(&mut self, g: &GroupRow) -> io::Result<()>;
}

/// What every exported row of `urlkey map` says (seed 000).
pub const REVIEW: &str = "MANUAL REVIEW REQUIRED";

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
    /// The input's name, when the run has more than one input (a [`Tail`] column).
    #[serde(skip)]
    pub source: Option<&'a str>,
    /// The kept columns' cells (a [`Tail`]).
    #[serde(skip)]
    pub kept: &'a [String],
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
            source: None,
            kept: &[],
        }
    }

    /// The same record with its source's name and kept cells.
    pub fn with_input(mut self, source: Option<&'a str>, kept: &'a [String]) -> Self {
        self.source = source;
        self.kept = kept;
        self
    }

    pub(crate) fn tail(&self) -> Vec<Cell<'_>> {
        let mut t = Vec::with_capacity(1 + self.kept.len());
        t.push(Cell::Text(self.source));
        t.extend(self.kept.iter().map(|k| Cell::Text(Some(k.as_str()))));
        t
    }
}

/// One tail cell ([`Tail`]): text (a string in JSONL and Parquet), or a number (a number
/// there, as urlkey's own number columns are); `None` is an empty cell (`null`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell<'a> {
    /// Text.
    Text(Option<&'a str>),
    /// A number.
    Int(Option<u64>),
}

/// The columns after urlkey's own in every row: when a run reads more than one input, the
/// record's input (`source`) and, in map rows, its line counted through the inputs
/// (`run_line`, the id that `group` and `duplicate_of` give) and the inputs of the records
/// that `group` and `duplicate_of` name; then the input's kept columns (`--keep-columns`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tail {
    /// The run reads more than one input: rows name theirs.
    pub sources: bool,
    /// The kept columns' names, as the input has them.
    pub kept: Vec<String>,
}

/// The source columns of each table.
fn source_columns(table: Table) -> &'static [&'static str] {
    match table {
        Table::Key => &["source"],
        Table::Map => &["source", "run_line", "group_source", "duplicate_of_source"],
        Table::Groups => &["group_source"],
    }
}

/// The tail columns that hold numbers ([`Cell::Int`]); every other is text.
const NUMBER_COLUMNS: &[&str] = &["run_line"];

impl Tail {
    /// Whether the tail column `name` (one of [`Tail::names`]) holds numbers: a source
    /// column's name only, since a kept column of that name is renamed `input:...`.
    pub fn is_number(name: &str) -> bool {
        NUMBER_COLUMNS.contains(&name)
    }

    /// The tail's column names in `table`; a kept column whose name is one of urlkey's
    /// gets the prefix `input:`.
    pub fn names(&self, table: Table) -> Vec<String> {
        let mut names: Vec<String> = if self.sources {
            source_columns(table)
                .iter()
                .map(|s| s.to_string())
                .collect()
        } else {
            Vec::new()
        };
        for k in &self.kept {
            let taken = table
                .columns()
                .iter()
                .any(|c| c.name == k || c.csv_names().contains(&k.as_str()))
                || source_columns(table).contains(&k.as_str())
                || names.contains(k);
            names.push(if taken {
                format!("input:{k}")
            } else {
                k.clone()
            });
        }
        names
    }

    /// The tail cells of a row whose every slot (sources first) is in `all`.
    pub(crate) fn cells<'a>(&self, table: Table, mut all: Vec<Cell<'a>>) -> Vec<Cell<'a>> {
        if !self.sources {
            all.drain(..source_columns(table).len().min(all.len()));
        }
        all
    }

    pub(crate) fn is_empty(&self) -> bool {
        !self.sources && self.kept.is_empty()
    }
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
    /// The signature group's id: the line of its first member (with several inputs, its
    /// `run_line`).
    pub group: Option<u64>,
    /// The line of the first record with the same key (none for that record itself; with
    /// several inputs, its `run_line`).
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
    /// The record's input, when the run has more than one (a [`Tail`] column).
    #[serde(skip)]
    pub source: Option<&'a str>,
    /// The record's line counted through the run's inputs, when it has more than one
    /// ([`crate::input::InputRecord::run_line`]; a [`Tail`] column).
    #[serde(skip)]
    pub run_line: Option<u64>,
    /// The input holding line `group`.
    #[serde(skip)]
    pub group_source: Option<&'a str>,
    /// The input holding line `duplicate_of`.
    #[serde(skip)]
    pub duplicate_of_source: Option<&'a str>,
    /// The kept columns' cells.
    #[serde(skip)]
    pub kept: &'a [String],
}

impl<'a> MapRow<'a> {
    /// Takes these grouping cells.
    pub(crate) fn set_groups(&mut self, c: crate::output::GroupCells<'a>) {
        self.group = c.group;
        self.duplicate_of = c.duplicate_of;
        self.duplicates = c.duplicates;
        self.variants = c.variants;
        self.classification = c.classification;
        self.group_source = c.group_source;
        self.duplicate_of_source = c.duplicate_of_source;
    }

    pub(crate) fn tail(&self) -> Vec<Cell<'_>> {
        let mut t = Vec::with_capacity(4 + self.kept.len());
        t.extend([
            Cell::Text(self.source),
            Cell::Int(self.run_line),
            Cell::Text(self.group_source),
            Cell::Text(self.duplicate_of_source),
        ]);
        t.extend(self.kept.iter().map(|k| Cell::Text(Some(k.as_str()))));
        t
    }
}

/// One row of `urlkey map --groups`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GroupRow {
    /// The group id: the line of its first member (with several inputs, its `run_line`).
    pub group: u64,
    /// The signature.
    pub signature: String,
    /// Records in the group.
    pub members: u64,
    /// Distinct keys in the group.
    pub distinct_keys: u64,
    /// `review`, `duplicate` or `unique`.
    pub classification: &'static str,
    /// Up to five members' lines (with several inputs, their `run_line`s).
    pub sample_lines: Vec<u64>,
    /// The input holding line `group`, when the run has more than one (a tail column).
    #[serde(skip)]
    pub group_source: Option<String>,
    /// Always `MANUAL REVIEW REQUIRED`.
    pub review: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of a JSON object's fields, in the order written.
    fn field_order(json: &str, table: Table) -> Vec<&'static str> {
        let mut found: Vec<(usize, &'static str)> = table
            .columns()
            .iter()
            .filter_map(|c| json.find(&format!("\"{}\":", c.name)).map(|i| (i, c.name)))
            .collect();
        found.sort();
        found.into_iter().map(|f| f.1).collect()
    }

    #[test]
    fn jsonl_fields_follow_the_column_tables() {
        let set = urlkey::PolicySet::builtin();
        let p = set.get("citation@1").expect("builtin");
        let o = p.key("https://a.example/x/?utm_source=y");
        let k = serde_json::to_string(&KeyRecord::new(1, "x", "citation@1", &o)).expect("json");
        let names: Vec<&str> = KEY_TABLE.iter().map(|c| c.name).collect();
        assert_eq!(field_order(&k, Table::Key), names);
        let row = MapRow {
            line: 1,
            observed: "x",
            status: "ok",
            key: Some("k"),
            signature: Some("s"),
            group: Some(1),
            duplicate_of: None,
            duplicates: Some(1),
            variants: Some(1),
            classification: "unique",
            removed_tracking: String::new(),
            error_code: None,
            error: None,
            review: REVIEW,
            transformations: Some(&o.transformations),
            removed_params: Some(&o.removed_params),
            facts: Some(&o.facts),
            source: None,
            run_line: None,
            group_source: None,
            duplicate_of_source: None,
            kept: &[],
        };
        let m = serde_json::to_string(&row).expect("json");
        let names: Vec<&str> = MAP_TABLE.iter().map(|c| c.name).collect();
        assert_eq!(field_order(&m, Table::Map), names);
        let g = GroupRow {
            group: 1,
            signature: "s".into(),
            members: 1,
            distinct_keys: 1,
            classification: "unique",
            sample_lines: vec![1],
            review: REVIEW,
            group_source: None,
        };
        let g = serde_json::to_string(&g).expect("json");
        let names: Vec<&str> = GROUP_TABLE.iter().map(|c| c.name).collect();
        assert_eq!(field_order(&g, Table::Groups), names);
    }

    #[test]
    fn csv_headers_come_from_the_tables() {
        assert_eq!(
            Table::Key.csv_names(),
            [
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
                "psl"
            ]
        );
        assert_eq!(Table::Map.csv_names().len(), 14);
        assert_eq!(Table::Map.csv_names().last(), Some(&"review"));
        assert_eq!(Table::Groups.csv_names().len(), GROUP_TABLE.len());
    }
}
