//! The column tables, one per row type, from which every writer takes its columns: CSV/TSV
//! headers ([`Table::csv_names`]), the Parquet schema (`rows/parquet.rs`) and the JSONL
//! field order (the row structs' field order in `rows/record.rs`, which a test holds to the
//! table); and the tail columns after urlkey's own ([`Tail`]).

/// Which table a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// `urlkey key` records.
    Key,
    /// `urlkey map` rows.
    Map,
    /// `urlkey map --groups` rows.
    Groups,
    /// `urlkey diff --from P --to Q` rows.
    DiffPolicies,
    /// `urlkey diff --policy P OLD NEW` rows.
    DiffInventories,
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

use urlkey::fields;
use ColumnType::{Error as Err_, Int, IntList, Text, TextList, Transformations as Steps};

/// A column that is one of the core's outcome fields ([`urlkey::fields`]), by its name there.
const fn outcome(f: fields::Field) -> Column {
    renamed(f.name, f)
}

/// A column that is one of the core's outcome fields under the name the CLI released.
const fn renamed(name: &'static str, f: fields::Field) -> Column {
    let ty = match f.ty {
        fields::FieldType::Text => Text,
        fields::FieldType::TextList => TextList,
        fields::FieldType::Transformations => Steps,
    };
    col(name, ty, f.nullable)
}

/// The columns of `urlkey key` records: the record's own `line` and `observed`, then a
/// selection of the core's outcome fields ([`urlkey::fields::FIELDS`]) under the names the
/// CLI released. The renames and the fields left out are [`KEY_RENAMES`] and
/// [`KEY_LEFT_OUT`].
pub const KEY_TABLE: &[Column] = &[
    col("line", Int, false),
    col("observed", Text, false),
    outcome(fields::POLICY),
    outcome(fields::STATUS),
    outcome(fields::KEY),
    outcome(fields::CANONICAL),
    // `error_code` and `error_message` as one `{code, message}` column (KEY_RENAMES).
    Column {
        ty: Err_,
        ..renamed("error", fields::ERROR_CODE)
    },
    outcome(fields::TRANSFORMATIONS),
    outcome(fields::REMOVED_PARAMS),
    outcome(fields::FACTS),
    outcome(fields::PSL),
];

/// The released names of `urlkey key`'s columns that differ from the core's field names:
/// (released column, the core fields it holds).
pub const KEY_RENAMES: &[(&str, &[&str])] = &[("error", &["error_code", "error_message"])];

/// The core's outcome fields that `urlkey key` does not write (its output is released: a
/// new field joins it by a deliberate change of [`KEY_TABLE`], not by default).
pub const KEY_LEFT_OUT: &[&str] = &["host", "signature", "registrable_domain", "psl_version"];

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

/// The columns of `urlkey diff --from P --to Q` rows
/// ([`crate::diff::rows::POLICY_COLUMNS`]).
pub const DIFF_POLICY_TABLE: &[Column] = &[
    col("source", Text, false),
    col("line", Int, false),
    col("observed", Text, false),
    col("class", Text, false),
    col("key_from", Text, true),
    col("key_to", Text, true),
    col("group", Text, true),
    col("error_from", Text, true),
    col("error_to", Text, true),
    col("review", Text, false),
];

/// The columns of `urlkey diff --policy P OLD NEW` rows
/// ([`crate::diff::rows::INVENTORY_COLUMNS`]).
pub const DIFF_INVENTORY_TABLE: &[Column] = &[
    col("side", Text, false),
    col("source", Text, false),
    col("line", Int, false),
    col("observed", Text, false),
    col("class", Text, false),
    col("key", Text, true),
    col("old_line", Int, true),
    col("new_line", Int, true),
    col("old_records", Int, true),
    col("new_records", Int, true),
    col("spellings", Text, true),
    col("error", Text, true),
    col("review", Text, false),
];

impl Table {
    /// The table's columns, in order.
    pub fn columns(self) -> &'static [Column] {
        match self {
            Table::Key => KEY_TABLE,
            Table::Map => MAP_TABLE,
            Table::Groups => GROUP_TABLE,
            Table::DiffPolicies => DIFF_POLICY_TABLE,
            Table::DiffInventories => DIFF_INVENTORY_TABLE,
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
        // Diff rows always name their input in their own `source` column.
        Table::DiffPolicies | Table::DiffInventories => &[],
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// `urlkey key`'s table is the core's outcome table ([`urlkey::fields`]) through the
    /// rename and selection lists: same types and nullability, and every core field is
    /// written once or left out on purpose (a new core field fails here until it is placed).
    #[test]
    fn the_key_table_is_the_core_table_through_the_rename_list() {
        let own = ["line", "observed"];
        let mut placed: Vec<&str> = Vec::new();
        for c in KEY_TABLE.iter().filter(|c| !own.contains(&c.name)) {
            let sources: Vec<&str> = match KEY_RENAMES.iter().find(|(n, _)| *n == c.name) {
                Some((_, from)) => from.to_vec(),
                None => vec![c.name],
            };
            for name in &sources {
                let f = fields::by_name(name).unwrap_or_else(|| panic!("{name}: no core field"));
                assert_eq!(c.nullable, f.nullable, "{}", c.name);
                let ty = match f.ty {
                    fields::FieldType::Text if sources.len() > 1 => Err_,
                    fields::FieldType::Text => Text,
                    fields::FieldType::TextList => TextList,
                    fields::FieldType::Transformations => Steps,
                };
                assert_eq!(c.ty, ty, "{}", c.name);
            }
            placed.extend(sources);
        }
        placed.extend(KEY_LEFT_OUT);
        let mut core: Vec<&str> = fields::FIELDS.iter().map(|f| f.name).collect();
        placed.sort_unstable();
        core.sort_unstable();
        assert_eq!(placed, core);
    }
}
