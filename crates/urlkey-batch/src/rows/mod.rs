//! A row of urlkey's output, from birth to bytes: the row types and where rows go
//! ([`RowSink`]); the column tables every format takes its columns from; the builders of
//! `urlkey map`'s rows, which every pass-two path of a map run calls (`map/mod.rs`), and
//! with it the web page (through [`crate::map::MapRun::run_rows`]); the writers of CSV and
//! TSV, JSON Lines and Parquet.
//!
//! The files, each one concept, none using a file that uses it:
//!
//! | file | what |
//! |---|---|
//! | `columns.rs` | the column tables ([`Table`]) and the tail columns ([`Tail`]) |
//! | `record.rs` | the rows ([`KeyRecord`], [`MapRow`], [`GroupRow`]), the cells the whole input decides (`GroupCells`), [`RowSink`] |
//! | `build.rs` | a map row from its record and its keying, with its grouping cells from a `GroupLookup` |
//! | `kept.rs` | a CSV/TSV map row from what `urlkey map`'s first pass kept of its record |
//! | `csv.rs` | CSV and TSV cells, map rows encoded byte by byte |
//! | `parquet.rs` | the Parquet writer |
//! | `writer.rs` | [`RecordWriter`]: one output in one format |
//!
//! Nothing here knows how groups are found: the map engine (`map/grouping.rs`) answers
//! that through `GroupLookup`.

pub(crate) mod build;
mod columns;
pub(crate) mod csv;
pub(crate) mod kept;
mod parquet;
mod record;
mod writer;

pub(crate) use build::{group_row, keyed_row, outcome_row, GroupLookup};
pub use build::{outcome_of, LeanRow};
pub use columns::{
    Cell, Column, ColumnType, Table, Tail, DIFF_INVENTORY_TABLE, DIFF_POLICY_TABLE, GROUP_TABLE,
    KEY_LEFT_OUT, KEY_RENAMES, KEY_TABLE, MAP_TABLE,
};
pub(crate) use csv::join_names_into;
pub use csv::{join_names, spreadsheet_safe};
pub(crate) use kept::{
    damaged, push_kept_row, push_keyed_again, push_whole_row, Kept, RowShape, Sig,
};
pub use parquet::{ParquetSink, BATCH_ROWS, ROW_GROUP_ROWS};
pub(crate) use record::GroupCells;
pub use record::{Classification, GroupRow, KeyRecord, MapRow, RowSink, REVIEW};
pub(crate) use writer::push_json_tail;
pub use writer::{OutputFormat, RecordWriter};

#[cfg(test)]
mod tests;
